package matcher

import (
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Fold categories, for telling the model what had to be forgiven.
const (
	catQuotes = iota
	catDashes
	catSpaces
	catZeroWidth
	catEllipsis
	catUnicode
	catTrailing
	catInvalid
	nCats
)

var catNames = [nCats]string{
	"curly quotes", "dashes", "special spaces", "zero-width characters",
	"ellipses", "Unicode normalization", "trailing whitespace",
	"invalid UTF-8 bytes (shown as U+FFFD)",
}

type foldCounts [nCats]int

// folded is one line in its folded form. For every folded byte, start and end give the
// range of source bytes it came from (a whole NFKC segment), so any range of the folded
// line maps back to a range of the source line. Nil maps mean identity (an ASCII line).
type folded struct {
	text       []byte
	start, end []int32
	lead       int // folded bytes of leading whitespace (dropped by the indentation view)
}

// srcStart is the source offset where folded offset c starts.
func (f *folded) srcStart(c int) int {
	if f.start == nil {
		return c
	}
	if c < len(f.start) {
		return int(f.start[c])
	}
	if len(f.end) > 0 {
		return int(f.end[len(f.end)-1])
	}
	return 0
}

// srcEnd is the source offset where a folded range ending at c ends.
func (f *folded) srcEnd(c int) int {
	if f.start == nil {
		return c
	}
	if c > 0 {
		return int(f.end[c-1])
	}
	return f.srcStart(0)
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// foldLine folds one line (no line break inside): NFKC, typographic characters to ASCII,
// zero-width characters dropped, trailing spaces and tabs dropped. withMap forces the
// source maps even for ASCII lines. counts, if not nil, tallies what was folded.
func foldLine(src []byte, withMap bool, counts *foldCounts) folded {
	var f folded
	if isASCII(src) {
		n := len(src)
		for n > 0 && (src[n-1] == ' ' || src[n-1] == '\t') {
			n--
		}
		if counts != nil && n < len(src) {
			counts[catTrailing]++
		}
		f.text = src[:n:n]
		if withMap {
			f.start = make([]int32, n)
			f.end = make([]int32, n)
			for i := range n {
				f.start[i], f.end[i] = int32(i), int32(i+1)
			}
		}
		f.lead = leadWS(f.text)
		return f
	}
	f.text = make([]byte, 0, len(src))
	f.start = make([]int32, 0, len(src))
	f.end = make([]int32, 0, len(src))
	var it norm.Iter
	it.Init(norm.NFKC, src)
	var buf [utf8.UTFMax]byte
	for !it.Done() {
		from := it.Pos()
		seg := it.Next()
		to := it.Pos()
		if counts != nil && string(seg) != string(src[from:to]) {
			if string(src[from:to]) == "…" {
				counts[catEllipsis]++
			} else if isSpaceSeg(src[from:to]) {
				counts[catSpaces]++
			} else {
				counts[catUnicode]++
			}
		}
		for len(seg) > 0 {
			r, n := utf8.DecodeRune(seg)
			seg = seg[n:]
			if counts != nil && r == utf8.RuneError && n == 1 {
				counts[catInvalid]++
			}
			out, cat := foldRune(r)
			if counts != nil && cat >= 0 {
				counts[cat]++
			}
			if out == dropRune {
				continue
			}
			w := utf8.EncodeRune(buf[:], out)
			for k := range w {
				f.text = append(f.text, buf[k])
				f.start = append(f.start, int32(from))
				f.end = append(f.end, int32(to))
			}
		}
	}
	// norm.Iter may hand out a long decomposition (⒓ is "12.") in several parts, its
	// position advancing only with the last: the whole source segment is every part's.
	for i := len(f.end) - 2; i >= 0; i-- {
		if f.start[i] == f.start[i+1] && f.end[i] < f.end[i+1] {
			f.end[i] = f.end[i+1]
		}
	}
	n := len(f.text)
	for n > 0 && (f.text[n-1] == ' ' || f.text[n-1] == '\t') {
		n--
	}
	if counts != nil && n < len(f.text) {
		counts[catTrailing]++
	}
	f.text, f.start, f.end = f.text[:n], f.start[:n], f.end[:n]
	f.lead = leadWS(f.text)
	return f
}

// isSpaceSeg: NFKC turns NBSP and friends into a space; those count as spaces, not as
// Unicode normalization.
func isSpaceSeg(b []byte) bool {
	r, _ := utf8.DecodeRune(b)
	_, cat := foldRune(r)
	return cat == catSpaces
}

const dropRune = -1

// foldRune maps one rune (already NFKC) to its ASCII stand-in, reporting the category
// of the change, or -1 when the rune is kept.
func foldRune(r rune) (rune, int) {
	switch r {
	case '\u2018', '\u2019', '\u201A', '\u201B', '\u2032', '\u2035':
		return '\'', catQuotes
	case '\u201C', '\u201D', '\u201E', '\u201F', '\u2033', '\u2036', '\u00AB', '\u00BB':
		return '"', catQuotes
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212', '\uFE58', '\uFE63':
		return '-', catDashes
	case '\u00A0', '\u1680', '\u2000', '\u2001', '\u2002', '\u2003', '\u2004', '\u2005',
		'\u2006', '\u2007', '\u2008', '\u2009', '\u200A', '\u202F', '\u205F', '\u3000':
		return ' ', catSpaces
	case '\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF', '\u00AD':
		return dropRune, catZeroWidth
	}
	return r, -1
}

func leadWS(b []byte) int {
	n := 0
	for n < len(b) && (b[n] == ' ' || b[n] == '\t') {
		n++
	}
	return n
}

func leadWSString(s string) string {
	n := 0
	for n < len(s) && (s[n] == ' ' || s[n] == '\t') {
		n++
	}
	return s[:n]
}

package matcher

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// drift is what a fuzzily matched oldText teaches about the model's typing: for each
// non-ASCII character (an NFKC segment) the model typed in oldText, what the file has
// at the same place. newText is read through it, so a model that typed “ for the
// file's " writes " wherever its newText says “. ASCII is never translated: a model
// that types " means ", and changes towards ASCII are meant.
type drift struct {
	seen     map[string]map[string]int // model segment -> file text at that place -> count
	class    [nCats]bool               // categories the model drifted somewhere in oldText
	trailing bool                      // the model added trailing whitespace the file lacks
	made     map[string]string         // translations actually made, for the report
}

func newDrift() *drift {
	return &drift{seen: map[string]map[string]int{}, made: map[string]string{}}
}

func (dr *drift) add(model, file string) {
	m := dr.seen[model]
	if m == nil {
		m = map[string]int{}
		dr.seen[model] = m
	}
	m[file]++
	if file != model {
		if c := category(model); c >= 0 {
			dr.class[c] = true
		}
	}
}

// learn aligns one fuzzily matched line of the model's oldText with its file line
// through the fold maps. P is the model's line, pc where it sits in the file; both
// fold to the same text over the matched range.
func (m *matcher) learnDrift(dr *drift, v *view, P string, pc piece, atLineEnd bool) {
	O := m.d.content(pc.line)
	line := v.line(pc.line)
	fl := &line
	fp := foldLine([]byte(P), true, nil)
	lp, lf := 0, 0
	if v.indent {
		lp, lf = fp.lead, fl.lead
	}
	for x := 0; x < lp; x++ {
		// Leading whitespace the indentation tier ignored: a special space there stands
		// for a plain one.
		if seg := P[fp.start[x]:fp.end[x]]; !isASCII([]byte(seg)) {
			dr.add(seg, foldString(seg))
		}
	}
	for x := lp; x < len(fp.text); {
		ss, se := int(fp.start[x]), int(fp.end[x])
		x1 := x + 1
		for x1 < len(fp.text) && int(fp.start[x1]) == ss {
			x1++
		}
		seg := P[ss:se]
		if !isASCII([]byte(seg)) {
			fi0, fi1 := pc.base+x-lp+lf, pc.base+x1-lp+lf
			if fi1 <= len(fl.text) && segAligned(fl, fi0, fi1) {
				dr.add(seg, string(O[fl.srcStart(fi0):fl.srcEnd(fi1)]))
			} else {
				dr.add(seg, foldString(seg))
			}
		}
		x = x1
	}
	// Special spaces at the end of P were trimmed with the trailing whitespace: they
	// stand for plain spaces.
	tail := len(P)
	if len(fp.text) > 0 {
		tail = int(fp.end[len(fp.text)-1])
	} else if lp == 0 {
		tail = 0
	}
	for _, r := range P[min(tail, len(P)):] {
		if s := string(r); r >= utf8.RuneSelf && category(s) == catSpaces {
			dr.add(s, foldString(s))
		}
	}
	// Characters the fold drops (zero-width) leave no folded byte to align by: they
	// drifted when the file's line does not have them at all.
	for _, r := range P {
		if out, _ := foldRune(r); out == dropRune {
			s := string(r)
			if strings.Contains(string(O), s) {
				dr.add(s, s)
			} else {
				dr.add(s, "")
			}
		}
	}
	if atLineEnd {
		pt := P[len(strings.TrimRightFunc(P, trailingSpace)):]
		ft := O[len(strings.TrimRightFunc(string(O[:pc.e]), trailingSpace)):pc.e]
		if len(pt) > 0 && pt != string(ft) {
			dr.trailing = true
		}
	}
}

// trailingSpace tells a character that is trailing whitespace at the end of a line: a
// space, a tab, or a special space (NBSP, U+3000) that folds to one.
func trailingSpace(r rune) bool {
	return r == ' ' || r == '\t' || r >= utf8.RuneSelf && category(string(r)) == catSpaces
}

// segAligned reports whether folded range [i0, i1) of a file line covers whole source
// segments, so that its source bytes stand for exactly that folded text.
func segAligned(f *folded, i0, i1 int) bool {
	if f.start == nil {
		return true
	}
	if i0 >= i1 {
		return false
	}
	if i0 > 0 && f.start[i0-1] == f.start[i0] {
		return false
	}
	if i1 < len(f.text) && f.end[i1] == f.end[i1-1] {
		return false
	}
	return true
}

// translate writes text the model adds the way the file spells what the model drifted.
func (dr *drift) translate(s string) string {
	if dr == nil || isASCII([]byte(s)) {
		return s
	}
	var b strings.Builder
	var it norm.Iter
	it.InitString(norm.NFKC, s)
	for !it.Done() {
		from := it.Pos()
		it.Next()
		b.WriteString(dr.segment(s[from:it.Pos()]))
	}
	return b.String()
}

func (dr *drift) segment(seg string) string {
	if isASCII([]byte(seg)) {
		return seg
	}
	t, ok := dr.best(seg)
	if !ok {
		// Not seen in oldText: a quote or a special space stands for its category (“
		// typed for " there, ” here), but a dash not typed there is another character
		// than the one the model drifted: "–" typed for "-" says nothing of a "—" in a
		// new comment.
		c := category(seg)
		if c < 0 || !dr.class[c] || c == catDashes {
			return seg // not drifted: written as sent
		}
		t = foldString(seg)
	}
	if t != seg {
		dr.made[seg] = t
	}
	return t
}

// best is the file text the model's segment stood for most often; on a tie, the
// folded form (what the fold itself says the character means).
func (dr *drift) best(seg string) (string, bool) {
	m := dr.seen[seg]
	if len(m) == 0 {
		return "", false
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fold := foldString(seg)
	best := keys[0]
	for _, k := range keys[1:] {
		if m[k] > m[best] || (m[k] == m[best] && k == fold) {
			best = k
		}
	}
	return best, true
}

// trimAdded applies the trailing-whitespace drift to an added line.
func (dr *drift) trimAdded(s string) string {
	if dr == nil || !dr.trailing {
		return s
	}
	return strings.TrimRightFunc(s, trailingSpace)
}

// notes describes the translations made, for the reply ("“ ” written as ").
func (dr *drift) notes() []string {
	if dr == nil || len(dr.made) == 0 {
		return nil
	}
	by := map[string][]string{}
	for from, to := range dr.made {
		by[to] = append(by[to], from)
	}
	targets := make([]string, 0, len(by))
	for t := range by {
		targets = append(targets, t)
	}
	sort.Strings(targets)
	var out []string
	for _, t := range targets {
		froms := by[t]
		sort.Strings(froms)
		var q []string
		for _, f := range froms {
			q = append(q, showChar(f))
		}
		if t == "" {
			out = append(out, strings.Join(q, " ")+" in newText dropped, as the file does not have them")
			continue
		}
		out = append(out, strings.Join(q, " ")+" in newText written as the file's "+showChar(t))
	}
	return out
}

// showChar names a character so that a reader can tell look-alikes apart.
func showChar(s string) string {
	if len(s) == 1 && s[0] >= 0x80 {
		return fmt.Sprintf("byte 0x%02X", s[0])
	}
	if r, n := utf8.DecodeRuneInString(s); n == len(s) {
		switch {
		case r == utf8.RuneError:
			return "U+FFFD"
		case r == ' ':
			return "' '"
		case r > 0x7f && (category(s) == catSpaces || category(s) == catZeroWidth):
			return fmt.Sprintf("U+%04X", r)
		}
	}
	return "'" + s + "'"
}

// category is the fold category of a model segment, or -1 when folding keeps it.
func category(seg string) int {
	var c foldCounts
	foldLine([]byte(seg), false, &c)
	for k := range nCats {
		if k != catTrailing && c[k] > 0 {
			return k
		}
	}
	return -1
}

// foldString folds text as foldLine does, without trimming whitespace.
func foldString(s string) string {
	var b []byte
	var it norm.Iter
	it.InitString(norm.NFKC, s)
	for !it.Done() {
		seg := it.Next()
		for len(seg) > 0 {
			r, n := utf8.DecodeRune(seg)
			seg = seg[n:]
			if out, _ := foldRune(r); out != dropRune {
				b = utf8.AppendRune(b, out)
			}
		}
	}
	return string(b)
}

package matcher

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// notFound explains a missing oldText: the closest region of the file, the first line
// that differs there as the file has it (aligned, so that a line oldText adds or leaves
// out is named as such), and the usual causes.
func (m *matcher) notFound(i int, old string) *Refusal {
	var hints []string
	if !m.foldable() {
		msg := fmt.Sprintf("edits[%d]: oldText was not found in %s, which is over %d bytes: such a file is matched exactly, with no quotes, spaces or indentation forgiven. Re-read the lines and copy oldText exactly from the file's current content.", i, m.name, MaxFoldBytes)
		return &Refusal{Kind: KindTextNotFound, Message: msg, Where: &errs.Where{Edit: i}}
	}
	if strings.Contains(old, `\n`) && !strings.Contains(old, "\n") {
		unesc := strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\"`, `"`).Replace(old)
		if _, p, occ := m.find([]Tier{TierExact, TierTypography, TierIndentation}, splitLF(unesc), 1); len(occ) > 0 {
			l, _ := m.view(p.tier).locate(occ[0].from)
			hints = append(hints, fmt.Sprintf(`oldText holds literal \n escapes (a backslash and an n) where the file has line breaks; read as line breaks it is found at line %d. Send real line breaks: one \n in the JSON string, not \\n`, l+1))
		} else if !strings.Contains(string(m.d.body), `\n`) {
			hints = append(hints, `oldText holds literal \n escapes (backslash, n) but no real line breaks: send real line breaks in the JSON string`)
		}
	}
	pieces := splitLF(old)
	if len(pieces) > 1 && pieces[len(pieces)-1] == "" {
		pieces = pieces[:len(pieces)-1]
	}
	msg := fmt.Sprintf("edits[%d]: oldText was not found in %s.", i, m.name)
	var lines []int
	closeness := 0.0
	if best, ok := m.closest(pieces); ok {
		from, to, d := m.explain(best, pieces)
		lines = []int{from + 1, to}
		// How close: the share of oldText's lines that the region holds, loosely.
		in := map[string]bool{}
		for l := from; l < to; l++ {
			in[m.looseLine(l)] = true
		}
		found := 0
		for _, p := range pieces {
			if in[looseKey(foldLine([]byte(p), false, nil).text)] {
				found++
			}
		}
		closeness = float64(found) / float64(len(pieces))
		region := fmt.Sprintf("line %d", from+1)
		if to > from+1 {
			region = fmt.Sprintf("lines %d-%d", from+1, to)
		}
		msg += fmt.Sprintf(" The closest region is %s", region)
		if d != "" {
			msg += "; " + d
		}
		msg += "."
		for l := from; l < to; l++ {
			if !utf8.Valid(m.d.content(l)) {
				hints = append(hints, fmt.Sprintf("line %d is not valid UTF-8; read_file shows each invalid byte as U+FFFD, and U+FFFD in oldText matches one, so copy the line as read_file shows it", l+1))
				break
			}
		}
	}
	if len(hints) > 0 {
		msg += " Note: " + strings.Join(hints, "; ") + "."
	}
	msg += " Re-read the file and copy oldText exactly from its current content."
	return &Refusal{Kind: KindTextNotFound, Message: msg, Where: &errs.Where{Edit: i, Lines: lines, Closeness: closeness}}
}

// lineDiff names how oldText's line differs from the file's, for the usual causes.
func lineDiff(file []byte, old string) string {
	has := fmt.Sprintf("where the file has %s and oldText has %s", quoteLine(file), quoteLine([]byte(old)))
	fk, ok := foldLine(file, false, nil), foldLine([]byte(old), false, nil)
	noWS := func(s []byte) string { return strings.NewReplacer(" ", "", "\t", "").Replace(string(s)) }
	switch {
	case string(fk.text[fk.lead:]) == string(ok.text[ok.lead:]):
		return has + ": only the indentation differs"
	case strings.EqualFold(string(fk.text), string(ok.text)):
		return has + ": only letter case differs, and matching never ignores case; copy the line's letters as they are"
	case noWS(fk.text) == noWS(ok.text):
		what := "spaces and tabs differ inside the line"
		if strings.Contains(string(file[leadWS(file):]), "\t") != strings.Contains(old[len(leadWSString(old)):], "\t") {
			what = "the file has a tab where oldText has spaces, or the reverse, inside the line"
		}
		return has + ": " + what + "; copy the line's whitespace exactly"
	}
	return has
}

// closest finds where oldText most nearly sits: each of its lines votes, through the
// file lines equal to it loosely (folded, without spaces and tabs, in lower case), for
// an alignment of oldText against the file; the alignment with the most voted bytes
// wins. It returns that alignment's first file line.
func (m *matcher) closest(pieces []string) (int, bool) {
	if len(pieces) == 0 {
		return 0, false
	}
	want := make(map[string][]int) // loose oldText line -> piece indexes
	loose := make([]string, len(pieces))
	folded := make([]string, len(pieces))
	for k, s := range pieces {
		f := foldLine([]byte(s), false, nil)
		folded[k] = string(f.text[f.lead:])
		loose[k] = looseKey(f.text)
		if len(loose[k]) >= 2 {
			want[loose[k]] = append(want[loose[k]], k)
		}
	}
	if len(want) == 0 {
		return m.closestByPrefix(folded)
	}
	votes := make(map[int]int)
	for l := range m.d.nlines() {
		if ks, ok := want[m.looseLine(l)]; ok {
			for _, k := range ks {
				if l-k >= 0 {
					votes[l-k] += len(loose[k])
				}
			}
		}
	}
	best, bestV := -1, 0
	for from, n := range votes {
		if n > bestV || (n == bestV && from < best) {
			best, bestV = from, n
		}
	}
	if best < 0 {
		return m.closestByPrefix(folded)
	}
	// Near-duplicate code (a run of small functions) gives several alignments the same
	// votes: the one whose other lines are nearest to oldText's, character by
	// character, is where the model copied from.
	var ties []int
	for from, n := range votes {
		if n == bestV {
			ties = append(ties, from)
		}
	}
	if len(ties) > 1 && len(ties) <= 32 {
		sort.Ints(ties)
		bestD := -1
		for _, from := range ties {
			d := 0
			for k := range loose {
				if l := from + k; l < m.d.nlines() {
					d += editDistance(loose[k], m.looseLine(l))
				} else {
					d += len(loose[k])
				}
			}
			if bestD < 0 || d < bestD {
				best, bestD = from, d
			}
		}
	}
	return best, true
}

// editDistance is the Levenshtein distance of a and b in bytes, for lines: longer
// inputs are compared on their first 256 bytes.
func editDistance(a, b string) int {
	a, b = a[:min(len(a), 256)], b[:min(len(b), 256)]
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c = 1 + min(prev[j-1], prev[j], cur[j-1])
			}
			cur[j] = c
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// looseKey is a folded line without spaces and tabs, in lower case: how the
// not-found hint pairs lines that differ only in those.
func looseKey(b []byte) string {
	out := make([]byte, 0, len(b))
	ascii := true
	for _, c := range b {
		switch {
		case c == ' ' || c == '\t':
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case c >= 0x80:
			ascii = false
		}
		out = append(out, c)
	}
	if !ascii {
		return strings.ToLower(string(out))
	}
	return string(out)
}

// looseLine is line l's looseKey, computed once per matcher.
func (m *matcher) looseLine(l int) string {
	if m.loose == nil {
		m.loose = make([]string, m.d.nlines())
		v := m.view(TierIndentation)
		for i := range m.loose {
			m.loose[i] = looseKey(v.line(i).text)
		}
	}
	return m.loose[l]
}

// explain aligns oldText's lines with the file's around line from (folded, ignoring
// indentation) and returns the region they cover and what the first difference is.
// Two windows are tried: one from a few lines before from (so that a line oldText
// leaves out near its start is seen) and one from from itself (so that an earlier copy
// of a common first line, a "}" or a "return nil", cannot pull the region up). The
// alignment with more lines equal wins, then the one covering fewer file lines, then the one starting at from.
func (m *matcher) explain(from int, pieces []string) (int, int, string) {
	f1, l1, d1, eq1 := m.explainIn(max(0, from-len(pieces)-2), from, pieces)
	f2, l2, d2, eq2 := m.explainIn(from, from, pieces)
	if eq2 > eq1 || (eq2 == eq1 && l2-f2 <= l1-f1) {
		return f2, l2, d2
	}
	return f1, l1, d1
}

// explainIn is explain with the file window starting at line lo; it also returns how
// many of oldText's lines the alignment pairs with equal file lines.
func (m *matcher) explainIn(lo, from int, pieces []string) (int, int, string, int) {
	first, last, d, hunks := m.explainWindow(lo, from, pieces)
	eq := 0
	for _, h := range hunks {
		if h.equal {
			eq += h.i2 - h.i1
		}
	}
	return first, last, d, eq
}

// explainWindow aligns oldText loosely with the file's lines from lo and returns the
// region it stands for (first and last line, a half-open range) and where it first
// differs; it never reads past the window after from.
func (m *matcher) explainWindow(lo, from int, pieces []string) (int, int, string, []hunk) {
	hi := min(m.d.nlines(), from+2*len(pieces)+8)
	fileKeys := make([]string, 0, hi-lo)
	for l := lo; l < hi; l++ {
		fileKeys = append(fileKeys, m.looseLine(l))
	}
	oldKeys := make([]string, len(pieces))
	for k, s := range pieces {
		oldKeys[k] = looseKey(foldLine([]byte(s), false, nil).text)
	}
	hunks := diffLines(oldKeys, fileKeys)
	aligned := false
	for _, h := range hunks {
		aligned = aligned || h.equal
	}
	if !aligned {
		// No line of oldText is in the file even loosely (a region found by a line's
		// start): compare line by line from there.
		to := min(m.d.nlines(), from+len(pieces))
		for k, s := range pieces {
			if l := from + k; l < to && string(m.d.content(l)) != s && strings.TrimSpace(s) != "" {
				return from, to, fmt.Sprintf("it first differs at line %d, %s", l+1, lineDiff(m.d.content(l), s)), hunks
			}
		}
		return from, to, "", hunks
	}
	// The region: from the file line aligned with oldText's first line to the one
	// aligned with its last; file lines outside it are only the window.
	for len(hunks) > 0 && !hunks[0].equal && hunks[0].i1 == hunks[0].i2 {
		hunks = hunks[1:]
	}
	for n := len(hunks); n > 0 && !hunks[n-1].equal && hunks[n-1].i1 == hunks[n-1].i2; n = len(hunks) {
		hunks = hunks[:n-1]
	}
	if len(hunks) == 0 {
		return from, min(m.d.nlines(), from+len(pieces)), "", hunks
	}
	first, last := lo+hunks[0].j1, lo+hunks[len(hunks)-1].j2
	if h := hunks[len(hunks)-1]; !h.equal {
		// A changed tail covers as many file lines as oldText has there.
		last = lo + h.j1 + min(h.j2-h.j1, max(1, h.i2-h.i1))
	}
	if last <= first {
		last = first + 1
	}
	last = min(last, m.d.nlines())
	return first, last, m.firstDifference(lo, first, pieces, hunks), hunks
}

// firstDifference says where oldText first differs from the region aligned with it
// from file line lo (first is the region's first line): a line that differs, one only
// oldText has, or one it leaves out; "" where no line differs.
func (m *matcher) firstDifference(lo, first int, pieces []string, hunks []hunk) string {
	for _, h := range hunks {
		if h.equal {
			// Loosely equal; a difference in case or whitespace is still a difference.
			for k := h.i1; k < h.i2; k++ {
				l := lo + h.j1 + (k - h.i1)
				if fk := foldLine(m.d.content(l), false, nil); string(fk.text[fk.lead:]) != foldedNoLead(pieces[k]) {
					return fmt.Sprintf("it first differs at line %d, %s", l+1, lineDiff(m.d.content(l), pieces[k]))
				}
			}
			continue
		}
		switch {
		case h.j1 == h.j2:
			return fmt.Sprintf("oldText has a line the file does not have there: its line %d, %s, after line %d", h.i1+1, quoteLine([]byte(pieces[h.i1])), lo+h.j1)
		case h.i1 == h.i2:
			return fmt.Sprintf("the file has line %d, %s, which oldText leaves out between its lines %d and %d",
				lo+h.j1+1, quoteLine(m.d.content(lo+h.j1)), h.i1, h.i1+1)
		default:
			return fmt.Sprintf("it first differs at line %d, %s", lo+h.j1+1, lineDiff(m.d.content(lo+h.j1), pieces[h.i1]))
		}
	}
	// Equal after folding line by line, yet not found: the difference is in
	// indentation or in a part-line match at the region's edges.
	for k, s := range pieces {
		if l := first + k; l < m.d.nlines() && string(m.d.content(l)) != s {
			return fmt.Sprintf("it first differs at line %d, %s", l+1, lineDiff(m.d.content(l), s))
		}
	}
	return ""
}

// SameLoosely reports whether a file's line and a model's line are the same as the
// matcher forgives them, line by line: after folding typography and trailing spaces,
// and ignoring indentation. A caller that explains where a model's lines differ from
// the file names the first line that differs beyond that.
func SameLoosely(fileLine, modelLine string) bool {
	return foldedNoLead(fileLine) == foldedNoLead(modelLine)
}

func foldedNoLead(s string) string {
	f := foldLine([]byte(s), false, nil)
	return string(f.text[f.lead:])
}

func quoteLine(b []byte) string {
	s := string(b)
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return fmt.Sprintf("%q", s)
}

// closestByPrefix is the fallback when no line of oldText occurs in the file: the file
// line sharing the longest start with oldText's first non-blank line, if that start is
// at least half of it (and 4 bytes). Only a hint for the message; never a match.
func (m *matcher) closestByPrefix(folded []string) (int, bool) {
	k := 0
	for k < len(folded) && folded[k] == "" {
		k++
	}
	if k == len(folded) {
		return 0, false
	}
	want := folded[k]
	v := m.view(TierIndentation)
	best, bestN := -1, max(4, (len(want)+1)/2)-1
	for l := range v.nlines() {
		f := v.line(l)
		if n := commonPrefix(string(f.text[f.lead:]), want); n > bestN {
			best, bestN = l, n
		}
	}
	if best < k {
		return 0, false
	}
	return best - k, true
}

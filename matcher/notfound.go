package matcher

import (
	"fmt"
	"strings"
)

// notFound explains a missing oldText: the closest region of the file, the first line
// that differs there as the file has it, and the usual causes.
func (m *matcher) notFound(i int, old string) error {
	var hints []string
	if strings.Contains(old, `\n`) && !strings.Contains(old, "\n") && !strings.Contains(string(m.d.body), `\n`) {
		hints = append(hints, `oldText holds literal \n escapes (backslash, n) but no real line breaks: send real line breaks in the JSON string`)
	}
	pieces := splitLF(old)
	if len(pieces) > 1 && pieces[len(pieces)-1] == "" {
		pieces = pieces[:len(pieces)-1]
	}
	msg := fmt.Sprintf("edits[%d]: oldText was not found in %s.", i, m.name)
	var lines []int
	if from, at, ok := m.closest(pieces); ok {
		n := len(pieces)
		if from+n > m.d.nlines() {
			n = m.d.nlines() - from
		}
		lines = []int{from + 1, from + n}
		region := fmt.Sprintf("line %d", from+1)
		if n > 1 {
			region = fmt.Sprintf("lines %d-%d", from+1, from+n)
		}
		if at >= 0 && from+at < m.d.nlines() {
			msg += fmt.Sprintf(" The closest region is %s; it first differs at line %d, where the file has %s and oldText has %s.",
				region, from+at+1, quoteLine(m.d.content(from+at)), quoteLine([]byte(pieces[at])))
		} else {
			msg += fmt.Sprintf(" The closest region is %s.", region)
		}
	}
	if len(hints) > 0 {
		msg += " Note: " + strings.Join(hints, "; ") + "."
	}
	msg += " Re-read the file and copy oldText exactly from its current content."
	return &Refusal{Kind: KindTextNotFound, Edit: i, Lines: lines, Message: msg}
}

// closest finds where oldText most nearly sits: each of its lines votes, through the
// file lines equal to it after folding and ignoring indentation, for an alignment of
// oldText against the file; the alignment with the most voted bytes wins. It returns
// the first file line of that region and the index of the first oldText line that
// differs there (-1 when all lines are equal after folding).
func (m *matcher) closest(pieces []string) (int, int, bool) {
	if len(pieces) == 0 || !m.validUTF8() {
		return 0, -1, false
	}
	v := m.view(TierIndentation)
	norm := func(l int) string {
		f := v.lines[l]
		return string(f.text[f.lead:])
	}
	want := make(map[string][]int) // folded oldText line -> piece indexes
	folded := make([]string, len(pieces))
	for k, s := range pieces {
		f := foldLine([]byte(s), false, nil)
		folded[k] = string(f.text[f.lead:])
		if len(folded[k]) >= 2 {
			want[folded[k]] = append(want[folded[k]], k)
		}
	}
	if len(want) == 0 {
		return m.closestByPrefix(folded)
	}
	votes := make(map[int]int)
	for l := range m.d.nlines() {
		if ks, ok := want[norm(l)]; ok {
			for _, k := range ks {
				if l-k >= 0 {
					votes[l-k] += len(folded[k])
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
	for k := range pieces {
		if best+k >= m.d.nlines() || norm(best+k) != folded[k] {
			return best, k, true
		}
	}
	// Equal after folding line by line, yet not found: the difference is in
	// indentation or in a part-line match at the region's edges.
	for k, s := range pieces {
		if best+k < m.d.nlines() && string(m.d.content(best+k)) != s {
			return best, k, true
		}
	}
	return best, -1, true
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
func (m *matcher) closestByPrefix(folded []string) (int, int, bool) {
	k := 0
	for k < len(folded) && folded[k] == "" {
		k++
	}
	if k == len(folded) {
		return 0, -1, false
	}
	want := folded[k]
	v := m.view(TierIndentation)
	best, bestN := -1, max(4, (len(want)+1)/2)-1
	for l := range v.lines {
		f := v.lines[l]
		if n := commonPrefix(string(f.text[f.lead:]), want); n > bestN {
			best, bestN = l, n
		}
	}
	if best < k {
		return 0, -1, false
	}
	return best - k, k, true
}

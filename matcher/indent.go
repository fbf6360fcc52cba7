package matcher

import (
	"fmt"
	"strings"

	"github.com/vfsctl/vfsctl/internal/errs"
)

const tabWidth = 4

// width is the column width of leading whitespace, a tab counting tabWidth.
func width(ws string) int {
	w := 0
	for i := 0; i < len(ws); i++ {
		if ws[i] == '\t' {
			w += tabWidth
		} else {
			w++
		}
	}
	return w
}

// indentUnit is the file's unit of indentation: a tab, or its usual run of spaces.
func (m *matcher) indentUnit() string {
	if m.unit != "" {
		return m.unit
	}
	tabs, spaces := 0, 0
	hist := map[int]int{}
	prev := -1
	for i := range m.d.nlines() {
		c := m.d.content(i)
		lead := leadWS(c)
		if lead == len(c) {
			continue // blank lines say nothing
		}
		switch c[0] {
		case '\t':
			tabs++
		case ' ':
			spaces++
		}
		w := width(string(c[:lead]))
		if prev >= 0 && w > prev && w-prev <= 8 {
			hist[w-prev]++
		}
		prev = w
	}
	if tabs > spaces {
		m.unit = "\t"
		return m.unit
	}
	best, bestN := 4, 0
	for u := 1; u <= 8; u++ {
		if hist[u] > bestN {
			best, bestN = u, hist[u]
		}
	}
	m.unit = strings.Repeat(" ", best)
	return m.unit
}

// reindent re-expresses the model's indentation in the file's. A line is placed
// relative to an anchor, a line of oldText paired with a file line: the file's
// indentation of the anchor, plus the model's offset from the anchor in levels of the
// file's unit.
type reindent struct {
	unit      string         // the file's unit
	modelUnit int            // model columns per level
	modelW    []int          // the model's indentation width of each piece of oldText
	fileInd   []string       // the file's indentation of each piece's line
	valid     []bool         // a non-blank piece on a file line
	paired    []bool         // the piece pairs with a line of newText
	base      int            // the first valid piece, or -1
	modelInd  []string       // the model's indentation of each piece
	q         []string       // the model's new lines
	runs      map[int][]bool // ownRuns of each hunk, by its j1
	// style is the file's indentation character on the lines oldText quotes (most
	// of them), else its unit's; otherStyle: the model quoted them in the other one.
	style      byte
	otherStyle bool
}

func (m *matcher) newReindent(pcs []piece, P, Q []string, paired []bool) *reindent {
	r := &reindent{unit: m.indentUnit(), base: -1, paired: paired, q: Q, runs: map[int][]bool{},
		modelW: make([]int, len(P)), fileInd: make([]string, len(P)), modelInd: make([]string, len(P)), valid: make([]bool, len(P))}
	for i, s := range P {
		if strings.TrimSpace(s) == "" || pcs[i].line >= m.d.nlines() {
			continue
		}
		fc := m.d.content(pcs[i].line)
		r.valid[i] = true
		r.modelW[i] = width(leadWSString(s))
		r.fileInd[i] = string(fc[:leadWS(fc)])
		r.modelInd[i] = leadWSString(s)
		if r.base < 0 {
			r.base = i
		}
	}
	r.learnStyle(P)
	if r.base < 0 {
		r.modelUnit = tabWidth
		return r
	}
	unitW := width(r.unit)
	fileLevel := func(i int) int { return width(r.fileInd[i]) / unitW }
	// Learn the model's unit from matched lines whose file levels differ.
	for i := range P {
		if i == r.base || !r.valid[i] {
			continue
		}
		dl := fileLevel(i) - fileLevel(r.base)
		dw := r.modelW[i] - r.modelW[r.base]
		if dl != 0 && dw != 0 && dw%dl == 0 && dw/dl > 0 {
			r.modelUnit = dw / dl
			break
		}
	}
	if r.modelUnit == 0 {
		// Else the gcd of the model's own indentation steps.
		g := 0
		for _, set := range [][]string{P, Q} {
			for _, s := range set {
				if strings.TrimSpace(s) == "" {
					continue
				}
				dw := width(leadWSString(s)) - r.modelW[r.base]
				if dw < 0 {
					dw = -dw
				}
				g = gcd(g, dw)
			}
		}
		if g == 0 {
			g = tabWidth
		}
		r.modelUnit = g
	}
	return r
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// anchor is the piece that added lines of hunk h are placed against: the nearest
// paired non-blank piece before the hunk, else after it, else the first one.
func (r *reindent) anchor(h hunk) int {
	for i := h.i1 - 1; i >= 0; i-- {
		if r.valid[i] && r.paired[i] {
			return i
		}
	}
	for i := h.i2; i < len(r.valid); i++ {
		if r.valid[i] && r.paired[i] {
			return i
		}
	}
	return r.base
}

// at is the file-style indentation for a model line of width w placed against piece a.
func (r *reindent) at(a, w int) string {
	if a < 0 {
		return strings.Repeat(" ", w)
	}
	delta := w - r.modelW[a]
	levels, rem := delta/r.modelUnit, delta%r.modelUnit
	if rem < 0 {
		levels--
		rem += r.modelUnit
	}
	ind := r.fileInd[a]
	if levels >= 0 {
		ind += strings.Repeat(r.unit, levels)
	} else {
		for ; levels < 0 && ind != ""; levels++ {
			if strings.HasSuffix(ind, r.unit) {
				ind = ind[:len(ind)-len(r.unit)]
			} else {
				ind = ind[:len(ind)-1]
			}
		}
	}
	return ind + strings.Repeat(" ", rem)
}

// learnStyle finds the file's indentation style on the quoted lines, and whether the
// model quoted them in the other style.
func (r *reindent) learnStyle(P []string) {
	n := map[byte]int{}
	for i := range P {
		if r.valid[i] {
			n[styleOf(r.fileInd[i])]++
		}
	}
	r.style = r.unit[0]
	if n[' '] > n['\t'] {
		r.style = ' '
	} else if n['\t'] > n[' '] {
		r.style = '\t'
	}
	for i := range P {
		if ms := styleOf(r.modelInd[i]); r.valid[i] && ms != 0 && ms != r.style {
			r.otherStyle = true
		}
	}
}

// own tells the indentation ws of a new line placed against piece a as the model's
// own, kept as sent: where the model quoted the file in another style than the file's
// (spaces where the file has tabs, or the reverse), a line it indented in the file's
// style was written for the file. The style is the anchor line's, else the quoted
// lines': files that mix both are common. (A line in the model's other style is
// re-indented: it may be a context line that the diff of oldText and newText paired
// otherwise.)
func (r *reindent) own(ws string, a int) bool {
	if ws == "" {
		return false
	}
	fs, quotedOther := r.style, r.otherStyle
	if a >= 0 {
		if s := styleOf(r.fileInd[a]); s != 0 {
			fs = s
		}
		if ms := styleOf(r.modelInd[a]); ms != 0 {
			quotedOther = ms != fs
		}
	}
	// A tab in a line of a model that quoted the file's tabs as spaces is its own too
	// (tabs, then spaces that align).
	return quotedOther && (styleOf(ws) == fs || fs == '\t' && ws[0] == '\t')
}

// quotedAsIs tells the indentation ws of a new line in place of old pieces [i1, i2)
// (none, for a line inserted) as the file's own there: the nearest indented line
// oldText quotes around them (the closest before, else after) has the same
// indentation in oldText as in the file, and in ws's style. The model then wrote the
// file's indentation at this place, as sent; elsewhere it may have sent the file's
// tabs as spaces. Lines indented with spaces in a tab-indented file (the text of a Go
// raw string, a heredoc) are quoted so, and a line added or changed among them is
// indented as they are. The lines replaced say nothing: their indentation is what the
// change may mend.
func (r *reindent) quotedAsIs(ws string, i1, i2 int) bool {
	if ws == "" {
		return false
	}
	n := -1
	for d := 0; n < 0 && (i1-1-d >= 0 || i2+d < len(r.valid)); d++ {
		if r.indented(i1 - 1 - d) {
			n = i1 - 1 - d
		} else if r.indented(i2 + d) {
			n = i2 + d
		}
	}
	return n >= 0 && r.modelInd[n] == r.fileInd[n] && styleOf(ws) == styleOf(r.fileInd[n])
}

// indented tells a piece oldText quotes whose file line is indented.
func (r *reindent) indented(i int) bool {
	return i >= 0 && i < len(r.valid) && r.valid[i] && r.fileInd[i] != ""
}

// ownRuns tells which lines hunk h adds are the model's own though indented in the
// other style than the file's (spaces where it has tabs), by the hunk's index: where
// the model indented some of the hunk's lines in the file's style (own), a run of its
// other lines (up to the next line in the file's style) in which some line's
// indentation is not a whole number of the model's levels from the anchor is text
// indented with spaces (a string of JavaScript among Go code in tabs), not the file's
// tabs sent as spaces. A line in spaces at whole levels, alone among tabs, is still
// re-indented: it may be a context line the diff of oldText and newText paired
// otherwise.
func (r *reindent) ownRuns(h hunk) []bool {
	if keep, ok := r.runs[h.j1]; ok {
		return keep
	}
	keep := make([]bool, h.j2-h.j1)
	r.runs[h.j1] = keep
	a, q := r.anchor(h), r.q[h.j1:h.j2]
	own := make([]bool, len(q))
	anyOwn := false
	for j, s := range q {
		if ws := leadWSString(s); len(ws) < len(s) && r.own(ws, a) {
			own[j], anyOwn = true, true
		}
	}
	if !anyOwn {
		return keep
	}
	base := 0
	if a >= 0 {
		base = r.modelW[a]
	}
	for j := 0; j < len(q); {
		if own[j] {
			j++
			continue
		}
		e, offLevel := j, false
		for ; e < len(q) && !own[e]; e++ {
			if ws := leadWSString(q[e]); ws != "" && len(ws) < len(q[e]) {
				offLevel = offLevel || (width(ws)-base)%r.modelUnit != 0
			}
		}
		for ; j < e; j++ {
			keep[j] = offLevel
		}
	}
	return keep
}

// styleOf is ' ' for indentation of spaces only, '\t' for tabs only, else 0.
func styleOf(ws string) byte {
	switch {
	case ws == "":
		return 0
	case strings.Trim(ws, " ") == "":
		return ' '
	case strings.Trim(ws, "\t") == "":
		return '\t'
	}
	return 0
}

// added re-indents new line j, of hunk h, that the model sent; blank lines stay
// empty. A line whose indentation is the model's own (own, quotedAsIs, ownRuns) is
// kept.
func (r *reindent) added(h hunk, j int) string {
	q := r.q[j]
	ws := leadWSString(q)
	if len(ws) == len(q) {
		return ""
	}
	a := r.anchor(h)
	if r.own(ws, a) || r.quotedAsIs(ws, h.i1, h.i2) || r.ownRuns(h)[j-h.j1] {
		return q
	}
	return r.at(a, width(ws)) + q[len(ws):]
}

// contradiction refuses an edit whose oldText orders its lines' indentation otherwise
// than the file does (a line shown deeper than its neighbour where the file has it at
// the same level or shallower): where the new lines belong would be a guess.
func (r *reindent) contradiction(m *matcher, ei int, pcs []piece, P []string) error {
	prev := -1
	for i := range P {
		if !r.valid[i] {
			continue
		}
		if prev >= 0 {
			dm := sign(r.modelW[i] - r.modelW[prev])
			df := sign(width(r.fileInd[i]) - width(r.fileInd[prev]))
			if dm != df {
				first, last := pcs[0].line, pcs[len(pcs)-1].line
				if last >= m.d.nlines() {
					last = m.d.nlines() - 1
				}
				var b strings.Builder
				for l := first; l <= last && l < first+12; l++ {
					fmt.Fprintf(&b, "\n%6d\t%s", l+1, m.d.content(l))
				}
				return &Refusal{Kind: KindTextNotFound, Where: &errs.Where{Edit: ei, Lines: []int{pcs[prev].line + 1, pcs[i].line + 1}},
					Message: fmt.Sprintf("edits[%d]: oldText matches lines %d-%d of %s only when indentation is ignored, and its indentation contradicts the file's: it shows line %d %s line %d, while the file has line %d %s line %d. Where the new lines belong would be a guess. The file's lines, with their real indentation:%s\nCopy oldText with this indentation.",
						ei, first+1, last+1, m.name, pcs[i].line+1, relWord(dm), pcs[prev].line+1, pcs[i].line+1, relWord(df), pcs[prev].line+1, b.String())}
			}
		}
		prev = i
	}
	return nil
}

func sign(x int) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

func relWord(s int) string {
	switch s {
	case 1:
		return "indented deeper than"
	case -1:
		return "indented less than"
	}
	return "at the same indentation as"
}

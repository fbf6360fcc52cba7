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
// spaceUnit is its usual step of spaces, whatever the unit: the step of text indented
// with spaces in a file of tabs. The star lines of block comments (m.stars) are at no
// level: their one column past "/**" is no step.
func (m *matcher) indentUnit() string {
	if m.unit != "" {
		return m.unit
	}
	tabs, spaces := 0, 0
	hist := map[int]int{}
	prev := -1
	m.stars = make([]bool, m.d.nlines())
	col := -1
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
		if m.stars[i] = starLine(&col, w, c[lead:]); m.stars[i] {
			continue
		}
		if prev >= 0 && w > prev && w-prev <= 8 {
			hist[w-prev]++
		}
		prev = w
	}
	best, bestN := 4, 0
	for u := 1; u <= 8; u++ {
		if hist[u] > bestN {
			best, bestN = u, hist[u]
		}
	}
	m.spaceUnit = strings.Repeat(" ", best)
	m.unit = m.spaceUnit
	if tabs > spaces {
		m.unit = "\t"
	}
	return m.unit
}

// starLine follows the block comments whose lines each begin with a star one column
// in from the opener ("/**", then " * text" and " */", as JSDoc and C write them), and
// tells a non-blank line of width w and text (its indentation cut) one of those star
// lines: that column aligns the stars and is no indentation level. col is the star
// column of the comment open before the line, or -1.
func starLine[T ~string | ~[]byte](col *int, w int, text T) bool {
	if *col >= 0 {
		if w == *col && len(text) > 0 && text[0] == '*' {
			if closes(text, 0) {
				*col = -1
			}
			return true
		}
		*col = -1 // the comment goes on without stars, or has ended
	}
	if len(text) >= 2 && text[0] == '/' && text[1] == '*' && !closes(text, 2) {
		*col = w + 1
	}
	return false
}

// closes tells text with "*/" at or after byte i.
func closes[T ~string | ~[]byte](text T, i int) bool {
	for ; i+1 < len(text); i++ {
		if text[i] == '*' && text[i+1] == '/' {
			return true
		}
	}
	return false
}

// reindent re-expresses the model's indentation in the file's. A line is placed
// relative to an anchor, a line of oldText paired with a file line: the file's
// indentation of the anchor, plus the model's offset from the anchor in levels of the
// file's unit.
//
// The model's unit (its columns per level) is learned from the quoted lines the file
// has at whole levels; aligned continuation lines (under an open parenthesis) and the
// star lines of block comments are at no level and teach nothing. Where the model's
// unit is the file's, its columns are kept relative to the anchor. Where the quoted
// lines follow no one unit, a line placed off its anchor's column would be a guess:
// the edit is refused (bad).
type reindent struct {
	// unit is the unit of the quoted lines: a tab, or their own step of spaces (YAML
	// in a Python string steps by 2 where the file steps by 4).
	unit      string
	modelUnit int            // model columns per level
	modelW    []int          // the model's indentation width of each piece of oldText
	fileInd   []string       // the file's indentation of each piece's line
	valid     []bool         // a non-blank piece on a file line
	level     []bool         // a valid piece whose file line is at a whole number of units
	star      []bool         // a valid piece whose file line is a comment's star line
	qStar     []bool         // a new line that is a comment's star line in newText
	paired    []bool         // the piece pairs with a line of newText
	base      int            // the first valid piece, or -1
	modelInd  []string       // the model's indentation of each piece
	q         []string       // the model's new lines
	runs      map[int][]bool // ownRuns of each hunk, by its j1
	// style is the file's indentation character on the lines oldText quotes (most
	// of them), else its unit's; otherStyle: the model quoted them in the other one.
	style      byte
	otherStyle bool
	// unsure says why the model's unit is not known, when it is not: a quoted line
	// (by piece) whose offset from the first line at a whole level, unsure[0], no unit
	// explains, or that says another unit than the line that taught it, unsure[1] (or
	// -1); bad is the first placement refused.
	unsure [3]int
	// step is the model's step of columns in its new lines where the quoted lines show
	// none and it is a whole number of the file's units: one level or several.
	step    int
	residue int // the column of whole levels, modulo a unit of spaces
	// fromText: oldText's first line was quoted from its text on (quotedFromText),
	// and is placed by the others.
	fromText bool
	line     []int // each piece's file line
	bad      *badPlace
}

// badPlace is a line whose indentation would be a guess: the model's width w against
// piece a, and why.
type badPlace struct {
	a, w int
	why  string
}

func (m *matcher) newReindent(pcs []piece, P, Q []string, paired []bool) *reindent {
	r := &reindent{unit: m.indentUnit(), base: -1, paired: paired, q: Q, runs: map[int][]bool{}, unsure: [3]int{-1, -1, -1}, line: make([]int, len(P)),
		modelW: make([]int, len(P)), fileInd: make([]string, len(P)), modelInd: make([]string, len(P)), valid: make([]bool, len(P)), level: make([]bool, len(P)),
		star: make([]bool, len(P)), qStar: make([]bool, len(Q))}
	for i, s := range P {
		if strings.TrimSpace(s) == "" || pcs[i].line >= m.d.nlines() {
			continue
		}
		fc := m.d.content(pcs[i].line)
		r.valid[i] = true
		r.line[i] = pcs[i].line
		r.modelW[i] = width(leadWSString(s))
		r.fileInd[i] = string(fc[:leadWS(fc)])
		r.modelInd[i] = leadWSString(s)
		r.star[i] = m.stars[pcs[i].line]
		if r.base < 0 {
			r.base = i
		}
	}
	// newText's star lines, followed as the file's are; where oldText begins inside a
	// comment (its first line is one of the file's star lines), so does newText, whose
	// first lines are those it quotes.
	col := -1
	if r.base >= 0 && r.star[r.base] {
		col = r.modelW[r.base]
	}
	for j, s := range Q {
		if ws := leadWSString(s); len(ws) < len(s) {
			r.qStar[j] = starLine(&col, width(ws), s[len(ws):])
		}
	}
	r.learnStyle(P)
	r.unit = r.quotedUnit(m.spaceUnit)
	r.levelAt()
	if r.base < 0 {
		r.modelUnit = width(r.unit)
		return r
	}
	r.learnModelUnit(false)
	if r.unsure[0] >= 0 && r.quotedFromText() {
		// Without its first line, oldText may keep the file's columns: then that line
		// was quoted from its text on, and is placed by the others.
		k := *r
		k.level = make([]bool, len(r.level))
		k.unsure, k.modelUnit = [3]int{-1, -1, -1}, 0
		k.learnModelUnit(true)
		if k.unsure[0] < 0 && k.modelUnit == width(k.unit) {
			*r = k
			r.fromText = true
		}
	}
	return r
}

// quotedUnit is the unit of the quoted lines: a tab where they are indented with tabs,
// else their most usual step of spaces among those that divide the file's step sp
// (YAML's 2 in a Python string; an aligned line's 6 is no unit), sp when none.
func (r *reindent) quotedUnit(sp string) string {
	if r.style == '\t' {
		return "\t"
	}
	hist := map[int]int{}
	prev := -1
	for i := range r.valid {
		if !r.valid[i] || r.star[i] {
			continue
		}
		if styleOf(r.fileInd[i]) == '\t' {
			prev = -1
			continue
		}
		w := width(r.fileInd[i])
		if prev >= 0 && w > prev && len(sp)%(w-prev) == 0 {
			hist[w-prev]++
		}
		prev = w
	}
	best := len(sp)
	for u := 1; u < len(sp); u++ {
		if hist[u] > hist[best] {
			best = u
		}
	}
	return strings.Repeat(" ", best)
}

// levelAt finds the column, modulo the unit of spaces, of the quoted lines at whole
// levels: the most usual one (a block of a docstring indented by 6, in steps of 4, is at
// 2), the shallowest line's on a tie.
func (r *reindent) levelAt() {
	if r.unit == "\t" {
		return
	}
	n := map[int]int{}
	shallow := -1
	for i := range r.valid {
		if r.valid[i] && !r.star[i] && styleOf(r.fileInd[i]) != '\t' {
			w := width(r.fileInd[i])
			n[w%len(r.unit)]++
			if shallow < 0 || w < shallow {
				shallow = w
			}
		}
	}
	if shallow < 0 {
		return
	}
	best := shallow % len(r.unit)
	for k := range len(r.unit) {
		if n[k] > n[best] {
			best = k
		}
	}
	r.residue = best
}

// quotedFromText tells an oldText whose first line starts at its text, without the
// file's indentation, while its other lines have some: the model may have begun its
// quote at the first character it saw, and then that line's width says nothing.
func (r *reindent) quotedFromText() bool {
	if r.modelInd[r.base] != "" || r.fileInd[r.base] == "" {
		return false
	}
	for i := r.base + 1; i < len(r.valid); i++ {
		if r.valid[i] && r.modelInd[i] != "" {
			return true
		}
	}
	return false
}

// atLevel tells file indentation ws at a whole number of units: tabs only for a tab,
// spaces only at a whole number of steps from the quoted lines' levels for spaces.
func (r *reindent) atLevel(ws string) bool {
	if r.unit == "\t" {
		return ws == "" || styleOf(ws) == '\t'
	}
	return (ws == "" || styleOf(ws) == ' ') && len(ws)%len(r.unit) == r.residue
}

// learnModelUnit learns the model's columns per level from the quoted lines at whole
// levels: each two of them at different levels give it, and all must agree.
func (r *reindent) learnModelUnit(skipFirst bool) {
	unitW := width(r.unit)
	b, taught := -1, -1
	for i := range r.valid {
		if !r.valid[i] || r.star[i] || !r.atLevel(r.fileInd[i]) || i == r.base && skipFirst {
			continue
		}
		r.level[i] = true
		if b < 0 {
			b = i
			continue
		}
		dl := (width(r.fileInd[i]) - width(r.fileInd[b])) / unitW
		dw := r.modelW[i] - r.modelW[b]
		switch {
		case dl == 0 && dw == 0:
		case dl == 0 || dw%dl != 0 || dw/dl <= 0:
			if r.unsure[0] < 0 {
				r.unsure = [3]int{b, -1, i}
			}
		case r.modelUnit != 0 && dw/dl != r.modelUnit:
			if r.unsure[0] < 0 {
				r.unsure = [3]int{b, taught, i}
			}
		default:
			r.modelUnit, taught = dw/dl, i
		}
	}
	if r.unsure[0] >= 0 || r.modelUnit != 0 {
		return
	}
	// No two lines at different levels. Where the quoted lines, aligned ones included,
	// keep the file's columns apart, the model's columns are the file's; a star line's
	// column apart from its opener's says nothing of a unit.
	agree, apart, code := true, false, -1
	for i := range r.valid {
		if r.valid[i] {
			agree = agree && r.modelW[i]-r.modelW[r.base] == width(r.fileInd[i])-width(r.fileInd[r.base])
		}
		if r.valid[i] && !r.star[i] {
			if code < 0 {
				code = i
			}
			apart = apart || r.fileInd[i] != r.fileInd[code]
		}
	}
	if agree && apart {
		r.modelUnit = unitW
		return
	}
	// Else the model's own steps in its new lines: a step that divides the file's
	// unit of spaces (2 where it has 4), or any usual one in a file of tabs, is the
	// model's unit; a whole number of the file's units (4 where it has 2) may be one
	// level of the model's or more of the file's, and is not known (step); anything
	// else (an aligned line, 17 columns in) keeps the model's columns.
	ref := b
	if ref < 0 {
		ref = r.base
	}
	g := 0
	for j, s := range r.q {
		if strings.TrimSpace(s) != "" && !r.qStar[j] {
			dw := width(leadWSString(s)) - r.modelW[ref]
			g = gcd(g, max(dw, -dw))
		}
	}
	r.modelUnit = unitW
	switch {
	case g >= 2 && g <= 8 && (r.unit == "\t" || g < unitW && unitW%g == 0):
		r.modelUnit = g
	case r.unit != "\t" && g > unitW && g%unitW == 0 && g <= 4:
		// 4 columns in a file of 2 (or 2 to 4 in a file of 1) may be one level of
		// a model that indents by that much: unknown. A larger step (8 in a file of
		// 4: a hanging continuation) is the file's levels, as models write it.
		r.step = g
	}
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

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// at is the file-style indentation for a model line of width w placed against piece a.
// A line at a's own column takes a's indentation. Any other is placed only where the
// model's unit is known; where it is not the file's, only a whole number of the model's
// levels from a line at a whole level (an aligned line keeps its columns only where
// the units agree). Else it is refused (r.bad), and a's indentation is returned.
func (r *reindent) at(a, w int) string {
	if a < 0 {
		return strings.Repeat(" ", w)
	}
	if w == r.modelW[a] && !(a == r.base && r.fromText) {
		return r.fileInd[a]
	}
	if r.unsure[0] >= 0 {
		why := "oldText's indentation follows no one step: " + r.apart(r.unsure[0], r.unsure[2])
		if r.unsure[1] >= 0 {
			why += ", but " + r.apart(r.unsure[0], r.unsure[1])
		}
		return r.refuse(a, w, why)
	}
	if r.step != 0 {
		return r.refuse(a, w, fmt.Sprintf("the lines oldText quotes show no step of indentation, and newText's step of %d columns may be one level or %d of the file's (%d columns each)", r.step, r.step/width(r.unit), width(r.unit)))
	}
	if !r.level[a] {
		// An aligned line may be aligned otherwise in the model's copy: measure from
		// the nearest line at a whole level.
		ref := -1
		for i := a - 1; i >= 0 && ref < 0; i-- {
			if r.level[i] {
				ref = i
			}
		}
		for i := a + 1; i < len(r.level) && ref < 0; i++ {
			if r.level[i] {
				ref = i
			}
		}
		switch {
		case ref >= 0:
			a = ref
		case r.modelUnit != width(r.unit):
			return r.refuse(a, w, "the lines oldText quotes show no indentation step to measure it by")
		}
	}
	if r.modelUnit != width(r.unit) && (w-r.modelW[a])%r.modelUnit != 0 {
		return r.refuse(a, w, fmt.Sprintf("oldText indents by %d columns where the file indents by %d, and this line is not a whole number of those steps from line %d", r.modelUnit, width(r.unit), r.line[a]+1))
	}
	delta := w - r.modelW[a]
	levels, rem := delta/r.modelUnit, delta%r.modelUnit
	if rem < 0 {
		levels--
		rem += r.modelUnit
	}
	unit := r.unitAt(a)
	target := max(width(r.fileInd[a])+levels*width(unit)+rem, 0)
	// The anchor's indentation as far as it goes, then units, then spaces.
	ind := r.fileInd[a]
	for width(ind) > target {
		ind = ind[:len(ind)-1]
	}
	for width(ind)+width(unit) <= target {
		ind += unit
	}
	return ind + strings.Repeat(" ", target-width(ind))
}

// apart says how far apart oldText and the file have the lines of pieces i and j.
func (r *reindent) apart(i, j int) string {
	return fmt.Sprintf("line %d is %d columns from line %d in oldText, %d in the file", r.line[j]+1, r.modelW[j]-r.modelW[i], r.line[i]+1, width(r.fileInd[j])-width(r.fileInd[i]))
}

// unitAt is the unit to indent by against piece a: the quoted lines' unit, in a's own
// style where a is indented (spaces among tabs: the text of a raw string).
func (r *reindent) unitAt(a int) string {
	switch styleOf(r.fileInd[a]) {
	case ' ':
		if r.unit == "\t" {
			return strings.Repeat(" ", tabWidth)
		}
	case '\t':
		return "\t"
	}
	return r.unit
}

// refuse records the first placement that would be a guess.
func (r *reindent) refuse(a, w int, why string) string {
	if r.bad == nil {
		r.bad = &badPlace{a: a, w: w, why: why}
	}
	return r.fileInd[a]
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
	if ws == "" || r.unsure[0] >= 0 || r.modelUnit != width(r.unit) {
		return false // the model's columns are known not to be the file's
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
	if w := width(ws); r.qStar[j] && a >= 0 && w != r.modelW[a] {
		// A star line goes one column in from its comment's opener, wherever that goes.
		return r.at(a, w-1) + " " + q[len(ws):]
	}
	return r.at(a, width(ws)) + q[len(ws):]
}

// contradiction refuses an edit whose oldText orders its lines' indentation otherwise
// than the file does (a line shown deeper than its neighbour where the file has it at
// the same level or shallower): where the new lines belong would be a guess.
func (r *reindent) contradiction(m *matcher, ei int, pcs []piece, P []string) error {
	prev := -1
	for i := range P {
		if !r.valid[i] || i == r.base && r.fromText {
			continue
		}
		if prev >= 0 {
			dm := sign(r.modelW[i] - r.modelW[prev])
			df := sign(width(r.fileInd[i]) - width(r.fileInd[prev]))
			if dm != df {
				first, last, lines := quotedLines(m, pcs)
				return &Refusal{Kind: KindTextNotFound, Where: &errs.Where{Edit: ei, Lines: []int{pcs[prev].line + 1, pcs[i].line + 1}},
					Message: fmt.Sprintf("edits[%d]: oldText matches lines %d-%d of %s only when indentation is ignored, and its indentation contradicts the file's: it shows line %d %s line %d, while the file has line %d %s line %d. Where the new lines belong would be a guess. The file's lines, with their real indentation:%s\nCopy oldText with this indentation.",
						ei, first, last, m.name, pcs[i].line+1, relWord(dm), pcs[prev].line+1, pcs[i].line+1, relWord(df), pcs[prev].line+1, lines)}
			}
		}
		prev = i
	}
	return nil
}

// guess refuses an edit with a line whose indentation would be a guess (r.bad).
func (r *reindent) guess(m *matcher, ei int, pcs []piece) error {
	first, last, lines := quotedLines(m, pcs)
	return &Refusal{Kind: KindTextNotFound, Where: &errs.Where{Edit: ei, Lines: []int{first, last}},
		Message: fmt.Sprintf("edits[%d]: oldText matches lines %d-%d of %s only when indentation is ignored, and how deep to indent a new line of newText (%d columns in) would be a guess: %s. Nothing was written. The file's lines, with their real indentation:%s\nSend oldText and newText with the lines indented as the file has them.",
			ei, first, last, m.name, r.bad.w, r.bad.why, lines)}
}

// quotedLines are the 1-based first and last file lines an occurrence spans, and the
// file's lines there (up to 12), numbered.
func quotedLines(m *matcher, pcs []piece) (int, int, string) {
	first, last := pcs[0].line, pcs[len(pcs)-1].line
	if last >= m.d.nlines() {
		last = m.d.nlines() - 1
	}
	var b strings.Builder
	for l := first; l <= last && l < first+12; l++ {
		fmt.Fprintf(&b, "\n%6d\t%s", l+1, m.d.content(l))
	}
	return first + 1, last + 1, b.String()
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

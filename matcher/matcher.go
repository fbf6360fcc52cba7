package matcher

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Edit is one replacement a model asked for.
type Edit struct {
	OldText    string
	NewText    string
	ReplaceAll bool
}

// Tier is how an edit was found.
type Tier int

const (
	TierExact Tier = iota
	TierTypography
	TierIndentation
)

func (t Tier) String() string {
	switch t {
	case TierTypography:
		return "typography"
	case TierIndentation:
		return "indentation"
	}
	return "exact"
}

// Options tune messages; the matching itself has no knobs on purpose.
type Options struct {
	// Name is the file's name as the model knows it, used in messages.
	Name string
	// Probe is for a caller that only asks whether and where oldText occurs (an edit
	// dialect placing a chunk try by try): a missing oldText is refused without the
	// search for the closest region, whose cost grows with the lengths of the lines
	// compared and which such a caller throws away.
	Probe bool
}

// Splice replaces original bytes [Start, End) with Text. Offsets count the BOM.
type Splice struct {
	Edit       int
	Start, End int
	Text       []byte
	// FirstLine and LastLine are the 1-based lines of the original the splice touches.
	FirstLine, LastLine int
}

// EditReport says how one edit was applied.
type EditReport struct {
	Tier   Tier
	Gutter bool // a pasted line-number gutter was stripped from oldText
	// GutterLine is set when oldText occurs several times and the gutter's line number
	// chose the occurrence: the line it starts at.
	GutterLine int
	Folded     []string // what folding forgave, for a fuzzy tier ("curly quotes", ...)
	// Translated says which characters of newText were written as the file has them,
	// because oldText showed that the model typed them for the file's ("“ ” in newText
	// written as the file's '"'"). Empty when newText was written as sent.
	Translated []string
	// Unkept lists the 1-based lines, changed after folding, where a character of the
	// file that folds like one of the model's could not be told kept or changed (the
	// change could be made in more than one way there, or the line was too long to
	// align) and was written as the model sent it: what the model did not change was
	// not all kept as the file has it there.
	Unkept []int
	// Lines holds the 1-based first and last original line of each occurrence.
	Lines [][2]int
	// AlsoFolded lists the 1-based first lines of places, at most MaxNamed, where
	// oldText matches only after folding, for an edit that matched exactly and whose
	// oldText holds characters folding changes (curly quotes, NBSP): the model may
	// have drifted them and meant one of these places. They were not changed.
	AlsoFolded []int
	// ContextLines and ContextBytes measure the unchanged lines the model padded its
	// edit with (written from the file, not from the model's copy).
	ContextLines, ContextBytes int
	// Among is set when a unified diff hunk's lines fit several places and its @@
	// line chose one: how many places there were; Near is the line (1-based) it chose
	// by, the @@ line's moved by Offset, the offset at which the diff's earlier hunks
	// were found.
	Among, Near, Offset int
}

// Result is a planned change: the new content, the splices that make it, and a report
// per edit.
type Result struct {
	Output  []byte
	Splices []Splice
	Edits   []EditReport

	doc *doc // the original's line index, for Diff
}

// Apply plans edits against original. It returns a *Refusal when any edit cannot be
// applied safely; then nothing is to be written.
func Apply(original []byte, edits []Edit, opts Options) (*Result, error) {
	return apply(original, edits, opts, nil)
}

// apply is Apply, with the folded views taken from fv when it is not nil.
func apply(original []byte, edits []Edit, opts Options, fv *View) (*Result, error) {
	name := opts.Name
	if name == "" {
		name = "the file"
	}
	if len(edits) == 0 {
		return nil, refuse(KindInvalidInput, -1, nil, "No edits were sent for %s. Send edits: [{oldText, newText}].", name)
	}
	var d *doc
	nul, ok := false, false
	if fv != nil {
		nul, d, ok = fv.prep()
	}
	if !ok {
		nul = bytes.IndexByte(original, 0) >= 0
	}
	if nul {
		return nil, refuse(KindBinaryFile, -1, nil, "%s", BinaryMessage(opts.Name, original))
	}
	if d == nil {
		d = newDoc(original)
	}
	m := &matcher{d: d, name: name, cache: fv, probe: opts.Probe}
	res := &Result{Edits: make([]EditReport, len(edits)), doc: m.d}
	for i, e := range edits {
		if e.OldText == "" {
			return nil, refuse(KindInvalidInput, i, nil, "edits[%d].oldText is empty. Copy the exact text to replace from %s; to fill an empty file or replace it whole, use write_file.", i, name)
		}
		old, nw := toLF(e.OldText), toLF(e.NewText)
		if old == nw {
			return nil, refuse(KindNoChange, i, nil, "edits[%d] changes nothing: its oldText and newText are identical. Send only edits that change something.", i)
		}
		sp, rep, err := m.edit(i, old, nw, e.ReplaceAll)
		if err != nil {
			return nil, m.chained(err, i, original, res.Splices, old)
		}
		if strings.HasPrefix(e.OldText, "\ufeff") {
			rep.Folded = append(rep.Folded, "BOM") // copied into oldText; forgiven as zero-width
		}
		// A model's LF where the file has CRLF (or CR) is no fold: read_file shows no
		// line endings, every tier reads both as one line break, and a rescue counted
		// for it would count every edit of a CRLF file.
		res.Splices = append(res.Splices, sp...)
		res.Edits[i] = rep
		if len(res.Splices) > MaxSplices {
			return nil, refuse(KindTooLarge, i, nil, "edits[0] to edits[%d] change %d places in %s; one call changes at most %d. Split the change into several calls, or replace the file whole with write_file.", i, len(res.Splices), name, MaxSplices)
		}
	}
	sort.SliceStable(res.Splices, func(a, b int) bool { return res.Splices[a].Start < res.Splices[b].Start })
	if err := m.checkOverlaps(res.Splices); err != nil {
		return nil, err
	}
	// bytes.Join allocates the output without clearing it first, which for a large
	// file is a pass over its size saved.
	parts := make([][]byte, 0, 2*len(res.Splices)+1)
	prev := 0
	for _, s := range res.Splices {
		parts = append(parts, original[prev:s.Start], s.Text)
		prev = s.End
	}
	res.Output = bytes.Join(append(parts, original[prev:]), nil)
	// No whole-output comparison is needed: splices are disjoint and every edit changes
	// its own bytes (checked in edit), so the output differs from the original.
	return res, nil
}

type matcher struct {
	d         *doc
	name      string
	cache     *View // where folded views are kept between calls, or nil
	probe     bool  // a locator's probe: skip the closest-region search of a miss
	typo      *view
	indent    *view
	unit      string
	spaceUnit string
	stars     []bool   // the lines of block comments that align a star under "/*" (starLine)
	drift     *drift   // the edit being rendered, at a fuzzy tier
	loose     []string // each line's looseKey, for not-found hints
	aligned   int      // cells keptRuns filled in this call, against maxAlignCells
}

// foldable tells a file small enough for the fuzzy tiers (MaxFoldBytes).
func (m *matcher) foldable() bool { return len(m.d.data) <= MaxFoldBytes }

func (m *matcher) view(t Tier) *view {
	switch t {
	case TierTypography:
		if m.typo == nil && m.cache != nil {
			m.typo = m.cache.folded(m.d, false)
		} else if m.typo == nil {
			m.typo = foldedView(m.d, false, nil)
		}
		return m.typo
	case TierIndentation:
		if m.indent == nil && m.cache != nil {
			m.indent = m.cache.folded(m.d, true)
		} else if m.indent == nil {
			m.indent = foldedView(m.d, true, m.view(TierTypography))
		}
		return m.indent
	}
	return exactView(m.d)
}

// pattern is a model's oldText prepared for one tier.
type pattern struct {
	tier   Tier
	pieces []string // the model's oldText split on line breaks (LF)
	text   []byte   // what is searched for in the tier's view
}

func (m *matcher) pattern(t Tier, pieces []string) (pattern, bool) {
	p := pattern{tier: t, pieces: pieces}
	if t == TierExact {
		p.text = []byte(joinLF(pieces))
		return p, len(p.text) > 0
	}
	var b []byte
	content := false
	for i, s := range pieces {
		if i > 0 {
			b = append(b, '\n')
		}
		f := foldLine([]byte(s), false, nil)
		t := f.text
		if p.tier == TierIndentation {
			t = t[f.lead:]
		}
		content = content || len(t) > 0
		b = append(b, t...)
	}
	p.text = b
	return p, content
}

// occurrence is a match of a pattern in a view, by view offsets.
type occurrence struct{ from, to int }

// search finds the occurrences, overlapping ones included, up to limit of them (0: all).
// A limit keeps a pattern found everywhere (one character in a file of it) from
// building a list the size of the file.
func (m *matcher) search(v *view, p pattern, limit int) []occurrence {
	var occ []occurrence
	for pos := 0; pos <= len(v.text) && (limit <= 0 || len(occ) < limit); {
		i := index(v.text[pos:], p.text)
		if i < 0 {
			break
		}
		o := occurrence{pos + i, pos + i + len(p.text)}
		pos += i + 1
		if v.indent && !m.wholeLines(v, o, p) {
			continue
		}
		occ = append(occ, o)
	}
	return occ
}

// wholeLines: the indentation tier ignores leading whitespace, so it must match lines
// from their start to their end; a part of a line is no match there.
func (m *matcher) wholeLines(v *view, o occurrence, p pattern) bool {
	line, col := v.locate(o.from)
	if col != 0 || line >= m.d.nlines() {
		return false
	}
	if last := p.pieces[len(p.pieces)-1]; last == "" && len(p.pieces) > 1 {
		return true // ends with a line break, hence at a line start
	}
	el, ec := v.locate(o.to)
	return el < m.d.nlines() && ec == v.lineLen(el)
}

// nonOverlapping keeps the leftmost occurrences that do not overlap, for replaceAll.
func nonOverlapping(occ []occurrence) []occurrence {
	var out []occurrence
	end := -1
	for _, o := range occ {
		if o.from >= end {
			out = append(out, o)
			end = o.to
		}
	}
	return out
}

// edit locates edit i and renders a splice for each occurrence.
func (m *matcher) edit(i int, old, nw string, all bool) ([]Splice, EditReport, error) {
	tiers := []Tier{TierExact}
	// The file may hold invalid UTF-8: it folds to U+FFFD per byte, as read_file shows
	// it, so the fuzzy tiers still apply. The model's text is JSON, hence valid.
	if utf8.ValidString(old) && m.foldable() {
		tiers = append(tiers, TierTypography, TierIndentation)
	}
	f, err := m.locateEdit(i, tiers, old, nw, all)
	if err != nil {
		return nil, EditReport{}, err
	}
	if len(f.occ) == 0 && m.probe {
		return nil, EditReport{}, refuse(KindTextNotFound, i, nil, "edits[%d]: oldText was not found in %s.", i, m.name)
	}
	if len(f.occ) == 0 {
		err := m.notFound(i, old)
		err.Where.Tiers = triedTiers(tiers, old)
		return nil, EditReport{}, err
	}
	if all && len(f.occ) > MaxOccurrences {
		return nil, EditReport{}, refuse(KindTooLarge, i, nil,
			"edits[%d]: oldText occurs more than %d times in %s; replaceAll changes at most %d places in one call. Make oldText longer so it matches only the places meant, or replace the file whole with write_file.",
			i, MaxOccurrences, m.name, MaxOccurrences)
	}
	v := m.view(f.t)
	lines := make([]int, len(f.occ))
	for k, o := range f.occ {
		l, _ := v.locate(o.from)
		lines[k] = l + 1
	}
	if len(f.occ) > 1 && !all {
		return nil, EditReport{}, m.multiple(i, tiers, f.t, lines)
	}
	if all {
		f.occ = nonOverlapping(f.occ)
	}
	rep := EditReport{Tier: f.t, Gutter: f.gutter, GutterLine: f.pinned}
	splices, err := m.renderAll(i, v, f, &rep)
	if err != nil {
		return nil, EditReport{}, err
	}
	if m.unchanged(splices) {
		return nil, EditReport{}, refuse(KindNoChange, i, lines,
			"edits[%d] would leave %s unchanged: what it writes is already there (line %s)%s. Re-read the file; send only edits that change something.",
			i, m.name, listLines(lines), tierNote(f.t))
	}
	m.noteFolds(f, splices, &rep)
	if f.t == TierExact && !f.gutter && len(tiers) > 1 {
		rep.AlsoFolded = m.alsoFolded(f, lines)
	}
	return splices, rep, nil
}

// alsoFolded finds the places where oldText, matched exactly at lines, matches only
// after folding. Exact first stays the rule: the exact place is the stronger evidence,
// and refusing would fail every exact copy of a curly-quoted line that also appears
// with straight quotes. But when oldText itself holds characters that folding changes,
// the model may have drifted them, so the other places are named for it to check. An
// oldText that folds to itself needs no search: nothing in it can have drifted.
func (m *matcher) alsoFolded(f located, lines []int) []int {
	p, ok := m.pattern(TierTypography, f.pieces)
	if !ok || bytes.Equal(p.text, f.p.text) {
		return nil
	}
	v := m.view(TierTypography)
	exact := make(map[int]bool, len(lines))
	for _, l := range lines {
		exact[l] = true
	}
	var other []int
	for _, o := range m.search(v, p, len(lines)+MaxNamed+1) {
		l, _ := v.locate(o.from)
		if !exact[l+1] && len(other) < MaxNamed {
			other = append(other, l+1)
		}
	}
	return other
}

// located is where an edit's oldText was found: at tier t, by pattern p, as pieces
// (the gutter stripped when gutter is set), with the newText to write.
type located struct {
	t      Tier
	p      pattern
	occ    []occurrence
	pieces []string
	nw     string
	gutter bool
	pinned int // the gutter's first line, where it picked one of several occurrences
}

// locateEdit finds oldText tier by tier; found nowhere, it tries again with a pasted
// read_file gutter stripped from oldText (and from newText), which must then still
// change something.
func (m *matcher) locateEdit(i int, tiers []Tier, old, nw string, all bool) (located, error) {
	pieces := splitLF(old)
	f := located{pieces: pieces, nw: nw}
	limit := MaxNamed + 1 // enough to name them, and to know there are more
	if all {
		limit = MaxOccurrences + 1
	}
	f.t, f.p, f.occ = m.find(tiers, pieces, limit)
	if len(f.occ) > 0 {
		return f, nil
	}
	g, first, ok := stripGutter(pieces)
	if !ok {
		return f, nil
	}
	t, p, occ := m.find(tiers, g, limit)
	if len(occ) == 0 {
		return f, nil
	}
	f = located{t: t, p: p, occ: occ, pieces: g, nw: nw, gutter: true}
	if len(occ) > 1 && !all {
		// The pasted line numbers are evidence: one occurrence starting at the
		// gutter's first line is where the model copied from.
		var at []occurrence
		for _, o := range occ {
			if l, _ := m.view(t).locate(o.from); l+1 == first {
				at = append(at, o)
			}
		}
		if len(at) == 1 {
			f.occ, f.pinned = at, first
		}
	}
	if ng, _, ok := stripGutter(splitLF(nw)); ok {
		f.nw = joinLF(ng)
	} else if q := splitLF(nw); len(q) > 0 {
		// newText begins with oldText's pasted numbers but has lines without them: which
		// numbers are text would be a guess, and a wrong one writes them into the file.
		if n, _, ok := cutGutter(q[0]); ok && n == first {
			for k, s := range q {
				if _, _, numbered := cutGutter(s); !numbered && !(s == "" && k == len(q)-1) {
					return f, refuse(KindInvalidInput, i, nil, "edits[%d]: oldText and newText carry read_file line numbers, but newText's line %d (%q) has none. Send oldText and newText without the line numbers: the text of each line only.", i, k+1, s)
				}
			}
		}
	}
	if joinLF(g) == f.nw {
		return f, refuse(KindNoChange, i, nil, "edits[%d] changes nothing once the line-number gutter is removed from oldText. Send only edits that change something.", i)
	}
	return f, nil
}

// triedTiers names the tiers an edit found nowhere was looked for at.
func triedTiers(tiers []Tier, old string) []string {
	tried := make([]string, len(tiers))
	for k, t := range tiers {
		tried[k] = t.String()
	}
	if _, _, ok := stripGutter(splitLF(old)); ok {
		tried = append(tried, "gutter")
	}
	return tried
}

// multiple refuses an edit found at several lines of tier t, naming the tiers tried up
// to t.
func (m *matcher) multiple(i int, tiers []Tier, t Tier, lines []int) *Refusal {
	count := fmt.Sprint(len(lines))
	if len(lines) > MaxNamed {
		// The search stopped counting here: a refusal needs no more.
		lines, count = lines[:MaxNamed], fmt.Sprintf("at least %d", MaxNamed+1)
	}
	r := refuse(KindMultipleMatches, i, lines,
		"Found %s occurrences of edits[%d] in %s (lines %s)%s. Each oldText must match one place: add surrounding lines to make it unique, or set replaceAll.",
		count, i, m.name, listLines(lines), tierNote(t))
	for _, x := range tiers {
		if r.Where.Tiers = append(r.Where.Tiers, x.String()); x == t {
			break
		}
	}
	return r
}

// renderAll renders a splice for each occurrence, through one drift per edit (none at
// the exact tier), and reports the lines each covers.
func (m *matcher) renderAll(i int, v *view, f located, rep *EditReport) ([]Splice, error) {
	m.drift = nil
	if f.t != TierExact {
		m.drift = newDrift()
	}
	var splices []Splice
	for _, o := range f.occ {
		sp, err := m.render(i, v, f.p, o, splitLF(f.nw), rep)
		if err != nil {
			return nil, err
		}
		rep.Lines = append(rep.Lines, m.occurrenceLines(v, o))
		splices = append(splices, sp)
	}
	return splices, nil
}

// unchanged tells splices that write what is already there.
func (m *matcher) unchanged(splices []Splice) bool {
	for _, sp := range splices {
		if !bytes.Equal(sp.Text, m.d.data[sp.Start:sp.End]) {
			return false
		}
	}
	return true
}

// noteFolds reports, for a fuzzy tier, what was folded to find the edit and what drift
// was translated in what it wrote.
func (m *matcher) noteFolds(f located, splices []Splice, rep *EditReport) {
	if f.t == TierExact {
		return
	}
	rep.Folded = m.whatFolded(f.pieces, splices[0])
	rep.Translated = m.drift.notes()
	if f.t == TierIndentation {
		if s := m.indentStyle(f.pieces, rep.Lines[0][0]-1); s != "" {
			rep.Folded = append(rep.Folded, s)
		}
	}
}

// occurrenceLines is the first and last 1-based line an occurrence covers in the file,
// from the view alone (not from what was written there).
func (m *matcher) occurrenceLines(v *view, o occurrence) [2]int {
	a, _ := v.locate(o.from)
	b, c := v.locate(o.to)
	if b > a && c == 0 {
		b-- // the occurrence ends with a line break: it does not reach into the next line
	}
	n := m.d.nlines()
	return [2]int{min(a, n-1) + 1, min(b, n-1) + 1}
}

// find looks for pieces tier by tier and returns the occurrences at the first tier
// that has any, at most limit of them (0: all).
func (m *matcher) find(tiers []Tier, pieces []string, limit int) (Tier, pattern, []occurrence) {
	for _, t := range tiers {
		p, ok := m.pattern(t, pieces)
		if !ok {
			continue
		}
		if occ := m.search(m.view(t), p, limit); len(occ) > 0 {
			return t, p, occ
		}
	}
	return TierExact, pattern{}, nil
}

func tierNote(t Tier) string {
	if t == TierExact {
		return ""
	}
	return fmt.Sprintf(", matching at the %s tier", t)
}

func listLines(l []int) string {
	const show = 10
	var parts []string
	for k, n := range l {
		if k == show {
			parts = append(parts, fmt.Sprintf("and %d more", len(l)-show))
			break
		}
		parts = append(parts, fmt.Sprint(n))
	}
	if len(parts) == 2 {
		return parts[0] + " and " + parts[1]
	}
	return strings.Join(parts, ", ")
}

func (m *matcher) checkOverlaps(sp []Splice) error {
	for k := 1; k < len(sp); k++ {
		a, b := sp[k-1], sp[k]
		sameEdit := a.Edit == b.Edit
		// Occurrences of one replaceAll edit may share a line; different edits may not.
		if b.Start < a.End || (!sameEdit && b.FirstLine <= a.LastLine) {
			x, y := a.Edit, b.Edit
			if x > y {
				x, y = y, x
			}
			where := fmt.Sprintf("line %d", b.FirstLine)
			if a.LastLine > b.FirstLine {
				where = fmt.Sprintf("lines %d-%d", b.FirstLine, a.LastLine)
			}
			return refuse(KindOverlappingEdits, y, []int{b.FirstLine},
				"edits[%d] and edits[%d] both touch %s of %s. Merge them into one edit, or make each oldText cover separate lines.",
				x, y, where, m.name)
		}
	}
	return nil
}

// whatFolded names the folding categories that differ between the model's oldText and
// the file's matched lines.
func (m *matcher) whatFolded(pieces []string, sp Splice) []string {
	if len(pieces) > 0 && strings.HasPrefix(pieces[0], "\ufeff") {
		// A BOM copied at oldText's start is reported as "BOM" (apply), not as a
		// zero-width character too.
		pieces = append([]string{strings.TrimPrefix(pieces[0], "\ufeff")}, pieces[1:]...)
	}
	var model, file foldCounts
	for _, s := range pieces {
		foldLine([]byte(s), false, &model)
	}
	for l := sp.FirstLine - 1; l < sp.LastLine && l < m.d.nlines(); l++ {
		foldLine(m.d.content(l), false, &file)
	}
	var out []string
	for c := range nCats {
		if model[c] != file[c] {
			out = append(out, catNames[c])
		}
	}
	return out
}

// indentStyle names an indentation mix-up between oldText and the file's lines from
// line first on: spaces sent for the file's tabs, or tabs for its spaces.
func (m *matcher) indentStyle(pieces []string, first int) string {
	for k, p := range pieces {
		l := first + k
		if l >= m.d.nlines() {
			break
		}
		c := m.d.content(l)
		fl, ml := string(c[:leadWS(c)]), leadWSString(p)
		switch {
		case strings.Contains(fl, "\t") && !strings.Contains(ml, "\t") && ml != "":
			return "spaces for tabs"
		case strings.Contains(ml, "\t") && !strings.Contains(fl, "\t") && fl != "":
			return "tabs for spaces"
		}
	}
	return ""
}

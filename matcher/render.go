package matcher

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// piece is where one line of the model's oldText sits in the file: line index and the
// byte columns [s, e) of that line's content; base is the view column where the piece's
// folded text starts (for mapping a character-level change back to the file).
type piece struct {
	line, s, e, base int
}

// render turns one occurrence into a splice of the original.
//
// At the exact tier the model's lines are the file's, so its newText is written as
// sent. At a fuzzy tier newText is read through the fold its oldText needed: a line of
// oldText equal to its file line byte for byte is exact (its change is meant as sent);
// any other line compares with newText after folding, so what is equal after folding is
// context (the file's bytes) and only the folded difference of a changed line is
// replaced. Everything the model adds goes through the drift its oldText showed.
func (m *matcher) render(ei int, v *view, p pattern, o occurrence, q []string, rep *EditReport) (Splice, error) {
	r := &rendering{m: m, d: m.d, v: v, ei: ei, P: p.pieces, k: len(p.pieces) - 1, fuzzy: v.folded(), rep: rep}
	r.a, r.col0 = v.locate(o.from)
	_, r.endCol = v.locate(o.to)
	r.oldNL = r.k > 0 && r.blank(r.P[r.k])
	r.placePieces(q)
	r.q = r.lineBreaks(q)
	r.compareLines()
	r.pairLines()
	if v.indent {
		r.ind = m.newReindent(r.pcs, r.P, r.q, r.paired)
		if r.addsLines {
			if err := r.ind.contradiction(m, ei, r.pcs, r.P); err != nil {
				return Splice{}, err
			}
		}
	}
	text := r.keepEnds(r.write())
	if r.ind != nil && r.ind.bad != nil {
		return Splice{}, r.ind.guess(m, ei, r.pcs)
	}
	fl, ll := r.d.linesTouched(r.start, r.end)
	return Splice{
		Edit:      ei,
		Start:     r.d.off + r.start,
		End:       r.d.off + r.end,
		Text:      text,
		FirstLine: fl + 1,
		LastLine:  ll + 1,
	}, nil
}

// rendering is the state of render for one occurrence, built step by step: where the
// model's old lines sit in the file, which of them the file has byte for byte, and how
// the old lines pair with the new ones.
type rendering struct {
	m     *matcher
	d     *doc
	v     *view
	ei    int
	P     []string // the model's old lines
	q     []string // the model's new lines
	k     int      // index of the last old line
	fuzzy bool
	rep   *EditReport

	a, col0, endCol int // first line of the occurrence, its start and end view columns
	oldNL, newNL    bool
	pcs             []piece
	start, end      int // the byte range of the body the splice replaces

	exact     []bool // at a fuzzy tier: the old line is the file's byte for byte
	dr        *drift
	keysP     []string
	keysQ     []string
	hunks     []hunk
	paired    []bool
	addsLines bool
	ind       *reindent
	n         int // index of the last new line
	out       bytes.Buffer
	preFold   []byte
	postFold  []byte
	unkeptAt  map[int]bool // the lines in rep.Unkept
}

// blank tells a line that only ends the text: empty, or at a fuzzy tier only the
// whitespace that the fold drops.
func (r *rendering) blank(s string) bool {
	return s == "" || (r.fuzzy && len(foldLine([]byte(s), false, nil).text) == 0)
}

// lineBreaks settles whether newText ends with a line break. Where oldText ends with
// one and a non-empty newText does not, the literal result is written when it leaves
// whole lines (the file goes on with a line break, or ends there), as the literal
// tools do; where it would join newText's last line with the next one, a final line
// break is supplied: two lines are never joined by accident. An empty newText deletes
// the lines.
func (r *rendering) lineBreaks(q []string) []string {
	r.newNL = len(q) > 1 && r.blank(q[len(q)-1])
	if r.oldNL && !r.newNL && !(len(q) == 1 && q[0] == "") && r.joinsLines() {
		q = append(q, "")
		r.newNL = true
	}
	return q
}

// joinsLines tells whether text written in place of the occurrence without a final
// line break would run into the file's next line.
func (r *rendering) joinsLines() bool {
	b := r.d.body
	return r.end < len(b) && b[r.end] != '\n' && b[r.end] != '\r'
}

// placePieces finds the file's byte columns of each old line; the splice's range is
// from the first piece's start to the last piece's end, so it never reaches past the
// occurrence, but for the file's trailing whitespace after it where newText's last
// line ends in whitespace of its own: that replaces the file's, not doubles it.
func (r *rendering) placePieces(q []string) {
	d, v := r.d, r.v
	r.pcs = make([]piece, r.k+1)
	for i := range r.pcs {
		l := r.a + i
		pc := piece{line: l}
		if l >= d.nlines() { // the empty piece after a final line break
			r.pcs[i] = pc
			continue
		}
		switch {
		case v.indent:
			pc.s = 0
		case i == 0:
			pc.s = v.origStart(l, r.col0)
			pc.base = r.col0
		}
		switch {
		case i < r.k:
			pc.e = len(d.content(l))
		case r.oldNL: // the empty piece after the last line break: nothing of this line
			pc.s = 0
		default:
			pc.e = v.origEnd(l, r.endCol)
			c := d.content(l)
			if last := q[len(q)-1]; last != "" && (last[len(last)-1] == ' ' || last[len(last)-1] == '\t') && len(bytes.TrimRight(c[pc.e:], " \t")) == 0 {
				pc.e = len(c)
			}
		}
		if pc.e < pc.s {
			pc.e = pc.s
		}
		r.pcs[i] = pc
	}
	r.start = d.start(r.a) + r.pcs[0].s
	r.end = len(d.body)
	if last := r.pcs[r.k]; last.line < d.nlines() {
		r.end = d.start(last.line) + last.e
	}
}

// compareLines marks, at a fuzzy tier, the old lines the file has byte for byte, learns
// the drift of the others, and gives the keys the lines pair by; at the exact tier the
// keys are the lines themselves.
func (r *rendering) compareLines() {
	r.keysP, r.keysQ = r.P, r.q
	if !r.fuzzy {
		return
	}
	r.exact = make([]bool, r.k+1)
	r.dr = r.m.drift
	for i, pc := range r.pcs {
		if pc.line >= r.d.nlines() {
			r.exact[i] = true
			continue
		}
		r.exact[i] = r.P[i] == string(r.d.content(pc.line)[pc.s:pc.e])
		if !r.exact[i] {
			r.m.learnDrift(r.dr, r.v, r.P[i], pc, i < r.k || pc.e == len(r.d.content(pc.line)))
		}
	}
	r.keysP, r.keysQ = lineKeys(r.P, r.v.indent), lineKeys(r.q, r.v.indent)
}

// pairLines diffs the old lines against the new: a line pairs with one other only in a
// hunk of equal length, and a final line break pairs with the final line break.
func (r *rendering) pairLines() {
	q, k := r.q, r.k
	if r.oldNL && r.newNL {
		r.hunks = append(diffLines(r.keysP[:k], r.keysQ[:len(q)-1]), hunk{true, k, k + 1, len(q) - 1, len(q)})
	} else {
		r.hunks = diffLines(r.keysP, r.keysQ)
	}
	r.paired = make([]bool, k+1)
	for _, h := range r.hunks {
		if h.equal || h.i2-h.i1 == h.j2-h.j1 {
			for i := h.i1; i < h.i2; i++ {
				r.paired[i] = true
			}
			continue
		}
		for _, s := range q[h.j1:h.j2] {
			r.addsLines = r.addsLines || strings.TrimSpace(s) != ""
		}
	}
}

// segmentEdges finds the folded bytes of a file segment (one dot of an ellipsis) that
// the match begins or ends inside: the splice covers the whole segment, so where a
// hunk drops that line, the segment's bytes outside the match are written back.
func (r *rendering) segmentEdges() {
	if !r.fuzzy || r.v.indent {
		return
	}
	d, v, a := r.d, r.v, r.a
	if a < d.nlines() {
		if fl := v.line(a); fl.start != nil {
			for x := r.col0; x > 0 && x < len(fl.text) && fl.start[x-1] == fl.start[r.col0]; x-- {
				r.preFold = fl.text[x-1 : r.col0]
			}
		}
	}
	if l := r.pcs[r.k].line; l < d.nlines() && !r.oldNL && v.line(l).start != nil {
		fl := v.line(l)
		for x := r.endCol; x < len(fl.text) && x > 0 && fl.end[x] == fl.end[r.endCol-1]; x++ {
			r.postFold = fl.text[r.endCol : x+1]
		}
	}
}

// dropped tells an old line that an unequal hunk replaces rather than pairs.
func (r *rendering) dropped(i int) bool {
	for _, h := range r.hunks {
		if i >= h.i1 && i < h.i2 {
			return !h.equal && h.i2-h.i1 != h.j2-h.j1
		}
	}
	return false
}

// write writes the new lines hunk by hunk: context from the file's bytes, a paired
// changed line as the model's change applied onto the file's line, an added line as
// sent (re-indented, drift translated); no byte of the file outside the occurrence is
// written.
func (r *rendering) write() []byte {
	r.segmentEdges()
	r.n = len(r.q) - 1
	if len(r.preFold) > 0 && r.dropped(0) {
		r.out.Write(r.preFold)
	}
	for _, h := range r.hunks {
		r.noteReplaced(h)
		for j := h.j1; j < h.j2; j++ {
			pi := -1
			if h.equal || h.i2-h.i1 == h.j2-h.j1 {
				pi = h.i1 + (j - h.j1)
			}
			r.writeLine(h, j, pi)
			if j < r.n {
				r.writeBreak(h, j, pi)
			}
		}
	}
	if len(r.postFold) > 0 && r.dropped(r.k) {
		r.out.Write(r.postFold)
	}
	return r.out.Bytes()
}

// noteReplaced reports, at a fuzzy tier, the old lines of a hunk that replaces lines
// rather than pairs them, where the file has a character the fold changed (a curly
// quote, a dash, a special or zero-width space) that the new lines may have kept: the
// new lines are written as the model sent them, so those were not kept. The model saw
// the file's characters in a line it quoted byte for byte; that one is not reported.
func (r *rendering) noteReplaced(h hunk) {
	if !r.fuzzy || h.equal || h.i2-h.i1 == h.j2-h.j1 {
		return
	}
	nf := foldString(strings.Join(r.q[h.j1:h.j2], "\n"))
	if strings.TrimSpace(nf) == "" {
		return
	}
	// The folded forms of the file's characters are few (a space, a dash, a quote,
	// "..."): each is looked for in the new text once, not once per character, which
	// made a rewrite of thousands of lines quadratic.
	inNew := map[string]bool{"": true}
	for i := h.i1; i < h.i2; i++ {
		pc := r.pcs[i]
		if r.exact[i] || pc.line >= r.d.nlines() {
			continue
		}
		var it norm.Iter
		it.Init(norm.NFKC, r.d.content(pc.line)[pc.s:pc.e])
		for !it.Done() {
			from := it.Pos()
			it.Next()
			seg := string(r.d.content(pc.line)[pc.s+from : pc.s+it.Pos()])
			f := foldString(seg)
			if f == seg {
				continue
			}
			in, ok := inNew[f]
			if !ok {
				in = strings.Contains(nf, f)
				inNew[f] = in
			}
			if in {
				r.unkept(pc.line)
				break
			}
		}
	}
}

// unkept reports file line l (0-based) in EditReport.Unkept, once.
func (r *rendering) unkept(l int) {
	if r.unkeptAt == nil {
		r.unkeptAt = map[int]bool{}
		for _, n := range r.rep.Unkept {
			r.unkeptAt[n] = true
		}
	}
	if !r.unkeptAt[l+1] {
		r.unkeptAt[l+1] = true
		r.rep.Unkept = append(r.rep.Unkept, l+1)
	}
}

// writeLine writes new line j, paired with old line pi (-1 for none); context lines are
// the file's bytes, counted as padding.
func (r *rendering) writeLine(h hunk, j, pi int) {
	switch {
	case h.equal && (!r.fuzzy || !r.exact[pi] || r.P[pi] == r.q[j]):
		pc := r.pcs[pi]
		if pc.line < r.d.nlines() {
			c := r.d.content(pc.line)[pc.s:pc.e]
			r.out.Write(c)
			if !(r.oldNL && pi == r.k) {
				r.rep.ContextLines++
				r.rep.ContextBytes += len(c)
			}
		}
	case pi >= 0:
		line, unsure := r.m.changeLine(r.v, r.P[pi], r.q[j], r.pcs[pi], pi, r.fuzzy && r.exact[pi], r.ind, r.dr)
		r.out.Write(line)
		if unsure {
			r.unkept(r.pcs[pi].line)
		}
	default:
		s := r.q[j]
		if r.ind != nil {
			s = r.ind.added(h, j)
		}
		r.out.WriteString(r.dr.trimAdded(r.dr.translate(s)))
	}
}

// writeBreak writes the line break after new line j: the ending of its paired file
// line, else of the file line at its place in the hunk; it never fuses with a CR
// before it into one CRLF.
func (r *rendering) writeBreak(h hunk, j, pi int) {
	var sep []byte
	if pi >= 0 {
		sep = r.d.endingNear(r.pcs[pi].line)
	} else {
		idx := h.i1 + (j - h.j1)
		if idx >= h.i2 {
			idx = h.i2 - 1
		}
		if idx < 0 {
			idx = 0
		}
		sep = r.d.endingNear(r.a + idx)
	}
	if b := r.out.Bytes(); len(b) > 0 && b[len(b)-1] == '\r' && sep[0] == '\n' {
		// An LF right after a CR would fuse with it into one CRLF and lose a line (an
		// empty line between a CR line and an LF line).
		sep = []byte{'\r'}
	}
	r.out.Write(sep)
}

// keepEnds keeps, at tiers other than exact, whether the file ends with a line break,
// and writes a line break against a lone CR of the file (an LF right after it, a CR
// right before its LF) as a CRLF, which fuses with neither: no line is lost.
func (r *rendering) keepEnds(text []byte) []byte {
	d, start, end := r.d, r.start, r.end
	if r.v.virtualEOL && end == len(d.body) && r.n > 0 && r.blank(r.q[r.n]) {
		text = bytes.TrimSuffix(text, d.endingNear(d.nlines()-1))
	}
	if len(text) > 0 && text[0] == '\n' && start > 0 && d.body[start-1] == '\r' {
		text = append([]byte{'\r'}, text...)
	}
	if n := len(text); n > 0 && text[n-1] == '\r' && end < len(d.body) && d.body[end] == '\n' {
		text = append(text, '\n')
	}
	return text
}

// lineKeys are the lines as a fuzzy tier compares them: folded, and at the indentation
// tier with the leading whitespace reduced to its width (the model's own style is
// consistent between its oldText and newText, so widths compare).
func lineKeys(lines []string, indent bool) []string {
	out := make([]string, len(lines))
	for i, s := range lines {
		f := foldLine([]byte(s), false, nil)
		if indent {
			out[i] = fmt.Sprintf("%d\x00%s", width(string(f.text[:f.lead])), f.text[f.lead:])
		} else {
			out[i] = string(f.text)
		}
	}
	return out
}

// changeLine applies the model's change of one line (old piece P to new piece Q) onto
// the file's line. A fuzzily matched line is compared with Q after folding: only what
// differs is replaced, located in the file through the fold maps, and the rest of the
// line (its trailing whitespace included) is the file's. Between the first and the last
// difference, the characters the model kept are found by aligning the two folded
// middles (keptRuns) and written as the file has them too. unsure reports a file
// character there that folds like one of the model's but could not be told kept, and
// was written as the model sent it.
func (m *matcher) changeLine(v *view, P, Q string, pc piece, pi int, exact bool, ind *reindent, dr *drift) (line []byte, unsure bool) {
	if !v.folded() || pc.line >= m.d.nlines() || exact {
		// Exact: the file's bytes are the model's. Past the end: no file line to keep.
		return []byte(dr.translate(Q)), false
	}
	O := m.d.content(pc.line)
	fline := v.line(pc.line)
	fl := &fline
	fp := foldLine([]byte(P), true, nil)
	fq := foldLine([]byte(Q), true, nil)
	lp, lq, lf := 0, 0, 0
	if v.indent {
		lp, lq, lf = fp.lead, fq.lead, fl.lead
	}
	pt, qt := fp.text[lp:], fq.text[lq:]
	pre := commonPrefix(string(pt), string(qt))
	suf := commonSuffix(string(pt[pre:]), string(qt[pre:]))
	// Work on the file's folded line with P's part [A, B) replaced by Q's folded text:
	// the middle that differs is [x0, x1) of the file's and [y0, y1) of the new line.
	ft := fl.text
	A := pc.base + lf
	B := A + len(pt)
	x0, x1 := A+pre, B-suf
	y0, y1 := A+pre, A+len(qt)-suf
	x0, x1, y0, y1 = fl.widen(x0, x1, y0, y1)
	o0, o1 := fl.srcRange(x0, x1, pc)
	// newText is the new line's [g0, g1): the model's text where it lies in Q's part,
	// and the file's own folded bytes where widening reached past P (a segment P only
	// partly covered). Folded, it is Q's folded text there instead, for aligning.
	QE := A + len(qt)
	newText := func(g0, g1 int, folded bool) string {
		var b strings.Builder
		if g0 < A {
			b.Write(ft[g0:min(A, g1)])
		}
		if qa, qb := max(g0, A)-A, min(g1, QE)-A; qa < qb {
			if folded {
				b.Write(qt[qa:qb])
			} else {
				b.WriteString(dr.middle(Q, &fq, lq+qa, lq+qb))
			}
		}
		if g1 > QE {
			b.Write(ft[B+max(g0, QE)-QE : B+g1-QE])
		}
		return b.String()
	}
	ops, unsure := fl.middleOps(O, x0, x1, y0, y1, newText(y0, y1, true), pc, &m.aligned)

	var b []byte
	if v.indent && width(string(fp.text[:lp])) != width(string(fq.text[:lq])) && ind != nil {
		lead := min(fl.srcStart(fl.lead), o0)
		if ws := leadWSString(Q); ind.own(ws, pi) || ind.quotedAsIs(ws, pi, pi+1) {
			b = append(b, ws...)
		} else {
			b = append(b, ind.at(pi, width(string(fq.text[:lq])))...)
		}
		b = append(b, O[lead:o0]...)
	} else {
		b = append(b, O[pc.s:o0]...)
	}
	// Characters the fold drops (zero-width) lie between folded bytes; those next to a
	// kept character are kept with it, only those inside a replaced run go.
	pos := o0
	at := func(x int) int { return min(max(x, pos), o1) }
	for _, op := range ops {
		e := at(fl.srcEnd(op.f1))
		if op.keep {
			b = append(b, O[pos:e]...)
			pos = e
			continue
		}
		if op.f0 < op.f1 {
			b = append(b, O[pos:at(fl.srcStart(op.f0))]...)
			pos = e
		}
		b = append(b, newText(op.g0, op.g1, false)...)
	}
	b = append(b, O[pos:o1]...)
	return append(b, O[o1:pc.e]...), unsure
}

// midOp is one step of writing a changed middle: the file's folded [f0, f1) written as
// the file has it (keep), or replaced by the new line's [g0, g1).
type midOp struct {
	keep           bool
	f0, f1, g0, g1 int
}

// middleOps splits the changed middle, the file's folded [x0, x1) against the new
// line's [y0, y1) (nf, folded), into kept and replaced runs. A kept run covers whole
// segments of the file: part of one (two dots of an ellipsis) is replaced with the
// rest. unsure is set where a replaced run holds file bytes other than their folded
// form and a character of it could have been kept (keptRuns' maybe); past the size
// keptRuns aligns, the middle is one replaced run, as unsure as its bytes differ.
// aligned counts the cells filled in the call so far.
func (fl *folded) middleOps(O []byte, x0, x1, y0, y1 int, nf string, pc piece, aligned *int) ([]midOp, bool) {
	differs := func(f0, f1 int) bool {
		s, e := fl.srcStart(f0), fl.srcEnd(f1)
		s, e = min(max(s, pc.s), pc.e), min(max(e, pc.s), pc.e)
		return s < e && string(O[s:e]) != string(fl.text[f0:f1])
	}
	runs, maybe, ok := keptRuns(string(fl.text[x0:x1]), nf, aligned)
	if !ok {
		return []midOp{{false, x0, x1, y0, y1}}, x0 < x1 && differs(x0, x1)
	}
	var ops []midOp
	unsure := false
	f, g := x0, y0
	change := func(f1, g1 int) {
		if f < f1 || g < g1 {
			ops = append(ops, midOp{false, f, f1, g, g1})
		}
		if !unsure && differs(f, f1) {
			unsure = slices.Contains(maybe[f-x0:f1-x0], true)
		}
		f, g = f1, g1
	}
	for k, r := range runs {
		fa, fb, ga := x0+r.f, x0+r.f+r.size, y0+r.n
		for fa < fb && fl.start != nil && fa > 0 && fl.start[fa-1] == fl.start[fa] {
			fa++
			ga++
		}
		for fb > fa && fl.start != nil && fb < len(fl.text) && fl.start[fb] == fl.start[fb-1] {
			fb--
		}
		if fa == fb {
			continue
		}
		// A run that puts file characters back (a dash for the model's "-") with text
		// the model wrote around it, where that whole stretch of its line stands in the
		// old line too, is text the model moved ("x - y" and "p - q" swapped): the
		// alignment would carry a file character into it. It is written as sent, and
		// the line reported.
		if differs(fa, fb) {
			w0, w1 := 0, len(nf)
			if k > 0 {
				w0 = runs[k-1].n + runs[k-1].size
			}
			if k+1 < len(runs) {
				w1 = runs[k+1].n
			}
			if w := nf[w0:w1]; len(w) > r.size && strings.Contains(string(fl.text[x0:x1]), w) {
				continue
			}
		}
		change(fa, ga)
		ops = append(ops, midOp{true, fa, fb, ga, ga + fb - fa})
		f, g = fb, ga+fb-fa
	}
	change(x1, y1)
	return ops, unsure
}

// maxKeepCells bounds the tables keptRuns fills for one line, and maxAlignCells those
// of one call: past them, a line's changed middle is replaced whole, as it was before
// characters were aligned, and reported unsure. The tables are bands around the
// diagonal as wide as the changes need, so a long paragraph changed in a few places is
// cheap; many changes spread over a long line, or thousands of long lines changed in
// one call, are the cases they stop (a cell costs a few nanoseconds).
const (
	maxKeepCells  = 1 << 20
	maxAlignCells = 1 << 22
)

// keptRun is a run of characters the model kept: at byte f of the file's folded
// middle and byte n of the new one, size bytes long.
type keptRun struct{ f, n, size int }

// keptRuns aligns the file's folded middle f with the new line's n, character by
// character, and returns the characters the model kept. A longest common subsequence
// can often be taken more than one way ("a--b" to "AX-B" keeps either dash), and taking
// one way would put a file character where the model may have moved text: so a
// character counts as kept only where every longest common subsequence matches it,
// with the same character of n. maybe marks, by byte of f, the characters some longest
// common subsequence matches: those a replaced run may hold unchanged. ok is false
// past the bounds; aligned counts the cells filled in the call so far.
func keptRuns(f, n string, aligned *int) (runs []keptRun, maybe []bool, ok bool) {
	fr, fo := runeKeys(f)
	nr, no := runeKeys(n)
	I, J := len(fr), len(nr)
	maybe = make([]bool, len(f))
	if I == 0 || J == 0 {
		return nil, maybe, true
	}
	if I > math.MaxUint16 || J > math.MaxUint16 {
		return nil, nil, false // the lengths are counted in 16 bits
	}
	// Every longest alignment stays within the diagonals i-j from -(J-L) to I-L, L its
	// length: a band that holds those, for the L found in it, gives the same L and the
	// same alignments as the whole table. Widen the band until it does.
	for s := 16; ; s *= 2 {
		lo, hi := max(-s-max(0, J-I), -J), min(s+max(0, I-J), I)
		b := band{lo: lo, hi: hi, w: hi - lo + 1}
		cells := (I + 1) * b.w
		if cells > maxKeepCells || *aligned+cells > maxAlignCells {
			return nil, nil, false
		}
		*aligned += cells
		b.fill(fr, nr)
		L := int(b.fwd[b.at(I, J)])
		if lo > L-J || hi < I-L {
			continue
		}
		for i := range I {
			// (i, j) is on some longest alignment when the best before it and the best
			// after it add up to the whole; i is on every one when leaving it out costs
			// length.
			partner, partners := -1, 0
			without := 0
			for j := max(0, i-hi); j <= min(J, i-lo); j++ {
				before := int(b.fwd[b.at(i, j)])
				without = max(without, before+int(b.get(b.bwd, i+1, j)))
				if j < J && fr[i] == nr[j] && before+1+int(b.bwd[b.at(i+1, j+1)]) == L {
					partner = j
					partners++
				}
			}
			if partners > 0 {
				for x := fo[i]; x < fo[i+1]; x++ {
					maybe[x] = true
				}
			}
			if partners != 1 || without == L {
				continue
			}
			size := fo[i+1] - fo[i]
			if k := len(runs) - 1; k >= 0 && runs[k].f+runs[k].size == fo[i] && runs[k].n+runs[k].size == no[partner] {
				runs[k].size += size
				continue
			}
			runs = append(runs, keptRun{fo[i], no[partner], size})
		}
		return runs, maybe, true
	}
}

// band holds the longest-common-subsequence tables of keptRuns over the diagonals
// i-j in [lo, hi]: fwd at (i, j) for a[:i], b[:j], bwd for a[i:], b[j:]. A cell
// outside the band counts as 0, which only ever lowers a path that leaves the band.
type band struct {
	lo, hi, w int
	fwd, bwd  []uint16
}

func (b *band) at(i, j int) int { return i*b.w + j - i + b.hi }

func (b *band) get(t []uint16, i, j int) uint16 {
	if d := i - j; d < b.lo || d > b.hi {
		return 0
	}
	return t[b.at(i, j)]
}

func (b *band) fill(x, y []rune) {
	I, J := len(x), len(y)
	b.fwd = make([]uint16, (I+1)*b.w)
	b.bwd = make([]uint16, (I+1)*b.w)
	for i := 1; i <= I; i++ {
		for j := max(1, i-b.hi); j <= min(J, i-b.lo); j++ {
			if x[i-1] == y[j-1] {
				b.fwd[b.at(i, j)] = b.fwd[b.at(i-1, j-1)] + 1
			} else {
				b.fwd[b.at(i, j)] = max(b.get(b.fwd, i-1, j), b.get(b.fwd, i, j-1))
			}
		}
	}
	for i := I - 1; i >= 0; i-- {
		for j := min(J-1, i-b.lo); j >= max(0, i-b.hi); j-- {
			if x[i] == y[j] {
				b.bwd[b.at(i, j)] = b.bwd[b.at(i+1, j+1)] + 1
			} else {
				b.bwd[b.at(i, j)] = max(b.get(b.bwd, i+1, j), b.get(b.bwd, i, j+1))
			}
		}
	}
}

// runeKeys splits s into characters to compare, with their byte offsets (one more at
// the end). A byte that is not UTF-8 is its own key, apart from every character and
// from U+FFFD.
func runeKeys(s string) ([]rune, []int) {
	keys := make([]rune, 0, len(s))
	offs := make([]int, 0, len(s)+1)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			r = -1 - rune(s[i])
		}
		keys = append(keys, r)
		offs = append(offs, i)
		i += size
	}
	return keys, append(offs, len(s))
}

// widen widens the differing middle [x0, x1) of the folded line, and with it [y0, y1)
// of the new line, to whole segments: a segment is replaced whole or not at all, and
// outside the middle both lines are the same bytes.
func (fl *folded) widen(x0, x1, y0, y1 int) (int, int, int, int) {
	if fl.start == nil {
		return x0, x1, y0, y1
	}
	for x0 > 0 && x0 < len(fl.text) && fl.start[x0-1] == fl.start[x0] {
		x0--
		y0--
	}
	for x1 < len(fl.text) && x1 > 0 && fl.end[x1-1] == fl.end[x1] {
		x1++
		y1++
	}
	return x0, x1, y0, y1
}

// srcRange maps folded range [x0, x1) back to the byte range of the file's line it
// came from, kept inside the piece pc: an empty range maps to the point after what
// precedes it.
func (fl *folded) srcRange(x0, x1 int, pc piece) (int, int) {
	var o0, o1 int
	switch {
	case x0 < x1:
		o0, o1 = fl.srcStart(x0), fl.srcEnd(x1)
	case x0 > 0:
		o0 = fl.srcEnd(x0)
		o1 = o0
	default:
		o0 = fl.srcStart(0)
		o1 = o0
	}
	o0 = min(max(o0, pc.s), pc.e)
	o1 = min(max(o1, o0), pc.e)
	return o0, o1
}

// middle writes folded range [g0, g1) of the model's line Q: each source segment that
// lies wholly inside as the model sent it (through the drift), a segment cut by the
// range edge as its folded bytes.
func (dr *drift) middle(Q string, fq *folded, g0, g1 int) string {
	var b strings.Builder
	prevEnd := -1
	for x := g0; x < g1; {
		ss, se := int(fq.start[x]), int(fq.end[x])
		x0, x1 := x, x+1
		for x0 > 0 && int(fq.start[x0-1]) == ss {
			x0--
		}
		for x1 < len(fq.text) && int(fq.start[x1]) == ss {
			x1++
		}
		if x0 < g0 || x1 > g1 {
			b.WriteByte(fq.text[x])
			x++
			prevEnd = -1
			continue
		}
		if prevEnd >= 0 && ss > prevEnd {
			b.WriteString(dr.translate(Q[prevEnd:ss])) // characters the fold dropped
		}
		b.WriteString(dr.translate(Q[ss:se]))
		prevEnd = se
		x = x1
	}
	return b.String()
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func commonSuffix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

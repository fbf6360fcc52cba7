package matcher

import (
	"bytes"
	"fmt"
	"strings"
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
		r.out.Write(r.m.changeLine(r.v, r.P[pi], r.q[j], r.pcs[pi], pi, r.fuzzy && r.exact[pi], r.ind, r.dr))
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
// the file's line. A fuzzily matched line is compared with Q after folding: only the
// folded middle that differs is replaced, located in the file through the fold maps,
// and the rest of the line (its trailing whitespace included) is the file's.
func (m *matcher) changeLine(v *view, P, Q string, pc piece, pi int, exact bool, ind *reindent, dr *drift) []byte {
	if !v.folded() || pc.line >= m.d.nlines() || exact {
		// Exact: the file's bytes are the model's. Past the end: no file line to keep.
		return []byte(dr.translate(Q))
	}
	O := m.d.content(pc.line)
	line := v.line(pc.line)
	fl := &line
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
	// The new middle: the model's text where it lies in Q's part, and the file's own
	// folded bytes where widening reached past P (a segment P only partly covered).
	var mid strings.Builder
	if y0 < A {
		mid.Write(ft[y0:A])
	}
	if qa, qb := max(y0, A)-A, min(y1, A+len(qt))-A; qa < qb {
		mid.WriteString(dr.middle(Q, &fq, lq+qa, lq+qb))
	}
	if over := y1 - (A + len(qt)); over > 0 {
		mid.Write(ft[B : B+over])
	}

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
	b = append(b, mid.String()...)
	return append(b, O[o1:pc.e]...)
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

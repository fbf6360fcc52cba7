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
	d := m.d
	P := p.pieces
	k := len(P) - 1
	a, col0 := v.locate(o.from)
	_, endCol := v.locate(o.to)

	fuzzy := v.lines != nil
	// oldText and newText end with a line break when their last piece is empty; at a
	// fuzzy tier also when it is only whitespace, which the fold drops.
	blank := func(s string) bool { return s == "" || (fuzzy && len(foldLine([]byte(s), false, nil).text) == 0) }
	oldNL := k > 0 && blank(P[k])
	newNL := len(q) > 1 && blank(q[len(q)-1])
	// A missing final line break on a non-empty newText is supplied: never join two
	// lines by accident. An empty newText deletes the lines.
	if oldNL && !newNL && !(len(q) == 1 && q[0] == "") {
		q = append(q, "")
		newNL = true
	}

	pcs := make([]piece, k+1)
	for i := range pcs {
		l := a + i
		pc := piece{line: l}
		if l >= d.nlines() { // the empty piece after a final line break
			pcs[i] = pc
			continue
		}
		switch {
		case v.indent:
			pc.s = 0
		case i == 0:
			pc.s = v.origStart(l, col0)
			pc.base = col0
		}
		switch {
		case i < k:
			pc.e = len(d.content(l))
		case oldNL: // the empty piece after the last line break: nothing of this line
			pc.s = 0
		default:
			pc.e = v.origEnd(l, endCol)
		}
		if pc.e < pc.s {
			pc.e = pc.s
		}
		pcs[i] = pc
	}
	start := d.start(a) + pcs[0].s
	end := len(d.body)
	if last := pcs[k]; last.line < d.nlines() {
		end = d.start(last.line) + last.e
	}

	keysP, keysQ := P, q
	var exact []bool
	var dr *drift
	if fuzzy {
		exact = make([]bool, k+1)
		dr = m.drift
		for i, pc := range pcs {
			if pc.line >= d.nlines() {
				exact[i] = true
				continue
			}
			exact[i] = P[i] == string(d.content(pc.line)[pc.s:pc.e])
			if !exact[i] {
				m.learnDrift(dr, v, P[i], pc, i < k || pc.e == len(d.content(pc.line)))
			}
		}
		keysP, keysQ = lineKeys(P, v.indent), lineKeys(q, v.indent)
	}

	var hunks []hunk
	if oldNL && newNL {
		hunks = append(diffLines(keysP[:k], keysQ[:len(q)-1]), hunk{true, k, k + 1, len(q) - 1, len(q)})
	} else {
		hunks = diffLines(keysP, keysQ)
	}
	paired := make([]bool, k+1)
	addsLines := false
	for _, h := range hunks {
		if h.equal || h.i2-h.i1 == h.j2-h.j1 {
			for i := h.i1; i < h.i2; i++ {
				paired[i] = true
			}
			continue
		}
		for _, s := range q[h.j1:h.j2] {
			addsLines = addsLines || strings.TrimSpace(s) != ""
		}
	}

	var ind *reindent
	if v.indent {
		ind = m.newReindent(pcs, P, q, paired)
		if addsLines {
			if err := ind.contradiction(m, ei, pcs, P); err != nil {
				return Splice{}, err
			}
		}
	}

	// A match may begin or end inside a file segment (one dot of an ellipsis): the
	// splice covers the whole segment, so where a hunk drops that line, the segment's
	// folded bytes outside the match are written back.
	var preFold, postFold []byte
	if fuzzy && !v.indent {
		if fl := &v.lines[a]; a < d.nlines() && fl.start != nil {
			for x := col0; x > 0 && x < len(fl.text) && fl.start[x-1] == fl.start[col0]; x-- {
				preFold = fl.text[x-1 : col0]
			}
		}
		if l := pcs[k].line; l < d.nlines() && !oldNL && v.lines[l].start != nil {
			fl := &v.lines[l]
			for x := endCol; x < len(fl.text) && x > 0 && fl.end[x] == fl.end[endCol-1]; x++ {
				postFold = fl.text[endCol : x+1]
			}
		}
	}
	dropped := func(i int) bool {
		for _, h := range hunks {
			if i >= h.i1 && i < h.i2 {
				return !h.equal && h.i2-h.i1 != h.j2-h.j1
			}
		}
		return false
	}
	n := len(q) - 1
	var out bytes.Buffer
	if len(preFold) > 0 && dropped(0) {
		out.Write(preFold)
	}
	sepAfter := func(j int, pairedWith int, h hunk) []byte {
		if pairedWith >= 0 {
			return d.endingNear(pcs[pairedWith].line)
		}
		idx := h.i1 + (j - h.j1)
		if idx >= h.i2 {
			idx = h.i2 - 1
		}
		if idx < 0 {
			idx = 0
		}
		return d.endingNear(a + idx)
	}
	for _, h := range hunks {
		for j := h.j1; j < h.j2; j++ {
			pi := -1
			if h.equal || h.i2-h.i1 == h.j2-h.j1 {
				pi = h.i1 + (j - h.j1)
			}
			switch {
			case h.equal && (!fuzzy || !exact[pi] || P[pi] == q[j]):
				pc := pcs[pi]
				if pc.line < d.nlines() {
					c := d.content(pc.line)[pc.s:pc.e]
					out.Write(c)
					if !(oldNL && pi == k) {
						rep.ContextLines++
						rep.ContextBytes += len(c)
					}
				}
			case pi >= 0:
				out.Write(m.changeLine(v, P[pi], q[j], pcs[pi], pi, fuzzy && exact[pi], ind, dr))
			default:
				s := q[j]
				if ind != nil {
					s = ind.added(s, ind.anchor(h))
				}
				out.WriteString(dr.trimAdded(dr.translate(s)))
			}
			if j < n {
				sep := sepAfter(j, pi, h)
				if b := out.Bytes(); len(b) > 0 && b[len(b)-1] == '\r' && sep[0] == '\n' {
					// An LF right after a CR would fuse with it into one CRLF and lose
					// a line (an empty line between a CR line and an LF line).
					sep = []byte{'\r'}
				}
				out.Write(sep)
			}
		}
	}
	if len(postFold) > 0 && dropped(k) {
		out.Write(postFold)
	}
	text := out.Bytes()
	// Tiers other than exact keep whether the file ends with a line break.
	if v.virtualEOL && end == len(d.body) && n > 0 && blank(q[n]) {
		text = bytes.TrimSuffix(text, d.endingNear(d.nlines()-1))
	}
	// A line break written against a lone CR of the file (an LF right after it, a CR
	// right before its LF) would fuse with it into one CRLF and lose a line: write that
	// break as a CRLF, which fuses with neither.
	if len(text) > 0 && text[0] == '\n' && start > 0 && d.body[start-1] == '\r' {
		text = append([]byte{'\r'}, text...)
	}
	if n := len(text); n > 0 && text[n-1] == '\r' && end < len(d.body) && d.body[end] == '\n' {
		text = append(text, '\n')
	}
	fl, ll := d.linesTouched(start, end)
	return Splice{
		Edit:      ei,
		Start:     d.off + start,
		End:       d.off + end,
		Text:      text,
		FirstLine: fl + 1,
		LastLine:  ll + 1,
	}, nil
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
	if v.lines == nil || pc.line >= m.d.nlines() || exact {
		// Exact: the file's bytes are the model's. Past the end: no file line to keep.
		return []byte(dr.translate(Q))
	}
	O := m.d.content(pc.line)
	fl := &v.lines[pc.line]
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
	if fl.start != nil {
		// Widen to whole segments of the file's line: a segment is replaced whole or
		// not at all. Outside the middle both lines are the same bytes.
		for x0 > 0 && x0 < len(ft) && fl.start[x0-1] == fl.start[x0] {
			x0--
			y0--
		}
		for x1 < len(ft) && x1 > 0 && fl.end[x1-1] == fl.end[x1] {
			x1++
			y1++
		}
	}
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
		b = append(b, ind.at(pi, width(string(fq.text[:lq])))...)
		b = append(b, O[lead:o0]...)
	} else {
		b = append(b, O[pc.s:o0]...)
	}
	b = append(b, mid.String()...)
	return append(b, O[o1:pc.e]...)
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

package matcher

import (
	"bytes"
	"sort"
	"strings"
)

// piece is where one line of the model's oldText sits in the file: line index and the
// byte columns [s, e) of that line's content; base is the view column where the piece's
// folded text starts (for mapping a character-level change back to the file).
type piece struct {
	line, s, e, base int
}

// render turns one occurrence into a splice of the original.
func (m *matcher) render(ei int, v *view, p pattern, o occurrence, q []string, rep *EditReport) (Splice, error) {
	d := m.d
	P := p.pieces
	k := len(P) - 1
	a, col0 := v.locate(o.from)
	_, endCol := v.locate(o.to)

	oldNL := k > 0 && P[k] == ""
	newNL := len(q) > 1 && q[len(q)-1] == ""
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

	var hunks []hunk
	if oldNL && newNL {
		hunks = append(diffLines(P[:k], q[:len(q)-1]), hunk{true, k, k + 1, len(q) - 1, len(q)})
	} else {
		hunks = diffLines(P, q)
	}

	var ind *reindent
	if v.indent {
		ind = m.newReindent(pcs, P, q)
	}

	n := len(q) - 1
	var out bytes.Buffer
	sepAfter := func(j int, pairedWith int, h hunk) []byte {
		if pairedWith >= 0 && pairedWith < k {
			return d.endingNear(pcs[pairedWith].line)
		}
		if pairedWith == k {
			return d.endingNear(pcs[k].line)
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
			paired := -1
			switch {
			case h.equal:
				paired = h.i1 + (j - h.j1)
				pc := pcs[paired]
				if pc.line < d.nlines() {
					c := d.content(pc.line)[pc.s:pc.e]
					out.Write(c)
					if !(oldNL && paired == k) {
						rep.ContextLines++
						rep.ContextBytes += len(c)
					}
				}
			case h.i2-h.i1 == h.j2-h.j1:
				paired = h.i1 + (j - h.j1)
				out.Write(m.changeLine(v, P[paired], q[j], pcs[paired], ind))
			default:
				if ind != nil {
					out.WriteString(ind.line(q[j]))
				} else {
					out.WriteString(q[j])
				}
			}
			if j < n {
				out.Write(sepAfter(j, paired, h))
			}
		}
	}
	text := out.Bytes()
	// Tiers other than exact keep whether the file ends with a line break.
	if v.virtualEOL && end == len(d.body) && n > 0 && q[n] == "" {
		text = bytes.TrimSuffix(text, d.endingNear(d.nlines()-1))
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

// changeLine applies the model's change of one line (old piece P to new piece Q) onto
// the file's line: only the middle that differs between P and Q is replaced, located in
// the file through the fold map. The rest of the line is written from the file.
func (m *matcher) changeLine(v *view, P, Q string, pc piece, ind *reindent) []byte {
	if v.lines == nil || pc.line >= m.d.nlines() {
		// Exact: the file's bytes are the model's. Past the end: no file line to keep.
		return []byte(Q)
	}
	O := m.d.content(pc.line)
	var indent []byte
	if v.indent {
		pw, qw := leadWSString(P), leadWSString(Q)
		P, Q = P[len(pw):], Q[len(qw):]
		if width(pw) != width(qw) && ind != nil {
			indent = []byte(ind.indentFor(width(qw)))
		}
	}
	fp := foldLine([]byte(P), true, nil)
	if v.indent && fp.lead > 0 {
		// P lost its spaces and tabs above; what is left of lead is folded (NBSP).
		P = P[fp.srcStart(fp.lead):]
		Q = strings.TrimLeft(Q, " \u00a0")
		fp = foldLine([]byte(P), true, nil)
	}
	pl := commonPrefix(P, Q)
	sl := commonSuffix(P[pl:], Q[pl:])
	mp0, mp1 := pl, len(P)-sl
	f0 := sort.Search(len(fp.text), func(x int) bool { return int(fp.end[x]) > mp0 })
	f1 := sort.Search(len(fp.text), func(x int) bool { return int(fp.start[x]) >= mp1 })
	wp0, wp1 := mp0, mp1
	var o0, o1 int
	if f0 < f1 {
		wp0 = min(mp0, int(fp.start[f0]))
		wp1 = max(mp1, int(fp.end[f1-1]))
		o0 = v.origStart(pc.line, pc.base+f0)
		o1 = v.origEnd(pc.line, pc.base+f1)
	} else {
		if f0 == 0 {
			o0 = v.origStart(pc.line, pc.base)
		} else {
			o0 = v.origEnd(pc.line, pc.base+f0)
		}
		o1 = o0
	}
	mid := Q[wp0 : len(Q)-(len(P)-wp1)]
	o0 = min(max(o0, pc.s), pc.e)
	o1 = min(max(o1, o0), pc.e)
	var b []byte
	if indent != nil {
		lead := leadWS(O[pc.s:o0])
		b = append(b, indent...)
		b = append(b, O[pc.s+lead:o0]...)
	} else {
		b = append(b, O[pc.s:o0]...)
	}
	b = append(b, mid...)
	return append(b, O[o1:pc.e]...)
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

package matcher

import "strings"

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

// reindent re-expresses the model's indentation in the file's: each new line keeps its
// level relative to the model's first matched line, written in the file's unit and
// added to the file's indentation of that line.
type reindent struct {
	modelBase int    // model's width of its first non-blank matched line
	fileBase  string // the file's indentation of that line
	modelUnit int    // model columns per level
	unit      string // the file's unit
}

func (m *matcher) newReindent(pcs []piece, P, Q []string) *reindent {
	r := &reindent{unit: m.indentUnit(), modelUnit: 0}
	baseIdx := -1
	for i, s := range P {
		if strings.TrimSpace(s) != "" && pcs[i].line < m.d.nlines() {
			baseIdx = i
			break
		}
	}
	if baseIdx < 0 {
		r.modelUnit = tabWidth
		return r
	}
	r.modelBase = width(leadWSString(P[baseIdx]))
	fc := m.d.content(pcs[baseIdx].line)
	r.fileBase = string(fc[:leadWS(fc)])
	unitW := width(r.unit)
	fileLevel := func(i int) int {
		c := m.d.content(pcs[i].line)
		return width(string(c[:leadWS(c)])) / unitW
	}
	// Learn the model's unit from matched lines whose file levels differ.
	for i, s := range P {
		if i == baseIdx || strings.TrimSpace(s) == "" || pcs[i].line >= m.d.nlines() {
			continue
		}
		dl := fileLevel(i) - fileLevel(baseIdx)
		dw := width(leadWSString(s)) - r.modelBase
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
				dw := width(leadWSString(s)) - r.modelBase
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

// indentFor is the file-style indentation for a model line of width w.
func (r *reindent) indentFor(w int) string {
	delta := w - r.modelBase
	levels, rem := delta/r.modelUnit, delta%r.modelUnit
	if rem < 0 {
		levels--
		rem += r.modelUnit
	}
	ind := r.fileBase
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

// line re-indents one new line the model sent; blank lines stay empty.
func (r *reindent) line(q string) string {
	ws := leadWSString(q)
	if len(ws) == len(q) {
		return ""
	}
	return r.indentFor(width(ws)) + q[len(ws):]
}

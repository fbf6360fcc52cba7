package matcher

import "sort"

// view is the file as one tier sees it: each line folded (or not), joined by "\n"
// wherever the file has a line ending. Folding is per line, so line i of the view is
// line i of the file, and every view column maps back to a byte of that line.
type view struct {
	d      *doc
	text   []byte
	starts []int32 // view offset of each line's start, plus len(text)
	lines  []folded
	indent bool // leading whitespace dropped: whole-line matches only
	// virtualEOL: a "\n" was appended for a file without a final line break, so that an
	// oldText ending in a line break still matches the last line.
	virtualEOL bool
}

// exactView is the file with every line ending read as "\n": for a file without CR,
// the file itself, whose lines the doc finds (starts is nil).
func exactView(d *doc) *view {
	return &view{d: d, text: d.lf, starts: d.lfLine}
}

// foldedView builds the typography view, or with indent the indentation view.
func foldedView(d *doc, indent bool, base *view) *view {
	v := &view{d: d, indent: indent}
	if d.starts == nil {
		d.index() // every line is read
	}
	if base != nil {
		v.lines = base.lines
	} else {
		v.lines = make([]folded, d.nlines())
		for i := range d.nlines() {
			v.lines[i] = foldLine(d.content(i), false, nil)
		}
	}
	n := 0
	for i := range v.lines {
		n += len(v.lines[i].text) + 1
	}
	v.text = make([]byte, 0, n+1)
	v.starts = make([]int32, 0, len(v.lines)+1)
	for i := range v.lines {
		v.starts = append(v.starts, int32(len(v.text)))
		t := v.lines[i].text
		if indent {
			t = t[v.lines[i].lead:]
		}
		v.text = append(v.text, t...)
		if len(d.ending(i)) > 0 {
			v.text = append(v.text, '\n')
		}
	}
	if d.nlines() > 0 && !d.endsWithNewline() {
		v.text = append(v.text, '\n')
		v.virtualEOL = true
	}
	v.starts = append(v.starts, int32(len(v.text)))
	return v
}

// locate returns the line holding view offset p and the column within it. An offset
// right after a line's "\n" is column 0 of the next line (or of len(lines) at the end).
func (v *view) locate(p int) (int, int) {
	var i int
	if v.starts == nil {
		i = v.d.newlinesBefore(p)
	} else {
		i = sort.Search(len(v.starts), func(i int) bool { return int(v.starts[i]) > p }) - 1
	}
	if n := v.d.nlines(); i == n && n > 0 && !v.virtualEOL && !v.d.endsWithNewline() {
		i = n - 1 // the end of a last line that has no line break
	}
	if i < 0 {
		i = 0
	}
	if v.starts == nil {
		return i, p - v.d.start(i)
	}
	return i, p - int(v.starts[i])
}

// lineLen is the length of line i in the view, without its "\n".
func (v *view) lineLen(i int) int {
	if v.lines == nil {
		return v.d.end(i) - v.d.start(i)
	}
	n := len(v.lines[i].text)
	if v.indent {
		n -= v.lines[i].lead
	}
	return n
}

// origStart maps view column c of line i to a byte column of the file's line.
func (v *view) origStart(i, c int) int {
	if v.lines == nil {
		return c
	}
	f := &v.lines[i]
	if v.indent {
		c += f.lead
	}
	return f.srcStart(c)
}

// origEnd maps the end of a view range ending at column c of line i.
func (v *view) origEnd(i, c int) int {
	if v.lines == nil {
		return c
	}
	f := &v.lines[i]
	if v.indent {
		if c == 0 {
			return f.srcStart(f.lead)
		}
		c += f.lead
	}
	return f.srcEnd(c)
}

package matcher

import (
	"bytes"
	"sort"
	"sync"
)

// view is the file as one tier sees it: each line folded (or not), joined by "\n"
// wherever the file has a line ending. Folding is per line, so line i of the view is
// line i of the file, and every view column maps back to a byte of that line.
type view struct {
	d      *doc
	text   []byte
	starts []int32 // view offset of each line's start, plus len(text)
	// A folded view (typography or indentation; the exact view has neither): the
	// typography view keeps the fold maps of the lines that are not ASCII (few, in
	// most files), by line; an ASCII line folds to its own bytes less trailing blanks,
	// which the view's text holds. So deriving the next version's view (View.Update)
	// copies no per-line record. The indentation view reads its lines from base.
	maps   map[int]*folded
	base   *view // the indentation view's typography view
	indent bool  // leading whitespace dropped: whole-line matches only
	// virtualEOL: a "\n" was appended for a file without a final line break, so that an
	// oldText ending in a line break still matches the last line.
	virtualEOL bool
}

// exactView is the file with every line ending read as "\n": for a file without CR,
// the file itself, whose lines the doc finds (starts is nil).
func exactView(d *doc) *view {
	return &view{d: d, text: d.lf, starts: d.lfLine}
}

// foldedView builds the typography view, or with indent the indentation view from
// base, the typography view.
func foldedView(d *doc, indent bool, base *view) *view {
	v := &view{d: d, indent: indent}
	if d.starts == nil {
		d.index() // every line is read
	}
	n := d.nlines()
	var lines []folded
	if indent {
		v.base = base
		lines = make([]folded, n)
		for i := range n {
			lines[i] = base.line(i)
		}
	} else {
		v.maps = map[int]*folded{}
		lines = make([]folded, n)
		for i := range n {
			lines[i] = foldLine(d.content(i), false, nil)
			if lines[i].start != nil {
				v.maps[i] = &lines[i]
			}
		}
	}
	size := 0
	for i := range lines {
		size += len(lines[i].text) + 1
	}
	v.text = make([]byte, 0, size+1)
	v.starts = make([]int32, 0, n+1)
	for i := range lines {
		v.starts = append(v.starts, int32(len(v.text)))
		t := lines[i].text
		if indent {
			t = t[lines[i].lead:]
		}
		v.text = append(v.text, t...)
		if len(d.ending(i)) > 0 {
			v.text = append(v.text, '\n')
		}
	}
	if n > 0 && !d.endsWithNewline() {
		v.text = append(v.text, '\n')
		v.virtualEOL = true
	}
	v.starts = append(v.starts, int32(len(v.text)))
	return v
}

// folded reports whether v is a folded view (typography or indentation).
func (v *view) folded() bool { return v.maps != nil || v.base != nil }

// nlines is the number of lines of a folded view.
func (v *view) nlines() int { return len(v.starts) - 1 }

// line is line i of a folded view in its typography fold (the indentation view drops
// its lead). An ASCII line's text is the typography view's own, without a map.
func (v *view) line(i int) folded {
	if v.base != nil {
		return v.base.line(i)
	}
	if f := v.maps[i]; f != nil {
		return *f
	}
	s, e := int(v.starts[i]), int(v.starts[i+1])
	if e > s && v.text[e-1] == '\n' {
		e--
	}
	t := v.text[s:e:e]
	return folded{text: t, lead: leadWS(t)}
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
	if !v.folded() {
		return v.d.end(i) - v.d.start(i)
	}
	f := v.line(i)
	n := len(f.text)
	if v.indent {
		n -= f.lead
	}
	return n
}

// origStart maps view column c of line i to a byte column of the file's line.
func (v *view) origStart(i, c int) int {
	if !v.folded() {
		return c
	}
	f := v.line(i)
	if v.indent {
		c += f.lead
	}
	return f.srcStart(c)
}

// origEnd maps the end of a view range ending at column c of line i.
func (v *view) origEnd(i, c int) int {
	if !v.folded() {
		return c
	}
	f := v.line(i)
	if v.indent {
		if c == 0 {
			return f.srcStart(f.lead)
		}
		c += f.lead
	}
	return f.srcEnd(c)
}

// View is a file's content with its folded views kept for reuse: a caller that edits
// the same file again and again (txn, across calls) plans against a View instead of
// the bytes, so that a fuzzy edit does not fold every line of the file each time.
// Folding a 20,000-line file costs milliseconds; finding an edit in it, microseconds.
//
// A View is immutable as far as its callers can tell and safe for concurrent use:
// the folded views are built on first need, under a lock, and never change after.
// Apply on a View gives the same Result as Apply on its bytes; Update derives the
// View of the next version from the splices that made it, folding only the lines
// that changed.
type View struct {
	data []byte

	mu     sync.Mutex
	typo   *view   // the typography view, nil until a fuzzy tier needs it
	indent *view   // the indentation view, built from typo
	starts []int32 // with typo: the body offset of each line's start, plus len(body)
	off    int     // with typo: the BOM's length

	// Set by Prepare: whether data holds a NUL byte, and its doc for a file without CR
	// (one with CR would keep a second copy of the content), copied by each Apply.
	prepared bool
	nul      bool
	doc      *doc
}

// NewView returns a View of data, which must not change afterwards.
func NewView(data []byte) *View { return &View{data: data} }

// Data is the content the View is of.
func (fv *View) Data() []byte { return fv.data }

// Apply plans edits against the View's content, as Apply does.
func (fv *View) Apply(edits []Edit, opts Options) (*Result, error) {
	return apply(fv.data, edits, opts, fv)
}

// Prepare does ahead what every Apply on the View otherwise does first, a pass or
// two over the content (looking for NUL bytes, counting lines), so that a caller can
// do it in the background between edits.
func (fv *View) Prepare() {
	fv.mu.Lock()
	defer fv.mu.Unlock()
	if fv.prepared {
		return
	}
	fv.nul = bytes.IndexByte(fv.data, 0) >= 0
	if d := newDoc(fv.data); !d.hasCR {
		fv.doc = d
	}
	fv.prepared = true
}

// Fold builds the typography view ahead, as the first fuzzy edit of the content
// would (folding a large file costs milliseconds), so that a caller can do it in the
// background, after a read, while the model composes its edit.
func (fv *View) Fold() {
	fv.Prepare()
	if fv.nul {
		return // refused as binary before any view is needed
	}
	fv.folded(newDoc(fv.data), false)
}

// prep returns what Prepare found: whether the content holds a NUL byte, and a doc of
// it for the caller's own use; ok is false when Prepare did not run.
func (fv *View) prep() (nul bool, d *doc, ok bool) {
	fv.mu.Lock()
	defer fv.mu.Unlock()
	if !fv.prepared {
		return false, nil, false
	}
	if fv.doc != nil {
		c := *fv.doc // a doc indexes itself as it is read
		d = &c
	}
	return fv.nul, d, true
}

// folded returns the View's typography view (or with indent its indentation view) for
// doc d of the same content, building and keeping it on first use.
func (fv *View) folded(d *doc, indent bool) *view {
	fv.mu.Lock()
	defer fv.mu.Unlock()
	if fv.typo == nil {
		fv.typo = foldedView(d, false, nil)
		fv.starts, fv.off = d.starts, d.off // indexed by foldedView, never changed after
	}
	v := fv.typo
	if indent {
		if fv.indent == nil {
			fv.indent = foldedView(d, true, fv.typo)
		}
		v = fv.indent
	}
	// A view's text, offsets and lines depend on the content alone; its doc is the
	// calling matcher's own, whose lazy line index is not shared between calls.
	c := *v
	c.d = d
	return &c
}

// Update returns the View of newData, the content after splices (as Apply returned
// them, on this View's content) were made. The lines the splices touch are folded
// again; the others keep their folded form, moved. The bytes before and after the
// touched lines are compared with newData first, so a newData that the splices do
// not produce (a guard's repair, another writer) still gives a correct View: then
// it is folded whole on first use.
func (fv *View) Update(splices []Splice, newData []byte) *View {
	nv := NewView(newData)
	fv.mu.Lock()
	old, starts, off := fv.typo, fv.starts, fv.off
	fv.mu.Unlock()
	if old == nil || len(splices) == 0 || !bytes.HasPrefix(newData, fv.data[:off]) || (off == 0 && bytes.HasPrefix(newData, bom)) {
		return nv // never folded, or nothing known of the change
	}
	ob, nb := fv.data[off:], newData[off:]
	n := len(starts) - 1
	lo, hi, shift := spliceSpan(splices, off, len(ob))
	if lo < 0 || hi > len(ob) || len(ob)+shift != len(nb) {
		return nv
	}
	a, b, ok := spliceLines(starts, ob, nb, lo, hi, shift)
	if !ok {
		return nv
	}
	mid, midLines := foldBetween(nb, int(starts[a]), int(starts[b])+shift)
	// Body starts and folded lines: the old ones before a and from b on (moved by
	// shift), the new ones between.
	nn := a + len(midLines) + (n - b)
	ns := make([]int32, 0, nn+1)
	ns = append(append(ns, starts[:a]...), mid...)
	for _, st := range starts[b:] {
		ns = append(ns, st+int32(shift))
	}
	nv.typo, nv.starts, nv.off = splicedView(old, nb, ns, midLines, a, b, n), ns, off
	return nv
}

// spliceSpan returns the body range [lo, hi) the splices touch and the shift of
// the bytes after it.
func spliceSpan(splices []Splice, off, bodyLen int) (lo, hi, shift int) {
	lo, hi = bodyLen, 0
	for _, s := range splices {
		lo, hi = min(lo, s.Start-off), max(hi, s.End-off)
		shift += len(s.Text) - (s.End - s.Start)
	}
	return lo, hi, shift
}

// spliceLines returns the old lines [a, b) that cover body range [lo, hi), and
// reports whether everything outside them is unchanged (moved by shift) and
// still breaks into lines the same way.
func spliceLines(starts []int32, ob, nb []byte, lo, hi, shift int) (a, b int, ok bool) {
	n := len(starts) - 1
	// Old lines [a, b) cover it, with a line to spare on each side: a line break next
	// to a splice may join or split its neighbours (a CR before an LF).
	a = max(sort.Search(n, func(i int) bool { return int(starts[i+1]) > lo })-1, 0)
	b = min(sort.Search(n, func(i int) bool { return int(starts[i]) > hi })+1, n)
	oa, obEnd := int(starts[a]), int(starts[b])
	na, nbEnd := oa, obEnd+shift
	if nbEnd < na || !bytes.Equal(ob[:oa], nb[:na]) || !bytes.Equal(ob[obEnd:], nb[nbEnd:]) ||
		(na > 0 && nb[na-1] == '\r' && na < len(nb) && nb[na] == '\n') || !lineStartAt(nb, nbEnd) {
		return a, b, false
	}
	return a, b, true
}

// foldBetween returns the body starts and folded lines of the new lines in
// nb[na:nbEnd], one entry of each per line.
func foldBetween(nb []byte, na, nbEnd int) (mid []int32, midLines []folded) {
	for p := na; p < nbEnd; {
		mid = append(mid, int32(p))
		i := bytes.IndexAny(nb[p:nbEnd], "\r\n")
		e, next := nbEnd, nbEnd
		if i >= 0 {
			e, next = p+i, p+i+1
			if nb[e] == '\r' && next < len(nb) && nb[next] == '\n' {
				next++
			}
		}
		midLines = append(midLines, foldLine(nb[p:e], false, nil))
		p = next
	}
	return mid, midLines
}

// splicedView returns the view of the new body: old's text and starts before
// line a and from line b (moved), the new lines' folded text between; the fold
// maps likewise, the old ones from line b renumbered.
func splicedView(old *view, nb []byte, ns []int32, midLines []folded, a, b, n int) *view {
	nn := a + len(midLines) + (n - b)
	// The view's text: the old text before line a and from line b, the new lines'
	// folded text between.
	v := &view{maps: make(map[int]*folded, len(old.maps)), virtualEOL: old.virtualEOL && b < n}
	va, vb := int(old.starts[a]), int(old.starts[b])
	if b == n {
		vb = len(old.text) // a virtual line break at the end goes with the last line
	}
	var t []byte
	for k := range midLines {
		t = append(t, midLines[k].text...)
		if e := a + k + 1; e < len(ns) && endsLine(nb, int(ns[e])) {
			t = append(t, '\n')
		}
		if midLines[k].start != nil {
			v.maps[a+k] = &midLines[k]
		}
	}
	if b == n && nn > 0 && !endsLine(nb, len(nb)) {
		t = append(t, '\n')
		v.virtualEOL = true
	}
	// bytes.Join allocates without clearing first: a pass over the file saved.
	v.text = bytes.Join([][]byte{old.text[:va], t, old.text[vb:]}, nil)
	v.starts = splicedStarts(old.starts, midLines, nb, ns, a, b, nn, va, int32(len(t)-(vb-va)))
	// The maps of unchanged lines are shared: each holds its own copy of its line's
	// folded text, never the content's bytes.
	for l, f := range old.maps {
		switch {
		case l < a:
			v.maps[l] = f
		case l >= b:
			v.maps[l+len(midLines)-(b-a)] = f
		}
	}
	return v
}

// splicedStarts returns the view's line starts: old ones before line a, the new
// lines' from offset va, and old ones from line b moved by vshift (capacity nn+1).
func splicedStarts(oldStarts []int32, midLines []folded, nb []byte, ns []int32, a, b, nn, va int, vshift int32) []int32 {
	starts := make([]int32, 0, nn+1)
	starts = append(starts, oldStarts[:a]...)
	at := int32(va)
	for k := range midLines {
		starts = append(starts, at)
		at += int32(len(midLines[k].text))
		if e := a + k + 1; e < len(ns) && endsLine(nb, int(ns[e])) {
			at++
		}
	}
	for _, st := range oldStarts[b:] {
		starts = append(starts, st+vshift)
	}
	return starts
}

// lineStartAt reports whether body offset p starts a line (or is the end).
func lineStartAt(b []byte, p int) bool {
	if p == 0 || p == len(b) {
		return true
	}
	return b[p-1] == '\n' || (b[p-1] == '\r' && b[p] != '\n')
}

// endsLine reports whether the line before body offset p (a line's start, or the end)
// ends with a line break.
func endsLine(b []byte, p int) bool {
	return p > 0 && (b[p-1] == '\n' || b[p-1] == '\r')
}

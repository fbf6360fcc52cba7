package matcher

import (
	"bytes"
	"sort"
)

var bom = []byte{0xEF, 0xBB, 0xBF}

// doc indexes a file by lines, keeping every line's own ending so that untouched lines
// are written back byte for byte, mixed endings included. A line is kept as its start
// offset only (int32: files are far below 2 GiB), which keeps the index small; its
// content end is found from the bytes of its ending.
type doc struct {
	data   []byte  // the whole original
	off    int     // length of the BOM, 0 or 3
	body   []byte  // data[off:]
	starts []int32 // body offset of each line's start, plus len(body); see index
	n      int     // number of lines
	hasCR  bool
	common []byte // most frequent line ending, computed on first use

	lf     []byte  // the LF view: every ending read as "\n" (body itself when hasCR is false)
	lfLine []int32 // offset in lf of each line's start, plus len(lf); nil when lf is body

	// A file without CR is not indexed line by line up front: an exact match needs
	// only a few lines, found from the newline count before each block of the body.
	// Past sparseLookups such lookups, the full index is built (index).
	blocks  []int32 // newlines in body[:b*blockSize], for each block b
	lookups int
}

// Variables only so that tests can make them small.
var (
	blockSize     = 4 << 10
	sparseLookups = 64
)

func newDoc(data []byte) *doc {
	d := &doc{data: data}
	if bytes.HasPrefix(data, bom) {
		d.off = len(bom)
	}
	d.body = data[d.off:]
	d.hasCR = bytes.IndexByte(d.body, '\r') >= 0
	b := d.body
	if !d.hasCR {
		d.lf = b
		// One pass counts the lines and each block's first line.
		d.blocks = make([]int32, 0, len(b)/blockSize+1)
		nl := 0
		for at := 0; at < len(b); at += blockSize {
			d.blocks = append(d.blocks, int32(nl))
			nl += bytes.Count(b[at:min(at+blockSize, len(b))], []byte{'\n'})
		}
		d.n = nl
		if len(b) > 0 && b[len(b)-1] != '\n' {
			d.n++
		}
		return d
	}
	d.index()
	d.lf = make([]byte, 0, len(b))
	d.lfLine = make([]int32, 0, len(d.starts))
	for i := range d.nlines() {
		d.lfLine = append(d.lfLine, int32(len(d.lf)))
		d.lf = append(d.lf, d.content(i)...)
		if d.eol(i) > d.end(i) {
			d.lf = append(d.lf, '\n')
		}
	}
	d.lfLine = append(d.lfLine, int32(len(d.lf)))
	return d
}

// index builds the start of every line.
func (d *doc) index() {
	b := d.body
	starts := make([]int32, 0, bytes.Count(b, []byte{'\n'})+2)
	for pos := 0; pos < len(b); {
		starts = append(starts, int32(pos))
		var i int
		if d.hasCR {
			i = bytes.IndexAny(b[pos:], "\r\n")
		} else {
			i = bytes.IndexByte(b[pos:], '\n')
		}
		if i < 0 {
			break
		}
		eol := pos + i + 1
		if b[pos+i] == '\r' && eol < len(b) && b[eol] == '\n' {
			eol++
		}
		pos = eol
	}
	d.starts = append(starts, int32(len(b)))
	d.n = len(d.starts) - 1
}

func (d *doc) nlines() int { return d.n }

// start is the body offset of line i; start(nlines()) is len(body).
func (d *doc) start(i int) int {
	if d.starts != nil {
		return int(d.starts[i])
	}
	if i <= 0 {
		return 0
	}
	if i >= d.n {
		return len(d.body)
	}
	if d.lookups++; d.lookups > sparseLookups {
		d.index()
		return int(d.starts[i])
	}
	// Line i starts after the i-th newline, which lies in the last block b that has
	// fewer than i newlines before it.
	b := sort.Search(len(d.blocks), func(b int) bool { return int(d.blocks[b]) >= i }) - 1
	pos := b * blockSize
	for need := i - int(d.blocks[b]); ; need-- {
		pos += bytes.IndexByte(d.body[pos:], '\n') + 1
		if need == 1 {
			return pos
		}
	}
}

func (d *doc) eol(i int) int { return d.start(i + 1) }

// newlinesBefore counts the newlines before body offset p of a file not yet indexed
// (blocks): for a file without CR, the line that p is on or starts.
func (d *doc) newlinesBefore(p int) int {
	b := min(p/blockSize, len(d.blocks)-1)
	if b < 0 {
		return 0
	}
	return int(d.blocks[b]) + bytes.Count(d.body[b*blockSize:p], []byte{'\n'})
}

// end is where line i's content ends and its line break begins.
func (d *doc) end(i int) int {
	e := d.eol(i)
	if e > d.start(i) {
		switch d.body[e-1] {
		case '\n':
			e--
			if e > d.start(i) && d.body[e-1] == '\r' {
				e--
			}
		case '\r':
			e--
		}
	}
	return e
}

func (d *doc) content(i int) []byte { return d.body[d.start(i):d.end(i)] }
func (d *doc) ending(i int) []byte {
	if i < 0 || i >= d.nlines() {
		return nil
	}
	return d.body[d.end(i):d.eol(i)]
}

// endsWithNewline reports whether the last line has a line break.
func (d *doc) endsWithNewline() bool {
	return d.nlines() > 0 && len(d.ending(d.nlines()-1)) > 0
}

// commonEnding is the file's most frequent line ending, "\n" for a file without any.
func (d *doc) commonEnding() []byte {
	if d.common == nil {
		d.common = d.countEndings()
	}
	return d.common
}

func (d *doc) countEndings() []byte {
	if !d.hasCR {
		return []byte{'\n'}
	}
	var lf, crlf, cr int
	for i := range d.nlines() {
		switch string(d.ending(i)) {
		case "\n":
			lf++
		case "\r\n":
			crlf++
		case "\r":
			cr++
		}
	}
	switch {
	case crlf >= lf && crlf >= cr:
		return []byte("\r\n")
	case cr > lf:
		return []byte("\r")
	}
	return []byte("\n")
}

// endingNear is the ending of line i if it has one, else the file's common ending:
// what a new line written near line i should end with.
func (d *doc) endingNear(i int) []byte {
	if e := d.ending(i); len(e) > 0 {
		return e
	}
	if e := d.ending(i - 1); len(e) > 0 {
		return e
	}
	return d.commonEnding()
}

// lineAt returns the index of the line holding body offset p (the last line for p at
// the end of the body).
func (d *doc) lineAt(p int) int {
	if d.starts == nil {
		return min(d.newlinesBefore(p), max(d.n-1, 0))
	}
	i := sort.Search(d.nlines(), func(i int) bool { return d.eol(i) > p })
	if i == d.nlines() && i > 0 {
		i--
	}
	return i
}

// linesTouched returns the first and last line index that body range [s, e) touches.
// A range ending exactly at a line start does not touch that line.
func (d *doc) linesTouched(s, e int) (int, int) {
	a := d.lineAt(s)
	if e <= s {
		return a, a
	}
	return a, d.lineAt(e - 1)
}

// splitLF splits text on "\n", "\r\n" and lone "\r": the model's line breaks.
func splitLF(s string) []string {
	out := make([]string, 0, 8)
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n':
			out = append(out, s[start:i])
			start = i + 1
		case '\r':
			out = append(out, s[start:i])
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// toLF reads the model's CRLF and lone CR as LF.
func toLF(s string) string {
	if !containsCR(s) {
		return s
	}
	return joinLF(splitLF(s))
}

func containsCR(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '\r' {
			return true
		}
	}
	return false
}

func joinLF(p []string) string {
	n := 0
	for _, s := range p {
		n += len(s) + 1
	}
	b := make([]byte, 0, n)
	for i, s := range p {
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, s...)
	}
	return string(b)
}

// EachLine calls fn with each line of data, numbered from 1, without its line ending.
// LF, CRLF and a lone CR each end a line, as in matching, so every tool numbers lines
// alike; a BOM is not content. It stops when fn returns false.
func EachLine(data []byte, fn func(n int, line []byte) bool) {
	data = bytes.TrimPrefix(data, bom)
	for n := 1; len(data) > 0; n++ {
		i := bytes.IndexAny(data, "\r\n")
		if i < 0 {
			fn(n, data)
			return
		}
		line := data[:i]
		next := i + 1
		if data[i] == '\r' && next < len(data) && data[next] == '\n' {
			next++
		}
		data = data[next:]
		if !fn(n, line) {
			return
		}
	}
}

// CountLines is the number of lines EachLine yields: a last line without a line break
// counts too.
func CountLines(data []byte) int {
	data = bytes.TrimPrefix(data, bom)
	if len(data) == 0 {
		return 0
	}
	n := bytes.Count(data, []byte{'\n'}) + bytes.Count(data, []byte{'\r'}) - bytes.Count(data, []byte("\r\n"))
	if last := data[len(data)-1]; last != '\n' && last != '\r' {
		n++
	}
	return n
}

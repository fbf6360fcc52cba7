package journal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"time"
)

// A fact is what failure analytics read of a record, kept beside it in the facts
// bucket in a small binary form: a journal of a million calls is read in one pass
// without decompressing and parsing a million records (diffs, arguments, splices).
type fact struct {
	version             byte
	seq                 uint64
	time                time.Time
	duration            time.Duration
	session, tool, kind string
	origin              string
	state               State
	dryRun, undo        bool
	paths               []string
	edits               []factEdit
}

type factEdit struct {
	tier                     string
	gutter                   bool
	contextLines, contextByt int
	folded                   []string
}

// factVersion 2 added the origin (a version 1 fact reads its origin from its tool);
// version 3 the duration, which a record stored in a compact form reads from its fact;
// version 4 writes the tool, state, kind, origin and tiers as symbols.
const factVersion = 4

// factSymbols are the strings a version 4 fact writes as one byte: uvarint 2i+1 is
// factSymbols[i], uvarint 2n is a string of n bytes that follow. The list only grows
// at its end: facts written with it read with it.
var factSymbols = []string{
	"",
	// States.
	"pending", "committed", "failed", "rolled_back", "unknown",
	// Origins.
	"model", "operator",
	// Tools.
	"read_file", "edit_file", "create_file", "write_file", "apply_changes", "undo_edit", "undo", "redo",
	"apply_patch", "str_replace_based_edit_tool", "str_replace_editor", "replace_in_file",
	// Error kinds.
	"invalid_input", "unknown_tool", "path_outside_root", "path_reserved", "file_not_found", "not_a_file",
	"binary_file", "too_large", "file_exists", "not_read", "text_not_found", "multiple_matches",
	"overlapping_edits", "no_change", "conflict", "permission_denied", "busy", "io_error", "syntax_error",
	"placeholder_text",
	// Match tiers.
	"exact", "typography", "indentation",
}

// appendSymbol appends s as a symbol: its place in factSymbols, or the string.
func appendSymbol(b []byte, s string) []byte {
	if i, ok := factSymbolIndex[s]; ok {
		return binary.AppendUvarint(b, uint64(2*i+1))
	}
	b = binary.AppendUvarint(b, uint64(2*len(s)))
	return append(b, s...)
}

var factSymbolIndex = func() map[string]int {
	m := make(map[string]int, len(factSymbols))
	for i, s := range factSymbols {
		m[s] = i
	}
	return m
}()

func encodeFact(r *Record) []byte {
	var b []byte
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	sym := func(s string) { b = appendSymbol(b, s) }
	b = append(b, factVersion)
	b = binary.AppendVarint(b, r.Time.UnixNano())
	str(r.Session)
	sym(r.Tool)
	sym(string(r.State))
	sym(r.Kind)
	sym(r.OriginOf())
	var flags byte
	if r.DryRun() {
		flags |= 1
	}
	if r.Undo != 0 {
		flags |= 2
	}
	b = append(b, flags)
	b = binary.AppendUvarint(b, uint64(max(r.Duration, 0)))
	paths := r.Paths()
	b = binary.AppendUvarint(b, uint64(len(paths)))
	for _, p := range paths {
		str(p)
	}
	n := 0
	for _, f := range r.Files {
		n += len(f.Edits)
	}
	b = binary.AppendUvarint(b, uint64(n))
	for _, f := range r.Files {
		for _, e := range f.Edits {
			sym(e.Tier)
			g := byte(0)
			if e.Gutter {
				g = 1
			}
			b = append(b, g)
			b = binary.AppendUvarint(b, uint64(e.ContextLines))
			b = binary.AppendUvarint(b, uint64(e.ContextBytes))
			b = binary.AppendUvarint(b, uint64(len(e.Folded)))
			for _, fo := range e.Folded {
				str(fo)
			}
		}
	}
	return b
}

var errBadFact = errors.New("journal: malformed fact")

// factReader reads the fields of one encoded fact; once a read fails, err holds
// the failure and further numbers read as zero.
type factReader struct {
	r   *bytes.Reader
	v   byte
	err error
}

// uv reads an unsigned varint, leaving err set if it (or an earlier read) failed.
func (d *factReader) uv() uint64 {
	if d.err != nil {
		return 0
	}
	var v uint64
	v, d.err = binary.ReadUvarint(d.r)
	return v
}

// str reads a length-prefixed string, setting err to errBadFact if it cannot.
func (d *factReader) str() string { return d.text(d.uv()) }

// text reads a string of n bytes, setting err to errBadFact if it cannot.
func (d *factReader) text(n uint64) string {
	if d.err != nil || n > uint64(d.r.Len()) {
		d.err = errBadFact
		return ""
	}
	s := make([]byte, n)
	d.r.Read(s)
	return string(s)
}

// sym reads a symbol (version 4) or, before, a string, setting err to errBadFact
// if it cannot.
func (d *factReader) sym() string {
	if d.v < 4 {
		return d.str()
	}
	n := d.uv()
	if n&1 == 1 {
		if n>>1 >= uint64(len(factSymbols)) {
			d.err = errBadFact
			return ""
		}
		return factSymbols[n>>1]
	}
	return d.text(n >> 1)
}

func decodeFact(seq uint64, b []byte) (*fact, error) {
	r := bytes.NewReader(b)
	v, verr := r.ReadByte()
	if verr != nil || v < 1 || v > factVersion {
		return nil, errBadFact
	}
	d := &factReader{r: r, v: v}
	f := &fact{seq: seq, version: v}
	if !d.header(f) {
		return nil, errBadFact
	}
	d.body(f)
	return f, d.err
}

// header fills f's scalar fields, reporting false (f then half-filled) only when
// its time or flags cannot be read; other failures are left in err.
func (d *factReader) header(f *fact) bool {
	t, terr := binary.ReadVarint(d.r)
	if terr != nil {
		return false
	}
	f.time = time.Unix(0, t)
	f.session, f.tool = d.str(), d.sym()
	f.state, f.kind = State(d.sym()), d.sym()
	if d.v >= 2 {
		f.origin = d.sym()
	}
	f.origin = originOf(f.origin, f.tool)
	flags, ferr := d.r.ReadByte()
	if ferr != nil {
		return false
	}
	f.dryRun, f.undo = flags&1 != 0, flags&2 != 0
	if d.v >= 3 {
		f.duration = time.Duration(d.uv())
	}
	return true
}

// body appends f's paths and edits, stopping at the first failed read (left in err).
func (d *factReader) body(f *fact) {
	for n := d.uv(); n > 0 && d.err == nil; n-- {
		f.paths = append(f.paths, d.str())
	}
	for n := d.uv(); n > 0 && d.err == nil; n-- {
		var e factEdit
		e.tier = d.sym()
		g, _ := d.r.ReadByte()
		e.gutter = g == 1
		e.contextLines, e.contextByt = int(d.uv()), int(d.uv())
		for m := d.uv(); m > 0 && d.err == nil; m-- {
			e.folded = append(e.folded, d.str())
		}
		f.edits = append(f.edits, e)
	}
}

// factTime is the time of an encoded fact, read without the rest of it.
func factTime(v []byte) (time.Time, bool) {
	if len(v) < 2 || v[0] < 1 || v[0] > factVersion {
		return time.Time{}, false
	}
	t, n := binary.Varint(v[1:])
	if n <= 0 {
		return time.Time{}, false
	}
	return time.Unix(0, t), true
}

func factOf(r *Record) *fact {
	f, _ := decodeFact(r.Seq, encodeFact(r))
	return f
}

func (q Query) matchFact(f *fact) bool {
	switch {
	case q.Session != "" && f.session != q.Session,
		q.Kind != "" && f.kind != q.Kind,
		q.Failed && f.state != Failed,
		!q.Since.IsZero() && f.time.Before(q.Since),
		!q.Until.IsZero() && !f.time.Before(q.Until):
		return false
	}
	if q.Path != "" {
		for _, p := range f.paths {
			if p == q.Path {
				return true
			}
		}
		return false
	}
	return true
}

// Stats reads the records q selects in one pass, oldest first, from their facts (or,
// for records written before facts were kept, from the records), and returns the
// figures with one real example of each failure kind.
func (t *Tx) Stats(q Query) (*Stats, error) {
	st := NewStats()
	if q.ChangesFiles != nil {
		st.changes = q.ChangesFiles
	}
	// Walk the facts, not the records: their pages are all this pass touches. A
	// record without a fact (written before facts were kept) is read itself.
	next := uint64(1)
	rc := t.b(bRecords).Cursor()
	fromRecords := func(upTo uint64) error {
		// By the records' keys, not by counting up: a damaged key far ahead (a fact
		// of call 2^41) would have had this count for hours.
		for k, _ := rc.Seek(seqKey(next)); k != nil; k, _ = rc.Next() {
			if len(k) != 8 {
				continue // not a record's key: damage, which fsck reports
			}
			seq := binary.BigEndian.Uint64(k)
			if seq >= upTo {
				break
			}
			r, err := t.Get(seq)
			if err != nil {
				return err
			}
			if r != nil {
				if f := factOf(r); q.matchFact(f) {
					st.add(f)
				}
			}
		}
		return nil
	}
	c := t.b(bFacts).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		seq := binary.BigEndian.Uint64(k)
		if err := fromRecords(seq); err != nil {
			return nil, err
		}
		next = seq + 1
		f, err := decodeFact(seq, v)
		if err != nil {
			return nil, err
		}
		if q.matchFact(f) {
			st.add(f)
		}
	}
	if err := fromRecords(t.Last() + 1); err != nil {
		return nil, err
	}
	st.Finish()
	st.guardsByLanguage(t)
	st.countCommands(t)
	for i := range st.ByKind {
		ex := &st.ByKind[i].Example
		if r, err := t.Get(ex.Seq); err == nil && r != nil {
			msg, _, _ := strings.Cut(r.Message, "\n")
			ex.Tool, ex.Message, ex.Args = r.Tool, msg, clipArgs(r.Args)
		}
	}
	return st, nil
}

package journal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// Query selects records; zero fields select everything. Results come newest first.
type Query struct {
	Path    string
	Session string
	Turn    string // only calls carrying this turn label
	Kind    string
	Failed  bool // only refused and failed calls
	Since   time.Time
	Until   time.Time
	Limit   int // 0: no limit
	// SkipDamaged goes on past records that cannot be decoded, for the operator's
	// listings: Find and Each then return every readable record, and an error that
	// names the others (ErrSkippedDamaged). Left false, the first one stops them.
	SkipDamaged bool
	// ChangesFiles says which tools change files, for Stats' recovery after refusal;
	// nil counts the native tools that do (edit_file, write_file, create_file,
	// apply_changes). The journal does not know the tool table; the facade does.
	ChangesFiles func(tool string) bool
}

// ErrSkippedDamaged is what Find and Each return (in an *errs.Error that says which
// records) after every readable record, when a query with SkipDamaged passed over
// records that could not be read.
var ErrSkippedDamaged = errors.New("journal records left out as damaged")

// damaged collects the records a query passed over.
type damaged struct {
	seqs  []uint64
	first error // what was wrong with the first of them
}

// skip reports whether a query goes on past err, met reading record seq.
func (d *damaged) skip(q Query, seq uint64, err error) bool {
	if !q.SkipDamaged {
		return false
	}
	if d.first == nil {
		d.first = err
	}
	d.seqs = append(d.seqs, seq)
	return true
}

// result is err, or the damage passed over when there was no other error.
func (d *damaged) result(err error) error {
	switch {
	case err != nil || len(d.seqs) == 0:
		return err
	case len(d.seqs) == 1:
		return errs.Wrap(errs.IOError, "", ErrSkippedDamaged, "1 record of the journal could not be read and was left out (%v); vfsctl fsck checks the whole journal", d.first)
	}
	var nums []string
	for i, seq := range d.seqs {
		if i == 10 {
			nums = append(nums, "...")
			break
		}
		nums = append(nums, strconv.FormatUint(seq, 10))
	}
	return errs.Wrap(errs.IOError, "", ErrSkippedDamaged, "%d records of the journal could not be read and were left out (%s; the first: %v); vfsctl fsck checks the whole journal", len(d.seqs), strings.Join(nums, ", "), d.first)
}

// inTime reports whether at is in q's time range.
func (q Query) inTime(at time.Time) bool {
	return (q.Since.IsZero() || !at.Before(q.Since)) && (q.Until.IsZero() || at.Before(q.Until))
}

func (q Query) match(r *Record) bool {
	switch {
	case q.Session != "" && r.Session != q.Session,
		q.Turn != "" && r.Turn != q.Turn,
		q.Kind != "" && r.Kind != q.Kind,
		q.Failed && r.State != Failed,
		!q.Since.IsZero() && r.Time.Before(q.Since),
		!q.Until.IsZero() && !r.Time.Before(q.Until):
		return false
	}
	if q.Path != "" {
		return slices.Contains(r.Paths(), q.Path) || slices.Contains(r.FolderKeys(), q.Path+"/")
	}
	return true
}

// Find returns the records q selects, newest first. It walks the most selective index
// it has (path, then session, then kind), else the facts for a time range, and
// filters the rest.
func (t *Tx) Find(q Query) ([]*Record, error) {
	var out []*Record
	var dmg damaged
	visit := func(seq uint64) (bool, error) {
		r, err := t.Get(seq)
		if err != nil && dmg.skip(q, seq, err) {
			return false, nil
		}
		if err != nil || r == nil {
			return false, err
		}
		if q.match(r) {
			out = append(out, r)
		}
		return q.Limit > 0 && len(out) >= q.Limit, nil
	}
	bucket, name := "", ""
	switch {
	case q.Path != "":
		bucket, name = bByPath, q.Path
	case q.Session != "":
		bucket, name = bBySession, q.Session
	case q.Kind != "":
		bucket, name = bByKind, q.Kind
	}
	if q.Path != "" {
		// The calls that name the path as a file, and those that made or removed it
		// as a folder, newest first.
		seqs := append(t.SeqsOf(q.Path, 0), t.SeqsOf(q.Path+"/", 0)...)
		slices.Sort(seqs)
		seqs = slices.Compact(seqs)
		for i := len(seqs) - 1; i >= 0; i-- {
			if stop, err := visit(seqs[i]); err != nil || stop {
				return out, dmg.result(err)
			}
		}
		return out, dmg.result(nil)
	}
	if bucket != "" {
		return out, dmg.result(t.newestIn(bucket, name, 0, visit))
	}
	if !q.Since.IsZero() || !q.Until.IsZero() {
		err := t.newestFacts(func(seq uint64, fv []byte) (bool, error) {
			if fv != nil {
				// The time first: most facts of a long journal are outside the range.
				if at, ok := factTime(fv); ok && !q.inTime(at) {
					return false, nil
				}
				if f, err := decodeFact(seq, fv); err == nil && !q.matchFact(f) {
					return false, nil
				}
			}
			return visit(seq)
		})
		return out, dmg.result(err)
	}
	c := t.b(bRecords).Cursor()
	for k, _ := c.Last(); k != nil; k, _ = c.Prev() {
		stop, err := visit(binary.BigEndian.Uint64(k))
		if err != nil || stop {
			return out, dmg.result(err)
		}
	}
	return out, dmg.result(nil)
}

// newestFacts calls fn with every record's number and encoded fact, newest first,
// until fn returns true or an error. A record written before facts were kept comes
// with a nil fact. A time range is found this way, not through an index: a call's time is its
// clock's, which may step back, and calls of several processes interleave, so times
// are not ordered by sequence number, and the facts already hold them.
func (t *Tx) newestFacts(fn func(seq uint64, fv []byte) (bool, error)) error {
	next := t.Last() // the newest record not yet visited
	gap := func(down uint64) (bool, error) {
		for ; next > down; next-- {
			if t.b(bRecords).Get(seqKey(next)) == nil {
				continue
			}
			if stop, err := fn(next, nil); err != nil || stop {
				return true, err
			}
		}
		return false, nil
	}
	c := t.b(bFacts).Cursor()
	for k, v := c.Last(); k != nil; k, v = c.Prev() {
		seq := binary.BigEndian.Uint64(k)
		if stop, err := gap(seq); err != nil || stop {
			return err
		}
		next = seq - 1
		if stop, err := fn(seq, v); err != nil || stop {
			return err
		}
	}
	_, err := gap(0)
	return err
}

// Each calls fn with every record q selects, oldest first, one at a time: for reading
// a large journal without holding it in memory. fn returns false to stop. Limit is
// ignored.
func (t *Tx) Each(q Query, fn func(*Record) bool) error {
	var dmg damaged
	c := t.b(bRecords).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		seq := binary.BigEndian.Uint64(k)
		r, err := decodeRecord(seq, v, t.b(bFacts).Get(k), t.afterHashOnce())
		if err != nil {
			err = fmt.Errorf("journal record %d: %w", seq, err)
			if dmg.skip(q, seq, err) {
				continue
			}
			return err
		}
		if q.match(r) && !fn(r) {
			return dmg.result(nil)
		}
	}
	return dmg.result(nil)
}

// The history index says, per committed record that changed files, which tool call
// its change came from (its origin: itself, or for an undo the origin of the call it
// reverted, for a redo the origin of the undo it re-applied), and per origin which
// record is its latest. Undo and redo choose and check their target from it without
// decoding the journal's records: at a million records, decoding them all would hold
// the journal, and every other process, for seconds.
//
// A new journal has the index from its first record. One made before the index has
// none until the first undo builds it (BuildHistory, once); from then on every Put keeps it, and notes the last record it indexed. A
// record added by a vfsctl that predates the index leaves the index behind the
// journal: it is then not used, and the next undo builds it again.

// Change is what the history index holds of one record.
type Change struct {
	Seq, Origin uint64
	Undo, Redo  bool // the record is an undo (it reverts Origin) or a redo (it re-applies it)
	Session     string
	Paths       []string // every path the record names
}

// History answers undo's questions about the journal's changes.
type History interface {
	// Change returns the index entry of record seq; false when seq is not a
	// committed change whose origin the journal knows.
	Change(seq uint64) (Change, bool)
	// Latest is the latest record of origin, 0 when there is none.
	Latest(origin uint64) uint64
	// Newest calls fn with every change, newest first, until fn returns false.
	Newest(fn func(Change) bool)
}

// historyUpto is the meta key of the last record the history index has seen.
var historyUpto = []byte("history_upto")

// HistoryReady reports whether the journal keeps the history index, up to date.
func (t *Tx) HistoryReady() bool {
	if t.tx.Bucket([]byte(bHistory)) == nil {
		return false
	}
	v := t.b(bMeta).Get(historyUpto)
	return len(v) == 8 && binary.BigEndian.Uint64(v) == t.Last()
}

// History returns the journal's history index; it must be ready (HistoryReady).
func (t *Tx) History() History { return indexHistory{t} }

// BuildHistory builds the history index from every record, unless it is up to date:
// a write.
func (t *Tx) BuildHistory() error {
	if t.HistoryReady() {
		return nil
	}
	for _, name := range []string{bHistory, bLatest} {
		if t.tx.Bucket([]byte(name)) != nil {
			if err := t.deleteBucket(name); err != nil {
				return err
			}
		}
		if err := t.createBucket(name); err != nil {
			return err
		}
	}
	if err := t.eachRecord(func(r *Record) error { return t.indexChange(r) }); err != nil {
		return err
	}
	return t.b(bMeta).Put(historyUpto, seqKey(t.Last()))
}

// ScanHistory builds the history in memory from every record, for a journal that has
// no index and cannot be given one now: it costs a decoding of every record.
func (t *Tx) ScanHistory() (History, error) {
	h := &memHistory{changes: map[uint64]Change{}, latest: map[uint64]uint64{}}
	err := t.eachRecord(func(r *Record) error {
		c, ok := changeOf(r, func(seq uint64) (Change, bool) { c, ok := h.changes[seq]; return c, ok })
		if ok {
			h.changes[c.Seq] = c
			h.order = append(h.order, c.Seq)
			h.latest[c.Origin] = max(h.latest[c.Origin], c.Seq)
		}
		return nil
	})
	return h, err
}

// eachRecord calls fn with every record, oldest first, stopping at its first error.
func (t *Tx) eachRecord(fn func(*Record) error) error {
	var ferr error
	if err := t.Each(Query{}, func(r *Record) bool { ferr = fn(r); return ferr == nil }); err != nil {
		return err
	}
	return ferr
}

// changeOf is the history entry of r, given the entries of earlier records; false
// when r is no committed change, or reverts one the journal does not know. An exec
// that recovery recorded (Unknown: its vfsctl stopped) is a change: its files are what
// recovery found changed on disk, and an undo takes them back like a command's.
func changeOf(r *Record, known func(uint64) (Change, bool)) (Change, bool) {
	if r.State != Committed && (r.State != Unknown || !IsCommand(r.Tool)) {
		return Change{}, false
	}
	changes := len(r.Entries) > 0 // folders and symlinks a command changed
	for _, f := range r.Files {
		changes = changes || f.Op.Changes()
	}
	if !changes {
		return Change{}, false
	}
	c := Change{Seq: r.Seq, Origin: r.Seq, Undo: r.Undo != 0, Redo: r.Redo != 0, Session: r.Session, Paths: r.Paths()}
	if target := r.Undo | r.Redo; target != 0 {
		tc, ok := known(target)
		if !ok {
			return Change{}, false
		}
		c.Origin = tc.Origin
	}
	return c, true
}

// indexChange keeps the history index of r, when the journal has the index.
func (t *Tx) indexChange(r *Record) error {
	hb := t.b(bHistory)
	if hb == nil {
		return nil
	}
	key := seqKey(r.Seq)
	// Records are numbered in order: a gap is records another vfsctl added unindexed,
	// and the index stays behind until it is built again.
	if v := t.b(bMeta).Get(historyUpto); len(v) == 8 && binary.BigEndian.Uint64(v)+1 == r.Seq {
		if err := t.b(bMeta).Put(historyUpto, key); err != nil {
			return err
		}
	}
	c, ok := changeOf(r, indexHistory{t}.Change)
	if !ok {
		return hb.Delete(key)
	}
	v := encodeChange(c)
	if t.b(bFacts).Get(key) != nil {
		v = encodeShortChange(c)
	}
	if err := hb.Put(key, v); err != nil {
		return err
	}
	if c.Origin == c.Seq {
		return nil // its own latest until an undo or redo of it: Latest says so unwritten
	}
	lb := t.b(bLatest)
	ok2 := seqKey(c.Origin)
	if v := lb.Get(ok2); v != nil && binary.BigEndian.Uint64(v) >= c.Seq {
		return nil
	}
	return lb.Put(ok2, key)
}

// encodeShortChange is the form of c for a record with a fact, which holds its session
// and paths: flags with shortChange set, uvarint how many calls before c its origin
// is. Two bytes where encodeChange takes some thirty.
func encodeShortChange(c Change) []byte {
	flags := byte(shortChange)
	if c.Undo {
		flags |= 1
	}
	if c.Redo {
		flags |= 2
	}
	return binary.AppendUvarint([]byte{flags}, c.Seq-c.Origin)
}

// shortChange marks the short form of a history entry. The long form starts with the
// origin's sequence number, big-endian, whose first byte is 0 below 2^56 calls.
const shortChange = 0x80

func encodeChange(c Change) []byte {
	b := binary.BigEndian.AppendUint64(nil, c.Origin)
	var flags byte
	if c.Undo {
		flags |= 1
	}
	if c.Redo {
		flags |= 2
	}
	b = append(b, flags)
	b = binary.AppendUvarint(b, uint64(len(c.Session)))
	b = append(b, c.Session...)
	b = binary.AppendUvarint(b, uint64(len(c.Paths)))
	for _, p := range c.Paths {
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
	}
	return b
}

func decodeChange(seq uint64, v []byte) (Change, bool) {
	if len(v) < 9 {
		return Change{}, false
	}
	c := Change{Seq: seq, Origin: binary.BigEndian.Uint64(v), Undo: v[8]&1 != 0, Redo: v[8]&2 != 0}
	v = v[9:]
	str := func() (string, bool) {
		n, k := binary.Uvarint(v)
		if k <= 0 || uint64(len(v)-k) < n {
			return "", false
		}
		s := string(v[k : k+int(n)])
		v = v[k+int(n):]
		return s, true
	}
	var ok bool
	if c.Session, ok = str(); !ok {
		return Change{}, false
	}
	n, k := binary.Uvarint(v)
	if k <= 0 {
		return Change{}, false
	}
	v = v[k:]
	for range n {
		p, ok := str()
		if !ok {
			return Change{}, false
		}
		c.Paths = append(c.Paths, p)
	}
	return c, true
}

// indexHistory is the history kept in the journal's buckets.
type indexHistory struct{ t *Tx }

func (h indexHistory) Change(seq uint64) (Change, bool) {
	hb := h.t.b(bHistory)
	if hb == nil {
		return Change{}, false
	}
	return h.decode(seq, hb.Get(seqKey(seq)))
}

// decode reads a history entry in either form, the short one with its fact.
func (h indexHistory) decode(seq uint64, v []byte) (Change, bool) {
	if len(v) == 0 || v[0]&shortChange == 0 {
		return decodeChange(seq, v)
	}
	back, k := binary.Uvarint(v[1:])
	if k <= 0 || back >= seq {
		return Change{}, false
	}
	f, err := decodeFact(seq, h.t.b(bFacts).Get(seqKey(seq)))
	if err != nil {
		return Change{}, false
	}
	return Change{Seq: seq, Origin: seq - back, Undo: v[0]&1 != 0, Redo: v[0]&2 != 0, Session: f.session, Paths: f.paths}, true
}

func (h indexHistory) Latest(origin uint64) uint64 {
	if v := h.t.b(bLatest).Get(seqKey(origin)); len(v) == 8 {
		return binary.BigEndian.Uint64(v)
	}
	// A change nothing undid or redid is not written down as its own latest.
	if c, ok := h.Change(origin); ok && c.Origin == origin {
		return origin
	}
	return 0
}

func (h indexHistory) Newest(fn func(Change) bool) {
	c := h.t.b(bHistory).Cursor()
	for k, v := c.Last(); k != nil; k, v = c.Prev() {
		ch, ok := h.decode(binary.BigEndian.Uint64(k), v)
		if ok && !fn(ch) {
			return
		}
	}
}

// memHistory is the history built in memory (ScanHistory).
type memHistory struct {
	changes map[uint64]Change
	latest  map[uint64]uint64
	order   []uint64 // oldest first
}

func (h *memHistory) Change(seq uint64) (Change, bool) { c, ok := h.changes[seq]; return c, ok }
func (h *memHistory) Latest(origin uint64) uint64      { return h.latest[origin] }
func (h *memHistory) Newest(fn func(Change) bool) {
	for i := len(h.order) - 1; i >= 0; i-- {
		if !fn(h.changes[h.order[i]]) {
			return
		}
	}
}

// SeqsBelow lists the records that name dir (a folder, with its slash) or a path
// below it, unordered, from the path index (no record is decoded).
func (t *Tx) SeqsBelow(dir string) []uint64 {
	var out []uint64
	c := t.b(bByPath).Cursor()
	for k, v := c.Seek([]byte(dir)); k != nil && bytes.HasPrefix(k, []byte(dir)); k, v = c.Next() {
		if i := bytes.IndexByte(k, 0); i >= 0 {
			out, _ = run(out, k[:i+1], k, v)
		}
	}
	return out
}

// SeqsOf lists the records that name path with a sequence number above after, oldest
// first, from the path index (no record is decoded).
func (t *Tx) SeqsOf(path string, after uint64) []uint64 {
	return t.oldestIn(bByPath, path, after)
}

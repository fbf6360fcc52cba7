package journal

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	kflate "github.com/klauspost/compress/flate"
	bolt "go.etcd.io/bbolt"
)

const (
	bMeta      = "meta"
	bRecords   = "records"
	bPending   = "pending"
	bBlobs     = "blobs"
	bHeads     = "heads"
	bReads     = "reads"
	bByPath    = "by_path"
	bBySession = "by_session"
	bByKind    = "by_kind"
	bByTime    = "by_time" // written by journals before facts held the times; unused
	bFacts     = "facts"
	bHistory   = "history" // seq -> the record's change (query.go), once built
	bLatest    = "latest"  // origin seq -> its latest record's seq
)

// Tx is a journal transaction. A write transaction of a hold that keeps the log
// (wal.go) notes every change it makes in log, to be made durable as one frame.
type Tx struct {
	tx  *bolt.Tx
	log *opLog
	// bulk: the transaction writes many blobs and snapshot entries (PackFull).
	bulk bool
}

// PackFull says that the transaction writes many blobs and snapshot entries at once
// (a workspace's first snapshot): their pages are packed full rather than half full.
// Blobs have random keys, so the transactions that add one at a time later split
// those pages as they would any.
func (t *Tx) PackFull() { t.bulk = true }

// b returns the top-level bucket name, or nil if there is none. Its writes go
// through bucket, which notes them in the transaction's log: every write of the
// journal package goes through it (or createBucket and deleteBucket), so that the
// log replays exactly what bbolt was told.
func (t *Tx) b(name string) *bucket {
	b := t.tx.Bucket([]byte(name))
	if b == nil {
		return nil
	}
	if t.tx.Writable() {
		b.FillPercent = fillPercent(name)
		if t.bulk && (name == bBlobs || name == bSnapshot) {
			b.FillPercent = 1
		}
	}
	return &bucket{Bucket: b, name: name, log: t.log}
}

// bucket is a bbolt bucket whose writes are noted in the transaction's log. Reads
// (Get, Cursor, ForEach, Sequence, Stats) are bbolt's own; a cursor's Delete is not
// used, as it would bypass the log.
type bucket struct {
	*bolt.Bucket
	name string
	log  *opLog
}

func (b *bucket) Put(k, v []byte) error {
	if err := b.Bucket.Put(k, v); err != nil {
		return err
	}
	b.log.add(opPut, b.name, k, v)
	return nil
}

func (b *bucket) Delete(k []byte) error {
	if err := b.Bucket.Delete(k); err != nil {
		return err
	}
	b.log.add(opDelete, b.name, k, nil)
	return nil
}

func (b *bucket) NextSequence() (uint64, error) {
	n, err := b.Bucket.NextSequence()
	if err == nil {
		b.log.addSeq(b.name, n)
	}
	return n, err
}

func (b *bucket) SetSequence(n uint64) error {
	if err := b.Bucket.SetSequence(n); err != nil {
		return err
	}
	b.log.addSeq(b.name, n)
	return nil
}

// createBucket creates the top-level bucket name, noting it in the log.
func (t *Tx) createBucket(name string) error {
	if _, err := t.tx.CreateBucket([]byte(name)); err != nil {
		return err
	}
	t.log.add(opCreateBucket, name, nil, nil)
	return nil
}

// deleteBucket deletes the top-level bucket name, noting it in the log.
func (t *Tx) deleteBucket(name string) error {
	if err := t.tx.DeleteBucket([]byte(name)); err != nil {
		return err
	}
	t.log.add(opDeleteBucket, name, nil, nil)
	return nil
}

// fillPercent is how full bbolt packs a bucket's pages when it splits them. Where keys
// only grow at the end (a sequence number, one session's calls), full pages
// keep the file small. Where each call adds a key in the middle (a path among many,
// a kind), a page split that full leaves the next key of that prefix a nearly
// empty page of its own: 1,000 calls round 50 files left by_path's pages a third
// full at 0.95, two thirds at bbolt's default of one half.
//
// A bucket appended one key per transaction fills its pages less than this says:
// bbolt splits a page only once it overflows, and then leaves the last three
// entries to the new page. Records of about 300 bytes end 11 to a page, 80% full at
// any fill above that; smaller records pack better.
func fillPercent(bucket string) float64 {
	switch bucket {
	case bByPath, bByKind, bHeads, bReads, bBlobs:
		return bolt.DefaultFillPercent
	}
	return 0.95
}

func seqKey(seq uint64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], seq)
	return k[:]
}

func indexKey(prefix string, seq uint64) []byte {
	k := make([]byte, 0, len(prefix)+9)
	k = append(k, prefix...)
	k = append(k, 0)
	return append(k, seqKey(seq)...)
}

// NextSeq reserves the next sequence number.
func (t *Tx) NextSeq() (uint64, error) { return t.b(bRecords).NextSequence() }

// Encoded is a record's stored form, made before its transaction: the transaction,
// which holds bbolt's writer lock and, in a group commit, other calls' records too,
// then only copies it.
type Encoded struct {
	r    Record
	data []byte
}

// Encode makes the stored form of r, which must have its sequence number. Later
// changes to r are not in it.
func Encode(r *Record) (*Encoded, error) {
	if r.Seq == 0 {
		return nil, fmt.Errorf("journal: a record is encoded ahead only once it has its sequence number")
	}
	data, err := encodeRecord(r)
	if err != nil {
		return nil, err
	}
	return &Encoded{r: *r, data: data}, nil
}

// PutEncoded stores a record encoded ahead (Encode), as Put does.
func (t *Tx) PutEncoded(e *Encoded) error { return t.put(&e.r, e.data) }

// Put stores a record (new or updated), keeping the indexes and the pending set.
func (t *Tx) Put(r *Record) error { return t.put(r, nil) }

// put stores r, as packed when packed is not nil.
func (t *Tx) put(r *Record, packed []byte) error {
	if r.Seq == 0 {
		seq, err := t.NextSeq()
		if err != nil {
			return err
		}
		r.Seq = seq
	}
	// What the indexes need of the stored version: its fact, else the record itself.
	var oldKind string
	exists := false
	if fv := t.b(bFacts).Get(seqKey(r.Seq)); fv != nil {
		if f, err := decodeFact(r.Seq, fv); err == nil {
			oldKind, exists = f.kind, true
		}
	}
	if !exists {
		old, err := t.Get(r.Seq)
		if err != nil {
			return err
		}
		if old != nil {
			oldKind, exists = old.Kind, true
		}
	}
	if packed == nil {
		var err error
		if packed, err = encodeRecord(r); err != nil {
			return err
		}
	}
	key := seqKey(r.Seq)
	stored := t.b(bRecords).Get(key)
	if err := sameAfters(r.Seq, stored, r); err != nil {
		return err
	}
	packed = t.referBefore(r, packed)
	// A pending record that becomes committed changes only in its state and duration,
	// which its fact holds: the record stays as written (codec.go). (Should a create
	// have made other folders than its pending record foresaw, it is written again.)
	if !sameRecord(stored, packed) {
		if err := t.b(bRecords).Put(key, packed); err != nil {
			return err
		}
	}
	if err := t.b(bFacts).Put(key, encodeFact(r)); err != nil {
		return err
	}
	var err error
	if r.State == Pending {
		err = t.b(bPending).Put(key, nil)
	} else {
		err = t.b(bPending).Delete(key)
	}
	if err != nil {
		return err
	}
	if exists {
		if oldKind != r.Kind {
			t.b(bByKind).Delete(indexKey(oldKind, r.Seq))
		}
	} else {
		if err := t.index(bBySession, r.Session, r.Seq); err != nil {
			return err
		}
	}
	for _, p := range append(r.Paths(), r.FolderKeys()...) {
		if err := t.index(bByPath, p, r.Seq); err != nil {
			return err
		}
	}
	if err := t.indexChange(r); err != nil {
		return err
	}
	if r.Kind != "" {
		return t.b(bByKind).Put(indexKey(r.Kind, r.Seq), nil)
	}
	return nil
}

// recordsDecoded counts the records Get decoded, for tests of how often a caller
// decodes the same record (RecordsDecoded).
var recordsDecoded atomic.Int64

// RecordsDecoded is how many records Get has decoded in this process: tests count
// with it that a look decodes each record it needs once, not once per path.
func RecordsDecoded() int64 { return recordsDecoded.Load() }

// Get returns the record seq, or nil.
func (t *Tx) Get(seq uint64) (*Record, error) {
	key := seqKey(seq)
	v := t.b(bRecords).Get(key)
	if v == nil {
		return nil, nil
	}
	recordsDecoded.Add(1)
	r, err := decodeRecord(seq, v, t.b(bFacts).Get(key), t.afterHashOnce())
	if err != nil {
		return nil, fmt.Errorf("journal record %d: %w", seq, err)
	}
	return r, nil
}

// refLookBack bounds how many earlier records of a file put reads for the one that
// ended at a before hash: the call before on the file, or a few reads before it.
const refLookBack = 4

// referBefore returns packed, a codecNoDiff form of r, with each before hash that an
// earlier record of the file ended at written as a reference to it (codec.go).
func (t *Tx) referBefore(r *Record, packed []byte) []byte {
	head, body := recordHead(packed), recordBody(packed)
	if body == nil || packed[0] == codecRecord {
		return packed
	}
	var refs []hashRef
	seen := map[uint64]*afterIndex{}
	for i, f := range r.Files {
		if f.Before == "" {
			continue
		}
		if ref, ok := t.findAfter(f.Path, f.Before, r.Seq, seen); ok {
			if refs == nil {
				refs = make([]hashRef, len(r.Files))
			}
			refs[i] = ref
		}
	}
	if refs == nil {
		return packed
	}
	out := make([]byte, 0, len(packed))
	out = append(out, head...)
	out = appendHashes(out, r, refs)
	return append(out, packed[len(body):]...)
}

// findAfter looks among the last records of path before seq for one whose after hash
// of path is hash, written whole. seen holds the records read so far for the record
// being put: the files of an undo of a command that made thousands of files mostly
// refer to that one record, and reading its facts and hashes again for each file
// cost time quadratic in the files.
func (t *Tx) findAfter(path, hash string, seq uint64, seen map[uint64]*afterIndex) (found hashRef, ok bool) {
	n := 0
	t.newestIn(bByPath, path, seq, func(at uint64) (bool, error) {
		n++
		ix, read := seen[at]
		if !read {
			ix = t.readAfters(at)
			seen[at] = ix
		}
		if ix == nil {
			return n >= refLookBack, nil
		}
		for _, i := range ix.files[path] {
			if ix.afters[i] == hash && len(hash) == 64 {
				found, ok = hashRef{back: seq - at, file: uint64(i)}, true
				return true, nil
			}
		}
		return n >= refLookBack, nil
	})
	return found, ok
}

// afterIndex is what findAfter reads of a record: its after hashes, and for each
// path the files that carry it, in order.
type afterIndex struct {
	afters []string
	files  map[string][]int
}

// readAfters reads record seq's after hashes by path, or nil when they cannot be read.
func (t *Tx) readAfters(seq uint64) *afterIndex {
	key := seqKey(seq)
	f, err := decodeFact(seq, t.b(bFacts).Get(key))
	if err != nil {
		return nil
	}
	afters, err := afterHashes(hashSection(t.b(bRecords).Get(key)))
	if err != nil || len(afters) != len(f.paths) {
		return nil
	}
	ix := &afterIndex{afters: afters, files: make(map[string][]int, len(f.paths))}
	for i, p := range f.paths {
		ix.files[p] = append(ix.files[p], i)
	}
	return ix
}

// afterHashOnce gives the after hash of file file of record seq, as a reference
// names it, for the decoding of one record: each record it refers to is read once,
// as the files of an undo of a large command all refer to that command's record.
func (t *Tx) afterHashOnce() func(seq, file uint64) (string, error) {
	var read map[uint64][]string
	return func(seq, file uint64) (string, error) {
		afters, ok := read[seq]
		if !ok {
			var err error
			if afters, err = afterHashes(hashSection(t.b(bRecords).Get(seqKey(seq)))); err != nil {
				afters = nil
			}
			if read == nil {
				read = map[uint64][]string{}
			}
			read[seq] = afters
		}
		if file >= uint64(len(afters)) {
			return "", fmt.Errorf("a reference to record %d, file %d, which does not hold it", seq, file)
		}
		return afters[file], nil
	}
}

// sameAfters refuses to store r over a stored form of it that has another after hash
// a reference could name (findAfter): a later record's before hash may be it.
func sameAfters(seq uint64, stored []byte, r *Record) error {
	afters, err := afterHashes(hashSection(stored))
	if err != nil {
		return nil // a damaged record is replaced, and nothing can refer to it
	}
	for i, a := range afters {
		if len(a) == 64 && (i >= len(r.Files) || r.Files[i].After != a) {
			return fmt.Errorf("journal: record %d would change the after hash of its file %d", seq, i)
		}
	}
	return nil
}

// Pending lists the records whose files may be half-committed, oldest first.
func (t *Tx) Pending() []uint64 {
	var out []uint64
	t.b(bPending).ForEach(func(k, _ []byte) error {
		out = append(out, binary.BigEndian.Uint64(k))
		return nil
	})
	return out
}

// Last is the highest sequence number used.
func (t *Tx) Last() uint64 { return t.b(bRecords).Sequence() }

// Hash is the hex SHA-256 of data, the form hashes take in records.
func Hash(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

const (
	codecRaw   = 0
	codecFlate = 1
)

func hexKey(h string) ([]byte, error) { return hex.DecodeString(h) }

// PutBlob stores data under its hash (once) and returns the hash.
func (t *Tx) PutBlob(data []byte) (string, error) {
	h := Hash(data)
	key, _ := hexKey(h)
	b := t.b(bBlobs)
	if b.Get(key) != nil {
		return h, nil
	}
	return h, b.Put(key, pack(data))
}

// PutBlobOf is PutBlob of data whose hash, Hash(data), the caller has: a look hashed
// each content as it read it, and need not hash it again.
func (t *Tx) PutBlobOf(hash string, data []byte) error {
	key, err := hexKey(hash)
	if err != nil || len(key) != sha256.Size {
		return fmt.Errorf("journal blob: %q is not a content hash", hash)
	}
	b := t.b(bBlobs)
	if b.Get(key) != nil {
		return nil
	}
	return b.Put(key, pack(data))
}

// PutBlobCompact is PutBlob compressed harder (flate level 6 rather than 1, about 13%
// smaller on source text), for contents stored in bulk off a call's path: a
// snapshot's. The codec is the same flate: every reader of blobs reads it.
func (t *Tx) PutBlobCompact(data []byte) (string, error) {
	h := Hash(data)
	key, _ := hexKey(h)
	b := t.b(bBlobs)
	if b.Get(key) != nil {
		return h, nil
	}
	return h, b.Put(key, packCompact(data))
}

// compactWriters are PutBlobCompact's: klauspost's flate, which at level 6 is several
// times faster than compress/flate's, and writes plain DEFLATE.
var compactWriters = sync.Pool{New: func() any {
	w, _ := kflate.NewWriter(nil, 6)
	return w
}}

// packCompact is pack at level 6.
func packCompact(data []byte) []byte { return packWith(data, &compactWriters, len(data)/3) }

// flateWriters are reused: a flate writer holds several hundred KiB of state, which
// would otherwise be allocated and cleared for every record and blob. BestSpeed: a
// blob is compressed inside the call's journal transaction, and source text still
// shrinks about threefold at that level. klauspost's flate, as for the other
// levels: at level 1 it takes half of compress/flate's instructions for source text
// (an exec that changed 100 files stores 100 contents), writes plain DEFLATE, and
// compresses as well.
var flateWriters = sync.Pool{New: func() any {
	w, _ := kflate.NewWriter(nil, kflate.BestSpeed)
	return w
}}

// flateReaders are reused, as the writers are: reading a journal of a million records
// would otherwise allocate a decompressor for each. klauspost's reads DEFLATE from
// either package's writers, in fewer instructions than compress/flate's.
var flateReaders = sync.Pool{New: func() any { return kflate.NewReader(bytes.NewReader(nil)) }}

// pack prefixes data with its codec, compressing it when that makes it smaller.
func pack(data []byte) []byte { return packWith(data, &flateWriters, len(data)/2) }

// deflater is a flate writer of either package, reset for each use.
type deflater interface {
	io.WriteCloser
	Reset(io.Writer)
}

// packWith is pack with a writer from pool, its buffer grown by guess first.
func packWith(data []byte, pool *sync.Pool, guess int) []byte {
	var buf bytes.Buffer
	buf.Grow(guess + 64)
	buf.WriteByte(codecFlate)
	w := pool.Get().(deflater)
	w.Reset(&buf)
	w.Write(data)
	w.Close()
	pool.Put(w)
	if buf.Len() < len(data)+1 {
		return buf.Bytes()
	}
	return append([]byte{codecRaw}, data...)
}

func unpack(v []byte) ([]byte, error) {
	if len(v) == 0 {
		return nil, fmt.Errorf("empty value")
	}
	switch v[0] {
	case codecRaw:
		return append([]byte(nil), v[1:]...), nil
	case codecFlate:
		r := flateReaders.Get().(io.ReadCloser)
		defer flateReaders.Put(r)
		if err := r.(kflate.Resetter).Reset(bytes.NewReader(v[1:]), nil); err != nil {
			return nil, err
		}
		out := bytes.NewBuffer(make([]byte, 0, 3*len(v)))
		_, err := out.ReadFrom(r)
		return out.Bytes(), err
	}
	return nil, fmt.Errorf("unknown codec %d", v[0])
}

// Blob returns the content stored under hash, or nil when there is none.
func (t *Tx) Blob(hash string) ([]byte, error) {
	key, err := hex.DecodeString(hash)
	if err != nil {
		return nil, nil
	}
	v := t.b(bBlobs).Get(key)
	if v == nil {
		return nil, nil
	}
	v, err = t.blobValue(v)
	if err != nil {
		return nil, fmt.Errorf("journal blob %s: %w", hash, err)
	}
	data, err := unpack(v)
	if err != nil {
		return nil, fmt.Errorf("journal blob %s: %w", hash, err)
	}
	if data == nil {
		data = []byte{} // stored, and empty: callers tell a blob from none by nil
	}
	return data, nil
}

// Head is the hash of the last content of path that the journal can rebuild.
func (t *Tx) Head(path string) string { return string(t.b(bHeads).Get([]byte(path))) }

// HeadsAt lists, in order, the paths with a head that are at p: p itself, or for a
// folder (p ending in a slash) every path below it. A look finds so the files calls
// wrote where .gitignore hides them, one seek per ignored entry.
func (t *Tx) HeadsAt(p string) []string {
	b := t.b(bHeads)
	if !strings.HasSuffix(p, "/") {
		if b.Get([]byte(p)) != nil {
			return []string{p}
		}
		return nil
	}
	var out []string
	c := b.Cursor()
	for k, _ := c.Seek([]byte(p)); k != nil && bytes.HasPrefix(k, []byte(p)); k, _ = c.Next() {
		out = append(out, string(k))
	}
	return out
}

// SetHead records that the journal can rebuild content hash of path.
func (t *Tx) SetHead(path, hash string) error {
	if hash == "" {
		return t.b(bHeads).Delete([]byte(path))
	}
	return t.b(bHeads).Put([]byte(path), []byte(hash))
}

func readKey(session, path string) []byte { return []byte(session + "\x00" + path) }

// SetRead records that session has seen the whole of content hash of path (a whole
// read, or the content it wrote itself).
func (t *Tx) SetRead(session, path, hash string) error {
	return t.b(bReads).Put(readKey(session, path), []byte(hash))
}

// AddRead records that session has seen the given line spans (1-based, inclusive) of
// content hash of path, which has total lines. Reads of one version add up: once they
// cover every line, the session has seen it whole. A read of another version starts
// over.
func (t *Tx) AddRead(session, path, hash string, spans [][2]int, total int) error {
	old, full, have := t.readState(session, path)
	if old == hash && full {
		return nil
	}
	if old != hash {
		have = nil
	}
	have = mergeSpans(append(have, spans...))
	if len(have) == 1 && have[0][0] <= 1 && have[0][1] >= total {
		return t.SetRead(session, path, hash)
	}
	var b strings.Builder
	b.WriteString(hash)
	b.WriteByte(0)
	for i, s := range have {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d-%d", s[0], s[1])
	}
	return t.b(bReads).Put(readKey(session, path), []byte(b.String()))
}

// Read returns the hash of the content of path that session last saw, or "", and
// whether it saw all of it.
func (t *Tx) Read(session, path string) (string, bool) {
	h, full, _ := t.readState(session, path)
	return h, full
}

// ReadSpans is Read with the line spans (1-based, inclusive) the session saw of a
// content it saw only part of.
func (t *Tx) ReadSpans(session, path string) (string, bool, [][2]int) {
	return t.readState(session, path)
}

func (t *Tx) readState(session, path string) (string, bool, [][2]int) {
	v := string(t.b(bReads).Get(readKey(session, path)))
	hash, rest, partial := strings.Cut(v, "\x00")
	if !partial {
		return hash, hash != "", nil
	}
	var spans [][2]int
	for _, part := range strings.Split(rest, ",") {
		var s [2]int
		if _, err := fmt.Sscanf(part, "%d-%d", &s[0], &s[1]); err == nil {
			spans = append(spans, s)
		}
	}
	return hash, false, spans
}

// mergeSpans sorts line spans and joins those that overlap or touch.
func mergeSpans(s [][2]int) [][2]int {
	sort.Slice(s, func(i, j int) bool { return s[i][0] < s[j][0] })
	var out [][2]int
	for _, x := range s {
		if n := len(out); n > 0 && x[0] <= out[n-1][1]+1 {
			out[n-1][1] = max(out[n-1][1], x[1])
			continue
		}
		out = append(out, x)
	}
	return out
}

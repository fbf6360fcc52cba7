package journal

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	kflate "github.com/klauspost/compress/flate"
)

// A record's stored form. Records were first stored as their JSON, flate-compressed
// (codecFlate) or not (codecRaw); those still read. A record is now stored in a
// compact form (codecRecord, now codecNoDiff below), which keeps the same fields in
// fewer bytes:
//
//   - the hashes as their 32 bytes, not 64 hex digits; splices, the diff and the
//     arguments as raw bytes (JSON gives []byte as base64, which flate cannot match
//     against the diff and the arguments that repeat the same text);
//   - the time as seconds, nanoseconds and zone offset; the sequence number only in
//     the key;
//   - every other field as the record's own JSON, so a field added to Record is
//     stored without a change here, compressed with a preset dictionary of the field
//     names, which makes each name cost a few bits;
//   - the state and the duration last, outside the compressed body: they are the only
//     fields that change when a pending record becomes committed, and the record's
//     fact (facts.go), rewritten anyway, holds them too. So the record is written
//     once, as pending, and the records bucket only grows at its end; a reader takes
//     the state and the duration from the fact, and from the record only when the
//     fact is missing (a pending record's own then says pending: recovery settles it).
//
// Layout: the codec byte, uvarint length of the body compressed with recordDict, the
// compressed body, the state as a symbol (facts.go), uvarint duration in nanoseconds.
// The body:
//
//	uvarint len + JSON of the record without seq, time, duration, state, args, and
//	  without each file's before, after, splices and diff
//	time: 0 (zero time) or 1, varint unix seconds, uvarint nanoseconds, varint zone
//	  offset seconds
//	per file: before hash, after hash, uvarint count of splices, each splice (uvarint
//	  start, bytes old, bytes new), string diff (codecNoDiff: bytes diff)
//	string args
//
// A hash is 0 (""), 1 and 32 bytes (lowercase hex), or 2 and a string. Bytes are
// uvarint len+1 and the bytes, 0 for nil (JSON tells nil from empty: null or "").
// Strings are uvarint len and the bytes.
const codecRecord = 2

// codecHashes is codecRecord with the files' hashes taken out of the compressed body
// (they do not compress) into a section of their own after it: uvarint length, then
// per file the before and the after hash. A before hash that an earlier record of the
// file ended at (an edit's, most often the call before on that file) is written as
// a reference to that record's after hash, 3, uvarint how many calls back, uvarint
// which of its files: 3 or 4 bytes, not 33. The section is outside the compressed
// body so that put, which knows the earlier records, writes the references into a
// form encoded ahead without compressing it again. A record's hashes never change
// once written (put refuses it), so a reference always reads what it was written for.
const codecHashes = 3

// codecNoDiff is codecHashes with each file's diff written as bytes (below), nil
// when the record keeps the diff as its splices only (diff.go): a one-line edit's
// diff is most of its record, and the splices and the content before them give it
// back.
const codecNoDiff = 4

// compactCodec reports whether c is one of the compact forms: codecRecord, codecHashes
// or codecNoDiff.
func compactCodec(c byte) bool { return c == codecRecord || c == codecHashes || c == codecNoDiff }

// recordDict primes the compressor of codecRecord. Records written with it read only
// with it: it never changes; a better one needs a new codec byte.
const recordDict = `{"path":"","content":"","offset":1,"limit":1}{"changes":[{"path":"","create":""},{"path":"","write":""}]}` +
	`{"seq":0,"time":"0001-01-01T00:00:00Z","duration_ns":0,"session":"","tool":"read_file","origin":"model","args_blob":"","args_size":1,"state":"","kind":"text_not_found","message":"","files":[{"path":"","op":"read","before_mode":420,"after_mode":420,"before_blob":true,"after_blob":true}],"undo":1,"redo":1,"notes":[""],"refusal":{"change":0,"edit":0,"lines":[1],"tiers":["exact","typography","indentation"],"closeness":0.5}}` +
	`--- a/+++ b/@@ -1,5 +1,5 @@{"path":"","edits":[{"oldText":"","newText":"","replaceAll":true}],"dryRun":true}` +
	`{"seq":0,"time":"0001-01-01T00:00:00Z","duration_ns":0,"session":"","tool":"edit_file","origin":"model","args_size":1,"state":"","files":[{"path":"","op":"edit","before_mode":420,"after_mode":420,"edits":[{"index":0,"tier":"exact","lines":[[1,1]],"context_lines":0,"context_bytes":0}]}]}`

// recordWriters compress at klauspost's level 2. Most of a small record's cost is
// the reset, which primes the dictionary, and the higher levels prime more: over the
// bodies of 300 one-line edits (574 bytes on average), level 2 took 83 k
// instructions a record against level 6's 125 k, for 161 bytes against 150; level 1
// took 80 k for 178. They are klauspost's flate, not compress/flate, which clears
// 640 KB of match tables for every record it begins. The level is not part of the
// form: its output is DEFLATE like any other, and compress/flate reads it, with the
// same dictionary, as it reads the records earlier vfsctl wrote at level 6, and with
// compress/flate (TestRecordCodecAsJSON reads them all).
var recordWriters = sync.Pool{New: func() any {
	w, _ := kflate.NewWriterDict(nil, 2, []byte(recordDict))
	return w
}}

var recordReaders = sync.Pool{New: func() any { return flate.NewReaderDict(bytes.NewReader(nil), []byte(recordDict)) }}

// encodeRecord is the codecNoDiff form of r, each hash written whole: put writes
// a before hash as a reference where it can (referBefore).
func encodeRecord(r *Record) ([]byte, error) {
	body, err := recordText(r, codecNoDiff)
	if err != nil {
		return nil, err
	}
	z := compressed.get(body)
	if z == nil {
		var buf bytes.Buffer
		buf.Grow(len(body)/2 + 64)
		w := recordWriters.Get().(*kflate.Writer)
		w.Reset(&buf)
		w.Write(body)
		w.Close()
		recordWriters.Put(w)
		z = buf.Bytes()
		compressed.put(body, z)
	}
	out := make([]byte, 0, len(z)+70*len(r.Files)+32)
	out = append(out, codecNoDiff)
	out = binary.AppendUvarint(out, uint64(len(z)))
	out = append(out, z...)
	out = appendHashes(out, r, nil)
	out = appendSymbol(out, string(r.State))
	return binary.AppendUvarint(out, uint64(max(r.Duration, 0))), nil
}

// compressed remembers the last few bodies compressed and what they compressed to. A
// call's record is encoded twice, pending and then committed, and its body is the
// same both times (the state and the duration are outside it): the second encoding
// finds it here instead of compressing it again, the most costly step of an
// encoding. Any body equal byte for byte compresses to the same bytes, so whatever
// record a hit came from, the form is the one compression would have made.
var compressed bodyMemo

// maxMemoBody bounds the bodies remembered: a small edit's is a few hundred bytes.
const maxMemoBody = 16 << 10

type bodyMemo struct {
	mu   sync.Mutex
	next int
	e    [4]struct{ body, z []byte }
}

// get is the compressed form of body if remembered, or nil. The caller must not
// change it.
func (m *bodyMemo) get(body []byte) []byte {
	if len(body) > maxMemoBody {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range m.e {
		if e.z != nil && bytes.Equal(e.body, body) {
			return e.z
		}
	}
	return nil
}

// put remembers that body compresses to z; neither may change afterwards.
func (m *bodyMemo) put(body, z []byte) {
	if len(body) > maxMemoBody {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.e[m.next].body, m.e[m.next].z = body, z
	m.next = (m.next + 1) % len(m.e)
}

// recordText is the body of r's compact form in codec, before compression: with each
// file's hashes (codecRecord) or without, the diff as a string or (codecNoDiff) as
// bytes.
func recordText(r *Record, codec byte) ([]byte, error) {
	rest := *r
	rest.Seq, rest.Time, rest.Duration, rest.State, rest.Args = 0, time.Time{}, 0, "", ""
	rest.Files = make([]File, len(r.Files))
	for i, f := range r.Files {
		f.Before, f.After, f.Splices, f.Diff, f.DiffError = "", "", nil, "", ""
		rest.Files[i] = f
	}
	js, err := json.Marshal(&rest)
	if err != nil {
		return nil, err
	}
	body := make([]byte, 0, len(js)+len(r.Args)+256)
	body = appendString(body, string(js))
	if r.Time.IsZero() {
		body = append(body, 0)
	} else {
		_, off := r.Time.Zone()
		body = append(body, 1)
		body = binary.AppendVarint(body, r.Time.Unix())
		body = binary.AppendUvarint(body, uint64(r.Time.Nanosecond()))
		body = binary.AppendVarint(body, int64(off))
	}
	for _, f := range r.Files {
		if codec == codecRecord {
			body = appendHash(body, f.Before)
			body = appendHash(body, f.After)
		}
		body = binary.AppendUvarint(body, uint64(len(f.Splices)))
		for _, s := range f.Splices {
			body = binary.AppendUvarint(body, uint64(s.Start))
			body = appendBytes(body, s.Old)
			body = appendBytes(body, s.New)
		}
		switch {
		case codec != codecNoDiff:
			body = appendString(body, f.Diff)
		case f.diffOmitted:
			body = appendBytes(body, nil)
		default:
			body = binary.AppendUvarint(body, uint64(len(f.Diff))+1)
			body = append(body, f.Diff...)
		}
	}
	return appendString(body, r.Args), nil
}

// A hashRef says that a file's before hash is the after hash of file file of the
// record back calls before.
type hashRef struct{ back, file uint64 }

// appendHashes appends the hash section of a codecHashes form: uvarint length, then
// each file's before and after hash, the before as a reference where refs has one.
func appendHashes(b []byte, r *Record, refs []hashRef) []byte {
	var hs []byte
	for i, f := range r.Files {
		if i < len(refs) && refs[i].back > 0 {
			hs = append(hs, 3)
			hs = binary.AppendUvarint(hs, refs[i].back)
			hs = binary.AppendUvarint(hs, refs[i].file)
		} else {
			hs = appendHash(hs, f.Before)
		}
		hs = appendHash(hs, f.After)
	}
	b = binary.AppendUvarint(b, uint64(len(hs)))
	return append(b, hs...)
}

// hashSectionsRead counts the hash sections afterHashes read, for a test that a
// record of many files is read once, not once per file.
var hashSectionsRead atomic.Int64

// afterHashes reads the after hashes of a hash section, which are never references.
func afterHashes(hs []byte) ([]string, error) {
	hashSectionsRead.Add(1)
	d := decoder{b: hs}
	var out []string
	for len(d.b) > 0 && d.err == nil {
		d.hashOrRef()
		out = append(out, d.hash())
	}
	return out, d.err
}

// sameRecord reports whether two stored forms differ at most in their state and
// duration, as a pending record and the same record committed do.
func sameRecord(a, b []byte) bool {
	ab, bb := recordBody(a), recordBody(b)
	return ab != nil && bytes.Equal(ab, bb)
}

// recordBody is a compact form up to its state and duration, or nil.
func recordBody(v []byte) []byte {
	head := recordHead(v)
	if head == nil || v[0] == codecRecord {
		return head
	}
	n, k := binary.Uvarint(v[len(head):])
	if k <= 0 || n > uint64(len(v)-len(head)-k) {
		return nil
	}
	return v[:len(head)+k+int(n)]
}

// recordHead is a compact form up to the end of its compressed body, or nil.
func recordHead(v []byte) []byte {
	if len(v) == 0 || !compactCodec(v[0]) {
		return nil
	}
	n, k := binary.Uvarint(v[1:])
	if k <= 0 || n > uint64(len(v)-1-k) {
		return nil
	}
	return v[:1+k+int(n)]
}

// hashSection is the hash section of a codecHashes or codecNoDiff form, or nil.
func hashSection(v []byte) []byte {
	head, body := recordHead(v), recordBody(v)
	if body == nil || v[0] == codecRecord {
		return nil
	}
	_, k := binary.Uvarint(v[len(head):])
	return body[len(head)+k:]
}

// decodeRecord reads the stored form v of record seq, in any codec. A compact record
// takes its state and duration from fv, its fact, when it has one, and a before hash
// written as a reference from the record it names, through after (nil: no record
// can be read, and a reference is an error).
func decodeRecord(seq uint64, v, fv []byte, after func(seq, file uint64) (string, error)) (*Record, error) {
	if len(v) == 0 || !compactCodec(v[0]) {
		data, err := unpack(v)
		if err != nil {
			return nil, err
		}
		var r Record
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, err
		}
		return &r, nil
	}
	head, body := recordHead(v), recordBody(v)
	if body == nil {
		return nil, errBadRecord
	}
	tail := decoder{b: v[len(body):]}
	state, duration := State(tail.symbol()), time.Duration(tail.uvarint())
	if tail.err != nil {
		return nil, tail.err
	}
	_, k := binary.Uvarint(v[1:])
	zr := recordReaders.Get().(io.ReadCloser)
	defer recordReaders.Put(zr)
	if err := zr.(flate.Resetter).Reset(bytes.NewReader(head[1+k:]), []byte(recordDict)); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Grow(4 * len(v))
	if _, err := out.ReadFrom(zr); err != nil {
		return nil, err
	}
	d := decoder{b: out.Bytes()}
	var r Record
	if err := json.Unmarshal(d.bytes(false), &r); err != nil {
		return nil, err
	}
	r.Seq = seq
	if d.byte() == 1 {
		sec, ns, off := d.varint(), d.uvarint(), d.varint()
		r.Time = time.Unix(sec, int64(ns)).UTC()
		if off != 0 {
			// As JSON gives it back: a fixed zone without a name.
			r.Time = r.Time.In(time.FixedZone("", int(off)))
		}
	}
	hs := decoder{b: hashSection(v)}
	for i := range r.Files {
		f := &r.Files[i]
		if v[0] == codecRecord {
			f.Before, f.After = d.hash(), d.hash()
		} else {
			before, ref := hs.hashOrRef()
			f.Before, f.After = before, hs.hash()
			if ref.back > 0 && hs.err == nil {
				if after == nil || ref.back >= seq {
					return nil, errBadRecord
				}
				h, err := after(seq-ref.back, ref.file)
				if err != nil {
					return nil, err
				}
				f.Before = h
			}
		}
		if n := d.uvarint(); n > 0 && d.err == nil {
			if n > uint64(len(d.b)) {
				return nil, errBadRecord
			}
			f.Splices = make([]Splice, n)
			for k := range f.Splices {
				f.Splices[k].Start = int(d.uvarint())
				f.Splices[k].Old = d.bytes(true)
				f.Splices[k].New = d.bytes(true)
			}
		}
		if v[0] != codecNoDiff {
			f.Diff = string(d.bytes(false))
		} else if diff := d.bytes(true); diff == nil {
			f.diffOmitted = true
		} else {
			f.Diff = string(diff)
		}
	}
	r.Args = string(d.bytes(false))
	if d.err != nil {
		return nil, d.err
	}
	if hs.err != nil || len(hs.b) > 0 {
		return nil, errBadRecord
	}
	r.State, r.Duration = state, duration
	if f, err := decodeFact(seq, fv); err == nil && f.version >= 3 {
		r.State, r.Duration = f.state, f.duration
	}
	return &r, nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendBytes(b, s []byte) []byte {
	if s == nil {
		return append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(s))+1)
	return append(b, s...)
}

func appendHash(b []byte, h string) []byte {
	switch raw, err := hex.DecodeString(h); {
	case h == "":
		return append(b, 0)
	case err == nil && len(raw) == 32 && hex.EncodeToString(raw) == h:
		return append(append(b, 1), raw...)
	}
	return appendString(append(b, 2), h)
}

var errBadRecord = errors.New("malformed record")

// decoder reads a codecRecord body; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errBadRecord
	}
	d.b = nil
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// bytes reads a string (nilable false) or a byte slice that may be nil.
func (d *decoder) bytes(nilable bool) []byte {
	n := d.uvarint()
	if nilable {
		if n == 0 {
			return nil
		}
		n--
	}
	if d.err != nil || n > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	s := d.b[:n:n]
	d.b = d.b[n:]
	if nilable && s == nil {
		return []byte{}
	}
	return s
}

// symbol reads a string written by appendSymbol.
func (d *decoder) symbol() string {
	n := d.uvarint()
	if n&1 == 1 {
		if n>>1 >= uint64(len(factSymbols)) {
			d.fail()
			return ""
		}
		return factSymbols[n>>1]
	}
	n >>= 1
	if d.err != nil || n > uint64(len(d.b)) {
		d.fail()
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// hashOrRef reads a hash that may be written as a reference (codecHashes' before
// hashes): the hash, or a reference.
func (d *decoder) hashOrRef() (string, hashRef) {
	if len(d.b) > 0 && d.b[0] == 3 {
		d.b = d.b[1:]
		ref := hashRef{back: d.uvarint(), file: d.uvarint()}
		if ref.back == 0 {
			d.fail()
		}
		return "", ref
	}
	return d.hash(), hashRef{}
}

func (d *decoder) hash() string {
	switch d.byte() {
	case 0:
		return ""
	case 1:
		if len(d.b) < 32 {
			d.fail()
			return ""
		}
		h := hex.EncodeToString(d.b[:32])
		d.b = d.b[32:]
		return h
	case 2:
		return string(d.bytes(false))
	}
	d.fail()
	return ""
}

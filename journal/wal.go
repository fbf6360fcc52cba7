package journal

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// The log (.vfsctl/wal): one synced write a commit instead of bbolt's two.
//
// bbolt makes a transaction durable with two fdatasyncs: its pages, then its meta
// page. Once a hold keeps the log (from its second write, or its first when it goes
// on with a live log found at open), its transactions are committed with bbolt's
// NoSync instead, and what each one changed (every Put, Delete, sequence and bucket
// it made, noted by the bucket wrapper of store.go) is appended to the log as one
// frame and synced: one fdatasync of a few hundred bytes, in a file that is
// overwritten in place. The commit is durable when its frame is.
//
// The frames are replayed over the last state of bbolt that was synced, B. The log's
// header holds a copy of B's two meta pages, and while the log is live this process
// holds a read transaction at B, so that bbolt reuses none of B's pages: after a power
// loss, whatever the unsynced transactions left in the file, B's tree is intact, and
// recovery (before bbolt opens the file) writes B's meta pages back, then replays
// the frames in one synced transaction. A frame cut short by the crash ends the log;
// its commit was never acknowledged. Every so often (foldEvery frames, foldBytes
// bytes, a transaction over bigFrame) and when the hold ends, the log folds: the next
// generation's number goes into bbolt's meta bucket, bbolt is synced, and the log
// starts again from that state, with no frame. The next hold, of this process or
// another, finds it live, with the meta pages the file has, and goes on with it, so
// that even a hold's first commit costs one frame (the syncs of the fold come after
// the call's reply). A hold that writes synced by bbolt (no extended attributes,
// Options.NoLog) first voids a live log it finds: a live log on disk never speaks of
// a state older than bbolt's synced one. Every journal this vfsctl opens is schema 2 or later
// (checkSchema), which a vfsctl that knows no log refuses to open, so none writes
// behind it.
//
// Trust: the log is in the workspace, where anyone may have written it. Its header
// and every frame carry an HMAC whose key is a random value that vfsctl keeps in an
// extended attribute of the journal file (then readable by its owner only), which no
// checkout, archive or copy of the workspace's files carries in. A log that does not
// verify is ignored: that can only be someone else's, or a header cut short as it
// was written, when bbolt was synced. B's meta pages go back into the file only if
// the tree they name there records the log's generation (pages.go reads it without
// bbolt): a journal file replaced since (a backup put back in place, keeping the
// key) is not written. Where the file system keeps no extended attributes, no log is
// kept and every commit is synced by bbolt, as before.

const (
	walName  = "wal"
	walXattr = "user.vfsctl.wal"
	walMagic = "vfsctlW1"

	// foldEvery and foldBytes bound a log's length: recovery replays at most this
	// much, bbolt's file grows while B's pages are held, and bbolt writes its whole
	// freelist, the pages B holds included, sorted, at every commit.
	foldEvery = 128
	foldBytes = walPrealloc
	// walPrealloc is the length the log file is given with zeros when it is made, so
	// that a frame overwrites allocated blocks and its fdatasync writes no metadata.
	walPrealloc = 1 << 20
	// walAlloc is how much bbolt grows its file at a time under the large map (its
	// default, 16 MiB, would be the least size of any journal).
	walAlloc = 1 << 20
	// bigFrame is the size past which a transaction is synced by bbolt (a fold)
	// rather than written to the log as well.
	bigFrame = 256 << 10
	// walMap is the least size of bbolt's memory map while a log may be kept:
	// remapping waits for every read transaction, the one that holds B included, so a
	// transaction that would need a larger map is committed synced instead.
	walMap  = 1 << 30
	walLive = 1
)

// Log operations, as noted by bucket and replayed by applyOps.
const (
	opPut byte = iota + 1
	opDelete
	opSetSeq
	opCreateBucket
	opDeleteBucket
)

// opLog is what one write transaction changed, in order. A nil *opLog notes nothing.
type opLog struct {
	buf []byte
	n   int
}

func (l *opLog) add(op byte, bucket string, k, v []byte) {
	if l == nil {
		return
	}
	l.n++
	l.buf = append(l.buf, op)
	l.buf = binary.AppendUvarint(l.buf, uint64(len(bucket)))
	l.buf = append(l.buf, bucket...)
	if op == opPut || op == opDelete {
		l.buf = binary.AppendUvarint(l.buf, uint64(len(k)))
		l.buf = append(l.buf, k...)
	}
	if op == opPut {
		l.buf = binary.AppendUvarint(l.buf, uint64(len(v)))
		l.buf = append(l.buf, v...)
	}
}

func (l *opLog) addSeq(bucket string, n uint64) {
	if l == nil {
		return
	}
	l.add(opSetSeq, bucket, nil, nil)
	l.buf = binary.AppendUvarint(l.buf, n)
}

// applyOps replays one frame's operations in tx.
func applyOps(tx *bolt.Tx, p []byte) error {
	bad := errors.New("a frame of the log does not parse")
	field := func() ([]byte, bool) {
		n, w := binary.Uvarint(p)
		if w <= 0 || n > uint64(len(p)-w) {
			return nil, false
		}
		f := p[w : w+int(n)]
		p = p[w+int(n):]
		return f, true
	}
	for len(p) > 0 {
		op := p[0]
		p = p[1:]
		name, ok := field()
		if !ok {
			return bad
		}
		switch op {
		case opCreateBucket:
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
			continue
		case opDeleteBucket:
			if err := tx.DeleteBucket(name); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
				return err
			}
			continue
		}
		b := tx.Bucket(name)
		if b == nil {
			return fmt.Errorf("the log names a bucket %q the journal does not have", name)
		}
		switch op {
		case opPut:
			k, ok1 := field()
			v, ok2 := field()
			if !ok1 || !ok2 {
				return bad
			}
			if err := b.Put(k, v); err != nil {
				return err
			}
		case opDelete:
			k, ok := field()
			if !ok {
				return bad
			}
			if err := b.Delete(k); err != nil {
				return err
			}
		case opSetSeq:
			n, w := binary.Uvarint(p)
			if w <= 0 {
				return bad
			}
			p = p[w:]
			if err := b.SetSequence(n); err != nil {
				return err
			}
		default:
			return bad
		}
	}
	return nil
}

// wal is the log of the current hold.
type wal struct {
	f        *os.File
	key      []byte
	gen      uint64
	pageSize int
	hdrLen   int64
	end      int64    // where the next frame goes
	frames   int      // frames of this generation
	snap     *bolt.Tx // a read transaction at B, the state the header's meta pages hold
	metas    []byte   // B's meta pages
}

// header lays out the log's header: magic, generation, flags, page size, the two meta
// pages (when live), and its MAC.
func (w *wal) header(flags uint32, metas []byte) []byte {
	h := make([]byte, 0, 24+len(metas)+32)
	h = append(h, walMagic...)
	h = binary.LittleEndian.AppendUint64(h, w.gen)
	h = binary.LittleEndian.AppendUint32(h, flags)
	h = binary.LittleEndian.AppendUint32(h, uint32(w.pageSize))
	h = append(h, metas...)
	return append(h, mac(w.key, 'h', h)...)
}

// mac is the HMAC of one part of the log: 'h' a header, 'f' a frame (whose bytes
// begin with the generation and the frame's number, so that a frame is valid in its
// place of its log only).
func mac(key []byte, what byte, data ...[]byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte{what})
	for _, d := range data {
		m.Write(d)
	}
	return m.Sum(nil)
}

// frameMAC authenticates frame i of generation gen.
func frameMAC(key []byte, gen uint64, i int, payload []byte) []byte {
	var pre [16]byte
	binary.LittleEndian.PutUint64(pre[:], gen)
	binary.LittleEndian.PutUint64(pre[8:], uint64(i))
	return mac(key, 'f', pre[:], payload)[:16]
}

// startLog starts the log of this hold, from the synced state of bbolt: the caller
// holds j.wmu, and every earlier commit of the hold was synced. A live log found at
// open (j.resume) is taken over when the file's meta pages are still the ones it
// holds; else a new generation starts.
func (j *Journal) startLog(db *bolt.DB) (*wal, error) {
	key, err := walKey(j.file, true)
	if err != nil {
		return nil, err
	}
	f, err := j.dir.open(walName, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	w := &wal{f: f, key: key, pageSize: db.Info().PageSize}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if size := st.Size(); size < walPrealloc {
		// Zeros once, synced with the file's length: later frames overwrite them.
		if _, err := f.WriteAt(make([]byte, walPrealloc-size), size); err != nil {
			f.Close()
			return nil, err
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, err
		}
		fullSync(j.dir.fd)
	}
	if r := j.resume; r != nil && bytes.Equal(r.key, key) && r.pageSize == w.pageSize {
		if snap, err := db.Begin(false); err == nil {
			if cur, err := readMetas(j.file, w.pageSize); err == nil && bytes.Equal(cur, r.metas) {
				j.resume = nil
				w.gen, w.hdrLen, w.metas, w.snap = r.gen, r.hdrLen, r.metas, snap
				w.end = w.hdrLen
				db.NoSync = true
				return w, nil
			}
			snap.Rollback()
		}
	}
	// A live log this hold does not go on with is voided before anything else is
	// written: the fold below writes bbolt synced.
	if err := j.voidResume(); err != nil {
		f.Close()
		return nil, err
	}
	if err := j.fold(db, w); err != nil {
		f.Close()
		return nil, err
	}
	db.NoSync = true
	return w, nil
}

// readMetas reads bbolt's two meta pages from the journal file.
func readMetas(f *os.File, pageSize int) ([]byte, error) {
	m := make([]byte, 2*pageSize)
	_, err := f.ReadAt(m, 0)
	return m, err
}

// testHookLogBase, when set by a test, runs each time the log starts from a synced
// state of bbolt (B), before any unsynced commit over it.
var testHookLogBase func()

// restart begins generation gen of the log at bbolt's current state, which must be
// synced and must record gen (fold): a read transaction holds it, and the header,
// with its meta pages, is written and synced. The previous generation's read
// transaction is given up only then: until the new header is durable, recovery would
// use the old one.
func (w *wal) restart(db *bolt.DB, file *os.File, gen uint64) error {
	snap, err := db.Begin(false)
	if err != nil {
		return err
	}
	metas, err := readMetas(file, w.pageSize)
	if err == nil {
		w.gen = gen
		h := w.header(walLive, metas)
		if _, err = w.f.WriteAt(h, 0); err == nil {
			err = dataSync(handle(w.f.Fd()))
		}
		w.hdrLen = int64(len(h))
	}
	if err != nil {
		snap.Rollback()
		return err
	}
	if w.snap != nil {
		w.snap.Rollback()
	}
	w.snap, w.metas = snap, metas
	w.end, w.frames = w.hdrLen, 0
	return nil
}

// fold makes bbolt's current state the log's synced state B: the next generation's
// number is recorded in bbolt (so that recovery can tell B's tree from any other the
// file might hold), bbolt is synced, and the log restarts from it. A failure leaves
// the previous generation live on disk, and its read transaction held.
func (j *Journal) fold(db *bolt.DB, w *wal) error {
	var g [8]byte
	rand.Read(g[:])
	gen := binary.LittleEndian.Uint64(g[:])
	err := db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte(bMeta)).Put(logGenKey, g[:])
	})
	if err == nil {
		err = db.Sync()
	}
	if err == nil {
		err = w.restart(db, j.file, gen)
	}
	if err == nil && testHookLogBase != nil {
		testHookLogBase()
	}
	return err
}

// logGenKey is the meta key of the log generation a synced state starts.
var logGenKey = []byte("log_gen")

// append writes one frame and syncs it: the commit it carries is durable.
func (w *wal) append(ops []byte) error {
	fr := make([]byte, 0, 20+len(ops))
	fr = binary.LittleEndian.AppendUint32(fr, uint32(len(ops)))
	fr = append(fr, frameMAC(w.key, w.gen, w.frames, ops)...)
	fr = append(fr, ops...)
	if _, err := w.f.WriteAt(fr, w.end); err != nil {
		return err
	}
	if err := dataSync(handle(w.f.Fd())); err != nil {
		return err
	}
	w.end += int64(len(fr))
	w.frames++
	return nil
}

// due reports whether the log is long enough to fold.
func (w *wal) due() bool { return w.frames >= foldEvery || w.end >= foldBytes }

// void ends the log on disk: bbolt is synced, nothing is left to replay. A header
// without the live flag (and with a generation no frame was written in) says so.
func (w *wal) void() error {
	var g [8]byte
	rand.Read(g[:])
	w.gen = binary.LittleEndian.Uint64(g[:])
	h := w.header(0, nil)
	if _, err := w.f.WriteAt(h, 0); err != nil {
		return err
	}
	return dataSync(handle(w.f.Fd()))
}

// room reports whether tx, which noted ops, can be committed without bbolt
// remapping: the held read transaction would make a remap wait for ever. The bound is
// loose on purpose: a remap is rare, and a commit refused here is committed synced.
// Its slack (a megabyte and more) also covers the fold that may follow, whose one
// small transaction runs under the same read transaction.
func (w *wal) room(tx *bolt.Tx, ops *opLog, mapped int64) bool {
	size := tx.Size()
	need := size + 2*int64(len(ops.buf)) + int64(ops.n+64)*int64(w.pageSize)*4 + size/256
	return need < mapped
}

// logged runs fn in a write transaction of a hold that keeps the log: bbolt commits
// it unsynced, and its frame makes it durable. The caller holds j.wmu. A transaction
// that would remap bbolt's memory folds the log and is committed synced, and the rest
// of the hold keeps no log. A failure to write the frame leaves the journal unusable
// for the rest of the hold: bbolt holds a commit that may not be durable, and only
// the next open's recovery knows.
func (j *Journal) logged(db *bolt.DB, w *wal, fn func(*Tx) error) error {
	var ops opLog
	errNoRoom := errors.New("no room in the map")
	err := j.guard(func() error {
		return db.Update(func(tx *bolt.Tx) error {
			if err := fn(&Tx{tx: tx, log: &ops}); err != nil {
				return err
			}
			if !w.room(tx, &ops, j.mapped) {
				return errNoRoom
			}
			return nil
		})
	})
	if err == errNoRoom {
		if err := j.stopLog(db, false); err != nil {
			return err
		}
		j.noLog = true
		return j.guard(func() error {
			return db.Update(func(tx *bolt.Tx) error { return fn(&Tx{tx: tx}) })
		})
	}
	if err != nil || ops.n == 0 {
		return err
	}
	if len(ops.buf) > bigFrame {
		// A large change (a big file's content) is made durable by syncing bbolt,
		// not written twice: the fold acknowledges it.
		if err := j.fold(db, w); err != nil {
			return j.logFailed(err)
		}
		return nil
	}
	if err := w.append(ops.buf); err != nil {
		return j.logFailed(err)
	}
	if w.due() {
		// The commit above is durable: a failed fold costs the hold, not the commit.
		if err := j.fold(db, w); err != nil {
			j.logFailed(err)
		}
	}
	return nil
}

// logFailed marks the hold unusable after the log could not be written.
func (j *Journal) logFailed(err error) error {
	var e error = errs.Wrap(errs.IOError, "", err, "The journal's log %s could not be written (%v). Nothing more is done in this process until the journal is opened again; the next open recovers it.", j.dir.show(walName), err)
	j.broken.CompareAndSwap(nil, &e)
	return e
}

// stopLog ends the hold's log, if it keeps one: bbolt is synced, and the log either
// starts again from that state, live with no frame, for the next hold to go on with
// (keep), or is voided, before synced writes. B's pages are given back. The caller
// holds j.wmu (or the hold is ending). If bbolt cannot be synced or the log written,
// the log is left as it is, for recovery, and the error returned.
func (j *Journal) stopLog(db *bolt.DB, keep bool) error {
	w := j.wal
	if w == nil {
		return nil
	}
	j.wal = nil
	var err error
	if j.broken.Load() == nil {
		if keep {
			err = j.fold(db, w)
		} else if err = db.Sync(); err == nil {
			err = w.void()
		}
	}
	w.snap.Rollback()
	w.f.Close()
	db.NoSync = j.opts.NoSync
	if err != nil {
		return j.logFailed(err)
	}
	return nil
}

// voidResume voids a live log found at open that this hold does not take over,
// before the hold's first synced write: that write would leave the log speaking of
// an older state than bbolt's.
func (j *Journal) voidResume() error {
	r := j.resume
	if r == nil {
		return nil
	}
	f, err := j.dir.open(walName, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	w := &wal{f: f, key: r.key, pageSize: r.pageSize}
	if err := w.void(); err != nil {
		return err // still to void: every synced write tries again first
	}
	j.resume = nil
	return nil
}

// write runs fn in a write transaction: logged (above) where the log can be kept,
// from the hold's second write on, or from its first when it goes on with a live log
// found at open; synced by bbolt otherwise.
func (j *Journal) write(db *bolt.DB, fn func(*Tx) error) error {
	j.wmu.Lock()
	defer j.wmu.Unlock()
	if b := j.broken.Load(); b != nil {
		return *b
	}
	if j.wal == nil && !j.noLog && !j.opts.NoSync && !j.opts.NoLog && (j.writes > 0 || j.resume != nil) {
		w, err := j.startLog(db)
		if err != nil {
			j.noLog = true // no extended attributes here, or no log file: bbolt syncs
		} else {
			j.wal = w
		}
	}
	if j.wal == nil {
		if err := j.voidResume(); err != nil {
			return j.logFailed(err)
		}
	}
	j.writes++
	if j.wal != nil {
		return j.logged(db, j.wal, fn)
	}
	return j.guard(func() error {
		return db.Update(func(tx *bolt.Tx) error { return fn(&Tx{tx: tx}) })
	})
}

// recoverLog reads a live log left by a process that did not end its hold, before
// bbolt opens the journal file (base, in d): the meta pages of the log's synced state
// are written back into the file, and the verified frames returned, to be replayed
// once bbolt has opened it; live says there was such a log, which replayLog must
// void even if no frame of it verified. A live log with no frame whose meta pages
// are the file's is left for the hold to go on with (j.resume). A log that is
// absent, void or does not verify gives nothing.
func (j *Journal) recoverLog(d *dirHandle, base string) (live bool, frames [][]byte, err error) {
	lf, err := d.open(walName, os.O_RDWR, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return false, nil, nil
		}
		return false, nil, err
	}
	defer lf.Close()
	jf, err := d.open(base, os.O_RDWR, 0)
	if err != nil {
		return false, nil, err
	}
	defer jf.Close()
	w, ok := readHeader(lf, jf)
	if !ok {
		return false, nil, nil
	}
	if frames, err = w.readFrames(); err != nil {
		return false, nil, j.damage(fmt.Sprintf("its log %s is damaged: %v", d.show(walName), err))
	}
	if cur, err := readMetas(jf, w.pageSize); err == nil && len(frames) == 0 && bytes.Equal(cur, w.metas) {
		// Left live by a hold that ended cleanly (or a crash before any unsynced
		// commit): the file is at B. The hold goes on with it.
		w.f = nil
		j.resume = w
		return false, nil, nil
	}
	// B's meta pages go back: the tree they point to is intact, whatever the
	// unsynced commits after it left in the file. Not into a file that no longer
	// holds that tree, where it would write another state's pages over this one's:
	// one replaced in place (a backup put back, another journal copied over it) or
	// cut short. Its log speaks of another file: voided if it holds no frame, else
	// refused for an operator to look at.
	if !startedFrom(jf, w) {
		if len(frames) == 0 {
			return false, nil, w.void()
		}
		return false, nil, errs.New(errs.IOError, "", "The journal's log %s holds %d changes made after a state that %s no longer has: the file was replaced since. Nothing was done. Move %s aside to use %s as it is (those changes are lost), or put back the journal.db that the log belongs to.", d.show(walName), len(frames), j.showPath(), d.show(walName), j.showPath())
	}
	if _, err := jf.WriteAt(w.metas, 0); err != nil {
		return false, nil, err
	}
	return true, frames, nil
}

// readHeader reads and verifies a live log's header with the key of the journal
// file jf; ok is false for a log that is void, not one, or not signed by that key.
func readHeader(lf, jf *os.File) (*wal, bool) {
	var fixed [24]byte
	if _, err := lf.ReadAt(fixed[:], 0); err != nil || string(fixed[:8]) != walMagic {
		return nil, false
	}
	le := binary.LittleEndian
	gen, flags, ps := le.Uint64(fixed[8:]), le.Uint32(fixed[16:]), int(le.Uint32(fixed[20:]))
	if flags&walLive == 0 || ps < 512 || ps > 1<<16 || ps&(ps-1) != 0 {
		return nil, false
	}
	key, err := walKey(jf, false)
	if err != nil {
		return nil, false // no key: not a log this journal's vfsctl wrote
	}
	hdr := make([]byte, 24+2*ps+32)
	if _, err := lf.ReadAt(hdr, 0); err != nil {
		return nil, false
	}
	body := hdr[:len(hdr)-32]
	if !hmac.Equal(mac(key, 'h', body), hdr[len(body):]) {
		return nil, false
	}
	return &wal{f: lf, key: key, gen: gen, pageSize: ps, hdrLen: int64(len(hdr)), metas: body[24:]}, true
}

// readFrames reads the frames of the log that verify, in order. The first that does not
// ends the log (a frame cut short by a crash: its commit was never acknowledged),
// unless the frame after it verifies: then a frame in the middle is damaged, and
// acknowledged commits after it would be lost, which is an error.
func (w *wal) readFrames() ([][]byte, error) {
	st, err := w.f.Stat()
	if err != nil {
		return nil, err
	}
	var out [][]byte
	off := w.hdrLen
	for i := 0; ; i++ {
		p, n, ok := w.frameAt(off, i, st.Size())
		if !ok {
			if n > 0 {
				if _, _, next := w.frameAt(off+20+n, i+1, st.Size()); next {
					return nil, fmt.Errorf("frame %d does not verify, and frame %d after it does", i+1, i+2)
				}
			}
			return out, nil
		}
		out = append(out, p)
		off += 20 + n
	}
}

// frameAt reads frame i at off of a log size bytes long: its payload and length, and
// whether it verifies. A length past the file's end is a torn or forged frame:
// nothing is allocated for it, and n is 0.
func (w *wal) frameAt(off int64, i int, size int64) (p []byte, n int64, ok bool) {
	var fh [20]byte
	if _, err := w.f.ReadAt(fh[:], off); err != nil {
		return nil, 0, false
	}
	n = int64(binary.LittleEndian.Uint32(fh[:4]))
	if n == 0 || n > size-off-20 {
		return nil, 0, false
	}
	p = make([]byte, n)
	if _, err := w.f.ReadAt(p, off+20); err != nil {
		return nil, 0, false
	}
	return p, n, hmac.Equal(frameMAC(w.key, w.gen, i, p), fh[4:])
}

// startedFrom reports whether the journal file jf holds the tree that the log w's
// meta pages name, as the state that log started from: the file is long enough for
// it, and its meta bucket records w's generation (fold writes it before the sync).
func startedFrom(jf *os.File, w *wal) bool {
	if !holds(jf, w.metas, w.pageSize) {
		return false
	}
	st, err := jf.Stat()
	if err != nil {
		return false
	}
	v, ok := metaValue(jf, st.Size(), w.metas, w.pageSize, logGenKey)
	return ok && len(v) == 8 && binary.LittleEndian.Uint64(v) == w.gen
}

// holds reports whether the journal file f is long enough for the pages the meta
// pages metas (of pageSize bytes each) count, in whole pages.
func holds(f *os.File, metas []byte, pageSize int) bool {
	st, err := f.Stat()
	if err != nil || st.Size()%int64(pageSize) != 0 {
		return false
	}
	var pages int64
	for i := range 2 {
		m, ok := readMeta(metas[i*pageSize:])
		if ok && m.pageSize != int64(pageSize) {
			return false
		}
		pages = max(pages, m.pages)
	}
	return pages >= 2 && st.Size() >= pages*int64(pageSize)
}

// replayLog applies the frames recoverLog returned, in one synced transaction, and
// voids the log: the journal is as every acknowledged commit left it.
func (j *Journal) replayLog(db *bolt.DB, frames [][]byte) error {
	err := j.guard(func() error {
		return db.Update(func(tx *bolt.Tx) error {
			for _, p := range frames {
				if err := applyOps(tx, p); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if err != nil {
		return j.damage(fmt.Sprintf("its log could not be replayed (%v)", err))
	}
	f, err := j.dir.open(walName, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	key, err := walKey(j.file, false)
	if err != nil {
		return err
	}
	w := &wal{f: f, key: key, pageSize: db.Info().PageSize}
	return w.void()
}

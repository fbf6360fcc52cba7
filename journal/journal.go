package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// SchemaVersion is the layout version this code writes and reads: 2 since the log
// (wal.go) and record codec 3, which a vfsctl that reads 1 must not write behind; 3
// since record codec 4 and the indexes' runs (index.go), which a vfsctl that reads 2
// cannot read (a record) or would misread (a run as its first record only); 4 since
// blob packs (blobpack.go), whose references a vfsctl that reads 3 cannot read.
const SchemaVersion = 4

const appName = "vfsctl"

// DefaultWait is how long a call waits for another process's hold on the journal.
const DefaultWait = 10 * time.Second

// Options configure a Journal.
type Options struct {
	// Root is the workspace root when the journal lives inside it (<root>/.vfsctl/):
	// the root is trusted as named, and every folder below it is opened without
	// following symlinks. "" trusts the journal's folder as named (a journal kept
	// outside the workspace, for one).
	Root string
	// Wait bounds how long Acquire waits for another process; 0 means DefaultWait, and
	// a negative Wait does not wait for a call of another process, only for a hold
	// that lingers idle to be handed over (handover); a shorter Wait waits as long.
	Wait time.Duration
	// Holder describes this process in the busy error another process reports, e.g.
	// "vfsctl call". The pid and the time are added.
	Holder string
	// OnOpen runs after every fresh open, before any other use: txn's recovery.
	OnOpen func(*Journal) error
	// Linger keeps the journal open for this long after the last call of a hold
	// ends, so that a process making calls one after another opens it once instead
	// of per call (an open costs about a millisecond: bbolt's open and mapping, the
	// queue, the holder file, recovery's check). It is given up at once when another
	// process takes a ticket in the queue (looked for every queuePoll at first, every
	// lingerPoll after fastLinger), so others wait at most that much longer; a process
	// that opens the bbolt file without the queue (an older vfsctl, bbolt's own tools)
	// may wait the whole Linger. 0 closes the journal as soon as the last call ends.
	Linger time.Duration
	// NoLog commits every transaction synced by bbolt (two fdatasyncs), never through
	// the log (wal.go): for comparisons and tests.
	NoLog bool
	// NoSync skips fsync on journal commits. THIS IS UNSAFE: a power loss can lose
	// records or leave files the journal cannot explain. For tests only.
	NoSync bool
}

// Journal is the journal of one workspace. It is safe for concurrent use; the bbolt
// file is open while at least one Acquire is not yet released.
type Journal struct {
	path string
	opts Options

	// wait is how long the open under way waits for another process (under mu).
	wait time.Duration

	mu        sync.Mutex // held while opening, recovering and closing
	cond      *sync.Cond // on mu: the hold ended
	refs      int
	yielding  bool       // another process waits: no new call joins this hold
	lingering bool       // no call runs, but the hold goes on (Options.Linger)
	lingerGen uint64     // which linger a watcher watches; bumped when one ends
	noLinger  bool       // Close was called: holds end with their last call
	dir       *dirHandle // the journal's folder, open while the journal is (files.go)
	lock      *os.File   // the lock file, held while the journal is open (queue.go)
	tmu       sync.Mutex // guards temps and marks
	temps     *os.File   // the temps file, open for appending during a hold (marks.go)
	marks     *os.File   // the marks file, likewise
	markBytes int        // bytes this hold appended to the marks file
	tempSize  int64      // the temps file's size while open: its size at open and what was appended since
	sideKey   []byte     // signs the lines of marks and temps (marks.go); from the journal's meta
	legacy    bool       // this open gave an older journal its key: its unsigned lines are its own
	file      *os.File   // the bbolt file, as opened for bbolt
	fileIdent string     // file's device and inode, once asked (fileID): an open file keeps them
	db        atomic.Pointer[bolt.DB]
	broken    atomic.Pointer[error] // bbolt failed on a damaged file during this hold
	leaked    atomic.Pointer[leak]  // a file bbolt failed to open and left mapped
	// gone: the journal this process opened was removed, moved or replaced under it
	// while it held it (Gone): every Acquire is refused.
	gone atomic.Pointer[error]

	// A lingering hold's watch of the queue (watch_linux.go; nil: the hold polls),
	// and the timer that ends the linger.
	watch     *queueWatch
	lingerEnd *time.Timer
	// queueNews: the watch reported a change of the queue that no look has seen yet.
	// While a watch runs, only then does a call look at the queue (waiting).
	queueNews bool

	// Group commit (commit.go).
	gmu      sync.Mutex
	queue    []*commitReq
	leading  bool
	deferred []func(*Tx) error
	// Batches taken and batches done, in order (one runs at a time); batchDone, on
	// gmu, wakes Flush when one is done.
	taken, done uint64
	batchDone   *sync.Cond

	// The log of the hold (wal.go), under wmu, which every write transaction holds.
	wmu    sync.Mutex
	wal    *wal
	resume *wal  // a live log found at open, for the hold to go on with
	writes int   // write transactions of this hold
	noLog  bool  // this hold keeps no log
	mapped int64 // the least size of bbolt's memory map in this hold
}

// New returns the journal stored at path (created on first use).
func New(path string, opts Options) *Journal {
	if opts.Wait == 0 {
		opts.Wait = DefaultWait
	}
	j := &Journal{path: path, opts: opts}
	j.cond = sync.NewCond(&j.mu)
	j.batchDone = sync.NewCond(&j.gmu)
	return j
}

// Path is the journal file.
func (j *Journal) Path() string { return j.path }

// Exists reports whether anything is at the journal's place (a journal, or something
// that is not one and that opening it will refuse): operators' commands read the
// journal without creating one.
func (j *Journal) Exists() bool {
	d, err := j.openDir(false)
	if err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	defer d.close()
	_, ok := d.stat(filepath.Base(j.path))
	return ok
}

// Acquire opens the journal for this process if it is not open yet (waiting for another
// process at most Options.Wait) and holds it until the matching Release.
//
// A call joins the process's current hold unless another process waits in the queue:
// then it waits until the hold ends and queues for the next hold (queue.go).
func (j *Journal) Acquire() error { return j.acquire(j.opts.Wait) }

// AcquireWaiting is Acquire waiting for another process at least wait, whatever
// Options.Wait: for a hold that must not give up at once, as an exec's end, after
// its command ran (giving up would leave what it changed to be taken for outside).
func (j *Journal) AcquireWaiting(wait time.Duration) error {
	return j.acquire(max(j.opts.Wait, wait))
}

func (j *Journal) acquire(wait time.Duration) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if g := j.gone.Load(); g != nil {
		return *g
	}
	for j.refs > 0 && (j.yielding || j.waiting()) {
		j.yielding = true
		j.cond.Wait()
	}
	if j.refs > 0 {
		j.refs++
		return nil
	}
	if j.lingering {
		// The hold goes on where the last call left it: no open, no recovery check.
		j.lingering = false
		j.lingerGen++
		j.stopLingerEnd()
		if j.broken.Load() == nil && j.handle() != nil && !j.waiting() {
			// No other vfsctl may replace the file while this process holds it, but
			// a command it ran, or a hand, may have moved or swapped it since.
			if id := j.fileID(); id == "" || id != j.atPlace() {
				j.endHold()
				return j.Gone("moved, removed or replaced while this process held it")
			}
			j.refs = 1
			return nil
		}
		j.endHold()
	}
	j.yielding = false
	j.broken.Store(nil)
	j.wait = wait
	db, err := j.open(false)
	if err != nil {
		j.unlock()
		return err
	}
	j.db.Store(db)
	// Recovery runs with j.mu held, so no other call of this process starts before the
	// journal and the files are settled. It uses Update and View, which take no lock.
	var pending []uint64
	if err := j.View(func(t *Tx) error { pending = t.Pending(); return nil }); err != nil {
		j.closeDB()
		j.unlock()
		return err
	}
	j.compactMarks(pending)
	if j.opts.OnOpen != nil {
		if err := j.opts.OnOpen(j); err != nil {
			if b := j.broken.Load(); b != nil {
				err = *b // the damage, not what recovery made of it
			}
			j.closeDB()
			j.unlock()
			return err
		}
	}
	j.refs = 1
	return nil
}

// Recovered makes sure that no call a crashed process left pending is still to settle,
// before a call plans on the workspace without holding the journal: it acquires the
// journal (which recovers it on open) and releases it, busy as Acquire. Where this
// process holds the journal open already (a call of its own runs, or its hold
// lingers), recovery ran when the hold began and nothing is done: the Acquire that
// commits the call looks at the journal's place then, once.
func (j *Journal) Recovered() error {
	j.mu.Lock()
	open := (j.refs > 0 || j.lingering) && j.gone.Load() == nil && j.broken.Load() == nil && j.handle() != nil
	j.mu.Unlock()
	if open {
		return nil
	}
	if err := j.Acquire(); err != nil {
		return err
	}
	j.Release()
	return nil
}

// Release ends one Acquire; the last one closes the file so other processes may use
// it, at once or, with Options.Linger, once no call came for that long.
func (j *Journal) Release() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.refs--
	if j.refs > 0 {
		return
	}
	if j.opts.Linger <= 0 || j.noLinger || j.yielding || j.broken.Load() != nil || j.gone.Load() != nil || j.handle() == nil {
		j.endHold()
		return
	}
	j.lingering = true
	j.lingerGen++
	j.trimTemps()
	j.trimMarks()
	if j.watch == nil {
		j.watch = j.startWatch(j.dir)
		j.queueNews = true // what came before the watch: looked for below
	}
	if j.watch == nil {
		go j.linger(j.lingerGen)
		return
	}
	// Watched: a ticket made from now on wakes queueChanged; one made before, while
	// the calls ran, is looked for now (if the watch saw it, or was just started).
	if j.waiting() {
		j.lingering = false
		j.endHold()
		return
	}
	gen := j.lingerGen
	j.lingerEnd = time.AfterFunc(j.opts.Linger, func() {
		j.mu.Lock()
		defer j.mu.Unlock()
		if j.lingering && j.lingerGen == gen {
			j.lingering = false
			j.endHold()
		}
	})
}

// queueChanged is the watch's news that the queue changed (turns: the queue folder
// may have been made). A lingering hold ends if another process waits. It returns
// false once w no longer watches for this journal.
func (j *Journal) queueChanged(w *queueWatch, turns bool) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.watch != w {
		return false
	}
	if turns {
		w.watchTurns(j.dir)
	}
	if !j.lingering {
		j.queueNews = true // for the next call's look, or the look as the hold lingers
		return true
	}
	if j.othersWaiting() {
		j.lingering = false
		j.lingerGen++
		j.stopLingerEnd()
		j.endHold()
	}
	return true
}

// waiting reports whether another process waits in the queue. Where the queue is
// watched, the watch reports every ticket made since it started (the start is
// followed by a look), so the queue is looked at only when it reported a change
// since the last look: a stream of calls costs no look per call. A ticket whose news
// comes while a call runs is looked for at that call's end, and one whose news comes
// after it, by queueChanged, which ends the lingering hold. j.mu is held.
func (j *Journal) waiting() bool {
	if j.watch != nil && !j.queueNews {
		return false
	}
	j.queueNews = false
	return j.othersWaiting()
}

func (j *Journal) stopLingerEnd() {
	if j.lingerEnd != nil {
		j.lingerEnd.Stop()
		j.lingerEnd = nil
	}
}

// linger ends the hold that linger gen keeps, where the queue is not watched, once it has lasted Options.Linger or
// another process waits, unless a call took the hold up again first. The queue is
// looked at every queuePoll while the next call is likely to come soon, then every
// lingerPoll: a process that queues then waits at most that much longer, and an idle
// hold wakes a hundred times a second, not a thousand.
func (j *Journal) linger(gen uint64) {
	start := time.Now()
	until := start.Add(j.opts.Linger)
	for {
		poll := queuePoll
		if time.Since(start) > fastLinger {
			poll = lingerPoll
		}
		time.Sleep(poll)
		j.mu.Lock()
		if !j.lingering || j.lingerGen != gen {
			j.mu.Unlock()
			return
		}
		if time.Now().After(until) || j.othersWaiting() {
			j.lingering = false
			j.endHold()
			j.mu.Unlock()
			return
		}
		j.mu.Unlock()
	}
}

// handover is how long an Acquire that is not to wait (a negative Wait), or is to
// wait less than this, still waits: for another process's hold that lingers with no
// call to end, as it does once it sees this one queue (within lingerPoll); a call of
// that process would take longer.
const handover = 100 * time.Millisecond

// How often a lingering hold looks for tickets: every queuePoll for its first
// fastLinger, every lingerPoll after.
const (
	fastLinger = 25 * time.Millisecond
	lingerPoll = 10 * time.Millisecond
)

// Close ends a hold kept by Options.Linger, and makes later holds end with their last
// call. Calls in progress keep theirs.
func (j *Journal) Close() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.noLinger = true
	if j.lingering && j.refs == 0 {
		j.lingering = false
		j.lingerGen++
		j.stopLingerEnd()
		j.endHold()
	}
}

// endHold closes the bbolt file and gives up the lock. j.mu is held.
func (j *Journal) endHold() {
	if j.watch != nil {
		j.watch.close()
		j.watch = nil
	}
	j.stopLingerEnd()
	// Deferred writes are those recovery can redo; the next open settles them.
	j.gmu.Lock()
	j.deferred = nil
	j.gmu.Unlock()
	j.closeDB()
	j.closeTemps()
	j.unlock()
	j.cond.Broadcast()
}

// closeDB closes the bbolt file. Its mapping keeps the file, and so bbolt's lock on
// it, until Close unmaps it. After bbolt panicked on damage its own locks may be held
// for good, so Close then gets a bounded time, and past it only the file is closed.
func (j *Journal) closeDB() {
	if db := j.handle(); db != nil {
		// bbolt's Close waits for every read transaction, the log's included.
		j.wmu.Lock()
		j.guard(func() error { return j.stopLog(db, true) })
		j.wmu.Unlock()
	}
	if db := j.db.Swap(nil); db != nil {
		if j.broken.Load() == nil {
			if j.guard(db.Close) == nil {
				j.file = nil
				return
			}
		} else {
			done := make(chan error, 1)
			go func() { done <- j.guard(db.Close) }()
			select {
			case err := <-done:
				if err == nil {
					j.file = nil
					return
				}
			case <-time.After(time.Second):
			}
		}
	}
	if j.file != nil {
		j.file.Close()
		j.file = nil
	}
}

// unlock ends the hold: the holder file goes, then the lock.
func (j *Journal) unlock() {
	if j.lock != nil {
		j.dir.remove("holder")
		j.lock.Close() // releases the flock
		j.lock = nil
	}
	j.dir.close()
	j.dir = nil
}

// leak is a journal file that bbolt left mapped (and so locked) in this process.
type leak struct {
	dev, ino uint64
	err      error
}

type holder struct {
	Pid     int       `json:"pid"`
	Command string    `json:"command"`
	Since   time.Time `json:"since"`
}

// open waits in the queue for the journal's lock and opens the bbolt file, all within
// one j.wait. adopting skips the check that the journal is this workspace's own.
func (j *Journal) open(adopting bool) (*bolt.DB, error) {
	// Any wait shorter than the handover gets the handover, as one not to wait does:
	// more wait must never mean less chance of the journal.
	wait := max(j.wait, handover)
	deadline := time.Now().Add(wait)
	d, err := j.prepareDir()
	if err != nil {
		return nil, err
	}
	if err := j.takeLock(d, deadline); err != nil {
		return nil, err
	}
	base := filepath.Base(j.path)
	st, exists := d.stat(base)
	if exists && st.Size == 0 {
		// bbolt would lay out a new file over it: history silently gone.
		return nil, j.damage("it is empty (0 bytes)")
	}
	if b := j.leaked.Load(); b != nil && b.dev == uint64(st.Dev) && b.ino == st.Ino {
		// bbolt failed on this file in this process before and left it mapped, and
		// locked with it: it is as damaged as it was.
		return nil, b.err
	}
	// A journal of another user's is read, never written: checkOwn refuses it, and
	// Adopt copies it into a file of this user's. So its log is not recovered either.
	mine := !exists || st.mine
	var live bool
	var frames [][]byte
	j.resume = nil
	if exists && mine {
		// A log left live by a process that did not end its hold: the journal file
		// goes back to its last synced state before bbolt reads it (wal.go).
		if live, frames, err = j.recoverLog(d, base); err != nil {
			if errors.As(err, new(*errs.Error)) {
				return nil, err // a log file that is not ours: refused, naming it
			}
			return nil, errs.Wrap(errs.IOError, "", err, "Cannot recover the journal %s from its log: %v.", j.showPath(), err)
		}
	}
	j.wmu.Lock()
	j.writes, j.noLog = 0, false
	j.wmu.Unlock()
	db, err := j.openBolt(d, base, exists, !mine, st.Size, deadline)
	if err != nil {
		return nil, j.openFailed(err, exists, uint64(st.Dev), st.Ino)
	}
	j.db.Store(db)
	if j.mapped > 0 {
		db.AllocSize = walAlloc
	}
	if err := j.guard(func() error { return j.checkSchema(db, !exists, adopting) }); err != nil {
		j.closeDB()
		return nil, err
	}
	if live {
		if err := j.replayLog(db, frames); err != nil {
			j.closeDB()
			return nil, err
		}
	}
	return db, nil
}

// prepareDir opens the journal's folder as j.dir, checks it, and makes sure it
// holds a .gitignore that keeps the journal out of the user's repository.
func (j *Journal) prepareDir() (*dirHandle, error) {
	d, err := j.openDir(true)
	if err != nil {
		return nil, err
	}
	j.dir = d
	if err := d.check(); err != nil {
		return nil, err
	}
	// The journal never belongs in the user's repository.
	if _, ok := d.stat(".gitignore"); !ok {
		if f, err := d.open(".gitignore", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
			f.WriteString("*\n")
			f.Close()
		}
	}
	return d, nil
}

// takeLock waits in the queue until deadline for the journal's lock, keeps it as
// j.lock and records this process as its holder (best effort).
func (j *Journal) takeLock(d *dirHandle, deadline time.Time) error {
	lock, err := j.waitInQueue(deadline)
	if err != nil {
		if errors.As(err, new(*errs.Error)) {
			return err
		}
		return errs.Wrap(errs.IOError, "", err, "Cannot lock the journal %s: %v.", j.showPath(), err)
	}
	j.lock = lock
	h, _ := json.Marshal(holder{Pid: os.Getpid(), Command: j.opts.Holder, Since: time.Now().UTC()})
	if f, err := d.open("holder", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644); err == nil {
		f.Write(h)
		f.Close()
	}
	return nil
}

// openBolt opens the bbolt file base in d by deadline, keeping its file as j.file;
// an existing file of size bytes found cut short is refused as damage. readOnly opens
// it without write access.
func (j *Journal) openBolt(d *dirHandle, base string, exists, readOnly bool, size int64, deadline time.Time) (db *bolt.DB, err error) {
	err = j.guard(func() (err error) {
		// bbolt polls its own lock every 50 ms and gives up one interval before its
		// Timeout (0 would wait for ever); the queue above already took the wait.
		wait := max(time.Until(deadline), 0) + 100*time.Millisecond
		j.mapped = 0
		if !j.opts.NoSync && !j.opts.NoLog && keepsLog {
			// A map that the log's held read transaction never has to wait to grow
			// (wal.go); only address space until pages are read.
			j.mapped = max(walMap, (size+walMap-1)/walMap*walMap)
		}
		// Only its owner may read the journal: it holds every version of every file
		// written, those of files only their owner may read included.
		db, err = bolt.Open(j.path, 0o600, &bolt.Options{Timeout: wait, NoSync: j.opts.NoSync, InitialMmapSize: int(j.mapped), ReadOnly: readOnly,
			OpenFile: func(_ string, flag int, perm os.FileMode) (*os.File, error) {
				f, err := d.open(base, flag, perm)
				if err != nil {
					return nil, err
				}
				if exists {
					why := cutShort(f, size)
					if why == "" {
						why = withoutFreelist(f)
					}
					if why != "" {
						f.Close()
						return nil, j.damage(why)
					}
					ownerOnly(f)
				}
				j.file, j.fileIdent = f, ""
				return f, nil
			}})
		return err
	})
	return db, err
}

// ownerOnly takes group and other permissions off a journal file an older vfsctl
// left readable to them; a file of another owner is left as it is.
func ownerOnly(f *os.File) {
	if st, err := statHandle(handle(f.Fd())); err == nil && st.perm&0o077 != 0 && st.mine {
		f.Chmod(st.perm & 0o700)
	}
}

// openFailed returns the error to report for bbolt's failure err to open the
// journal, closing what was opened and, for damage to an existing file (dev, ino),
// remembering it as leaked.
func (j *Journal) openFailed(err error, exists bool, dev, ino uint64) error {
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return j.busy()
	case errors.As(err, new(*errs.Error)): // ours: a refused file, damage
		if j.broken.Load() != nil && exists {
			j.leaked.Store(&leak{dev: dev, ino: ino, err: err})
		}
		j.closeDB()
		return err
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum), errors.Is(err, berrors.ErrVersionMismatch):
		j.closeDB()
		return errs.Wrap(errs.IOError, "", err, "%s is not a vfsctl journal (%v). Move it aside; a new journal is created on the next call.", j.showPath(), err)
	default:
		j.closeDB()
		return errs.Wrap(errs.IOError, "", err, "Cannot open the journal %s: %v.", j.showPath(), err)
	}
}

// busy is the error of a process whose wait in the queue ran out: it names the
// process holding the journal, or the one ahead in the queue.
func (j *Journal) busy() error {
	what := "another process"
	if h, ok := j.readHolder(); ok {
		what = fmt.Sprintf("process %d (%s, holding it since %s)", h.Pid, strings.TrimSpace(h.Command), h.Since.Local().Format("15:04:05"))
	} else if pid := j.firstWaiter(); pid > 0 {
		what = fmt.Sprintf("process %d, which waits for its turn ahead of this one", pid)
	}
	waited := fmt.Sprintf("waited %s", max(j.wait, handover))
	if j.wait < 0 {
		waited = "was not to wait"
	}
	return errs.New(errs.Busy, "", "The workspace is busy with the calls of %s; %s and did nothing. Retry this call shortly.", what, waited)
}

// readHolder reads the holder file, if its process is alive.
func (j *Journal) readHolder() (holder, bool) {
	var h holder
	f, err := j.dir.open("holder", os.O_RDONLY, 0)
	if err != nil {
		return h, false
	}
	defer f.Close()
	b := make([]byte, 4096)
	n, _ := f.Read(b)
	if json.Unmarshal(b[:n], &h) != nil || h.Pid <= 0 || !alive(h.Pid) {
		return h, false
	}
	return h, true
}

// damage is the error for a journal file bbolt cannot use.
func (j *Journal) damage(why string) error {
	p := j.showPath()
	return errs.New(errs.IOError, "", "The journal %s is damaged: %s. Nothing was done. Run `vfsctl fsck`; to start a new journal, move %s aside.", p, why, p)
}

// guard runs fn, turning a panic of bbolt on a damaged file (or a fault reading its
// mapping) into the journal's damage error.
func (j *Journal) guard(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			err = j.damage(fmt.Sprintf("reading it failed (%v)", p))
			j.broken.CompareAndSwap(nil, &err)
		}
	}()
	return fn()
}

var allBuckets = []string{bMeta, bRecords, bPending, bBlobs, bHeads, bReads, bByPath, bBySession, bByKind, bByTime, bFacts}

func (j *Journal) checkSchema(db *bolt.DB, fresh, adopting bool) error {
	ready := false
	j.legacy = false
	err := db.View(func(tx *bolt.Tx) error {
		meta := tx.Bucket([]byte(bMeta))
		if meta == nil {
			return nil
		}
		if string(meta.Get([]byte("app"))) != appName {
			return errs.New(errs.IOError, "", "%s is not a vfsctl journal. Move it aside.", j.showPath())
		}
		var v int
		fmt.Sscan(string(meta.Get([]byte("schema"))), &v)
		if v > SchemaVersion {
			return errs.New(errs.IOError, "", "%s was written by a newer vfsctl (journal schema %d; this one reads %d). Upgrade vfsctl.", j.showPath(), v, SchemaVersion)
		}
		if !adopting {
			if err := j.checkOwn(meta); err != nil {
				return err
			}
		}
		// Journals before the facts bucket get it below, and older schemas are
		// declared this one's: records this vfsctl writes (codec 4), its indexes'
		// runs and its log are what an older one cannot read, and it refuses a
		// newer schema. So does a journal made before its side files were signed.
		j.sideKey = bytes.Clone(meta.Get([]byte(sideKeyName)))
		j.legacy = len(j.sideKey) != sideKeyLen
		ready = tx.Bucket([]byte(bFacts)) != nil && v >= SchemaVersion && len(j.sideKey) == sideKeyLen
		return nil
	})
	if err != nil || ready || db.IsReadOnly() {
		return err // read-only: another user's journal, read by Adopt, which upgrades its copy
	}
	// A new file: lay out the buckets; an older journal: bring it to this schema (a
	// write, so only once). A live log found at open is voided first.
	if err := j.voidResume(); err != nil {
		return err
	}
	return db.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket([]byte(bMeta))
		if meta == nil {
			empty := true
			tx.ForEach(func([]byte, *bolt.Bucket) error { empty = false; return nil })
			if !empty && !fresh {
				return errs.New(errs.IOError, "", "%s is a bbolt file of another application, not a vfsctl journal. Move it aside.", j.showPath())
			}
			// An empty file holds nothing to act on: it becomes this workspace's own.
			for _, b := range allBuckets {
				if _, err := tx.CreateBucketIfNotExists([]byte(b)); err != nil {
					return err
				}
			}
			// A new journal keeps its history index from its first record, so that the
			// first undo after a long session reads the index, not every record.
			for _, b := range []string{bHistory, bLatest} {
				if _, err := tx.CreateBucketIfNotExists([]byte(b)); err != nil {
					return err
				}
			}
			meta = tx.Bucket([]byte(bMeta))
			meta.Put([]byte("app"), []byte(appName))
			meta.Put(historyUpto, seqKey(0))
			if err := j.recordIdentity(meta); err != nil {
				return err
			}
			if err := j.makeSideKey(meta); err != nil {
				return err
			}
			return meta.Put([]byte("schema"), []byte(fmt.Sprint(SchemaVersion)))
		}
		if _, err := tx.CreateBucketIfNotExists([]byte(bFacts)); err != nil {
			return err
		}
		if len(j.sideKey) != sideKeyLen {
			if err := j.makeSideKey(meta); err != nil {
				return err
			}
		}
		return meta.Put([]byte("schema"), []byte(fmt.Sprint(SchemaVersion)))
	})
}

// Update runs fn in a read-write transaction; the journal must be acquired.
func (j *Journal) Update(fn func(*Tx) error) error {
	db, err := j.usable()
	if err != nil {
		return err
	}
	return j.write(db, fn)
}

// View runs fn in a read-only transaction; the journal must be acquired.
func (j *Journal) View(fn func(*Tx) error) error {
	db, err := j.usable()
	if err != nil {
		return err
	}
	return j.guard(func() error {
		return db.View(func(tx *bolt.Tx) error { return fn(&Tx{tx: tx}) })
	})
}

var errNotAcquired = errors.New("journal: used without Acquire")

func (j *Journal) handle() *bolt.DB { return j.db.Load() }

// usable returns the open bbolt file, or why it cannot be used: not acquired, or found
// damaged earlier in this hold (its locks may then be held for good).
func (j *Journal) usable() (*bolt.DB, error) {
	if b := j.broken.Load(); b != nil {
		return nil, *b
	}
	db := j.handle()
	if db == nil {
		return nil, errNotAcquired
	}
	return db, nil
}

// Check runs bbolt's own consistency check.
func (j *Journal) Check() error {
	return j.View(func(tx *Tx) error {
		var all []error
		for err := range tx.tx.Check() {
			all = append(all, err)
		}
		return errors.Join(all...)
	})
}

package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// SchemaVersion is the layout version this code writes and reads.
const SchemaVersion = 1

const appName = "vfsctl"

// DefaultWait is how long a call waits for another process's hold on the journal.
const DefaultWait = 10 * time.Second

// Options configure a Journal.
type Options struct {
	// Wait bounds how long Acquire waits for another process; 0 means DefaultWait.
	Wait time.Duration
	// Holder describes this process in the busy error another process reports, e.g.
	// "vfsctl call". The pid and the time are added.
	Holder string
	// OnOpen runs after every fresh open, before any other use: txn's recovery.
	OnOpen func(*Journal) error
	// NoSync skips fsync on journal commits. THIS IS UNSAFE: a power loss can lose
	// records or leave files the journal cannot explain. For tests only.
	NoSync bool
}

// Journal is the journal of one workspace. It is safe for concurrent use; the bbolt
// file is open while at least one Acquire is not yet released.
type Journal struct {
	path string
	opts Options

	mu       sync.Mutex // held while opening, recovering and closing
	cond     *sync.Cond // on mu: the hold ended
	refs     int
	yielding bool     // another process waits: no new call joins this hold
	lock     *os.File // the lock file, held while the journal is open (turns.go)
	db       atomic.Pointer[bolt.DB]

	// Group commit (commit.go).
	gmu      sync.Mutex
	queue    []*commitReq
	leading  bool
	deferred []func(*Tx) error
}

// New returns the journal stored at path (created on first use).
func New(path string, opts Options) *Journal {
	if opts.Wait == 0 {
		opts.Wait = DefaultWait
	}
	j := &Journal{path: path, opts: opts}
	j.cond = sync.NewCond(&j.mu)
	return j
}

// Path is the journal file.
func (j *Journal) Path() string { return j.path }

// Acquire opens the journal for this process if it is not open yet (waiting for another
// process at most Options.Wait) and holds it until the matching Release.
//
// A call joins the process's current hold unless another process waits for its turn:
// then it waits until the hold ends and takes a turn in line (turns.go).
func (j *Journal) Acquire() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	for j.refs > 0 && (j.yielding || j.othersWaiting()) {
		j.yielding = true
		j.cond.Wait()
	}
	if j.refs > 0 {
		j.refs++
		return nil
	}
	j.yielding = false
	db, err := j.open()
	if err != nil {
		j.unlock()
		return err
	}
	j.db.Store(db)
	// Recovery runs with j.mu held, so no other call of this process starts before the
	// journal and the files are settled. It uses Update and View, which take no lock.
	var pending []uint64
	j.View(func(t *Tx) error { pending = t.Pending(); return nil })
	j.compactMarks(pending)
	if j.opts.OnOpen != nil {
		if err := j.opts.OnOpen(j); err != nil {
			j.db.Store(nil)
			db.Close()
			j.unlock()
			return err
		}
	}
	j.refs = 1
	return nil
}

// Release ends one Acquire; the last one closes the file so other processes may use it.
func (j *Journal) Release() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.refs--
	if j.refs == 0 {
		// Deferred writes are those recovery can redo; the next open settles them.
		j.gmu.Lock()
		j.deferred = nil
		j.gmu.Unlock()
		if db := j.db.Swap(nil); db != nil {
			db.Close()
		}
		j.unlock()
		j.cond.Broadcast()
	}
}

func (j *Journal) unlock() {
	if j.lock != nil {
		j.lock.Close() // releases the flock
		j.lock = nil
	}
}

func (j *Journal) holderPath() string { return filepath.Join(filepath.Dir(j.path), "holder") }

type holder struct {
	Pid     int       `json:"pid"`
	Command string    `json:"command"`
	Since   time.Time `json:"since"`
}

func (j *Journal) open() (*bolt.DB, error) {
	dir := filepath.Dir(j.path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, errs.Wrap(errs.IOError, "", err, "Cannot create %s: %v.", dir, err)
	}
	// The journal never belongs in the user's repository.
	gi := filepath.Join(dir, ".gitignore")
	if _, err := os.Stat(gi); errors.Is(err, os.ErrNotExist) {
		os.WriteFile(gi, []byte("*\n"), 0o644)
	}
	lock, err := j.takeTurn()
	if err != nil {
		if errs.KindOf(err) == errs.Busy {
			return nil, err
		}
		return nil, errs.Wrap(errs.IOError, "", err, "Cannot lock the journal %s: %v.", j.path, err)
	}
	j.lock = lock
	fresh := false
	if _, err := os.Stat(j.path); errors.Is(err, os.ErrNotExist) {
		fresh = true
	}
	// bbolt polls the lock every 50 ms and gives up one interval before its Timeout.
	db, err := bolt.Open(j.path, 0o644, &bolt.Options{Timeout: j.opts.Wait + 50*time.Millisecond, NoSync: j.opts.NoSync})
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return nil, j.busy()
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum), errors.Is(err, berrors.ErrVersionMismatch):
		return nil, errs.Wrap(errs.IOError, "", err, "%s is not a vfsctl journal (%v). Move it aside; a new journal is created on the next call.", j.path, err)
	case err != nil:
		return nil, errs.Wrap(errs.IOError, "", err, "Cannot open the journal %s: %v.", j.path, err)
	}
	if err := j.checkSchema(db, fresh); err != nil {
		db.Close()
		return nil, err
	}
	h, _ := json.Marshal(holder{Pid: os.Getpid(), Command: j.opts.Holder, Since: time.Now().UTC()})
	overwrite(j.holderPath(), h)
	return db, nil
}

// overwrite writes data over the file at p without truncating it to zero first: on
// ext4 that truncation flushes the file, a fraction of a millisecond on every open.
func overwrite(p string, data []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(data, 0)
	if terr := f.Truncate(int64(len(data))); err == nil {
		err = terr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (j *Journal) busy() error {
	what := "another process"
	if b, err := os.ReadFile(j.holderPath()); err == nil {
		var h holder
		if json.Unmarshal(b, &h) == nil && h.Pid > 0 {
			what = fmt.Sprintf("process %d (%s, holding it since %s)", h.Pid, strings.TrimSpace(h.Command), h.Since.Local().Format("15:04:05"))
		}
	}
	return errs.New(errs.Busy, "", "The workspace is busy with the calls of %s; waited %s and did nothing. Retry this call shortly.", what, j.opts.Wait)
}

var allBuckets = []string{bMeta, bRecords, bPending, bBlobs, bHeads, bReads, bByPath, bBySession, bByKind, bByTime, bFacts}

func (j *Journal) checkSchema(db *bolt.DB, fresh bool) error {
	ready := false
	err := db.View(func(tx *bolt.Tx) error {
		meta := tx.Bucket([]byte(bMeta))
		if meta == nil {
			return nil
		}
		if string(meta.Get([]byte("app"))) != appName {
			return errs.New(errs.IOError, "", "%s is not a vfsctl journal. Move it aside.", j.path)
		}
		var v int
		fmt.Sscan(string(meta.Get([]byte("schema"))), &v)
		if v > SchemaVersion {
			return errs.New(errs.IOError, "", "%s was written by a newer vfsctl (journal schema %d; this one reads %d). Upgrade vfsctl.", j.path, v, SchemaVersion)
		}
		ready = tx.Bucket([]byte(bFacts)) != nil // journals before the facts bucket get it below
		return nil
	})
	if err != nil || ready {
		return err
	}
	// A new file: lay out the buckets (a write, so only on first use).
	return db.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket([]byte(bMeta))
		if meta == nil {
			empty := true
			tx.ForEach(func([]byte, *bolt.Bucket) error { empty = false; return nil })
			if !empty && !fresh {
				return errs.New(errs.IOError, "", "%s is a bbolt file of another application, not a vfsctl journal. Move it aside.", j.path)
			}
			for _, b := range allBuckets {
				if _, err := tx.CreateBucketIfNotExists([]byte(b)); err != nil {
					return err
				}
			}
			meta = tx.Bucket([]byte(bMeta))
			meta.Put([]byte("app"), []byte(appName))
			return meta.Put([]byte("schema"), []byte(fmt.Sprint(SchemaVersion)))
		}
		_, err := tx.CreateBucketIfNotExists([]byte(bFacts))
		return err
	})
}

// Update runs fn in a read-write transaction; the journal must be acquired.
func (j *Journal) Update(fn func(*Tx) error) error {
	db := j.handle()
	if db == nil {
		return errNotAcquired
	}
	return db.Update(func(tx *bolt.Tx) error { return fn(&Tx{tx: tx}) })
}

// View runs fn in a read-only transaction; the journal must be acquired.
func (j *Journal) View(fn func(*Tx) error) error {
	db := j.handle()
	if db == nil {
		return errNotAcquired
	}
	return db.View(func(tx *bolt.Tx) error { return fn(&Tx{tx: tx}) })
}

var errNotAcquired = errors.New("journal: used without Acquire")

func (j *Journal) handle() *bolt.DB { return j.db.Load() }

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

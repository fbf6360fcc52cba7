package txn

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/vfsctl/vfsctl/internal/guard"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/vfs"
)

// Options configure an Engine.
type Options struct {
	// JournalPath is the journal file; "" means <root>/.vfsctl/journal.db, which needs
	// an FS on disk.
	JournalPath string
	// Wait bounds how long a call waits for another process using the journal, and
	// an exec for another to end; 0 means journal.DefaultWait, a negative Wait does
	// not wait.
	Wait time.Duration
	// Holder names this process in busy errors that other processes report.
	Holder string
	// NoSync skips fsync of journal commits. THIS IS UNSAFE; for tests only.
	NoSync bool
	// Linger keeps the journal open this long after a call while no other process
	// waits for it (journal.Options.Linger); 0 closes it after every call.
	Linger time.Duration
	// Guard says what a change that breaks a file's syntax, or replaces code with a
	// placeholder comment, does: refuse the call ("" or guard.Refuse), apply it and
	// warn, or nothing (guard.Off).
	Guard guard.Mode
	// Durability says when a call that changes files is acknowledged: "" or
	// DurableFile once its files are synced, DurableJournal once its journal record
	// is (the files are synced in batches, and rolled forward from the journal after a
	// power loss). See Durability's constants for what each promises.
	Durability Durability
	// CheckpointEvery and CheckpointInterval bound, in the journal-durable mode, how
	// many calls and how long files go unsynced; 0 means DefaultCheckpointEvery and
	// DefaultCheckpointInterval, a negative interval no timer (Close still syncs).
	CheckpointEvery    int
	CheckpointInterval time.Duration
	// OnSettle, if set, is told of each call recovery settled on open (a call a crash
	// or a kill left pending): its number, tool, new state and recovery's note.
	OnSettle func(Settled)
}

// Settled is a call recovery settled on open, and what became of it.
type Settled struct {
	Seq   uint64 `json:"seq"`
	Tool  string `json:"tool"`
	State string `json:"state"` // committed, rolled_back, unknown
	Note  string `json:"note,omitempty"`
}

// Engine runs tool calls against one workspace. It is safe for concurrent use.
type Engine struct {
	fs     *vfs.FS
	j      *journal.Journal
	jopts  journal.Options // what j was opened with, for Compact's own hold
	queues queues

	kmu   sync.Mutex
	known map[string]known // canonical path -> what this engine last wrote there
	kdata int              // bytes of content held in known

	folds foldCache // the matcher's folded views of files this engine wrote (foldcache.go)

	guardMode guard.Mode

	durability Durability
	boot       string // the machine's boot this engine runs in (bootID), "" if unknown
	cpEvery    int
	cpInterval time.Duration
	cp         checkpointer

	// Committed records whose write is still deferred (commit.go): should the journal
	// close first, recovery in this process stores them as the calls measured them.
	cmu       sync.Mutex
	committed map[uint64]*journal.Record

	onSettle func(Settled)
}

// Open returns an Engine over fs with its journal. The journal file is opened (and
// recovery run) when the first call begins.
func Open(fs *vfs.FS, opts Options) (*Engine, error) {
	p, root := opts.JournalPath, ""
	if p == "" {
		if fs.Dir() == "" {
			return nil, fmt.Errorf("txn: an in-memory workspace needs Options.JournalPath")
		}
		// Inside the workspace: only the root is trusted as named (journal/files.go).
		p, root = filepath.Join(fs.Dir(), ".vfsctl", "journal.db"), fs.Dir()
	}
	holder := opts.Holder
	if holder == "" {
		holder = filepath.Base(os.Args[0])
	}
	e := &Engine{fs: fs, guardMode: opts.Guard, durability: opts.Durability, boot: bootID(), cpEvery: opts.CheckpointEvery, cpInterval: opts.CheckpointInterval, onSettle: opts.OnSettle}
	if e.durability == "" {
		e.durability = DurableFile
	}
	if e.durability != DurableFile && e.durability != DurableJournal {
		return nil, fmt.Errorf("txn: unknown durability %q", e.durability)
	}
	if e.cpEvery <= 0 {
		e.cpEvery = DefaultCheckpointEvery
	}
	if e.cpInterval == 0 {
		e.cpInterval = DefaultCheckpointInterval
	}
	if e.guardMode == "" {
		e.guardMode = guard.Refuse
	}
	e.jopts = journal.Options{Root: root, Wait: opts.Wait, Holder: holder, NoSync: opts.NoSync, Linger: opts.Linger, OnOpen: e.recover}
	e.j = journal.New(p, e.jopts)
	fs.OnTemp(e.j.NoteTemp)
	return e, nil
}

// bootID names the machine's current boot, new at every start of the kernel
// (readBootID), "" where unknown. A test replaces it to stand for a restart after a
// power loss.
var bootID = readBootID

// FS is the engine's filesystem.
func (e *Engine) FS() *vfs.FS { return e.fs }

// HasJournal reports whether the workspace's journal file exists yet: operators'
// commands read it without creating one.
func (e *Engine) HasJournal() bool { return e.j.Exists() }

// Adopt makes a journal that was copied or checked into the workspace its own, so
// that it is used (and its pending calls recovered) from the next call on.
func (e *Engine) Adopt() (journal.Adoption, error) { return e.j.Adopt() }

// View acquires the journal (running recovery if this opens it) and runs fn in a
// read-only transaction: what operators' commands use.
func (e *Engine) View(fn func(*journal.Tx) error) error {
	if err := e.j.Acquire(); err != nil {
		return err
	}
	defer e.j.Release()
	if err := e.j.Flush(); err != nil { // what recovery settled, before it is read
		return err
	}
	return e.j.View(fn)
}

// Hold acquires the journal until release is called, as a busy server holds it: the
// calls in between open nothing. Replay holds both journals it uses.
func (e *Engine) Hold() (release func(), err error) {
	if err := e.j.Acquire(); err != nil {
		return nil, err
	}
	return e.j.Release, nil
}

// Seed tells the journal that path holds data and, when session is not "", that the
// session has seen it: for replaying a call in an engine whose journal never saw what
// preceded it. The content is kept as a blob, so that the journal rebuilds what the
// replayed call made of it, and its diff.
func (e *Engine) Seed(session, path string, data []byte) {
	h := journal.Hash(data)
	// Deferred: it goes in with the replayed call's own transaction.
	e.j.Defer(func(t *journal.Tx) error {
		if session != "" {
			if err := t.SetRead(session, path, h); err != nil {
				return err
			}
		}
		if _, err := t.PutBlob(data); err != nil {
			return err
		}
		return t.SetHead(path, h)
	})
}

// Close stores what the engine still holds for the journal: the committed records
// whose write was deferred when the journal was last closed, which recovery in
// another process would store without what the calls measured. It costs one journal
// transaction when there are any (at most once per process, for its last calls), and
// nothing otherwise. In the journal-durable mode it first syncs what was written
// without fsync (Checkpoint). A hold on the journal kept by Options.Linger ends; the
// engine stays usable, closing the journal after each call from then on.
func (e *Engine) Close() error {
	defer e.j.Close()       // a lingering hold ends now
	forgetExecs(e.j.Path()) // an exec not ended by now never will be: recovery settles it
	defer e.fs.WaitFreed()
	if err := e.Checkpoint(); err != nil {
		return err
	}
	e.cmu.Lock()
	n := len(e.committed)
	e.cmu.Unlock()
	if n == 0 {
		return nil
	}
	// Opening the journal settles those records (recovery takes them from e.committed);
	// Flush writes what it deferred.
	if err := e.j.Acquire(); err != nil {
		return err
	}
	defer e.j.Release()
	return e.j.Flush()
}

package txn

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"sync"
	"time"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/vfs"
)

// Durability says when a call that changes files is acknowledged, and so what an
// acknowledgement survives.
type Durability string

const (
	// DurableFile (the default): every file is written, fsynced and renamed, and its
	// folder fsynced, before the call is acknowledged. After a power loss each
	// acknowledged file is on disk as the call left it, whatever becomes of the journal.
	DurableFile Durability = "file"
	// DurableJournal: the call is acknowledged once its journal record is synced;
	// the files are written (temp file and rename) without fsync and synced in
	// batches (a checkpoint). After a power loss, recovery rolls forward from the
	// journal every file an acknowledged call wrote since the last checkpoint whose
	// bytes were lost, torn or emptied. Until that recovery has run (the next open of
	// the workspace by vfsctl), such a file can be read torn or at an older content
	// by other programs; and the journal must survive with the files: a workspace
	// restored without its .vfsctl/ loses the calls since the last checkpoint.
	DurableJournal Durability = "journal"
)

// ParseDurability reads a durability mode as a flag gives it: file or journal ("" is
// file).
func ParseDurability(s string) (Durability, error) {
	switch Durability(s) {
	case "", DurableFile:
		return DurableFile, nil
	case DurableJournal:
		return DurableJournal, nil
	}
	return "", fmt.Errorf("unknown durability %q: use file or journal", s)
}

// The checkpoint's defaults in the journal-durable mode: files are synced after this
// many calls, or this long after the first unsynced write, whichever comes first, and
// when the engine closes. More calls per checkpoint spread its syncs thinner; the
// bound is on what recovery may have to redo, and on the prior content the journal
// keeps as a blob for the first change of each file after each checkpoint.
const (
	DefaultCheckpointEvery    = 256
	DefaultCheckpointInterval = time.Second
)

// checkpointer tracks what the journal-durable mode has written without fsync.
//
// The journal can rebuild a file only from a content it holds whole: the first call
// to change a file in an epoch keeps the file's prior content as a blob
// (content-addressed, so stored once), and the chain of calls that follows in that
// epoch is redone from there. A checkpoint opens a new epoch (every file's next change
// keeps its prior content again), waits for the calls of the old epochs still being
// written (they build on that epoch's bases), syncs the files and folders those calls
// wrote, and takes them off the journal's lazy list. Calls of the new epoch stay
// listed: their chains start at their own bases.
type checkpointer struct {
	mu       sync.Mutex
	settled  sync.Cond       // signalled as calls settle, on mu
	epoch    int             // the current epoch
	chain    map[string]bool // paths with a base in the current epoch
	inflight map[int]int     // epoch -> calls past their blob decision, not yet settled
	calls    []lazyCall      // written, not yet covered by a checkpoint
	own      map[uint64]bool // listed by this engine: its reopened journal's recovery skips them
	timer    *time.Timer

	run sync.Mutex // one checkpoint at a time
}

// lazyCall is one call written without fsync: the files to sync, and the folders
// whose entries it changed.
type lazyCall struct {
	seq   uint64
	epoch int
	paths []string
	dirs  []string
}

func (cp *checkpointer) init() {
	if cp.chain == nil {
		cp.chain, cp.inflight, cp.own = map[string]bool{}, map[int]int{}, map[uint64]bool{}
		cp.settled.L = &cp.mu
	}
}

// base decides, before the pending record, which changes need their prior content
// kept as a blob (the first of their file in the epoch), and counts the call in
// flight. The caller ends that with settleLazy, or with unbase if no record was
// written.
func (cp *checkpointer) base(changes []*Change) (need []bool, epoch int) {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	cp.init()
	need = make([]bool, len(changes))
	for i, ch := range changes {
		need[i] = !cp.chain[ch.Path]
		cp.chain[ch.Path] = true
	}
	cp.inflight[cp.epoch]++
	return need, cp.epoch
}

// unbase undoes base for a call whose pending record was not written.
func (cp *checkpointer) unbase(changes []*Change, need []bool, epoch int) {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	for i, ch := range changes {
		if need[i] && epoch == cp.epoch {
			delete(cp.chain, ch.Path)
		}
	}
	cp.inflight[epoch]--
	cp.settled.Broadcast()
}

// listed notes that call seq is on the journal's lazy list.
func (cp *checkpointer) listed(seq uint64) {
	cp.mu.Lock()
	cp.own[seq] = true
	cp.mu.Unlock()
}

// isOwn reports whether call seq was listed by this engine and not yet checkpointed.
func (cp *checkpointer) isOwn(seq uint64) bool {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return cp.own[seq]
}

// settleLazy notes a listed call whose files were written (or rolled back), and
// reports whether a checkpoint is due by count; the first unsynced call starts the
// timer.
func (e *Engine) settleLazy(seq uint64, epoch int, changes []*Change) (due bool) {
	cp := &e.cp
	lc := lazyCall{seq: seq, epoch: epoch}
	for _, ch := range changes {
		lc.paths = append(lc.paths, ch.Path)
		lc.dirs = append(lc.dirs, path.Dir(ch.Path))
		for _, d := range ch.dirs { // folders a create made: their names live in the folder above
			lc.dirs = append(lc.dirs, path.Dir(d))
		}
	}
	cp.mu.Lock()
	defer cp.mu.Unlock()
	cp.inflight[epoch]--
	cp.settled.Broadcast()
	cp.calls = append(cp.calls, lc)
	if cp.timer == nil && e.cpInterval > 0 {
		cp.timer = time.AfterFunc(e.cpInterval, func() { e.Checkpoint() })
	}
	return len(cp.calls) >= e.cpEvery
}

// Checkpoint syncs every file and folder written without fsync, then takes their
// calls off the journal's lazy list. In the file-durable mode there is nothing to do.
// It acquires the journal (waiting as a call does) when it is not held.
func (e *Engine) Checkpoint() error {
	e.cp.mu.Lock()
	n := len(e.cp.calls)
	e.cp.mu.Unlock()
	if n == 0 {
		return nil
	}
	if err := e.j.Acquire(); err != nil {
		e.retryCheckpoint()
		return err
	}
	defer e.j.Release()
	return e.checkpoint()
}

// retryCheckpoint starts the timer again after a checkpoint that could not run.
func (e *Engine) retryCheckpoint() {
	e.cp.mu.Lock()
	defer e.cp.mu.Unlock()
	if e.cpInterval > 0 && len(e.cp.calls) > 0 {
		if e.cp.timer != nil {
			e.cp.timer.Stop()
		}
		e.cp.timer = time.AfterFunc(e.cpInterval, func() { e.Checkpoint() })
	}
}

// checkpoint is Checkpoint with the journal held.
func (e *Engine) checkpoint() error {
	cp := &e.cp
	cp.run.Lock()
	defer cp.run.Unlock()

	// A new epoch: the next change of every file keeps its prior content. Then the
	// calls of the old epochs still being written, which build on their bases, are
	// waited for (they hold no lock a checkpoint holds); all of those are taken.
	cp.mu.Lock()
	cp.init()
	old := cp.epoch
	cp.epoch++
	cp.chain = map[string]bool{}
	for {
		waiting := 0
		for ep, n := range cp.inflight {
			if ep <= old {
				waiting += n
			}
		}
		if waiting == 0 {
			break
		}
		cp.settled.Wait()
	}
	for ep := range cp.inflight {
		if ep <= old {
			delete(cp.inflight, ep)
		}
	}
	var take, keep []lazyCall
	for _, lc := range cp.calls {
		if lc.epoch <= old {
			take = append(take, lc)
		} else {
			keep = append(keep, lc)
		}
	}
	cp.calls = keep
	if cp.timer != nil {
		cp.timer.Stop()
		cp.timer = nil
	}
	cp.mu.Unlock()
	if len(take) == 0 {
		return nil
	}

	err := e.syncCalls(take)
	if err == nil {
		seqs := make([]uint64, len(take))
		for i, lc := range take {
			seqs[i] = lc.seq
		}
		err = e.j.Commit(func(t *journal.Tx) error { return t.ClearLazy(seqs) })
		if err == nil && testHookJournaled != nil {
			testHookJournaled("checkpoint")
		}
	}
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if err != nil {
		// Still listed in the journal, with their bases: the next checkpoint takes
		// them again.
		cp.calls = append(take, cp.calls...)
		return err
	}
	for _, lc := range take {
		delete(cp.own, lc.seq)
	}
	return nil
}

// syncCalls fsyncs the files the calls wrote (those still there) and the folders whose
// entries they changed.
func (e *Engine) syncCalls(calls []lazyCall) error {
	files, dirs := map[string]bool{}, map[string]bool{}
	for _, lc := range calls {
		for _, p := range lc.paths {
			files[p] = true
		}
		for _, d := range lc.dirs {
			dirs[d] = true
		}
	}
	var all []error
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if err := e.fs.SyncFile(p); err != nil && !replacedSince(err) {
			all = append(all, err)
		}
	}
	for _, d := range slices.Sorted(maps.Keys(dirs)) {
		if err := e.fs.SyncDir(d); err != nil && !replacedSince(err) {
			all = append(all, err)
		}
	}
	return errors.Join(all...)
}

func notFound(err error) bool { return errs.KindOf(err) == errs.FileNotFound }

// testHookJournaled, when set by a test, runs after each journal transaction that the
// durability protocol depends on is durable: a call's pending record, a checkpoint.
var testHookJournaled func(what string)

// reconcile drops this engine's calls that the journal no longer lists: another
// process opened the journal meanwhile and its recovery synced their files. A new
// epoch starts, so the next change of every file keeps its prior content again. It
// runs at a fresh open, with no call of this engine in flight.
func (cp *checkpointer) reconcile(listed map[uint64]bool) {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if len(cp.own) == 0 {
		return
	}
	var keep []lazyCall
	for _, lc := range cp.calls {
		if listed[lc.seq] {
			keep = append(keep, lc)
		}
	}
	for seq := range cp.own {
		if !listed[seq] {
			delete(cp.own, seq)
		}
	}
	if len(keep) < len(cp.calls) {
		cp.epoch++
		cp.chain = map[string]bool{}
	}
	cp.calls = keep
}

// replacedSince reports whether err, met syncing a file a call wrote without fsync,
// says the file is gone or something else stands there now (a folder, a FIFO, a
// symlink): that holds nothing of the call's, and there is nothing to sync.
func replacedSince(err error) bool {
	return vfs.Replaced(err) || notFound(err) || errs.KindOf(err) == errs.NotAFile
}

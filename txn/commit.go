package txn

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/vfs"
)

// testHookHash, when set by a test, runs before each change of a commit is hashed.
var testHookHash func(*Change)

// testHookStage, when set by a test, runs as a replaced file's staging begins.
var testHookStage func(*Change)

// testHookRefusal, when set by a test, runs inside the transaction that records a
// call refused after its pending record; an error from it fails that transaction.
var testHookRefusal func() error

// testHookPending, when set by a test, runs inside the pending record's transaction
// after its blobs are stored; an error from it fails that transaction.
var testHookPending func() error

// commit writes planned changes: the pending record (synced, shared with concurrent
// calls by group commit), the files, then the committed mark. The mark is not synced
// on its own: it goes in this process's next journal transaction (journal.Defer).
// Until then the record stays pending on disk, and should the process die, recovery
// finds every file at its new content and rolls the call forward: the pending record
// is what must be durable before any file changes, and it is. A failure part-way
// rolls back the files already written; if even that fails, the record stays pending
// and the next open's recovery settles it.
func (e *Engine) commit(c *Call, changes []*Change) (err error) {
	if err := c.cancelled(); err != nil {
		return err
	}
	c.rec.State = journal.Pending
	st := e.stage(changes)
	defer st.abort() // on every way out, a panic included: what was renamed is not staged any more
	hashAll(changes)
	for _, ch := range changes {
		f := fileRecord(ch)
		if ch.Created {
			// The folders the create will make, as they stand now: a call that is
			// acknowledged and then killed before its committed record is written
			// keeps them all the same (markCommitted records those it made).
			f.Made = notMadeBy(c.rec.Entries, e.fs.MissingFolders(ch.Path))
			ch.planned = f.Made
			if ch.from != nil {
				f.From = ch.from.Path
			}
		}
		if ch.Deleted {
			// Where the file waits for the commit point: named in the pending record,
			// so that recovery finds it.
			ch.aside = vfs.AsideName(ch.Path)
			f.Aside = ch.aside
		}
		// What a guard repaired, warned of or could not check goes in the record as
		// well as the reply: an operator reading the journal sees what the model saw.
		c.rec.Notes = append(c.rec.Notes, ch.Notes...)
		c.rec.Notes = append(c.rec.Notes, ch.Warnings...)
		c.file(f)
	}
	first := len(c.rec.Files) - len(changes)
	var base []bool // journal-durable: the changes that keep their prior content
	var epoch int
	if e.durability == DurableJournal {
		base, epoch = e.cp.base(changes)
	}
	err = e.putPending(c, changes, first, base)
	st.wait.Wait()
	if err != nil {
		if base != nil {
			e.cp.unbase(changes, base, epoch)
		}
		return c.pendingFailed(err)
	}
	if testHookJournaled != nil {
		testHookJournaled("pending")
	}
	if c.beforeFiles != nil { // folders and symlinks an undo puts back (entries.go)
		if err := c.beforeFiles(); err != nil {
			return e.entriesFailed(c, err)
		}
		e.restage(st, changes)
	}
	if base != nil {
		// Listed as written without fsync: noted, whatever happens next, so that a
		// checkpoint takes it off the list; a checkpoint due by count runs here, in
		// this call, which holds the journal.
		e.cp.listed(c.rec.Seq)
		seq := c.rec.Seq
		defer func() {
			if e.settleLazy(seq, epoch, changes) {
				e.checkpoint() // an error leaves the calls listed, for the next one
			}
		}()
	}
	// From here on files change. A panic (a bug, or a filesystem driver's) must not
	// leave a file changed under a record that says failed: roll back what was written
	// and say so, or, when that fails too, leave the record pending for recovery.
	defer func() {
		if p := recover(); p != nil {
			err = e.settleAfterPanic(c, changes, p)
		}
	}()
	mid := c.afterDeletes
	for i, ch := range changes {
		if mid != nil && !ch.Deleted {
			if err := mid(changes[:i]); err != nil {
				return e.writeFailed(c, changes, i, err)
			}
			mid = nil
		}
		if err := e.writeFile(ch, st.files[i], st.errs[i]); err != nil {
			return e.writeFailed(c, changes, i, err)
		}
	}
	// The commit point: every file is written. Only now do the deleted files go.
	e.dropAsides(c, changes)
	if c.afterFiles != nil { // the folders a move of a folder leaves empty (folders.go)
		c.afterFiles()
	}
	e.markCommitted(c, changes, first)
	return nil
}

// notMadeBy drops from dirs the folders that entries make (before the files are
// written): a create does not make those.
func notMadeBy(entries []journal.Entry, dirs []string) []string {
	return slices.DeleteFunc(dirs, func(d string) bool {
		return slices.ContainsFunc(entries, func(en journal.Entry) bool {
			return en.Path == d && en.After == vfs.KindDir && en.Before != vfs.KindDir
		})
	})
}

// dropAsides removes the files the call's deletions set aside, at its commit point: no
// rollback needs them any more. In the file-durable mode each removal is synced, so
// that a power loss does not bring the name back under a committed record. A failure
// here (a panic included) leaves the change standing, with the name left behind
// noted in the record.
func (e *Engine) dropAsides(c *Call, changes []*Change) {
	for _, ch := range changes {
		if !ch.Deleted || ch.aside == "" || ch.taken {
			continue
		}
		if err := e.dropAside(ch); err != nil {
			if _, serr := e.fs.IdentityOf(ch.aside); serr != nil {
				c.rec.Notes = append(c.rec.Notes, fmt.Sprintf("%s was deleted; the removal of %s, the name it waited under for the commit, could not be synced (%v), and a power loss may bring that name back", ch.Path, ch.aside, err))
				continue
			}
			c.rec.Notes = append(c.rec.Notes, fmt.Sprintf("%s was deleted, but %s, the name it waited under for the commit, could not be removed (%v); remove it by hand", ch.Path, ch.aside, err))
		}
	}
}

func (e *Engine) dropAside(ch *Change) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return e.fs.DropAside(ch.aside, e.durability != DurableJournal)
}

// staging is the new content of replaced files staged beside them (temp file written
// and synced) while the pending record is made durable: staging does not touch the
// file, and the rename waits for the record.
type staging struct {
	files []*vfs.Staged
	errs  []error
	wait  sync.WaitGroup
}

// stage starts staging every replaced file; created and deleted files are not staged.
// Staging runs on a goroutine of its own, beside the pending record's commit: in the
// file-durable mode its fsync overlaps the record's, and in both modes the creation
// of the temp file does (on an ext4 without a journal, which looks past every inode
// deleted in the last seconds, that took a median 460 µs a call under load; staged
// on the call's goroutine, the journal-durable median was 10-15% higher in five
// alternated runs of five).
func (e *Engine) stage(changes []*Change) *staging {
	st := &staging{files: make([]*vfs.Staged, len(changes)), errs: make([]error, len(changes))}
	st.wait.Add(1)
	go func() {
		for i, ch := range changes {
			if !ch.Created && !ch.Deleted && !ch.bitsOnly {
				st.files[i], st.errs[i] = e.stageReplace(ch)
			}
		}
		st.wait.Done()
		// The small files that earlier calls replaced are let go of here (a close
		// that may wait for the device), where the call no longer waits and no
		// thread more is woken for it.
		e.fs.FreeHeld()
	}()
	// Go puts a goroutine just started next in line on this thread, and another thread
	// takes it over only after a pause while this one runs (a 3 µs sleep, 50 µs or
	// more with the kernel's timer slack): the staging began a median 266 µs late.
	// Yielding runs it here at once; the call goes on on the thread its start woke.
	runtime.Gosched()
	return st
}

// abort removes every staged temp file once staging is done; a committed one is gone
// already.
func (st *staging) abort() {
	st.wait.Wait()
	for _, s := range st.files {
		s.Abort()
	}
}

// putPending makes the pending record durable, with the blobs its files need: nothing
// reaches disk before it. It may run twice (a failed shared transaction is retried
// alone), so it sets every field it decides afresh.
//
// In the journal-durable mode (base not nil) the call is also put on the journal's
// lazy list, and a change marked in base keeps its file's prior content as a blob:
// the file is written without fsync, and the journal must be able to rebuild it.
func (e *Engine) putPending(c *Call, changes []*Change, first int, base []bool) error {
	return e.j.Commit(func(t *journal.Tx) error {
		c.rec.Seq = 0
		if err := c.putArgs(t); err != nil {
			return err
		}
		for i, ch := range changes {
			if err := putBlobs(t, &c.rec.Files[first+i], ch, base != nil && base[i]); err != nil {
				return err
			}
		}
		if testHookPending != nil {
			if err := testHookPending(); err != nil {
				return err
			}
		}
		if err := t.Put(&c.rec); err != nil {
			return err
		}
		if base != nil {
			return t.MarkLazy(c.rec.Seq, e.boot)
		}
		return nil
	})
}

// putBlobs stores the contents of a change that splices cannot rebuild, and marks f
// for each: the journal alone holds every version of every file. base asks for the
// prior content whatever else holds it (the journal-durable mode's chain base).
func putBlobs(t *journal.Tx, f *journal.File, ch *Change, base bool) error {
	// Prior content goes in a blob where the file was overwritten whole, or it changed
	// outside vfsctl since its last journaled state, and now and then (snapshotDue)
	// along a long chain of edits.
	f.BeforeBlob, f.AfterBlob = false, false
	if ch.bitsOnly {
		return nil // the content stays: it is the one the record names by hash
	}
	if ch.Before != nil && (base || ch.Op == journal.OpWrite || ch.Deleted || t.Head(ch.Path) != f.Before || snapshotDue(f.Before, len(ch.Before))) {
		if _, err := t.PutBlob(ch.Before); err != nil {
			return err
		}
		f.BeforeBlob = true
	}
	// What create and write produce cannot be rebuilt from splices.
	f.AfterBlob = false
	if ch.Op == journal.OpCreate || ch.Op == journal.OpWrite {
		if _, err := t.PutBlob(ch.After); err != nil {
			return err
		}
		f.AfterBlob = true
	}
	return nil
}

// snapshotDue says whether an edit keeps the content it starts from (of size bytes,
// hash before) whole. The journal rebuilds a version from the nearest content it
// keeps whole, applying each edit since (for vfsctl show's diff of a file up to 64
// KiB, for undo, replay and rewind): without such a copy now and then, a file edited
// thousands of times would cost that many steps. The choice is by the hash:
// about one edit in 256 of a file up to 64 KiB, fewer as it grows (the copy costs
// more), so the steps back are about 256 for a small file, whoever made the edits
// and in whatever process.
func snapshotDue(before string, size int) bool {
	if len(before) < 8 {
		return false
	}
	v, err := strconv.ParseUint(before[:8], 16, 32)
	if err != nil {
		return false
	}
	every := uint64(256 * (1 + size/(64<<10)))
	return v%every == 0
}

// pendingFailed is the error of a call whose pending record could not be made durable.
// The transaction was rolled back: it reserved no sequence number and stored no blob,
// so the record that Finish writes must claim neither.
func (c *Call) pendingFailed(err error) error {
	c.rec.Seq = 0
	for i := range c.rec.Files {
		c.rec.Files[i].BeforeBlob = false
	}
	c.rec.ArgsBlob = ""
	return errs.Wrap(errs.IOError, "", err, "The journal could not record the change (%s); nothing was written.", journalCause(err))
}

// writeFailed settles a call whose file i failed to be written: the files written so
// far are rolled back and the record says failed, or, if the rollback fails, stays
// pending for recovery to settle.
func (e *Engine) writeFailed(c *Call, changes []*Change, i int, err error) error {
	// The failing step may have come after the rename (the directory fsync), so the
	// file at fault is rolled back too if it holds its new content; but a create
	// refused because a file appeared there meanwhile wrote nothing, and that file,
	// whatever it holds, is someone else's.
	done := changes[:i+1]
	if changes[i].Created && errs.KindOf(err) == errs.FileExists {
		done = changes[:i]
	}
	rerr := e.rollback(done)
	if rerr == nil {
		e.entriesTakenBack(c) // an undo's folders and symlinks (entries.go)
	}
	c.final = true
	c.rec.State = journal.Failed
	c.rec.Kind = string(errs.KindOf(err))
	c.rec.Message = err.Error()
	c.rec.Duration = time.Since(c.start)
	if rerr != nil {
		c.rec.State = journal.Pending
		c.rec.Notes = append(c.rec.Notes, "rollback failed: "+rerr.Error())
	}
	cerr := e.j.Commit(func(t *journal.Tx) error {
		if err := t.Put(&c.rec); err != nil {
			return err
		}
		if testHookRefusal != nil {
			return testHookRefusal()
		}
		return nil
	})
	if cerr != nil && rerr == nil && e.durability == DurableJournal {
		// The record stays pending on the lazy list, where recovery after a restart
		// takes a pending call for one whose files a power loss lost, and rolls it
		// forward (in the same boot it would not: sameBoot). The refusal goes in this
		// process's next transaction; until then, the reply must not let "nothing
		// was changed" stand alone.
		rec := c.rec
		e.j.Defer(func(t *journal.Tx) error { return t.Put(&rec) })
		err = errs.Suffixed(err, fmt.Sprintf(" The journal could not record this refusal (%s): until this process manages to (it tries again with its next journal write), a power loss would leave the next vfsctl command here to write the change after all. Free some space, then check %s with vfsctl fsck.", journalCause(cerr), changes[i].Name))
	}
	if len(changes) > 1 {
		return errs.Prefixed(fmt.Sprintf("changes[%d] (%s): ", i, changes[i].Name), err)
	}
	return err
}

// markCommitted marks a call whose every file is written: it has landed, whatever happens
// to the files next. The committed record, encoded now, goes in the next journal
// transaction with the files' new heads and the session's licences.
func (e *Engine) markCommitted(c *Call, changes []*Change, first int) {
	e.j.MarkLanded(c.rec.Seq)
	for i, ch := range changes {
		if ch.Created && !slices.Equal(c.rec.Files[first+i].Made, ch.dirs) {
			c.rec.Files[first+i].Made = ch.dirs // someone else made or removed one meanwhile
		}
	}
	c.rec.State = journal.Committed
	c.rec.Duration = time.Since(c.start)
	c.final = true
	rec := c.rec
	// Encoding is CPU the reply need not wait for: it runs beside the rest of the call,
	// on its own copy (recovery may settle the held one), and the deferred write waits.
	// A small change's record encodes in microseconds, less than waking a thread costs.
	var enc *journal.Encoded
	var encErr error
	encoded := make(chan struct{})
	encode := func(r journal.Record) {
		defer close(encoded)
		defer func() {
			if p := recover(); p != nil {
				enc, encErr = nil, fmt.Errorf("encode: %v", p) // then the write encodes it
			}
		}()
		enc, encErr = journal.Encode(&r)
	}
	if small(changes) {
		encode(rec)
	} else {
		go encode(rec)
	}
	e.holdCommitted(&rec)
	e.j.Defer(func(t *journal.Tx) error {
		defer e.takeCommitted(rec.Seq)
		<-encoded
		for i, ch := range changes {
			if err := t.SetHead(ch.Path, ch.afterHash); err != nil {
				return err
			}
			if err := keepLicence(t, &rec, rec.Files[first+i]); err != nil {
				return err
			}
		}
		if encErr != nil {
			return t.Put(&rec)
		}
		return t.PutEncoded(enc)
	})
	for _, ch := range changes {
		ch.Seq = c.rec.Seq
	}
}

// keepLicence updates write_file's licence after a committed change of file f by
// record r: the session may replace a file whole only once it has seen all of its
// current content. Its own create or write shows it all; its edit keeps a licence it
// had (it saw the content the edit started from) and grants none; an undo or redo,
// which may be an operator's run for the session, changes the file under the
// session's feet and grants none.
func keepLicence(t *journal.Tx, r *journal.Record, f journal.File) error {
	if r.Undo != 0 || r.Redo != 0 || f.After == "" {
		return nil
	}
	switch f.Op {
	case journal.OpCreate, journal.OpWrite:
		return t.SetRead(r.Session, f.Path, f.After)
	case journal.OpEdit:
		if h, full := t.Read(r.Session, f.Path); full && h == f.Before {
			return t.SetRead(r.Session, f.Path, f.After)
		}
	}
	return nil
}

// maxHeldCommitted bounds the committed records held for recovery: a record that
// another process settled meanwhile is never taken, and is dropped here.
const maxHeldCommitted = 4096

// holdCommitted keeps the committed record r until its deferred write has run.
func (e *Engine) holdCommitted(r *journal.Record) {
	e.cmu.Lock()
	defer e.cmu.Unlock()
	if e.committed == nil || len(e.committed) >= maxHeldCommitted {
		e.committed = map[uint64]*journal.Record{}
	}
	e.committed[r.Seq] = r
}

// takeCommitted returns and forgets the committed record of call seq, if held.
func (e *Engine) takeCommitted(seq uint64) *journal.Record {
	e.cmu.Lock()
	defer e.cmu.Unlock()
	r := e.committed[seq]
	delete(e.committed, seq)
	return r
}

// stageReplace stages a replace; a panic there (this runs on its own goroutine)
// becomes the error the write reports.
func (e *Engine) stageReplace(ch *Change) (st *vfs.Staged, err error) {
	defer func() {
		if p := recover(); p != nil {
			st, err = nil, errs.New(errs.IOError, ch.Name, "Internal error while writing %s (%v); nothing was written.", ch.Name, p)
		}
	}()
	if testHookStage != nil {
		testHookStage(ch)
	}
	// The file is staged by the stat it was planned from: writeFile renames only while
	// the file still has that identity, so a stat of its own would find the same.
	if ch.chmod != 0 {
		// The undo of a command's chmod: the content goes with the bits recorded, in
		// one rename, read-only or not (what the command made read-only it takes back).
		return e.fs.StageReplaceAs(ch.Path, ch.After, ch.info, ch.chmod, e.durability != DurableJournal)
	}
	return e.fs.StageReplaceStat(ch.Path, ch.After, ch.info, e.durability != DurableJournal)
}

// settleAfterPanic handles a panic while the files of a pending record were written.
func (e *Engine) settleAfterPanic(c *Call, changes []*Change, p any) error {
	c.final = true // Finish must not rewrite the record: it is settled here or by recovery
	c.rec.Duration = time.Since(c.start)
	if rerr := e.safeRollback(changes); rerr != nil {
		c.rec.Notes = append(c.rec.Notes, fmt.Sprintf("panic while writing: %v; rollback failed: %v", p, rerr))
		e.j.Commit(func(t *journal.Tx) error { return t.Put(&c.rec) })
		return errs.New(errs.IOError, "", "Internal error while writing the files (%v). The change may be partly written; it stays pending and is rolled back when the workspace is next opened.", p)
	}
	c.rec.State = journal.Failed
	c.rec.Kind = string(errs.IOError)
	c.rec.Message = fmt.Sprintf("internal error while writing: %v; every file was restored", p)
	// Should this write fail, the record stays pending and the next open settles it as
	// rolled back: the files are restored either way.
	e.j.Commit(func(t *journal.Tx) error { return t.Put(&c.rec) })
	return errs.New(errs.IOError, "", "Internal error while writing the files (%v); every file was restored, nothing was changed.", p)
}

// safeRollback is rollback that turns a panic into an error.
func (e *Engine) safeRollback(changes []*Change) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return e.rollback(changes)
}

// hashAll computes the changes' hashes on a goroutine of its own while this one waits.
// The staging that commit has just started would otherwise not run until they are
// done: Go runs a goroutine that was just started on the processor that started it,
// after the running one, and another processor takes it over only now and then;
// measured on a 600 KB file, staging began 250 µs late, and in the file-durable mode
// staging (its fsync) is the longer of the two roads to the rename.
//
// Changes of fewer than smallChange bytes in all are hashed here: their hashes take
// microseconds, less than waking another thread to run them costs.
func hashAll(changes []*Change) {
	if small(changes) {
		for _, ch := range changes {
			if testHookHash != nil {
				testHookHash(ch)
			}
			ch.hash()
		}
		return
	}
	var p *errs.Panic
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if v := recover(); v != nil {
				p = &errs.Panic{Value: v, Stack: debug.Stack()}
			}
		}()
		for _, ch := range changes {
			if testHookHash != nil {
				testHookHash(ch)
			}
			ch.hash()
		}
	}()
	<-done
	if p != nil {
		panic(p) // here, where the call's own recovery sees it, with where it happened
	}
}

// smallChange is the size, before and after together, under which a call's changes
// are hashed and its record encoded on the call's own goroutine.
const smallChange = 64 << 10

// small reports whether changes are small enough to do their CPU work in line.
func small(changes []*Change) bool {
	n := 0
	for _, ch := range changes {
		n += len(ch.Before) + len(ch.After)
	}
	return n < smallChange
}

// hash computes the before and after hashes. Where the before hash is known, with its
// marks, the after hash resumes from the last mark before the first change; else the
// prefix both share is hashed once, and the rest of each side by side.
func (ch *Change) hash() {
	if ch.bitsOnly {
		return // both hashes are the one the record holds: the content is never read
	}
	same := 0 // how many bytes After shares with Before from the start
	if ch.Plan != nil && len(ch.Plan.Splices) > 0 {
		same = ch.Plan.Splices[0].Start
	}
	if !ch.Created && ch.beforeHash == "" {
		var shared hashMarks
		if n := min(same, len(ch.Before)) / markEvery * markEvery; n > 0 && !ch.Deleted {
			_, shared = hashFrom(ch.Before[:n], nil, 0)
		}
		if len(ch.Before)+len(ch.After) < smallChange {
			if !ch.Deleted {
				ch.afterHash, ch.afterMarks = hashFrom(ch.After, shared, same)
			}
			ch.beforeHash, ch.beforeMarks = hashFrom(ch.Before, shared, len(ch.Before))
			return
		}
		done := make(chan struct{})
		go func() {
			if !ch.Deleted {
				ch.afterHash, ch.afterMarks = hashFrom(ch.After, shared, same)
			}
			close(done)
		}()
		ch.beforeHash, ch.beforeMarks = hashFrom(ch.Before, shared, len(ch.Before))
		<-done
		return
	}
	if !ch.Deleted {
		ch.afterHash, ch.afterMarks = hashFrom(ch.After, ch.beforeMarks, same)
	}
}

func fileRecord(ch *Change) journal.File {
	f := journal.File{Path: ch.Path, Op: ch.Op, After: ch.afterHash, AfterMode: uint32(ch.mode)}
	if ch.Created {
		f.AfterMode = uint32(vfs.CreatedMode(ch.mode))
	} else {
		f.Before, f.BeforeMode = ch.beforeHash, uint32(ch.mode)
	}
	if ch.Deleted {
		f.AfterMode = 0
	}
	if ch.Op == journal.OpDelete && !ch.taken {
		f.Links = ch.HardLinks // a move renames the file: its links stay
	}
	if ch.chmod != 0 {
		f.AfterMode = uint32(ch.chmod)
	}
	f.Splices = ch.splices
	if ch.Plan != nil {
		f.Splices = nil
		for _, s := range ch.Plan.Splices {
			f.Splices = append(f.Splices, journal.Splice{Start: s.Start, Old: ch.Before[s.Start:s.End], New: s.Text})
		}
		for i, r := range ch.Plan.Edits {
			f.Edits = append(f.Edits, journal.Edit{Index: i, Tier: r.Tier.String(), Gutter: r.Gutter, Folded: r.Folded,
				Lines: r.Lines, ContextLines: r.ContextLines, ContextBytes: r.ContextBytes})
		}
	}
	f.Diff = bounded(ch.Diff())
	f.OmitDiff(ch.Before) // the journal renders it again from the splices where it can
	return f
}

// writeFile writes one planned change, refusing when the file is no longer what the
// plan was made from.
// A replace renames the content staged for it (or reports why staging failed).
func (e *Engine) writeFile(ch *Change, st *vfs.Staged, stageErr error) error {
	var id vfs.Identity
	var err error
	lazy := e.durability == DurableJournal
	if ch.Created && ch.from != nil {
		// A move: the file its deletion set aside (a change before this one) is
		// renamed into place, the same inode. In the journal-durable mode the
		// checkpoint syncs both folders; a power loss before it has recovery
		// rebuild the file from the journal, a copy with the same content.
		ch.creating = true
		ch.dirs, err = e.fs.MoveFile(ch.from.aside, ch.Path, !lazy)
		ch.creating = false
		id, _ = e.fs.IdentityOf(ch.Path)
	} else if ch.Created {
		ch.creating = true
		if lazy {
			id, ch.dirs, err = e.fs.CreateDirsNoSync(ch.Path, ch.After, ch.mode)
		} else {
			id, ch.dirs, err = e.fs.CreateDirs(ch.Path, ch.After, ch.mode)
		}
		ch.creating = false
	} else if ch.bitsOnly {
		// The file is known by its identity, which any write since would have moved
		// (its change time): still the one the plan found, it gets its bits back.
		if now, err := e.fs.IdentityOf(ch.Path); err != nil || now != ch.id {
			return errs.New(errs.Conflict, ch.Name, "%s changed on disk while this call ran; nothing was written. Look at it and undo again.", ch.Name)
		}
		if err = e.fs.Afero().Chmod(ch.Path, ch.chmod); err == nil {
			id, err = e.fs.IdentityOf(ch.Path)
		}
	} else {
		if same, err := e.fs.Unchanged(ch.Path, ch.id, ch.Before); err != nil || !same {
			return errs.New(errs.Conflict, ch.Name, "%s changed on disk while this call ran; nothing was written. Read it again and resend.", ch.Name)
		}
		switch {
		case ch.Deleted:
			// Set aside, not removed: a rollback renames the same file back.
			e.remember(ch.Path, known{})
			return e.fs.SetAside(ch.Path, ch.aside, !lazy)
		case stageErr != nil:
			return stageErr
		default:
			id, err = st.Commit()
			if err == nil && ch.chmod != 0 {
				err = e.fs.Afero().Chmod(ch.Path, ch.chmod)
			}
		}
	}
	if err == nil {
		k := known{id: e.landedID(ch.Path, id), hash: ch.afterHash, marks: ch.afterMarks}
		if ch.Plan != nil {
			k.data = ch.After // the matcher's output: a buffer no one else holds
		}
		e.remember(ch.Path, k)
	}
	return err
}

// landedID is the identity to know a file by that this engine has just written. The
// identity taken as the content was written (wrote) predates the rename into place,
// and on most filesystems the rename, like the temp file's change of mode or owner,
// updates the change time, which SameFile compares. So the file is looked at again
// now: if it is still the inode written, with its size and modification time, its
// change time now is the one to compare with later; if not, someone else has changed
// it already, and nothing is known of it (the zero identity: the next call reads it).
// A write by someone else in the instant between the rename and this look, which also
// set the modification time back, would go unseen: any later one changes the change
// time.
func (e *Engine) landedID(path string, wrote vfs.Identity) vfs.Identity {
	now, err := e.fs.IdentityOf(path)
	if err != nil || !wrote.SameInode(now) {
		return vfs.Identity{}
	}
	return now
}

// putBack undoes a deletion that has not reached its commit point: the file set aside
// is renamed back, the same inode with its owner, mode, links, times and extended
// attributes. Only where it is gone (someone removed it) is the file made again from
// the content the call read.
func (e *Engine) putBack(ch *Change) error {
	_, perr := e.fs.IdentityOf(ch.Path)
	there := perr == nil
	if ch.aside != "" {
		if _, err := e.fs.IdentityOf(ch.aside); err == nil {
			switch {
			case !there:
				return e.fs.PutBack(ch.aside, ch.Path)
			case e.fs.SameNode(ch.aside, ch.Path):
				return e.fs.DropAside(ch.aside, true) // a second name of the file, not yet its only one
			}
			return fmt.Errorf("%s was made again meanwhile; the file as it was is kept as %s", ch.Path, ch.aside)
		}
	}
	if there {
		return nil // never set aside
	}
	_, _, err := e.fs.CreateDirs(ch.Path, ch.Before, ch.mode)
	return err
}

// rollback restores the files of a failed commit that hold their new content.
func (e *Engine) rollback(done []*Change) error {
	var all []error
	for i := len(done) - 1; i >= 0; i-- {
		ch := done[i]
		if ch.from != nil {
			if err := e.unmove(ch); err != nil {
				all = append(all, fmt.Errorf("%s: %w", ch.Path, err))
			}
			continue
		}
		if ch.Deleted {
			if err := e.putBack(ch); err != nil {
				all = append(all, fmt.Errorf("%s: %w", ch.Path, err))
			}
			continue
		}
		if ch.bitsOnly {
			if e.hasBits(ch.Path, ch.chmod) {
				if err := e.fs.Afero().Chmod(ch.Path, ch.mode); err != nil {
					all = append(all, fmt.Errorf("%s: %w", ch.Path, err))
				}
			}
			continue
		}
		now, rerr := e.fs.ReadCanonical(ch.Path)
		if rerr != nil && ch.Created {
			// Never created. A create that failed removed the folders it made; one cut
			// short by a panic did not say which: those it was to make go, if empty.
			if ch.creating {
				e.fs.RemoveDirs(ch.planned)
			}
			continue
		}
		if rerr == nil && !bytes.Equal(now, ch.After) {
			continue // never written
		}
		if rerr == nil && ch.chmod != 0 && bytes.Equal(now, ch.Before) && !e.hasBits(ch.Path, ch.chmod) {
			continue // a change of bits only, never written: the file has its own still
		}
		var err error
		if ch.Created {
			if err = e.fs.Remove(ch.Path); err == nil {
				dirs := ch.dirs
				if ch.creating {
					dirs = ch.planned // a panic came before the create said what it made
				}
				e.fs.RemoveDirs(dirs)
			}
		} else if ch.chmod != 0 {
			_, err = e.fs.ReplaceAs(ch.Path, ch.Before, ch.mode) // its bits back too, read-only or not
		} else {
			err = e.fs.Replace(ch.Path, ch.Before)
		}
		if err != nil {
			all = append(all, fmt.Errorf("%s: %w", ch.Path, err))
		}
	}
	return errors.Join(all...)
}

// hasBits says whether the file at p has the permission bits mode.
func (e *Engine) hasBits(p string, mode fs.FileMode) bool {
	const bits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky
	fi, err := e.fs.Afero().Stat(p)
	return err == nil && fi.Mode()&bits == mode&bits
}

// unmove takes back a move that has not reached its commit point: the file is renamed
// from its new path to the name its deletion set it aside under, for that deletion's
// rollback (putBack) to rename it back to its path, the same inode. Where the set-aside
// name is still there the rename never happened; where the new path holds other
// content, that is someone else's, and the deletion's rollback makes the file again
// from the content the call read.
func (e *Engine) unmove(ch *Change) error {
	if _, err := e.fs.IdentityOf(ch.from.aside); err == nil {
		if ch.creating {
			e.fs.RemoveDirs(ch.planned) // a panic came before the move said what it made
		}
		return nil
	}
	now, err := e.fs.ReadCanonical(ch.Path)
	if err != nil || !bytes.Equal(now, ch.After) {
		return nil
	}
	if _, err := e.fs.MoveFile(ch.Path, ch.from.aside, true); err != nil {
		return err
	}
	dirs := ch.dirs
	if ch.creating {
		dirs = ch.planned
	}
	e.fs.RemoveDirs(dirs)
	return nil
}

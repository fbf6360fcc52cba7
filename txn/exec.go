package txn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/vfs"
)

// Commands and other writers: what changed in the workspace between two looks at it.
// The journal keeps a snapshot (journal/snapshot.go); a look walks the workspace
// (vfs.Snapshot, which opens only files whose identity changed), tells the
// differences, leaves out those a committed call made, and journals the rest as one
// record: tool "outside" (origin outside) for changes no one ran through vfsctl, tool
// "exec" for a command's. A changed text file is recorded by its changed lines
// (splices), so that undo reverts only those; other files whole, with both contents
// as blobs. Symlinks, folders and other kinds are named in the record's notes.
//
// What a look records is the workspace as it stands when the look holds the journal:
// no call of another process runs then, and a walk that a call's commit overlapped is
// walked again. One command runs at a time (StartExec waits for a running one); while
// it runs, what changes is its, and an outside look records nothing.

// Tool names and the origin of these records.
const (
	ToolOutside   = "outside"
	ToolExec      = "exec"
	OriginOutside = "outside"
)

// LookOptions bound a look at the workspace.
type LookOptions struct {
	IncludeIgnored bool
	MaxFile        int64 // 0 is vfs.DefaultSnapshotMaxFile
	MaxEntries     int   // 0 is vfs.DefaultSnapshotMaxEntries
}

func (o LookOptions) scan() vfs.ScanOptions {
	return vfs.ScanOptions{IncludeIgnored: o.IncludeIgnored, MaxFile: o.MaxFile, MaxEntries: o.MaxEntries}
}

// walk is o as an exec's record keeps it: nil for the defaults.
func (o LookOptions) walk() *journal.Walk {
	if o == (LookOptions{}) {
		return nil
	}
	return &journal.Walk{IncludeIgnored: o.IncludeIgnored, MaxFile: o.MaxFile, MaxEntries: o.MaxEntries}
}

// lookOfStopped is how recovery walks for execs whose vfsctl stopped: as each was
// to be walked (the defaults for records that do not say), and, for several, the
// widest of them: ignored paths included if any included them, each limit the
// largest. One walk records what all of them changed.
func lookOfStopped(stopped []*journal.Record) LookOptions {
	var o LookOptions
	for _, r := range stopped {
		w := r.Walk
		if w == nil {
			w = &journal.Walk{}
		}
		o.IncludeIgnored = o.IncludeIgnored || w.IncludeIgnored
		o.MaxFile = widest(o.MaxFile, w.MaxFile, vfs.DefaultSnapshotMaxFile)
		o.MaxEntries = int(widest(int64(o.MaxEntries), int64(w.MaxEntries), vfs.DefaultSnapshotMaxEntries))
	}
	return o
}

// widest is the larger of two limits, 0 standing for def; 0 when both are def.
func widest(a, b, def int64) int64 {
	if a <= 0 {
		a = def
	}
	if b <= 0 {
		b = def
	}
	if m := max(a, b); m != def {
		return m
	}
	return 0
}

// Look is what a look journaled.
type Look struct {
	Seq   uint64 // the record written, 0 when nothing changed (or on the first look)
	First bool   // no snapshot existed: this look took the first
	Files []journal.File
	// Entries are the folders and symlinks made, removed or changed.
	Entries []journal.Entry
	// Notes are the record's; for an outside look that recorded nothing, what it
	// could not see (a file it could not read, an exclude file it could not use).
	Notes  []string
	Opened int // files opened to hash them
	// Running are the execs of the workspace whose commands ran as an outside look
	// was to record: what changed since each began is its, recorded when it ends, so
	// the look recorded nothing and left the snapshot as it was (Notes say so).
	Running []uint64 `json:",omitempty"`
	running []*journal.Record
	// unseen are the notes of what the look could not see, said by the reply
	// even when no record holds them.
	unseen []string

	// snap is the snapshot as this look left it, and digest its digest as stored
	// (journal.Tx.SnapshotDigest): the next look of the same engine starts from it
	// when the journal still holds that snapshot, without decoding it again.
	snap   map[string]journal.SnapEntry
	digest uint64
}

// CheckpointOutside journals, as one record of tool outside, what changed in the workspace
// since its last look that no call made, and brings the snapshot up to date. The
// first look of a workspace takes the snapshot and records nothing.
// The record belongs to no session and no turn: a rewind of a session's turns never
// reverts it (vfsctl undo N does).
func (e *Engine) CheckpointOutside(o LookOptions) (*Look, error) {
	return e.checkpointOutside(o, nil)
}

// checkpointOutside is CheckpointOutside starting from the snapshot a previous look
// left (nil: none).
func (e *Engine) checkpointOutside(o LookOptions, from *Look) (*Look, error) {
	w, err := e.walk(o, from, e.j.Acquire)
	if err != nil {
		return nil, err
	}
	c, err := e.Begin("", ToolOutside, nil)
	if err != nil {
		return nil, err
	}
	c.SetOrigin(OriginOutside)
	look, err := e.look(c, o, w, true)
	if ferr := c.Finish(err); err == nil && ferr != nil {
		err = ferr
	}
	return look, err
}

// Exec is a command in progress: its record was written pending before it started.
type Exec struct {
	e     *Engine
	rec   journal.Record
	opts  LookOptions
	start time.Time
	// place is the journal's identity (its folder's and its file's) when the record
	// was written: a command that removes, moves or replaces either leaves another
	// there, or none.
	place string
	// Outside is the look that journaled outside changes before the command.
	Outside *Look
}

// ExecArgs are the arguments an exec record keeps.
type ExecArgs struct {
	Argv []string `json:"argv"`
	Cwd  string   `json:"cwd"`
	// ArgvBase64 is argv byte for byte, each argument in base64, when one of them is
	// not UTF-8: JSON holds such bytes as U+FFFD, and the record would not say what ran.
	ArgvBase64 []string `json:"argv_base64,omitempty"`
}

// BeginExec brings the snapshot up to date (journaling outside changes first, as
// their own record) and writes the exec's record, pending, before the command runs.
// The journal is not held while the command runs.
func (e *Engine) BeginExec(session, turn string, args ExecArgs, o LookOptions) (*Exec, error) {
	raw, _ := json.Marshal(args)
	c, err := e.BeginRead(context.Background(), session, ToolExec, raw)
	if err != nil {
		return nil, err
	}
	c.SetTurn(turn)
	return e.StartExec(c, o)
}

// StartExec makes c, a call begun with BeginRead (a tool that runs a command, as
// run_command), the record of a command about to run: it journals outside changes
// first, as their own record, then writes c's record pending, naming this process as
// the one that runs the command. Exec.End writes the record's end; c's own Finish
// then writes nothing. On an error c is left as it was, for Finish to record.
//
// While another exec of the workspace runs, it waits for it to end, as long as the
// journal's Wait (a negative Wait: not at all), then refuses naming it, the refusal's
// cause ErrNotRun: what two commands change at once cannot be told apart, and a look
// now would take the running command's changes for outside ones (or, at this
// command's end, for this one's).
func (e *Engine) StartExec(c *Call, o LookOptions) (*Exec, error) {
	if err := e.refuseWhileLeftRunning(); err != nil {
		return nil, err
	}
	wait := e.jopts.Wait
	if wait == 0 {
		wait = journal.DefaultWait
	}
	deadline := time.Now().Add(wait) // a negative wait does not wait: one look
	for {
		var running []*journal.Record
		err := e.View(func(t *journal.Tx) error { running = e.execsRunning(t, 0); return nil })
		if err != nil {
			return nil, err
		}
		if len(running) == 0 {
			x, look, err := e.startExec(c, o)
			if err != nil || x != nil {
				return x, err
			}
			running = look.running // one began between the two looks at the journal
		}
		if time.Now().After(deadline) {
			r := running[0]
			run, _ := runnerOf(r)
			waited := fmt.Sprintf("after a wait of %s", wait)
			if wait < 0 {
				waited = "and this exec was not to wait for it"
			}
			return nil, errs.Wrap(errs.Conflict, "", ErrNotRun, "exec %d of session %s (%s) still runs, in vfsctl process %d, %s: what a command changes while another runs could not be told from what the other changes, so one runs at a time in a workspace. Wait for it to end or stop it, then run the command again. Nothing was run.", r.Seq, r.Session, argvOf(r), run.PID, waited)
		}
		time.Sleep(execPoll)
	}
}

// ErrNotRun is the cause of a refusal whose message already says that the command
// was not run (errors.Is): a caller that would say so itself does not say it twice.
// Every error of StartExec leaves the command not run; only some say it.
var ErrNotRun = errors.New("the command was not run")

// execPoll is how often StartExec looks whether the exec it waits for has ended.
const execPoll = 50 * time.Millisecond

// testHookExecOutside, when set by a test, runs between an exec's outside look and its
// record.
var testHookExecOutside func()

// startExec is one try of StartExec: the workspace walked, then, holding the journal
// from the outside look to c's record (so that no call of another process commits
// between the two, and the snapshot the command starts from is the workspace as its
// record finds it), the outside look and the record. Where another exec runs, it
// records nothing and returns the look that says so.
func (e *Engine) startExec(c *Call, o LookOptions) (*Exec, *Look, error) {
	w, err := e.walk(o, nil, e.j.Acquire)
	if err != nil {
		return nil, nil, err
	}
	if err := e.j.Acquire(); err != nil {
		return nil, nil, err
	}
	defer e.j.Release()
	oc := e.newCall(context.Background(), "", ToolOutside, nil)
	oc.SetOrigin(OriginOutside)
	out, err := e.look(oc, o, w, true)
	if err != nil {
		return nil, nil, err
	}
	if len(out.running) > 0 {
		return nil, out, nil
	}
	if testHookExecOutside != nil {
		testHookExecOutside()
	}
	seq0 := c.rec.Seq
	c.rec.State = journal.Pending
	c.rec.Runner = &journal.Runner{PID: os.Getpid(), Boot: e.boot, Start: procStart(os.Getpid())}
	c.rec.Walk = o.walk() // should vfsctl stop, recovery walks as this exec would have
	err = e.j.Commit(func(t *journal.Tx) error {
		c.rec.Seq = seq0 // a failed shared transaction is retried alone
		if err := c.putArgs(t); err != nil {
			return err
		}
		return t.Put(&c.rec)
	})
	if err != nil {
		c.rec.Seq, c.rec.State, c.rec.Runner, c.rec.Walk = seq0, "", nil, nil
		return nil, nil, err
	}
	c.final = true
	// The walk's entries are garbage from here on. Collected while the command runs,
	// their pages are those the walk after the command fills; else that walk grows
	// the heap, and each new page of it is a page fault (about 650 more for the Go
	// tree, 10 ms of processor time on the machine measured).
	go runtime.GC()
	rec := c.rec
	execsHere.Store(execKey{e.j.Path(), rec.Seq}, struct{}{})
	return &Exec{e: e, rec: rec, opts: o, start: c.start, Outside: out, place: e.j.PlaceID()}, out, nil
}

// execBegan is the note by which the first journals with exec records named the
// process running a pending exec, before Record.Runner: still read (runnerOf), so that
// a command such a vfsctl runs while it is replaced is not settled under it.
const execBegan = "an exec began in process %d (boot %q); its changes are recorded when it ends"

// runnerOf is the process running r, a pending exec, as its record names it.
func runnerOf(r *journal.Record) (journal.Runner, bool) {
	if r.Runner != nil {
		return *r.Runner, true
	}
	var run journal.Runner
	if len(r.Notes) > 0 {
		if n, _ := fmt.Sscanf(r.Notes[0], execBegan, &run.PID, &run.Boot); n == 2 {
			return run, true
		}
	}
	return run, false
}

// execsHere are the execs this process runs now, by journal and record: a pending exec
// of this process is running only while its Exec has not ended (an engine closed
// without ending one, as a test does, left it behind like a crash).
var execsHere sync.Map // execKey -> struct{}

type execKey struct {
	journal string
	seq     uint64
}

// forgetExecs drops the execs this process runs on journal: its engine closes.
func forgetExecs(journal string) {
	execsHere.Range(func(k, _ any) bool {
		if k.(execKey).journal == journal {
			execsHere.Delete(k)
		}
		return true
	})
}

// execRunning reports whether r, a pending exec, is still run by a live process of
// this boot: the one that will record it. Where the boot cannot be read (Wine has no
// BootId), the runner is known by its number and its start time alone: taking it
// for stopped would let any other vfsctl's open of the journal settle, as abandoned,
// a command that still runs, and the command's end would then fail.
func (e *Engine) execRunning(r *journal.Record) bool {
	run, ok := runnerOf(r)
	if !ok || run.PID <= 0 {
		return false
	}
	if run.PID == os.Getpid() {
		// Known here whatever the boot, which may be unknown (Wine has no BootId).
		_, ok := execsHere.Load(execKey{e.j.Path(), r.Seq})
		return ok
	}
	if run.Boot != e.boot {
		return false
	}
	if run.Start != "" {
		// Another process under the number, once the runner ended: not it.
		if s := procStart(run.PID); s != "" && s != run.Start {
			return false
		}
	}
	return processAlive(run.PID)
}

// Seq is the exec's record.
func (x *Exec) Seq() uint64 { return x.rec.Seq }

// End records what the command changed, with how it ended (exit, e.g. "exit 0" or
// "signal killed"), in the exec's record.
func (x *Exec) End(exit string) (*Look, error) {
	e := x.e
	defer execsHere.Delete(execKey{e.j.Path(), x.rec.Seq})
	dur := time.Since(x.start)
	// Checked before the walk takes the journal (taking it would make a new one) and
	// again once it is held.
	if err := x.journalInPlace(); err != nil {
		return nil, err
	}
	w, werr := e.walk(x.opts, x.Outside, x.hold)
	if err := x.hold(); err != nil {
		return nil, err
	}
	if err := x.journalInPlace(); err != nil {
		e.j.Release()
		return nil, err
	}
	c := &Call{ctx: context.Background(), e: e, rec: x.rec, start: x.start}
	c.rec.Notes, c.rec.Exit, c.rec.Runner = nil, exit, nil
	c.rec.Duration = dur
	look, err := (*Look)(nil), werr
	if err == nil {
		look, err = e.look(c, x.opts, w, false)
	}
	if err != nil {
		// What the command changed is then taken, by the next look that can walk the
		// workspace, for outside changes: a record that waited for that look instead
		// would take what the user changes meanwhile (the .gitignore the message
		// advises) for the command's, and a rewind of the turn would remove it.
		c.rec.Notes = append(c.rec.Notes, "its changes could not be recorded: "+err.Error()+" What it changed is journaled by the next look that can walk the workspace, as outside: a rewind of this turn does not take it back.")
		c.rec.State = journal.Unknown
		e.j.Commit(func(t *journal.Tx) error { return t.Put(&c.rec) })
		e.j.Release()
		return nil, err
	}
	e.j.Release()
	return look, nil
}

// hold holds the journal for the exec's end, waiting for another process as long as
// the journal's Wait and at least DefaultWait: the command ran, and an end that gave
// up at once (its caller would not wait to start it) would leave what it changed to
// be taken for outside.
func (x *Exec) hold() error { return x.e.j.AcquireWaiting(journal.DefaultWait) }

// walked is a walk of the workspace and the snapshot it was made against.
type walked struct {
	base   map[string]journal.SnapEntry
	digest uint64 // of base as stored
	first  bool
	scan   *vfs.Scan
	// last is the journal's last record when the snapshot was read: a call recorded
	// after it may have changed a file before or after the walk read it.
	last uint64
}

// testHookLookCommits and testHookLookWritten, when set by a test, run just before a
// look's journal transaction and at its end; the transaction fails with the error
// of the second.
var (
	testHookLookCommits func()
	testHookLookWritten func() error
)

// testHookWalked, when set by a test, runs after each walk of a look.
var testHookWalked func()

// walk reads the snapshot (holding the journal only for that) and walks the workspace
// against it without holding the journal: a look of a big tree does not turn other
// processes away for as long as it walks. from is a previous look of this engine
// (nil: none): where the journal still holds the snapshot it left, that is taken
// without decoding the journal's. hold holds the journal (Acquire, or an exec's end's
// hold).
func (e *Engine) walk(o LookOptions, from *Look, hold func() error) (*walked, error) {
	if err := hold(); err != nil {
		return nil, err
	}
	w := &walked{}
	err := e.j.Flush()
	if err == nil {
		err = e.j.View(func(t *journal.Tx) error {
			w.first, w.last = !t.HasSnapshot(), t.Last()
			if from != nil && from.snap != nil && !w.first {
				if _, w.digest = t.SnapshotDigest(false); w.digest == from.digest {
					w.base = from.snap
					return nil
				}
			}
			w.base, w.digest = t.SnapshotDigest(true)
			return nil
		})
	}
	e.j.Release()
	if err != nil {
		return nil, err
	}
	if w.scan, err = e.walkAgainst(o, w.base); err != nil {
		return nil, err
	}
	return w, nil
}

// calledSince reports whether a record after seq after, other than self, is a call
// that changed (or is changing) files or folders.
func calledSince(t *journal.Tx, after, self uint64) bool {
	for seq := after + 1; seq <= t.Last(); seq++ {
		if seq == self {
			continue
		}
		r, err := t.Get(seq)
		if err != nil || r == nil {
			return true // unreadable: taken as a change, which costs only a walk
		}
		if r.State == journal.Failed {
			continue
		}
		if len(r.Entries) > 0 || slices.ContainsFunc(r.Files, func(f journal.File) bool { return f.Op.Changes() }) {
			return true
		}
	}
	return false
}

// walkAgain walks the workspace again, against prev, a walk of it made against old:
// a file prev read is opened again only when its identity changed since, and the
// contents prev read stay at hand for the record and its blobs.
func (e *Engine) walkAgain(o LookOptions, prev *vfs.Scan, old map[string]journal.SnapEntry) (*vfs.Scan, error) {
	base, _ := snapOf(prev, old)
	scan, err := e.walkAgainst(o, base)
	if err != nil {
		return nil, err
	}
	for h, b := range prev.Data {
		if _, ok := scan.Data[h]; !ok {
			scan.Data[h] = b
		}
	}
	scan.Opened += prev.Opened
	return scan, nil
}

func (e *Engine) walkAgainst(o LookOptions, base map[string]journal.SnapEntry) (*vfs.Scan, error) {
	so := o.scan()
	so.SizeHint = len(base) + len(base)/8 // room for some made since
	scan, err := e.fs.SnapshotFrom(so, func(p string) (vfs.Entry, bool) {
		s, ok := base[p]
		return fromSnap(p, s), ok
	})
	if testHookWalked != nil {
		testHookWalked()
	}
	return scan, err
}

// ErrNotRecorded is the cause of a refusal whose message already says that what the
// command changed was not recorded, nor will be by the next look: no caller adds
// that it will.
var ErrNotRecorded = errors.New("what the command changed was not recorded")

// journalInPlace refuses to record an exec whose journal is no longer the one its
// record was written in: the command removed or moved the journal's folder or file,
// or put another in its place. Writing then would make a new journal, or write one
// outside the root or into a deleted file. The journal is marked gone for this
// process (journal.Journal.Gone): a long-lived one (vfsctl call, serve) refuses
// every later call instead of writing into the file it still holds.
func (x *Exec) journalInPlace() error {
	if x.place != "" && x.e.j.PlaceID() == x.place {
		return nil
	}
	x.e.j.Gone(fmt.Sprintf("by call %d's command?", x.rec.Seq))
	return errs.Wrap(errs.IOError, "", ErrNotRecorded, "The journal %s is gone: it was removed, moved or replaced while the command ran (call %d's record was in it). What the command changed was not recorded, and no journal was written elsewhere; restart vfsctl, and the next command starts from the journal at the root, or a new history.", x.e.j.Shown(), x.rec.Seq)
}

// look tells what changed from the snapshot to w's walk and writes c's record with
// it (for an outside look, only when something changed) together with the new
// snapshot, in one journal transaction; the journal is held. Should another look have
// recorded a new snapshot since w's walk, the workspace is walked again against that
// one (with the journal held), so that no change is recorded twice, or backwards; so
// it is when a call was recorded since the walk began, which may have read the call's
// file before the call changed it. Changes whose content matches the latest committed
// call about the path are that call's, and left out. While an exec runs, an outside
// look records nothing (Look.Running).
func (e *Engine) look(c *Call, o LookOptions, w *walked, outside bool) (*Look, error) {
	if err := e.j.Flush(); err != nil {
		return nil, err
	}
	// The snapshot is decoded again only when another look recorded one since w's.
	old, scan, first, digest, called := w.base, w.scan, false, uint64(0), false
	var running []*journal.Record
	var exclude []byte // the .git/info/exclude old's walk applied
	if err := e.j.View(func(t *journal.Tx) error {
		first = !t.HasSnapshot()
		exclude = t.SnapshotExclude()
		if _, digest = t.SnapshotDigest(false); first != w.first || digest != w.digest {
			old = t.Snapshot()
		}
		called = calledSince(t, w.last, c.rec.Seq)
		if outside {
			running = e.execsRunning(t, c.rec.Seq)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if len(running) > 0 {
		// The snapshot is the one the running command started from, and its end
		// tells what it changed from it; what changed since cannot be told from its
		// changes. Nothing is recorded, and the snapshot stays.
		c.final = true
		look := &Look{running: running}
		for _, r := range running {
			look.Running = append(look.Running, r.Seq)
			look.Notes = append(look.Notes, fmt.Sprintf("exec %d of session %s (%s) is running: what changed in the workspace since it began is recorded as its when it ends; nothing was journaled as outside", r.Seq, r.Session, argvOf(r)))
		}
		return look, nil
	}
	switch {
	case first != w.first || digest != w.digest:
		var err error
		if scan, err = e.walkAgainst(o, old); err != nil {
			return nil, err
		}
	case called:
		// A call committed while the walk ran: the walk may have read a file before
		// the call changed it, or after, and a record or a snapshot made of that view
		// would credit the call's change to the command, or to no one, or miss it. The
		// workspace is walked again holding the journal (no other process's call runs
		// then), against the first walk: only what changed since is opened.
		var err error
		if scan, err = e.walkAgain(o, w.scan, old); err != nil {
			return nil, err
		}
	}
	if err := e.follow(e.j, o, scan, old); err != nil {
		return nil, err
	}
	look := &Look{First: first, Opened: scan.Opened}
	same := !first && unchanged(scan, old) && sameExclude(exclude, scan.Exclude)
	if outside && same {
		// Nothing changed: no record, no snapshot to write, no journal transaction.
		c.final = true
		look.snap, look.digest = old, digest
		return look, nil
	}
	now, changed := old, []string(nil)
	if !same {
		now, changed = snapOf(scan, old)
	}
	notes := slices.Clone(c.rec.Notes)
	if testHookLookCommits != nil {
		testHookLookCommits()
	}
	err := e.j.Commit(func(t *journal.Tx) error {
		// The journal runs this again, alone, when its batch failed: each run starts
		// from what the look found, not from what the failed run added.
		look.Files, look.Entries, look.Notes, look.unseen = nil, nil, nil, nil
		c.rec.Notes = slices.Clone(notes)
		// A command that changed nothing: its record alone, the snapshot as it was.
		if !same {
			if err := tell(t, e.fs, look, old, now, changed, scan, first, outside, c.rec.Seq); err != nil {
				return err
			}
		}
		left, err := e.leftNotes(t)
		if err != nil {
			return err
		}
		if outside { // the look a command's look starts from
			look.snap = now
			_, look.digest = t.SnapshotDigest(false)
		}
		if outside && len(look.Files) == 0 && len(look.Entries) == 0 && len(look.Notes) == 0 {
			return nil
		}
		if len(look.Files) > 0 || len(look.Entries) > 0 {
			look.Notes = append(look.Notes, e.othersRunning(t, c.rec.Seq)...)
			look.Notes = append(look.Notes, left...)
		}
		c.rec.Files, c.rec.Entries = look.Files, look.Entries
		c.rec.Notes = append(c.rec.Notes, look.Notes...)
		c.rec.State = journal.Committed
		if c.rec.Duration == 0 {
			c.rec.Duration = time.Since(c.start)
		}
		if err := c.putArgs(t); err != nil {
			return err
		}
		if err := t.Put(&c.rec); err != nil {
			return err
		}
		look.Seq = c.rec.Seq
		if testHookLookWritten != nil {
			return testHookLookWritten()
		}
		return nil
	})
	c.final = true
	if err != nil {
		return nil, err
	}
	if look.Seq == 0 {
		look.Notes = look.unseen
	}
	return look, nil
}

// unchanged reports whether scan's walk found the workspace as old records it: every
// entry read, each as old has it, and no other (a walk names each path once). It
// tells so without building the walk's snapshot, which for the Go tree's 12,000
// entries cost more than comparing them.
func unchanged(scan *vfs.Scan, old map[string]journal.SnapEntry) bool {
	if len(scan.Unreadable) > 0 || len(scan.Unlisted) > 0 || scan.ExcludeUnused != "" || len(scan.Entries) != len(old) {
		return false
	}
	for _, en := range scan.Entries {
		if o, ok := old[en.Path]; !ok || o != toSnap(en) {
			return false
		}
	}
	return true
}

// snapOf is the snapshot of scan's walk. A file that could not be read keeps its
// state in old but for its bits, which the walk saw (its identity stays the old
// one, so that the next look reads it again); what a folder that could not be
// listed holds keeps its state in old: unknown is not gone. changed are the paths
// whose entry differs from old's (made, changed or removed), each once, unsorted:
// the later steps of a look go through those, not through every path of the tree
// again (for the Go tree's 12,800 entries, each pass over both snapshots cost more
// than telling 100 changes).
func snapOf(scan *vfs.Scan, old map[string]journal.SnapEntry) (now map[string]journal.SnapEntry, changed []string) {
	now = make(map[string]journal.SnapEntry, len(scan.Entries))
	inOld := 0 // the paths of old that now has: a walk names each path once
	for _, en := range scan.Entries {
		s := toSnap(en)
		now[en.Path] = s
		o, had := old[en.Path]
		if had {
			inOld++
		}
		if !had || o != s {
			changed = append(changed, en.Path)
		}
	}
	for _, en := range scan.Unreadable {
		if s, ok := old[en.Path]; ok {
			o := s
			if s.Kind == vfs.KindFile && en.Kind == vfs.KindFile {
				s.Mode = en.Mode
			}
			now[en.Path] = s
			inOld++
			if s != o {
				changed = append(changed, en.Path)
			}
		}
	}
	if len(scan.Unlisted) > 0 {
		unlisted := map[string]bool{}
		for _, d := range scan.Unlisted {
			unlisted[d] = true
		}
		for p, s := range old {
			if _, ok := now[p]; !ok && underUnlisted(p, unlisted) {
				now[p] = s
				inOld++
			}
		}
	}
	if inOld < len(old) { // some were not walked: removed
		for p := range old {
			if _, has := now[p]; !has {
				changed = append(changed, p)
			}
		}
	}
	return now, changed
}

// underUnlisted reports whether p is below one of the folders unlisted ("." the root).
func underUnlisted(p string, unlisted map[string]bool) bool {
	if unlisted["."] {
		return true
	}
	for d := path.Dir(p); d != "." && d != "/"; d = path.Dir(d) {
		if unlisted[d] {
			return true
		}
	}
	return false
}

// tell tells, in t, what changed from the snapshot old to now (scan's walk; changed
// are the paths where they differ, as snapOf gives them) into look's files, entries
// and notes: for an outside look, leaving out what any call made; else, a command's,
// leaving out what calls committed after record since made. It stores the new
// contents as blobs, moves the heads of the changed files and makes now the
// snapshot; the record that owns the changes is the caller's to write.
func tell(t *journal.Tx, fsys *vfs.FS, look *Look, old, now map[string]journal.SnapEntry, changed []string, scan *vfs.Scan, first, outside bool, since uint64) error {
	if !first {
		content := func(h string) []byte {
			if b, ok := scan.Data[h]; ok {
				return b
			}
			b, _ := t.Blob(h)
			return b
		}
		// What a change of .gitignore brought into the walk's sight or took out of
		// it is no change of the workspace (exec_sight.go).
		seen, sight := inSight(fsys, old, now, changed, scan, t.SnapshotExclude(), content)
		look.Files, look.Entries, look.Notes = diffSnapshots(old, seen, changed, scan.Data, content)
		calls := newCallChanges(t)
		if outside {
			// Any call's change is left out.
			look.Files = slices.DeleteFunc(look.Files, func(f journal.File) bool {
				if !calls.made(f, 0) {
					return false
				}
				// A call's change of bits (an undo of a chmod) goes with its note, and
				// a removal of a file over the size limit (an undo's) with its.
				look.Notes = slices.DeleteFunc(look.Notes, func(n string) bool {
					return strings.HasPrefix(n, f.Path+": mode ") || isOverLimitNote(n, f.Path)
				})
				return true
			})
			// Calls make and remove folders (a create's parents, an undo's
			// cleanup) without a snapshot of them: of the folders, only those
			// removed with a file this record removes are told, so that its undo
			// makes them again with their bits; symlinks are told.
			look.Entries = slices.DeleteFunc(look.Entries, func(en journal.Entry) bool {
				if en.Before == journal.KindSymlink || en.After == journal.KindSymlink {
					return false
				}
				return en.Before != journal.KindDir || en.After != "" || !slices.ContainsFunc(look.Files, func(f journal.File) bool {
					return f.Op == journal.OpDelete && strings.HasPrefix(f.Path, en.Path+"/")
				})
			})
		} else {
			// Those of calls committed while the command ran (after the exec's
			// record) are taken out of the command's.
			var notes []string
			var err error
			if look.Files, notes, err = leaveOutCalls(calls, look.Files, old, seen, scan.Data, since); err != nil {
				return err
			}
			look.Notes = append(look.Notes, notes...)
		}
		// An outside look that found nothing else records nothing for them.
		if !outside || len(look.Files) > 0 || len(look.Entries) > 0 {
			look.Notes = append(look.Notes, sight...)
		}
	}
	var unseen []string
	for _, en := range scan.Unreadable {
		unseen = append(unseen, fmt.Sprintf("%s could not be read; it keeps its last known state", en.Path))
	}
	// An exclude file that cannot be used is said as an unreadable .gitignore is: what
	// it lists was walked, and would otherwise come into the snapshot with no word why.
	if scan.ExcludeUnused != "" {
		unseen = append(unseen, scan.ExcludeUnused+"; its rules were not applied, so what it lists is not left out")
	}
	// What changed in a folder while it could not be listed is told by the first look
	// that lists it, against the snapshot: a look that ends an exec whose command made
	// it listable again (chmod 755 d), or recovery's for one, cannot tell what changed
	// before the command from what the command changed, and records it all as the
	// command's.
	for _, d := range scan.Unlisted {
		if d == "." {
			d = "the workspace's root folder"
		}
		unseen = append(unseen, fmt.Sprintf("%s could not be listed; what it holds keeps its last known state, and what changed in it is journaled by the first look that can list it again: as that exec's if the look ends an exec (or recovers one whose vfsctl stopped), else as outside", d))
	}
	// An outside look that found nothing else records nothing for them: a folder
	// that stays unlistable would otherwise make every later look a record of its note.
	// The reply says them all the same, as an exec's does each time.
	look.unseen = unseen
	if !outside || len(look.Files) > 0 || len(look.Entries) > 0 {
		look.Notes = append(look.Notes, unseen...)
	}
	// The first snapshot stores the whole workspace: compressed harder, in packs that
	// leave no page's rest behind each content. A later look's few contents are
	// stored as a call's are, at the speed the command waits for.
	// The walk hashed each content it read: stored under that hash, once.
	var bulk [][]byte
	if first {
		t.PackFull()
	}
	stored := map[string]bool{}
	for _, en := range scan.Entries {
		if data, ok := scan.Data[en.Hash]; ok && en.Kind == vfs.KindFile && !stored[en.Hash] {
			stored[en.Hash] = true
			if first {
				bulk = append(bulk, data)
			} else if err := t.PutBlobOf(en.Hash, data); err != nil {
				return err
			}
		}
	}
	if err := t.PutBlobsPacked(bulk); err != nil {
		return err
	}
	for _, f := range look.Files {
		// A file told that the walk no longer sees (inSight) has its content here only.
		if data, ok := scan.Data[f.After]; ok && f.AfterBlob && !stored[f.After] {
			if _, err := t.PutBlob(data); err != nil {
				return err
			}
		}
		if f.After != "" {
			if err := t.SetHead(f.Path, f.After); err != nil {
				return err
			}
		}
	}
	if err := t.SetSnapshotExclude(scan.Exclude); err != nil {
		return err
	}
	return t.UpdateSnapshotAt(old, now, changed)
}

// callChanges reads, for one look, the changes that committed records made to the
// paths the look found changed. Each record is decoded once, however many of its
// paths changed, and its files are found by path: a rewind names thousands of files,
// and decoding it once for each of them made a look quadratic while it held the
// journal.
type callChanges struct {
	t    *journal.Tx
	recs map[uint64]map[string][]journal.File // nil for a record not committed
}

func newCallChanges(t *journal.Tx) *callChanges {
	return &callChanges{t: t, recs: map[uint64]map[string][]journal.File{}}
}

// of are the changes of path in record seq, in the record's order; none when the
// record is not committed.
func (c *callChanges) of(seq uint64, path string) []journal.File {
	byPath, ok := c.recs[seq]
	if !ok {
		if r, err := c.t.Get(seq); err == nil && r != nil && r.State == journal.Committed {
			byPath = make(map[string][]journal.File, len(r.Files))
			for _, f := range r.Files {
				if f.Op.Changes() {
					byPath[f.Path] = append(byPath[f.Path], f)
				}
			}
		}
		c.recs[seq] = byPath
	}
	return byPath[path]
}

// made reports whether f's new state is what the latest committed call about its
// path after call since left: then a call made it, not the command or an outside
// writer.
func (c *callChanges) made(f journal.File, since uint64) bool {
	seqs := c.t.SeqsOf(f.Path, since)
	for i := len(seqs) - 1; i >= 0; i-- {
		if rfs := c.of(seqs[i], f.Path); len(rfs) > 0 {
			rf := rfs[0]
			if f.Op == journal.OpDelete {
				return rf.Op == journal.OpDelete
			}
			return rf.After == f.After && rf.Op != journal.OpDelete && (vfs.SameBits(rf.AfterMode, f.AfterMode) || rf.AfterMode == 0 || f.AfterMode == 0)
		}
	}
	return false
}

// execsRunning are the pending execs of the workspace, other than self, whose
// commands still run, oldest first.
func (e *Engine) execsRunning(t *journal.Tx, self uint64) []*journal.Record {
	var out []*journal.Record
	for _, seq := range t.Pending() {
		if seq == self {
			continue
		}
		if r, err := t.Get(seq); err == nil && r != nil && journal.IsCommand(r.Tool) && e.execRunning(r) {
			out = append(out, r)
		}
	}
	return out
}

// othersRunning names the other execs running while a look recorded changes (two
// commands at once in one workspace): which of them made a change cannot be told, so
// the record says so.
func (e *Engine) othersRunning(t *journal.Tx, self uint64) []string {
	var notes []string
	for _, r := range e.execsRunning(t, self) {
		notes = append(notes, fmt.Sprintf("exec %d (%s) was running meanwhile: some of these changes may be its", r.Seq, argvOf(r)))
	}
	return notes
}

// argvOf is an exec record's command, as a line.
func argvOf(r *journal.Record) string {
	var a ExecArgs
	if json.Unmarshal([]byte(r.Args), &a) != nil || len(a.Argv) == 0 {
		return "a command"
	}
	return strings.Join(a.Argv, " ")
}

// leaveOutCalls takes out of an exec's files the changes that calls committed while
// the command ran (after record since) made to the same files. A file's history over
// the command's run is then: the command's change from its last known state to the
// first call's prior content, each call's change, the command's change from one
// call's result to the next call's prior content, and the command's from the last
// call's result to the file now. The command's one change among those is recorded
// (from and to those contents, so that its undo takes back only its lines); where the
// command changed the file both before and after a call, the whole change is recorded,
// the calls' included, and a note says so.
func leaveOutCalls(cc *callChanges, files []journal.File, old, now map[string]journal.SnapEntry, data map[string][]byte, since uint64) ([]journal.File, []string, error) {
	t := cc.t
	var out []journal.File
	var notes []string
	for _, f := range files {
		type point struct {
			hash string // "" absent
			mode uint32 // permission bits
		}
		var calls [][2]point
		var by []uint64
		for _, seq := range t.SeqsOf(f.Path, since) {
			for _, rf := range cc.of(seq, f.Path) {
				after := rf.After
				if rf.Op == journal.OpDelete {
					after = ""
				}
				calls = append(calls, [2]point{{rf.Before, vfs.PermBits(fs.FileMode(rf.BeforeMode))}, {after, vfs.PermBits(fs.FileMode(rf.AfterMode))}})
				by = append(by, seq)
			}
		}
		if len(calls) == 0 {
			out = append(out, f)
			continue
		}
		at := func(m map[string]journal.SnapEntry) point {
			if e, ok := m[f.Path]; ok && e.Kind == vfs.KindFile {
				return point{e.Hash, e.Mode}
			}
			return point{}
		}
		// The command's segments: from the last known state to the first call, between
		// calls, from the last call to now.
		// A record that kept no bits (0) does not tell a change of them, and bits are
		// compared as the system keeps them: a create recorded 0644 reads back 0666 on
		// Windows, which is no change of the command's.
		differs := func(a, b point) bool {
			return a.hash != b.hash || a.mode != 0 && b.mode != 0 && !vfs.SameBits(a.mode, b.mode)
		}
		var segs [][2]point
		from := at(old)
		for _, c := range calls {
			if differs(from, c[0]) {
				segs = append(segs, [2]point{from, c[0]})
			}
			from = c[1]
		}
		if to := at(now); differs(from, to) {
			segs = append(segs, [2]point{from, to})
		}
		switch len(segs) {
		case 0:
			continue // the calls' alone
		case 1:
			entry := func(p point, side map[string]journal.SnapEntry) map[string]journal.SnapEntry {
				if p.hash == "" {
					return nil
				}
				e := journal.SnapEntry{Kind: vfs.KindFile, Hash: p.hash, Mode: p.mode}
				if s, ok := side[f.Path]; ok && s.Kind == vfs.KindFile && s.Hash == p.hash {
					e = s
				}
				return map[string]journal.SnapEntry{f.Path: e}
			}
			content := func(h string) []byte {
				if b, ok := data[h]; ok {
					return b
				}
				b, _ := t.Content(f.Path, h)
				return b
			}
			seg, _, _ := diffSnapshots(entry(segs[0][0], old), entry(segs[0][1], now), []string{f.Path}, map[string][]byte{segs[0][1].hash: content(segs[0][1].hash)}, content)
			for _, sf := range seg {
				if sf.Path == f.Path {
					sf.Made = f.Made
					if err := keepBlobs(t, &sf, content); err != nil {
						return nil, nil, err
					}
					out = append(out, sf)
				}
			}
		default:
			out = append(out, f)
			notes = append(notes, fmt.Sprintf("%s: calls %v changed it while the command ran, between changes of the command's; this record's change of it includes theirs", f.Path, by))
		}
	}
	return out, notes, nil
}

// keepBlobs stores the contents f says it keeps as blobs. A change that starts or ends
// at a call's content (the command's change beside a call) refers to a content the
// call's record may hold only as its lines; where the content cannot be rebuilt, f
// says it is not kept.
func keepBlobs(t *journal.Tx, f *journal.File, content func(h string) []byte) error {
	for _, side := range []struct {
		hash string
		kept *bool
	}{{f.Before, &f.BeforeBlob}, {f.After, &f.AfterBlob}} {
		if !*side.kept {
			continue
		}
		b := content(side.hash)
		if b == nil {
			b = []byte{} // an empty content may read as none
		}
		if journal.Hash(b) != side.hash {
			*side.kept = false
			continue
		}
		if _, err := t.PutBlob(b); err != nil {
			return err
		}
	}
	return nil
}

// diffSnapshots tells what changed from old to now at the paths of maybe (each once;
// old and now are the same elsewhere): regular files created, changed or removed as
// records' files (new content from data, prior content from the journal's blobs,
// where the snapshot keeps it); everything else as notes.
func diffSnapshots(old, now map[string]journal.SnapEntry, maybe []string, data map[string][]byte, content func(hash string) []byte) ([]journal.File, []journal.Entry, []string) {
	var files []journal.File
	var entries []journal.Entry
	var notes []string
	// Only the paths whose entry differs: an equal entry tells no change, and sorting
	// every path of a large tree cost more than the rest of the diff.
	var paths []string
	for _, p := range maybe {
		o, had := old[p]
		n, has := now[p]
		if had != has || o != n {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	for _, p := range paths {
		o, had := old[p]
		n, has := now[p]
		if !utf8.ValidString(p) { // never a file or an entry: vfs.SnapshotFrom
			if had != has {
				notes = append(notes, badNameNote(p, has))
			}
			continue
		}
		wasFile, isFile := had && o.Kind == vfs.KindFile, has && n.Kind == vfs.KindFile
		if en, ok := entryChange(p, o, had, n, has); ok {
			entries = append(entries, en)
		}
		switch {
		case isFile && !wasFile:
			f := journal.File{Path: p, Op: journal.OpCreate, After: n.Hash, AfterMode: modeOf(n.Mode), AfterBlob: !n.Large, Made: madeDirs(p, old, now)}
			if after := data[n.Hash]; after != nil && isText(after) {
				f.Diff = bounded(wholeDiff(p, nil, after))
			}
			files = append(files, f)
			if had {
				notes = append(notes, fmt.Sprintf("%s: a %s became a file", p, o.Kind))
			}
		case wasFile && !isFile:
			f := journal.File{Path: p, Op: journal.OpDelete, Before: o.Hash, BeforeMode: modeOf(o.Mode), BeforeBlob: !o.Large}
			if before := content(o.Hash); before != nil && isText(before) {
				f.Diff = bounded(wholeDiff(p, before, nil))
			}
			files = append(files, f)
			if has {
				notes = append(notes, fmt.Sprintf("%s: a file became a %s%s", p, n.Kind, targetNote(n)))
			}
		case isFile && wasFile && o.Hash != n.Hash:
			f := journal.File{Path: p, Op: journal.OpWrite, Before: o.Hash, After: n.Hash, BeforeMode: modeOf(o.Mode), AfterMode: modeOf(n.Mode), BeforeBlob: !o.Large, AfterBlob: !n.Large}
			if before, after := content(o.Hash), data[n.Hash]; before != nil && after != nil && isText(before) && isText(after) {
				f.Op = journal.OpEdit
				// The diff shows the changed lines with their context, as an edit's
				// does, not the whole file.
				sp := lineSplices(before, after)
				f.Diff = bounded(matcher.PlacedDiff(p, before, sp))
				for _, s := range sp {
					f.Splices = append(f.Splices, journal.Splice{Start: s.Start, Old: before[s.Start:s.End], New: s.Text})
				}
			}
			files = append(files, f)
		case isFile && wasFile && o.Mode != n.Mode:
			// Only the bits: a write of the same content with the new mode, which an
			// undo takes back by setting the old bits.
			files = append(files, journal.File{Path: p, Op: journal.OpWrite, Before: o.Hash, After: n.Hash, BeforeMode: modeOf(o.Mode), AfterMode: modeOf(n.Mode), BeforeBlob: !o.Large, AfterBlob: !n.Large})
			notes = append(notes, fmt.Sprintf("%s: mode %04o -> %04o", p, o.Mode, n.Mode))
		case has && !had && !isFile:
			if n.Kind != vfs.KindDir {
				notes = append(notes, fmt.Sprintf("%s: a %s was made%s", p, n.Kind, targetNote(n)))
			}
		case had && !has && !wasFile:
			if o.Kind != vfs.KindDir {
				notes = append(notes, fmt.Sprintf("%s: a %s was removed", p, o.Kind))
			}
		case had && has && (o.Kind != n.Kind || o.Target != n.Target):
			notes = append(notes, fmt.Sprintf("%s: a %s%s is now a %s%s", p, o.Kind, targetNote(o), n.Kind, targetNote(n)))
		}
		if (isFile && n.Large && (!wasFile || o.Hash != n.Hash)) || (wasFile && o.Large && (!isFile || o.Hash != n.Hash)) {
			if isFile && wasFile && !o.Large {
				notes = append(notes, grownNote(p)) // a small file grown past the limit
			} else {
				notes = append(notes, overLimitNote(p, isFile && !wasFile))
			}
		}
	}
	return files, entries, notes
}

// badNameNote says that p, a name that is not UTF-8, was made or removed: a
// record would carry it as another name, so it is named here only, escaped.
func badNameNote(p string, made bool) string {
	what := "removed"
	if made {
		what = "made"
	}
	return fmt.Sprintf("%q: an entry whose name is not UTF-8 was %s; vfsctl does not record or restore such a name (rename it to UTF-8 to have it kept)", p, what)
}

// entryChange is the change of the folder or symlink at p, if there is one: made,
// removed, retargeted, given other bits, or one kind put in the other's place; or
// the FIFO or socket made at p.
func entryChange(p string, o journal.SnapEntry, had bool, n journal.SnapEntry, has bool) (journal.Entry, bool) {
	en := journal.Entry{Path: p}
	if had && (o.Kind == vfs.KindDir || o.Kind == vfs.KindSymlink) {
		en.Before, en.BeforeTarget = o.Kind, o.Target
		if o.Kind == vfs.KindDir {
			en.BeforeMode = o.Mode
		}
	}
	if has && (n.Kind == vfs.KindDir || n.Kind == vfs.KindSymlink) {
		en.After, en.AfterTarget = n.Kind, n.Target
		if n.Kind == vfs.KindDir {
			en.AfterMode = n.Mode
		}
	}
	if has && journal.IsSpecial(n.Kind) && !(had && o.Kind == n.Kind) {
		// A FIFO or socket the command made, by its identity: its undo removes that
		// one only. (One it removed is only named in the notes: vfsctl makes none.)
		en.After, en.Dev, en.Ino, en.Ctime = n.Kind, n.Dev, n.Ino, n.Ctime
	}
	return en, en.Before != en.After || en.BeforeTarget != en.AfterTarget || en.BeforeMode != en.AfterMode
}

func targetNote(s journal.SnapEntry) string {
	if s.Kind == vfs.KindSymlink {
		return " -> " + s.Target
	}
	return ""
}

// madeDirs are the folders above p that now has and old had not, shallowest first.
func madeDirs(p string, old, now map[string]journal.SnapEntry) []string {
	var made []string
	for d := path.Dir(p); d != "." && d != "/"; d = path.Dir(d) {
		if _, had := old[d]; !had && now[d].Kind == vfs.KindDir {
			made = append([]string{d}, made...)
		}
	}
	return made
}

// modeOf is permission bits as records keep a mode: an fs.FileMode.
func modeOf(bits uint32) uint32 { return uint32(vfs.FileModeOf(bits)) }

func isText(b []byte) bool { return bytes.IndexByte(b, 0) < 0 && utf8.Valid(b) }

func fromSnap(p string, s journal.SnapEntry) vfs.Entry {
	return vfs.Entry{Path: p, Kind: s.Kind, Mode: s.Mode, Size: s.Size, Hash: s.Hash, Target: s.Target, Large: s.Large,
		ID: vfs.Identity{Dev: s.Dev, Ino: s.Ino, Size: s.Size, Mtime: s.Mtime, Ctime: s.Ctime}}
}

func toSnap(e vfs.Entry) journal.SnapEntry {
	return journal.SnapEntry{Kind: e.Kind, Mode: e.Mode, Size: e.Size, Dev: e.ID.Dev, Ino: e.ID.Ino, Mtime: e.ID.Mtime, Ctime: e.ID.Ctime,
		Hash: e.Hash, Target: e.Target, Large: e.Large}
}

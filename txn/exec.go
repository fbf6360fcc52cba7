package txn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"slices"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/vfsctl/vfsctl/journal"
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

// Look is what a look journaled.
type Look struct {
	Seq    uint64 // the record written, 0 when nothing changed (or on the first look)
	First  bool   // no snapshot existed: this look took the first
	Files  []journal.File
	Notes  []string
	Opened int // files opened to hash them
}

// CheckpointOutside journals, as one record of tool outside, what changed in the workspace
// since its last look that no call made, and brings the snapshot up to date. The
// first look of a workspace takes the snapshot and records nothing.
// The record belongs to no session and no turn: a rewind of a session's turns never
// reverts it (vfsctl undo N does).
func (e *Engine) CheckpointOutside(o LookOptions) (*Look, error) {
	c, err := e.Begin("", ToolOutside, nil)
	if err != nil {
		return nil, err
	}
	c.SetOrigin(OriginOutside)
	look, err := e.look(c, o, true)
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
	// Outside is the look that journaled outside changes before the command.
	Outside *Look
}

// ExecArgs are the arguments an exec record keeps.
type ExecArgs struct {
	Argv []string `json:"argv"`
	Cwd  string   `json:"cwd"`
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
func (e *Engine) StartExec(c *Call, o LookOptions) (*Exec, error) {
	out, err := e.CheckpointOutside(o)
	if err != nil {
		return nil, err
	}
	if err := e.j.Acquire(); err != nil {
		return nil, err
	}
	seq0 := c.rec.Seq
	c.rec.State = journal.Pending
	c.rec.Runner = &journal.Runner{PID: os.Getpid(), Boot: e.boot}
	err = e.j.Commit(func(t *journal.Tx) error {
		c.rec.Seq = seq0 // a failed shared transaction is retried alone
		if err := c.putArgs(t); err != nil {
			return err
		}
		return t.Put(&c.rec)
	})
	e.j.Release()
	if err != nil {
		c.rec.Seq, c.rec.State, c.rec.Runner = seq0, "", nil
		return nil, err
	}
	c.final = true
	rec := c.rec
	execsHere.Store(execKey{e.j.Path(), rec.Seq}, struct{}{})
	return &Exec{e: e, rec: rec, opts: o, start: c.start, Outside: out}, nil
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
// this boot: the one that will record it.
func (e *Engine) execRunning(r *journal.Record) bool {
	run, ok := runnerOf(r)
	if !ok || e.boot == "" || run.Boot != e.boot || run.PID <= 0 {
		return false
	}
	pid := run.PID
	if pid == os.Getpid() {
		_, ok := execsHere.Load(execKey{e.j.Path(), r.Seq})
		return ok
	}
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}

// Seq is the exec's record.
func (x *Exec) Seq() uint64 { return x.rec.Seq }

// End records what the command changed, with how it ended (exit, e.g. "exit 0" or
// "signal killed"), in the exec's record.
func (x *Exec) End(exit string) (*Look, error) {
	e := x.e
	defer execsHere.Delete(execKey{e.j.Path(), x.rec.Seq})
	if err := e.j.Acquire(); err != nil {
		return nil, err
	}
	c := &Call{ctx: context.Background(), e: e, rec: x.rec, start: x.start}
	c.rec.Notes, c.rec.Exit, c.rec.Runner = nil, exit, nil
	c.rec.Duration = time.Since(x.start)
	look, err := e.look(c, x.opts, false)
	if err != nil {
		c.rec.Notes = append(c.rec.Notes, "its changes could not be recorded: "+err.Error())
		c.rec.State = journal.Unknown
		e.j.Commit(func(t *journal.Tx) error { return t.Put(&c.rec) })
		e.j.Release()
		return nil, err
	}
	e.j.Release()
	return look, nil
}

// look walks the workspace, tells what changed since the snapshot and writes c's
// record with it (for an outside look, only when something changed) together with
// the new snapshot, in one journal transaction. Changes whose content matches the
// latest committed call about the path are that call's, and left out.
func (e *Engine) look(c *Call, o LookOptions, outside bool) (*Look, error) {
	if err := e.j.Flush(); err != nil {
		return nil, err
	}
	w, err := e.walk(o)
	if err != nil {
		return nil, err
	}
	look := &Look{First: w.first, Opened: w.scan.Opened}
	err = e.j.Commit(func(t *journal.Tx) error {
		// Before an exec, any call's change is left out; after it, those of calls
		// committed while the command ran (after the exec's record).
		since := uint64(0)
		if !outside {
			since = c.rec.Seq
		}
		if err := w.record(t, look, since); err != nil {
			return err
		}
		if outside && len(look.Files) == 0 && len(look.Notes) == 0 {
			return nil
		}
		c.rec.Files = look.Files
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
		return nil
	})
	c.final = true
	if err != nil {
		return nil, err
	}
	return look, nil
}

// walked is a walk of the workspace with the snapshot it is to be told against.
type walked struct {
	old   map[string]journal.SnapEntry
	now   map[string]journal.SnapEntry
	first bool
	scan  *vfs.Scan
}

// walk reads the snapshot and walks the workspace, outside any journal transaction.
func (e *Engine) walk(o LookOptions) (*walked, error) {
	w := &walked{}
	if err := e.j.View(func(t *journal.Tx) error {
		w.first = !t.HasSnapshot()
		w.old = t.Snapshot()
		return nil
	}); err != nil {
		return nil, err
	}
	prev := make(map[string]vfs.Entry, len(w.old))
	for p, s := range w.old {
		prev[p] = fromSnap(p, s)
	}
	scan, err := e.fs.Snapshot(o.scan(), prev)
	if err != nil {
		return nil, err
	}
	w.scan = scan
	w.now = make(map[string]journal.SnapEntry, len(scan.Entries))
	for _, en := range scan.Entries {
		w.now[en.Path] = toSnap(en)
	}
	for _, p := range scan.Unreadable {
		if s, ok := w.old[p]; ok {
			w.now[p] = s
		}
	}
	return w, nil
}

// record tells, in t, what changed from the snapshot to the walk, leaving out what
// calls committed after call since made, into look's files and notes; it stores the
// new contents as blobs, moves the heads of the changed files and makes the walk the
// snapshot. The record that owns the changes is the caller's to write.
func (w *walked) record(t *journal.Tx, look *Look, since uint64) error {
	if !w.first {
		look.Files, look.Notes = diffSnapshots(w.old, w.now, w.scan.Data, func(h string) []byte {
			b, _ := t.Blob(h)
			return b
		})
		look.Files = slices.DeleteFunc(look.Files, func(f journal.File) bool { return callMade(t, f, since) })
	}
	for _, p := range w.scan.Unreadable {
		look.Notes = append(look.Notes, fmt.Sprintf("%s could not be read; it keeps its last known state", p))
	}
	for _, en := range w.scan.Entries {
		if data, ok := w.scan.Data[en.Hash]; ok && en.Kind == vfs.KindFile {
			if _, err := t.PutBlob(data); err != nil {
				return err
			}
		}
	}
	for _, f := range look.Files {
		if f.After != "" {
			if err := t.SetHead(f.Path, f.After); err != nil {
				return err
			}
		}
	}
	return t.UpdateSnapshot(w.old, w.now)
}

// callMade reports whether f's new state is what the latest committed call about its
// path after call since left: then a call made it, not the command or an outside
// writer.
func callMade(t *journal.Tx, f journal.File, since uint64) bool {
	seqs := t.SeqsOf(f.Path, since)
	for i := len(seqs) - 1; i >= 0; i-- {
		r, err := t.Get(seqs[i])
		if err != nil || r == nil || r.State != journal.Committed {
			continue
		}
		for _, rf := range r.Files {
			if rf.Path == f.Path && rf.Op.Changes() {
				if f.Op == journal.OpDelete {
					return rf.Op == journal.OpDelete
				}
				return rf.After == f.After && rf.Op != journal.OpDelete
			}
		}
	}
	return false
}

// diffSnapshots tells what changed from old to now: regular files created, changed
// or removed as records' files (new content from data, prior content from the
// journal's blobs, where the snapshot keeps it);
// everything else as notes.
func diffSnapshots(old, now map[string]journal.SnapEntry, data map[string][]byte, content func(hash string) []byte) ([]journal.File, []string) {
	var files []journal.File
	var notes []string
	paths := make([]string, 0, len(now)+len(old))
	for p := range now {
		paths = append(paths, p)
	}
	for p := range old {
		if _, ok := now[p]; !ok {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	for _, p := range paths {
		o, had := old[p]
		n, has := now[p]
		wasFile, isFile := had && o.Kind == vfs.KindFile, has && n.Kind == vfs.KindFile
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
				f.Diff = bounded(wholeDiff(p, before, after))
				for _, s := range lineSplices(before, after) {
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
			notes = append(notes, fmt.Sprintf("%s is over the snapshot's size limit: recorded by hash only, not restorable", p))
		}
	}
	return files, notes
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

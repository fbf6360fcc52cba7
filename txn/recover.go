package txn

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"syscall"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/vfs"
)

// recover settles every pending record: the journal's OnOpen hook, so it runs before
// any call or query of a freshly opened workspace. It is idempotent: a crash during
// recovery leaves the records pending, and the next open settles them again.
func (e *Engine) recover(j *journal.Journal) error {
	for _, tmp := range j.TakeTemps() {
		if dir := path.Dir(tmp); strings.HasPrefix(path.Base(tmp), vfs.TempPrefix) && vfs.IsStaging(path.Base(tmp)) && (dir == "." || e.writable(dir)) {
			e.fs.Afero().Remove(tmp) // staged by a process that died before renaming it
		}
	}
	var pending []*journal.Record
	err := j.View(func(t *journal.Tx) error {
		for _, seq := range t.Pending() {
			r, err := t.Get(seq)
			if err != nil {
				return err
			}
			if r != nil {
				pending = append(pending, r)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	notes, err := e.recoverLazy(j)
	if err != nil {
		return err
	}
	landed := j.Landed()
	var stopped, running []*journal.Record // execs whose vfsctl stopped, or runs still
	for _, r := range pending {
		if journal.IsCommand(r.Tool) && len(r.Files) == 0 && !landed[r.Seq] {
			if e.execRunning(r) {
				running = append(running, r)
				continue // its command runs still; its process records it when it ends
			}
			stopped = append(stopped, r)
		}
		r.Notes = append(r.Notes, notes[r.Seq]...)
		delete(notes, r.Seq)
		noted := len(r.Notes)
		if err := e.settle(j, r, landed[r.Seq]); err != nil {
			return fmt.Errorf("settling call %d: %w", r.Seq, err)
		}
		// A call its marks list as landed was acknowledged by its process, which only
		// had not yet folded its record (it may run still, holding the journal between
		// its calls): settling it decides nothing, and is not said, unless recovery
		// did or left undone a step of its folders and symlinks (settleEntries).
		if e.onSettle != nil && (!landed[r.Seq] || len(r.Notes) > noted) {
			st := Settled{Seq: r.Seq, Tool: r.Tool, State: string(r.State)}
			if len(r.Notes) > 0 {
				st.Note = r.Notes[len(r.Notes)-1]
			}
			e.onSettle(st)
		}
	}
	// What the stopped execs' commands changed, now that the other calls are settled
	// (their rollbacks are not the commands').
	e.recordStopped(j, stopped, running)
	// Notes for records already settled: what recovery repaired of their files.
	if len(notes) > 0 {
		j.Defer(func(t *journal.Tx) error {
			for seq, n := range notes {
				r, err := t.Get(seq)
				if err != nil || r == nil {
					continue
				}
				r.Notes = append(r.Notes, n...)
				if err := t.Put(r); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return nil
}

// recordStopped records, as the changes of the execs whose vfsctl stopped before it
// recorded them, what changed in the workspace since the snapshot (which their start
// brought up to date), leaving out what calls committed since made: one walk, given
// to the latest of them (the others are noted as sharing it), walked as they were
// to be (their records' Walk: lookOfStopped). Written in the
// process's next journal transaction, with the new snapshot; if that never happens,
// the next open walks again. A walk that fails (the workspace over its limits, a
// folder unreadable) leaves the changes to the next look, which journals them as
// outside, and says so.
func (e *Engine) recordStopped(j *journal.Journal, stopped, running []*journal.Record) {
	if len(stopped) == 0 {
		return
	}
	last := stopped[len(stopped)-1]
	for _, r := range stopped[:len(stopped)-1] {
		r.Notes = append(r.Notes, fmt.Sprintf("recovery: call %d, another exec whose vfsctl stopped, holds what changed while both ran", last.Seq))
		j.Defer(func(t *journal.Tx) error { return t.Put(r) })
	}
	for _, x := range running {
		last.Notes = append(last.Notes, fmt.Sprintf("recovery: the command of call %d was still running; what it had changed by then is in this record", x.Seq))
	}
	// Recovery runs holding the journal: the snapshot is read and the workspace
	// walked as they are.
	var old map[string]journal.SnapEntry
	first := false
	err := j.View(func(t *journal.Tx) error {
		first = !t.HasSnapshot()
		old = t.Snapshot()
		return nil
	})
	var scan *vfs.Scan
	if err == nil {
		scan, err = e.walkAgainst(lookOfStopped(stopped), old)
	}
	if err == nil {
		err = e.follow(j, lookOfStopped(stopped), scan, old)
	}
	if err != nil {
		last.Notes = append(last.Notes, fmt.Sprintf("recovery: the workspace could not be walked (%v); what the command changed is journaled by the next look, as outside", err))
		j.Defer(func(t *journal.Tx) error { return t.Put(last) })
		return
	}
	now, changed := snapOf(scan, old)
	j.Defer(func(t *journal.Tx) error {
		look := &Look{}
		if err := tell(t, e.fs, look, old, now, changed, scan, first, false, last.Seq); err != nil {
			return err
		}
		r := *last // a batch may run this again: last stays as recovery left it
		r.Files, r.Entries = look.Files, look.Entries
		r.Notes = append(slices.Clone(last.Notes), look.Notes...)
		return t.Put(&r)
	})
}

// fileState is where one file of a pending record stands.
type fileState int

const (
	atBefore fileState = iota
	atAfter
	elsewhere // changed by someone else: left alone
	untrusted // a path no call could write: never touched
)

// writable reports whether p is a path a call could write: canonical (as Clean gives
// it), outside reserved folders, and resolving to itself with no symlink on the way.
func (e *Engine) writable(p string) bool {
	q, err := e.fs.Clean(p)
	if err != nil || q != p {
		return false
	}
	r, err := e.fs.Resolve(p)
	return err == nil && r.Path == p && !r.Link
}

func untrustedNote(p string) string {
	return fmt.Sprintf("recovery: %q is not a path a call could write (reserved, through a symlink, or not canonical); it was not touched", p)
}

// settle decides a pending record: landed says the marks file lists it, every file
// of it written.
func (e *Engine) settle(j *journal.Journal, r *journal.Record, landed bool) error {
	if landed {
		e.settleLanded(j, r)
		return nil
	}
	if foldersOnly(r) {
		return e.settleFolders(j, r) // folders.go
	}
	if journal.IsCommand(r.Tool) && len(r.Files) == 0 {
		// An exec whose command's changes were never recorded: vfsctl stopped before
		// or while it ran, or while it recorded them. recordStopped records them.
		r.State = journal.Unknown
		r.Notes = append(r.Notes, "recovery: vfsctl stopped before it recorded what the command changed; what changed in the workspace since the command began, as recovery found it, is recorded as the command's (a change someone else made meanwhile cannot be told apart)")
		if run, ok := runnerOf(r); ok && e.leftAlive(run) {
			// The command outlived its vfsctl (running.go).
			r.Notes = append(r.Notes, fmt.Sprintf("recovery: the command still runs, in process group %d: what it changes from now on is journaled by the next look as outside, and no exec starts until the group ends", run.Group))
			seq := r.Seq
			j.Defer(func(t *journal.Tx) error { return t.SetLeftRunning(seq, run) })
		}
		r.Runner = nil
		return nil
	}
	states, current, err := e.fileStates(r)
	if err != nil {
		return err
	}
	for i, f := range r.Files {
		if states[i] != untrusted {
			e.cleanTemp(path.Dir(f.Path))
		}
	}
	// The record is written in this process's next journal transaction (Defer): if
	// that never happens, the next open settles it again, to the same end.
	put := func() { j.Defer(func(t *journal.Tx) error { return t.Put(r) }) }
	anyBefore, anyAfter, anyElsewhere := tally(r, states)
	switch {
	case !anyBefore && !anyElsewhere:
		// Every file is at its new content, though the call was not acknowledged:
		// the process died after writing them.
		r.State = journal.Committed
		r.Notes = append(r.Notes, "recovery: every file was at its new content; the call was rolled forward")
		e.dropRecordAsides(r)
		e.rollEntriesForward(j, r)
		rollForward(j, r)
		return nil
	case !anyBefore && !anyAfter:
		// Every file changed outside vfsctl since: whether the call landed cannot be
		// told, and nothing is undone.
		r.State = journal.Unknown
		noteUnknown(r, states)
		e.noteEntriesUnsettled(r)
		e.dropRecordAsides(r)
		put()
		return nil
	case !anyBefore:
		// Some files at their new content, the rest changed outside vfsctl since: the
		// call landed, and the others changed it afterwards.
		r.State = journal.Committed
		noteLandedThenChanged(r, states)
		e.dropRecordAsides(r)
		e.rollEntriesForward(j, r)
		put()
		return nil
	}
	// A file still at its prior content: the call did not finish writing, so it was
	// never acknowledged. Roll back what it wrote, its folders and symlinks around it.
	// Where a folder and a file traded places, what stands in the way goes first: a
	// file to put back where a folder the call made stands waits for that folder's
	// removal, and a folder to make again where a file the call made stands waits
	// for that file's.
	entriesFirst, entriesThen, entriesAgain := e.settleEntries(j, r, false)
	entriesFirst()
	stuck, waiting, err := e.rollBackPending(j, r, states, current, nil)
	if err != nil {
		return err
	}
	entriesThen()
	if entriesAgain() || slices.Contains(waiting, true) {
		more, _, err := e.rollBackPending(j, r, states, current, waiting)
		if err != nil {
			return err
		}
		stuck = stuck || more
	}
	r.State = journal.RolledBack
	if stuck {
		r.State = journal.Unknown // a file keeps the call's content: not rolled back
	}
	put()
	return nil
}

// settleLanded commits a record every file of which was written and the call
// acknowledged: only its mark was still deferred. What happened to the files since is
// not this record's (fsck reports files changed outside vfsctl).
func (e *Engine) settleLanded(j *journal.Journal, r *journal.Record) {
	for _, f := range r.Files {
		e.cleanTemp(path.Dir(f.Path))
	}
	if c := e.takeCommitted(r.Seq); c != nil {
		r = c // made by this process: what the call measured (its duration)
	}
	r.State = journal.Committed
	e.dropRecordAsides(r)
	e.rollLandedEntriesForward(j, r)
	rollForward(j, r)
}

// fileStates finds where each file of a pending record stands, with its content now;
// a path no call could write is untrusted and never read.
func (e *Engine) fileStates(r *journal.Record) ([]fileState, [][]byte, error) {
	states := make([]fileState, len(r.Files))
	current := make([][]byte, len(r.Files))
	for i, f := range r.Files {
		if !e.writable(f.Path) && !e.writableUnderFile(f.Path) {
			// A record no call of vfsctl could have made: a path that is not canonical,
			// goes through a symlink, or lies in a reserved folder. Recovery obeys the
			// rules a call obeys, so the journal cannot be used to write where a call
			// could not.
			states[i] = untrusted
			continue
		}
		data, id, err := e.fs.ReadCanonicalID(f.Path)
		exists := err == nil
		if err != nil && !errors.Is(err, fs.ErrNotExist) && !e.folderInTheWay(f.Path) {
			return nil, nil, err
		}
		current[i] = data
		states[i] = e.stateOf(f, data, id, exists)
		if exists && f.Before == f.After && chmodOf(f) {
			// Only the bits changed: where the file stands is told by them.
			switch {
			case e.hasBits(f.Path, fs.FileMode(f.AfterMode)):
				states[i] = atAfter
			case e.hasBits(f.Path, fs.FileMode(f.BeforeMode)):
				states[i] = atBefore
			default:
				states[i] = elsewhere
			}
		}
		if a, ok := e.movedFrom(r, f); ok {
			if _, err := e.fs.IdentityOf(a); err == nil {
				// Still set aside: the move's rename did not happen, and what stands
				// at its new path, if anything, is someone else's.
				states[i] = atBefore
				if exists {
					states[i] = elsewhere
				}
			}
		}
	}
	return states, current, nil
}

// movedFrom is, for a file of record r created by a move (File.From), the name its
// deletion set the file aside under, which the move renames into place: the rename
// happened exactly when that name is gone (it is never made again) and the new path
// holds the file.
func (e *Engine) movedFrom(r *journal.Record, f journal.File) (string, bool) {
	if f.Op != journal.OpCreate || f.From == "" {
		return "", false
	}
	for _, g := range r.Files {
		if g.Op == journal.OpDelete && g.Path == f.From && g.Before == f.After {
			return e.asideOf(g)
		}
	}
	return "", false
}

// chmodOf says whether file f of a record changes the permission bits of a file
// that stays (a command's chmod, or its undo).
func chmodOf(f journal.File) bool {
	return f.Op != journal.OpDelete && f.Before != "" && f.After != "" && f.BeforeMode != 0 && f.AfterMode != 0 && f.BeforeMode != f.AfterMode
}

// stateOf compares a file's content now with the record's before and after hashes; a
// file found at its new content is remembered, so the next call on it need not hash it.
func (e *Engine) stateOf(f journal.File, data []byte, id vfs.Identity, exists bool) fileState {
	h := ""
	if exists {
		h = journal.Hash(data)
	}
	switch {
	case f.Op == journal.OpDelete:
		switch {
		case !exists:
			return atAfter
		case h == f.Before:
			return atBefore
		}
		return elsewhere
	case f.After == "": // nothing was to be written to this file
		return atBefore
	case exists && h == f.After:
		e.remember(f.Path, known{id: id, hash: h})
		return atAfter
	case h == f.Before: // before, or still absent for a create
		return atBefore
	}
	return elsewhere
}

// tally says which states occur among the files the record was to change.
func tally(r *journal.Record, states []fileState) (anyBefore, anyAfter, anyElsewhere bool) {
	for i, f := range r.Files {
		if f.After == "" && f.Op != journal.OpDelete {
			continue
		}
		switch states[i] {
		case atBefore:
			anyBefore = true
		case atAfter:
			anyAfter = true
		case elsewhere, untrusted:
			anyElsewhere = true
		}
	}
	return anyBefore, anyAfter, anyElsewhere
}

// noteUnknown notes, for a record whose every file changed outside vfsctl, that nothing
// was undone.
func noteUnknown(r *journal.Record, states []fileState) {
	for i, f := range r.Files {
		switch {
		case states[i] == untrusted:
			r.Notes = append(r.Notes, untrustedNote(f.Path))
		case f.After != "" || f.Op == journal.OpDelete:
			r.Notes = append(r.Notes, fmt.Sprintf("recovery: %s changed outside vfsctl since this call; whether the call's change landed cannot be told, and nothing was undone", f.Path))
		}
	}
}

// noteLandedThenChanged notes the files changed outside vfsctl after a call that landed.
func noteLandedThenChanged(r *journal.Record, states []fileState) {
	for i, f := range r.Files {
		switch states[i] {
		case elsewhere:
			r.Notes = append(r.Notes, fmt.Sprintf("recovery: %s changed outside vfsctl after this call landed", f.Path))
		case untrusted:
			r.Notes = append(r.Notes, untrustedNote(f.Path))
		}
	}
}

// rollBackPending restores the files of an unfinished call that hold its new content;
// files someone else changed, and untrusted paths, are left alone and noted. The
// folders its creates were to make go too, when empty, as an undo's do.
//
// A file that cannot be put back (made read-only, or no longer a regular file since)
// is noted and left as it is, stuck reporting it, rather than stop every command
// until someone moves it: the other files are still rolled back.
//
// With only nil, a file the call removed whose path a folder holds now, or lies
// under a file, is not put back yet: waiting says which, for a second pass, with
// only, once the folders are settled.
func (e *Engine) rollBackPending(j *journal.Journal, r *journal.Record, states []fileState, current [][]byte, only []bool) (stuck bool, waiting []bool, err error) {
	waiting = make([]bool, len(r.Files))
	skip := func(i int) bool { return only != nil && !only[i] }
	if only == nil {
		for i, f := range r.Files {
			if f.After == "" && states[i] == atAfter && e.folderInTheWay(f.Path) {
				waiting[i] = true
			}
		}
		skip = func(i int) bool { return waiting[i] }
	}
	// A move's file goes back to the name its deletion set it aside under first, so
	// that the deletion's rollback below renames it back, the same inode.
	movedBack := map[int]bool{}
	for i, f := range r.Files {
		if skip(i) {
			continue
		}
		if a, ok := e.movedFrom(r, f); ok && states[i] == atAfter {
			taken := false
			for k, g := range r.Files {
				taken = taken || g.Path == f.From && g.Op == journal.OpDelete && states[k] != atAfter
			}
			if taken {
				// Someone has made the old path again since: the file stays where
				// the move put it rather than be dropped beside theirs.
				movedBack[i] = true
				r.Notes = append(r.Notes, fmt.Sprintf("recovery: %s was left where the call moved it: %s was made again since", f.Path, f.From))
				continue
			}
			if _, err := e.fs.MoveFile(f.Path, a, true); err != nil {
				r.Notes = append(r.Notes, fmt.Sprintf("recovery: %s could not be moved back to %s (%v)", f.Path, f.From, err))
				continue
			}
			movedBack[i] = true
			r.Notes = append(r.Notes, fmt.Sprintf("recovery: %s moved back to %s (the same file)", f.Path, f.From))
		}
	}
	var made []string
	for i, f := range r.Files {
		if skip(i) {
			continue
		}
		if f.Op == journal.OpCreate && (states[i] == atBefore || states[i] == atAfter) {
			made = append(made, madeFor(f)...) // the file is not there, or is removed below
		}
		if movedBack[i] {
			continue
		}
		if states[i] != untrusted && f.Op == journal.OpDelete {
			if done, err := e.putAsideBack(r, f, states[i]); err != nil {
				return stuck, waiting, fmt.Errorf("%s: %w", f.Path, err)
			} else if done {
				continue
			}
		}
		switch states[i] {
		case atAfter:
			if err := e.restore(j, f, current[i]); err != nil {
				if k := errs.KindOf(err); k != errs.PermissionDenied && k != errs.NotAFile {
					return stuck, waiting, fmt.Errorf("%s: %w", f.Path, err)
				}
				stuck = true
				r.Notes = append(r.Notes, fmt.Sprintf("recovery: %s holds the call's new content and could not be put back (%v); it was left as it is", f.Path, err))
				continue
			}
			switch {
			case f.Op == journal.OpDelete:
				r.Notes = append(r.Notes, fmt.Sprintf("recovery: %s put back (the call had removed it)", f.Path))
			case f.Before == "":
				r.Notes = append(r.Notes, fmt.Sprintf("recovery: %s removed (the call had created it)", f.Path))
			default:
				r.Notes = append(r.Notes, fmt.Sprintf("recovery: %s restored to its prior content", f.Path))
			}
		case elsewhere:
			r.Notes = append(r.Notes, fmt.Sprintf("recovery: %s was changed by someone else; left alone", f.Path))
		case untrusted:
			r.Notes = append(r.Notes, untrustedNote(f.Path))
		}
	}
	for _, d := range e.removeMadeFolders(made) {
		r.Notes = append(r.Notes, fmt.Sprintf("recovery: %s/ removed (empty; the call had made it)", d))
	}
	return stuck, waiting, nil
}

// writableUnderFile reports whether p lies under a file at a path a call could
// write, p being canonical: where a folder and a file traded places, a file of the
// folder is put back once the folder is made again.
func (e *Engine) writableUnderFile(p string) bool {
	if q, err := e.fs.Clean(p); err != nil || q != p {
		return false
	}
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		if kind, _, _, err := e.fs.EntryAt(d); err == nil && kind != "" {
			return kind == vfs.KindFile && e.writable(d)
		}
	}
	return false
}

// folderInTheWay reports whether a folder stands at p, or a file above it: a file
// of a call where a folder and a file traded places (swapsOf) is absent there.
func (e *Engine) folderInTheWay(p string) bool {
	kind, _, _, err := e.fs.EntryAt(p)
	if err == nil {
		return kind == vfs.KindDir
	}
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		if kind, _, _, err := e.fs.EntryAt(d); err == nil && kind != "" {
			return kind != vfs.KindDir
		}
	}
	return false
}

// asideOf is where file f of a record set its deleted file aside until the commit
// point, when that is a name recovery may act on: the record's own, of the form
// SetAside gives, in the folder of a path a call could write.
func (e *Engine) asideOf(f journal.File) (string, bool) {
	if f.Op != journal.OpDelete || !vfs.IsAsideOf(f.Aside, f.Path) || !e.writable(f.Path) {
		return "", false
	}
	return f.Aside, true
}

// dropRecordAsides removes, for a call settled as landed, what its deletions set aside
// and did not get to remove (the call died at its commit point). The record notes it.
func (e *Engine) dropRecordAsides(r *journal.Record) {
	for _, f := range r.Files {
		a, ok := e.asideOf(f)
		if !ok {
			continue
		}
		if _, err := e.fs.IdentityOf(a); err != nil {
			continue // removed at the commit point, or never set aside
		}
		if err := e.fs.DropAside(a, true); err != nil {
			r.Notes = append(r.Notes, fmt.Sprintf("recovery: %s, where the deleted %s waited for the commit, could not be removed (%v)", a, f.Path, err))
			continue
		}
		r.Notes = append(r.Notes, fmt.Sprintf("recovery: %s removed (%s as the call found it, set aside until the commit)", a, f.Path))
	}
}

// putAsideBack settles, for a call rolled back, the file its deletion f set aside.
// Where the path is free and the file set aside is the one the call deleted (its
// content hashes to f.Before), the file is renamed back: the same inode, with its
// owner, mode, links, times and extended attributes, and done says so. Otherwise the
// caller goes on as for a deletion without an aside (from the journal's copy), and a
// file set aside that no rollback needs is removed: a second name of the file still
// there, or the file as it was where someone has made the path again since (its
// content is in the journal).
func (e *Engine) putAsideBack(r *journal.Record, f journal.File, state fileState) (done bool, err error) {
	a, ok := e.asideOf(f)
	if !ok {
		return false, nil
	}
	if _, err := e.fs.IdentityOf(a); err != nil {
		return false, nil
	}
	switch state {
	case atAfter: // the path is free
		data, rerr := e.fs.ReadCanonical(a)
		if rerr != nil || journal.Hash(data) != f.Before {
			r.Notes = append(r.Notes, fmt.Sprintf("recovery: %s is not %s as the call found it; it was left alone", a, f.Path))
			return false, nil
		}
		if err := e.fs.PutBack(a, f.Path); err != nil {
			return false, err
		}
		r.Notes = append(r.Notes, fmt.Sprintf("recovery: %s put back (the same file: the call had set it aside as %s)", f.Path, a))
		return true, nil
	case atBefore:
		if !e.fs.SameNode(a, f.Path) {
			r.Notes = append(r.Notes, fmt.Sprintf("recovery: %s is not %s, which is back at its prior content; it was left alone", a, f.Path))
			return false, nil
		}
	}
	if err := e.fs.DropAside(a, true); err != nil {
		return false, err
	}
	if state == elsewhere {
		r.Notes = append(r.Notes, fmt.Sprintf("recovery: %s removed: it held %s as the call found it, and someone has made %s again since (the prior content is in the journal)", a, f.Path, f.Path))
	}
	return false, nil
}

// rollForward records r as committed: the journal's heads and the session's reads
// follow its files' new content. Deferred, as a call's own committed mark is.
func rollForward(j *journal.Journal, r *journal.Record) {
	j.Defer(func(t *journal.Tx) error {
		for _, f := range r.Files {
			switch {
			case f.Op == journal.OpDelete:
				t.SetHead(f.Path, "")
			case f.After != "":
				t.SetHead(f.Path, f.After)
				keepLicence(t, r, f)
			}
		}
		return t.Put(r)
	})
}

// restore puts a file back to its before state from its after state.
func (e *Engine) restore(j *journal.Journal, f journal.File, after []byte) error {
	if bitsOnly(f) {
		// Only the bits changed, and the journal holds no content: they go back.
		return e.fs.Afero().Chmod(f.Path, fs.FileMode(f.BeforeMode))
	}
	if f.Op == journal.OpDelete {
		var before []byte
		err := j.View(func(t *journal.Tx) error {
			b, err := t.Blob(f.Before)
			before = b
			return err
		})
		if err != nil || before == nil || journal.Hash(before) != f.Before {
			return fmt.Errorf("its prior content is not in the journal")
		}
		_, _, err = e.fs.CreateDirs(f.Path, before, fs.FileMode(f.BeforeMode))
		return err
	}
	if f.Before == "" {
		return e.fs.Remove(f.Path)
	}
	var before []byte
	if f.Op == journal.OpEdit {
		if b, ok := journal.RevertSplices(after, f.Splices); ok && journal.Hash(b) == f.Before {
			before = b
		}
	}
	if before == nil {
		err := j.View(func(t *journal.Tx) error {
			b, err := t.Blob(f.Before)
			before = b
			return err
		})
		if err != nil {
			return err
		}
	}
	if before == nil || journal.Hash(before) != f.Before {
		return fmt.Errorf("its prior content cannot be rebuilt from the journal")
	}
	if chmodOf(f) {
		// The call changed the bits (an undo of a command's chmod): they go back
		// with the content, read-only or not.
		_, err := e.fs.ReplaceAs(f.Path, before, fs.FileMode(f.BeforeMode))
		return err
	}
	return e.fs.Replace(f.Path, before)
}

// cleanTemp removes temp files a crash left in dir.
func (e *Engine) cleanTemp(dir string) {
	afs := e.fs.Afero()
	h, err := afs.Open(dir)
	if err != nil {
		return
	}
	names, _ := h.Readdirnames(-1)
	h.Close()
	for _, n := range names {
		if strings.HasPrefix(n, vfs.TempPrefix) && vfs.IsStaging(n) { // not someone's .vfsctl-tmp-notes
			afs.Remove(path.Join(dir, n))
		}
	}
}

// lazyStep is one call's change of one file, in a chain that recovery redoes.
type lazyStep struct {
	r    *journal.Record
	f    journal.File
	boot string // the boot the call was listed in (journal.Tx.LazyBoot)
}

// recoverLazy rolls forward, from the journal, the files that calls of the
// journal-durable mode wrote without fsync since the last checkpoint: a file found
// missing, empty, torn, or at an older content of its chain is rewritten (durably)
// at the content the chain's last call gave it; a file at that content is synced.
// Only the paths those calls wrote are looked at, and only as a call could write them;
// a file whose content is none of those the chain explains changed outside vfsctl and
// is left alone. The calls are then taken off the lazy list. Calls this engine listed
// itself are skipped: this process wrote them and has not crashed. It returns notes
// for the records whose files it repaired.
//
// A file whose every call was listed in this same boot of the machine is synced and
// otherwise left as found: no power loss came since they wrote it, so the page cache
// kept their bytes, and what differs was done since by someone else (a file put back,
// emptied or deleted after the process was killed) or is a call that never finished,
// which its pending record settles.
func (e *Engine) recoverLazy(j *journal.Journal) (map[uint64][]string, error) {
	seqs, byPath, order, err := e.lazyListed(j)
	if err != nil || len(seqs) == 0 {
		return nil, err
	}
	notes := map[uint64][]string{}
	note := func(steps []lazyStep, format string, args ...any) {
		last := steps[len(steps)-1].r.Seq
		notes[last] = append(notes[last], fmt.Sprintf("recovery: "+format, args...))
	}
	dirs := map[string]bool{}
	for _, p := range order {
		if err := e.rollForward(j, p, byPath[p], note, dirs); err != nil {
			return nil, err
		}
	}
	for _, d := range slices.Sorted(maps.Keys(dirs)) {
		if err := e.fs.SyncDir(d); err != nil && !replacedSince(err) {
			return nil, fmt.Errorf("syncing %s: %w", d, err)
		}
	}
	// Every listed file is now durable at its content: off the list. Should this
	// write be lost, the next open does the same again, to the same end.
	j.Defer(func(t *journal.Tx) error { return t.ClearLazy(seqs) })
	return notes, nil
}

// lazyListed reads the calls written without fsync that another (or a dead) process
// listed, and each file's changes among them in sequence order; this process's own
// calls are left to its checkpoint.
func (e *Engine) lazyListed(j *journal.Journal) (seqs []uint64, byPath map[string][]lazyStep, order []string, err error) {
	byPath = map[string][]lazyStep{}
	err = j.View(func(t *journal.Tx) error {
		lazy := t.Lazy()
		listed := make(map[uint64]bool, len(lazy))
		for _, seq := range lazy {
			listed[seq] = true
		}
		e.cp.reconcile(listed)
		for _, seq := range lazy {
			if e.cp.isOwn(seq) {
				continue
			}
			seqs = append(seqs, seq)
			r, err := t.Get(seq)
			if err != nil {
				return err
			}
			if r == nil {
				continue
			}
			for _, f := range r.Files {
				if !f.Op.Changes() {
					continue
				}
				if _, ok := byPath[f.Path]; !ok {
					order = append(order, f.Path)
				}
				byPath[f.Path] = append(byPath[f.Path], lazyStep{r, f, t.LazyBoot(seq)})
			}
		}
		return nil
	})
	return seqs, byPath, order, err
}

// rollForward brings file p to the end of its chain of unsynced changes, durably, when
// it is missing, empty, torn or at an older version of that chain; a file the chain
// does not explain, or a path no call could write, is left alone with a note. The
// folders on p's way are added to dirs, to be synced.
func (e *Engine) rollForward(j *journal.Journal, p string, steps []lazyStep, note func([]lazyStep, string, ...any), dirs map[string]bool) error {
	if !e.writable(p) {
		note(steps, "%q is not a path a call could write (reserved, through a symlink, or not canonical); it was not touched", p)
		return nil
	}
	// A committed deletion's removal of the file it had set aside may not have reached
	// the disk; the folder is synced below. A pending call's is its record's to settle.
	for _, s := range steps {
		if a, ok := e.asideOf(s.f); ok && s.r.State == journal.Committed {
			if _, err := e.fs.IdentityOf(a); err == nil {
				if err := e.fs.DropAside(a, false); err != nil {
					note(steps, "%s, where the deleted %s waited for the commit, could not be removed (%v)", a, p, err)
				}
			}
		}
	}
	for d := path.Dir(p); ; d = path.Dir(d) {
		dirs[d] = true // a create may have made folders whose names were not synced
		if d == "." {
			break
		}
	}
	same := sameBoot(e.boot, steps)
	versions, final, exists, ok := e.rebuildChain(j, steps)
	if !ok {
		if same {
			// Whatever it holds goes to disk before its calls leave the list.
			if err := e.syncFound(p); err != nil {
				return err
			}
		}
		note(steps, "%s was written without fsync, and the journal cannot rebuild its content; it was left as found", p)
		return nil
	}
	e.cleanTemp(path.Dir(p))
	data, rerr := e.fs.ReadCanonical(p)
	there := rerr == nil
	if rerr != nil && !errors.Is(rerr, fs.ErrNotExist) && !notFound(rerr) {
		if standsInTheWay(rerr) {
			if same {
				// Whatever it holds goes to disk before its calls leave the list (a
				// file made unreadable, with the rest of its filesystem).
				if err := e.syncFound(p); err != nil {
					return err
				}
			}
			note(steps, "%s could not be read (%v); it was left as found, and may lack calls written since the last checkpoint: move it aside or make it readable, then see vfsctl fsck", p, rerr)
			return nil
		}
		return fmt.Errorf("%s: %w", p, rerr)
	}
	switch {
	case there && exists && bytes.Equal(data, final):
		if err := e.fs.SyncFile(p); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		return nil
	case !there && !exists:
		return nil
	case same:
		// No power loss came since these calls wrote p, so the page cache holds what
		// they left, and what differs was done since: by someone else, or by a call
		// that never finished (its pending record settles it). p is synced as found
		// all the same before the calls leave the list, for their acknowledged bytes
		// may be all or part of what it holds (an earlier call's, under an unfinished
		// later one) and are on no disk yet.
		if there {
			if err := e.syncFound(p); err != nil {
				return err
			}
		}
		last := steps[len(steps)-1]
		unfinished := last.r.State == journal.Pending &&
			(there && journal.Hash(data) == last.f.Before || !there && last.f.Before == "")
		if !unfinished {
			note(steps, "%s is not as the calls since the last checkpoint left it, and the machine has not restarted since they wrote it: it changed outside vfsctl, and was synced and left as found", p)
		}
		return nil
	case there && !explained(data, versions):
		note(steps, "%s holds content that no call since the last checkpoint wrote; it changed outside vfsctl and was left alone", p)
		return nil
	}
	var werr error
	switch {
	case !exists:
		werr = e.fs.Remove(p)
	case there:
		werr = e.fs.Replace(p, final)
	default:
		_, _, werr = e.fs.CreateDirs(p, final, fs.FileMode(steps[len(steps)-1].f.AfterMode))
	}
	if werr != nil {
		if standsInTheWay(werr) {
			note(steps, "%s could not be rebuilt from the journal (%v); it was left as found: make it writable or move it aside, then see vfsctl fsck", p, werr)
			return nil
		}
		return fmt.Errorf("rolling %s forward: %w", p, werr)
	}
	e.remember(p, known{})
	switch {
	case !there:
		note(steps, "%s was lost in a crash before it was synced; rebuilt from the journal", p)
	case !exists:
		note(steps, "%s was deleted by this call, and a crash brought it back; removed again", p)
	default:
		note(steps, "%s was found torn, empty or older after a crash before it was synced; rebuilt from the journal", p)
	}
	return nil
}

// syncFound fsyncs the file at p as it is, if it is there and a file.
func (e *Engine) syncFound(p string) error {
	err := e.fs.SyncFile(p)
	if err == nil || replacedSince(err) || standsInTheWay(err) {
		return nil
	}
	return fmt.Errorf("syncing %s: %w", p, err)
}

// sameBoot reports whether every call of steps was listed in boot, the machine's
// current one.
func sameBoot(boot string, steps []lazyStep) bool {
	if boot == "" {
		return false
	}
	for _, s := range steps {
		if s.boot != boot {
			return false
		}
	}
	return true
}

// standsInTheWay reports whether err, met rolling a file forward, comes of what someone
// put there since (a folder, a FIFO, a symlink, a file or folder made read-only): that
// is left as found, with a note, rather than stop every command of the workspace until
// it is moved.
// Anything else (a full disk, an I/O error) fails recovery, to be tried again.
func standsInTheWay(err error) bool {
	switch errs.KindOf(err) {
	case errs.PermissionDenied, errs.NotAFile:
		return true
	}
	return errors.Is(err, syscall.EISDIR) || vfs.Replaced(err)
}

// rebuildChain redoes one file's chain of changes from the journal: from the prior
// content the first change kept (a blob, or no file for a create), each call that
// landed or may have (committed, or still pending) applied in order, every step
// checked against its recorded hashes. It returns every content the chain passed
// through, the last one, and whether the file exists at the end.
func (e *Engine) rebuildChain(j *journal.Journal, steps []lazyStep) (versions [][]byte, cur []byte, exists, ok bool) {
	blob := func(h string) []byte {
		var b []byte
		j.View(func(t *journal.Tx) error { b, _ = t.Blob(h); return nil })
		if b == nil || journal.Hash(b) != h {
			return nil
		}
		return b
	}
	have := false
	for _, s := range steps {
		f := s.f
		if s.r.State != journal.Committed && s.r.State != journal.Pending {
			continue // refused or rolled back: nothing of it stays on disk
		}
		h := ""
		if have && exists {
			h = journal.Hash(cur)
		}
		if !have || h != f.Before {
			// The start, or a break in the chain (a change outside vfsctl between two
			// calls): the call kept its prior content, if the journal is to go on.
			switch {
			case f.Before == "":
				cur, exists = nil, false
			default:
				b := blob(f.Before)
				if b == nil {
					return nil, nil, false, false
				}
				cur, exists = b, true
				versions = append(versions, b)
			}
			have = true
		}
		switch f.Op {
		case journal.OpEdit:
			next, ok := journal.ApplySplices(cur, f.Splices)
			if !ok {
				return nil, nil, false, false
			}
			cur, exists = next, true
		case journal.OpCreate, journal.OpWrite:
			b := blob(f.After)
			if b == nil {
				return nil, nil, false, false
			}
			cur, exists = b, true
		case journal.OpDelete:
			cur, exists = nil, false
		}
		if exists {
			if journal.Hash(cur) != f.After {
				return nil, nil, false, false
			}
			versions = append(versions, cur)
		}
	}
	return versions, cur, exists, have
}

// explained reports whether data is what a crash can leave of one of the versions a
// chain passed through: the whole of it, or a torn write of it (a prefix, and blocks
// of zeros where the data did not reach the disk). An empty file is a torn write of
// any of them.
func explained(data []byte, versions [][]byte) bool {
	for _, v := range versions {
		if len(data) > len(v) {
			continue
		}
		ok := true
		for i, c := range data {
			if c != v[i] && c != 0 {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return len(data) == 0
}

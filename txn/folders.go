package txn

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/vfs"
)

// Folders that calls make or remove (create_directory, delete_file of an empty
// folder) are journaled as the record's Entries, as a command's are (entries.go): the
// pending record names each folder, synced, before the first is touched; then the
// folders are made (shallowest first) or removed; then the record is marked
// committed. Undo, redo and rewind take them back as they take a command's. Recovery
// settles a pending record of folders only by what stands on disk (settleFolders):
// all done rolls forward, partly done rolls back.

// MakeFolders makes folder p (canonical, where nothing stands) and its missing
// parents as call c's change, and returns the folders made, shallowest first. The
// pending record names every folder to make; the committed one has each folder with
// the bits it was made with (the process's umask applies, as for mkdir -p).
func (e *Engine) MakeFolders(c *Call, p string) ([]string, error) {
	if err := c.Hold(); err != nil {
		return nil, err
	}
	plan := append(e.fs.MissingFolders(p), p)
	steps := make([]journal.Entry, len(plan))
	for i, d := range plan {
		steps[i] = journal.Entry{Path: d, After: vfs.KindDir}
	}
	var made []string
	err := e.commitFolders(c, steps, func() ([]journal.Entry, error) {
		var err error
		made, err = e.fs.MakeDirs(p)
		for i := 1; err == nil && i < len(made); i++ {
			err = e.fs.SyncDir(made[i-1]) // the entry of made[i] lives in the folder above it
		}
		if err != nil {
			e.fs.RemoveDirs(made)
			var x *errs.Error
			if !errors.As(err, &x) {
				cause := err
				if u := errors.Unwrap(err); u != nil {
					cause = u // the OS's words, without the path
				}
				err = errs.Wrap(errs.IOError, p, err, "Could not make the folder %s: %v. Nothing was made.", p, cause)
			}
			return e.foldersLeft(made), err
		}
		done := make([]journal.Entry, 0, len(made))
		for _, d := range made {
			_, _, bits, _ := e.fs.EntryAt(d)
			done = append(done, journal.Entry{Path: d, After: vfs.KindDir, AfterMode: bits})
		}
		return done, nil
	})
	return made, err
}

// foldersLeft are the steps of made that a failed make could not take back.
func (e *Engine) foldersLeft(made []string) []journal.Entry {
	var left []journal.Entry
	for _, d := range made {
		if e.fs.IsFolder(d) {
			left = append(left, journal.Entry{Path: d, After: vfs.KindDir})
		}
	}
	return left
}

// RemoveFolder removes the empty folder p (canonical) as call c's change; the record
// keeps its bits, for an undo to make it again with them.
func (e *Engine) RemoveFolder(c *Call, p string) error {
	if err := c.Hold(); err != nil {
		return err
	}
	kind, _, bits, err := e.fs.EntryAt(p)
	if err != nil || kind != vfs.KindDir {
		return errs.New(errs.FileNotFound, p, "%s is no longer a folder (someone else removed or replaced it meanwhile); nothing was deleted.", p)
	}
	steps := []journal.Entry{{Path: p, Before: vfs.KindDir, BeforeMode: bits}}
	return e.commitFolders(c, steps, func() ([]journal.Entry, error) {
		if err := e.fs.RemoveDir(p); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, errs.New(errs.FileNotFound, p, "%s was removed by someone else meanwhile; nothing was deleted.", p)
			}
			return nil, errs.Wrap(errs.Conflict, p, err, "%s could not be removed (%v): something was put in it meanwhile. Nothing was deleted; list_files %s shows what it holds.", p, err, p)
		}
		return steps, nil
	})
}

// testHookFolderStep, when set by a test, runs once a folder call's pending record is
// written, before its first folder is touched.
var testHookFolderStep func(rec journal.Record)

// commitFolders is the commit of a call whose change is folders only: the pending
// record with steps as its Entries, then run (which returns the steps done), then the
// committed mark, with the snapshot told. When run fails, what it could not take back
// (left) keeps the record pending, for recovery to settle; else the call is refused
// and nothing was changed.
func (e *Engine) commitFolders(c *Call, steps []journal.Entry, run func() (done []journal.Entry, err error)) error {
	if err := c.cancelled(); err != nil {
		return err
	}
	c.rec.State = journal.Pending
	c.rec.Entries = steps
	if err := e.putPending(c, nil, 0, nil); err != nil {
		c.rec.Entries = nil
		return c.pendingFailed(err)
	}
	if testHookFolderStep != nil {
		testHookFolderStep(c.rec)
	}
	done, err := run()
	if err != nil {
		c.final = true
		c.rec.Kind, c.rec.Message = string(errs.KindOf(err)), err.Error()
		c.rec.Duration = time.Since(c.start)
		c.rec.State = journal.Failed
		if len(done) > 0 {
			// A folder made that could not be removed again: recovery settles it.
			c.rec.State = journal.Pending
			c.rec.Notes = append(c.rec.Notes, "rollback failed: "+describeFolders(done)+" could not be removed")
		}
		if cerr := e.j.Commit(func(t *journal.Tx) error { return t.Put(&c.rec) }); cerr != nil {
			return errs.Suffixed(err, fmt.Sprintf(" The journal could not record this refusal (%s).", journalCause(cerr)))
		}
		return err
	}
	c.rec.Entries = done
	e.markCommitted(c, nil, 0)
	e.j.Defer(func(t *journal.Tx) error { return e.snapEntries(t, done) })
	return nil
}

func describeFolders(steps []journal.Entry) string {
	names := make([]string, len(steps))
	for i, en := range steps {
		names[i] = en.Path + "/"
	}
	return strings.Join(names, ", ")
}

// checkFolderSteps refuses, changing nothing, a reversal whose folders cannot be
// taken back as they were: a folder to remove that holds anything the same
// transaction does not remove itself (changes deleted, steps removed, folders its
// reverted creates made, made empty by then), or a folder to make again where a file
// or symlink stands now that the transaction does not remove.
func (e *Engine) checkFolderSteps(steps []journal.Entry, changes []*Change, made []string) error {
	going := map[string]bool{}
	for _, ch := range changes {
		if ch.Deleted {
			going[ch.Path] = true
		}
	}
	for _, en := range steps {
		if (en.Before == vfs.KindDir || en.Before == vfs.KindSymlink || journal.IsSpecial(en.Before)) && en.After != en.Before {
			going[en.Path] = true
		}
	}
	madeSet := map[string]bool{}
	for _, d := range made {
		madeSet[d] = true
	}
	look := e.fs.Looker() // a chain of folders read one after another: each from the one held
	defer look.Close()
	for _, ch := range changes {
		if ch.Created && madeSet[ch.Path] {
			left, err := e.leftIn(look, ch.Path, going, madeSet)
			if err == nil && len(left) > 0 {
				return errs.New(errs.Conflict, ch.Path, "%s cannot be put back: the folder %s/ stands there, made by the calls reverted, and it holds %s, put there since. Nothing was undone; move or delete what is in it first (list_files %s shows it), then retry.",
					ch.Path, ch.Path, listSome(left), ch.Path)
			}
		}
	}
	for _, en := range steps {
		switch {
		case en.Before == vfs.KindDir && en.After != vfs.KindDir:
			left, err := e.leftIn(look, en.Path, going, madeSet)
			if err != nil {
				continue // not a folder now: checkEntries says so
			}
			if len(left) > 0 {
				return errs.New(errs.Conflict, en.Path, "The folder %s/ is not empty: it holds %s, put there since it was made. Nothing was undone; move or delete what is in it first (list_files %s shows it), then retry.",
					en.Path, listSome(left), en.Path)
			}
		case en.After == vfs.KindDir && en.Before != vfs.KindDir:
			// A folder standing there already was left out of the steps
			// (leaveStanding); anything else standing there is in the way.
			kind, target, bits, err := e.fs.EntryAt(en.Path)
			if err == nil && kind != "" && kind != vfs.KindDir && !going[en.Path] {
				return errs.New(errs.Conflict, en.Path, "%s cannot be made again as a folder: %s stands there now, put there since it was removed. Nothing was undone; move it aside first, then retry.",
					en.Path, describeEntry(kind, target, bits))
			}
		}
	}
	return nil
}

// leftIn is what stays in folder dir once the transaction has removed what is going:
// a folder its reverted creates made goes when emptied, so what stays in it is
// named instead of it (folders with a slash).
func (e *Engine) leftIn(look *vfs.Looker, dir string, going, made map[string]bool) ([]string, error) {
	names, err := look.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var left []string
	for _, fi := range names {
		q := path.Join(dir, fi.Name())
		switch {
		case fi.IsDir() && made[q]:
			in, err := e.leftIn(look, q, going, made)
			if err != nil {
				return nil, err
			}
			left = append(left, in...)
		case going[q]:
		case fi.IsDir():
			left = append(left, q+"/")
		default:
			left = append(left, q)
		}
	}
	return left, nil
}

// listSome names up to five paths, and how many more there are.
func listSome(paths []string) string {
	slices.Sort(paths)
	if len(paths) <= 5 {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(paths[:5], ", "), len(paths)-5)
}

// ApplyRemovingFolders is Apply of a move of folders dirs (canonical, dirs[0] the
// folder moved, the others below it) to dst (canonical, where nothing stands). Before
// any file moves, the folders of dst are made, each with the bits of the folder it
// replaces, as mv keeps them (the missing folders above dst as mkdir -p makes them);
// once every file is written, at the commit point, the folders dirs that the move
// left empty are removed, deepest first. The pending record names every folder made
// and removed, with its bits (Entries), so that recovery, undo and redo make them as
// they were; a source folder that holds something else by then stays, and the
// committed record leaves it out. It returns the changes and the folders that
// stayed.
func (e *Engine) ApplyRemovingFolders(c *Call, specs []Spec, dirs []string, dst string) ([]*Change, []string, error) {
	var steps, makes []journal.Entry
	for _, d := range e.fs.MissingFolders(dst) {
		// Their bits are known once made (the umask applies); filled in then.
		makes = append(makes, journal.Entry{Path: d, After: vfs.KindDir})
	}
	above := len(makes)
	for _, d := range dirs {
		if kind, _, bits, err := e.fs.EntryAt(d); err == nil && kind == vfs.KindDir {
			steps = append(steps, journal.Entry{Path: d, Before: vfs.KindDir, BeforeMode: bits})
			if rel, ok := strings.CutPrefix(d, dirs[0]); ok && !e.fs.IsFolder(dst+rel) {
				makes = append(makes, journal.Entry{Path: dst + rel, After: vfs.KindDir, AfterMode: bits})
			}
		}
	}
	var kept []string
	var loose []journal.Entry
	c.rec.Entries = append(slices.Clone(makes), steps...)
	c.beforeFiles = func() error {
		if above > 0 {
			made, err := e.fs.MakeDirs(path.Dir(dst))
			c.madeHere = map[string]bool{}
			for _, d := range made {
				c.madeHere[d] = true
			}
			if err != nil {
				return errs.Wrap(errs.IOError, dst, err, "Cannot make the folders above %s: %v.", dst, err)
			}
			for i := range c.rec.Entries[:above] {
				if slices.Contains(made, c.rec.Entries[i].Path) {
					_, _, c.rec.Entries[i].AfterMode, _ = e.fs.EntryAt(c.rec.Entries[i].Path)
				}
			}
		}
		// Shallowest first, each with its bits, but for those that would deny the
		// files moving in: given theirs once the files are in.
		var err error
		if c.madeHere == nil {
			c.madeHere = map[string]bool{}
		}
		loose, err = e.entriesBefore(makes[above:], c.madeHere)
		return err
	}
	c.afterFiles = func() {
		if notes := e.folderBits(loose); len(notes) > 0 {
			c.rec.Notes = append(c.rec.Notes, notes...)
		}
		var done []journal.Entry
		look := e.fs.Looker()
		defer look.Close()
		for _, en := range deepestFirstEntries(steps) {
			if err := look.RemoveDir(en.Path); err != nil {
				kept = append(kept, en.Path)
				continue
			}
			done = append(done, en)
		}
		made := c.rec.Entries[:len(makes)]
		c.rec.Entries = append(slices.Clone(made), done...)
		if len(kept) > 0 {
			c.rec.Notes = append(c.rec.Notes, fmt.Sprintf("these folders stayed, something else being in them: %s", strings.Join(kept, ", ")))
		}
		e.j.Defer(func(t *journal.Tx) error { return e.snapEntries(t, c.rec.Entries) })
	}
	changes, err := e.Apply(c, specs, false)
	c.afterFiles, c.beforeFiles = nil, nil
	if err != nil {
		c.rec.Entries = nil // nothing was made or removed
		return nil, nil, err
	}
	return changes, kept, nil
}

// foldersOnly reports whether pending record r changes folders only: no file, and
// every entry a folder made or removed (a create_directory, a delete_file of a
// folder, or an undo, redo or rewind of those). settleFolders settles it.
func foldersOnly(r *journal.Record) bool {
	if journal.IsCommand(r.Tool) || len(r.Entries) == 0 {
		return false
	}
	for _, f := range r.Files {
		if f.Op.Changes() {
			return false
		}
	}
	for _, en := range r.Entries {
		made := en.Before == "" && en.After == vfs.KindDir
		removed := en.Before == vfs.KindDir && en.After == ""
		if !made && !removed {
			return false
		}
	}
	return true
}

// settleFolders settles a pending record of folders only by what stands at each path,
// as settle does a call's files: every step done (or the rest changed by someone
// else) rolls forward; a step not done rolls back the steps that were (a folder made
// is removed when empty, a folder removed is made again with its bits); every path
// changed by someone else leaves the state unknown. A path no call could write is
// never touched.
func (e *Engine) settleFolders(j *journal.Journal, r *journal.Record) error {
	states := make([]fileState, len(r.Entries))
	var anyBefore, anyAfter, anyElsewhere bool
	for i, en := range r.Entries {
		if !e.writable(en.Path) {
			states[i], anyElsewhere = untrusted, true
			r.Notes = append(r.Notes, untrustedNote(en.Path))
			continue
		}
		kind, _, bits, err := e.fs.EntryAt(en.Path)
		if err != nil {
			return fmt.Errorf("%s: %w", en.Path, err)
		}
		switch {
		case kind == en.After:
			states[i], anyAfter = atAfter, true
			if en.After == vfs.KindDir && en.AfterMode == 0 {
				r.Entries[i].AfterMode = bits // made: the pending record did not know its bits yet
			}
		case kind == en.Before:
			states[i], anyBefore = atBefore, true
		default:
			states[i], anyElsewhere = elsewhere, true
			r.Notes = append(r.Notes, fmt.Sprintf("recovery: %s is %s now, put there by someone else; left alone", en.Path, describeEntry(kind, "", bits)))
		}
	}
	switch {
	case !anyBefore && !anyAfter:
		r.State = journal.Unknown
	case !anyBefore:
		r.State = journal.Committed
		if !anyElsewhere {
			r.Notes = append(r.Notes, "recovery: every folder was as the call left it; the call was rolled forward")
		}
		// A folder made again with its bits is made first, then given them: killed
		// in between, it is given them now.
		for i, en := range r.Entries {
			if states[i] != atAfter || en.After != vfs.KindDir || en.AfterMode == 0 {
				continue
			}
			if _, _, bits, err := e.fs.EntryAt(en.Path); err == nil && bits != en.AfterMode {
				if err := e.fs.SetBits(en.Path, en.AfterMode); err != nil {
					r.Notes = append(r.Notes, fmt.Sprintf("recovery: %s/ could not be given its bits %04o back: %v", en.Path, en.AfterMode&0o7777, err))
					continue
				}
				r.Notes = append(r.Notes, fmt.Sprintf("recovery: %s/ given its bits %04o (the call had made it, and was stopped before it set them)", en.Path, en.AfterMode&0o7777))
			}
		}
	default:
		r.State = journal.RolledBack
		var back []journal.Entry
		for i, en := range r.Entries {
			if states[i] == atAfter {
				back = append(back, en.Reversed())
			}
		}
		loose, err := e.entriesBefore(back, nil) // folders removed are made again
		if err != nil {
			return err
		}
		for _, en := range back {
			if en.After == vfs.KindDir {
				r.Notes = append(r.Notes, fmt.Sprintf("recovery: %s/ made again (the call had removed it)", en.Path))
			}
		}
		left, _ := e.entriesAfter(back, nil) // folders made go, when empty
		left = append(left, e.folderBits(loose)...)
		for _, en := range deepestFirstEntries(back) {
			if en.Before == vfs.KindDir && !e.fs.IsFolder(en.Path) {
				r.Notes = append(r.Notes, fmt.Sprintf("recovery: %s/ removed (empty; the call had made it)", en.Path))
			}
		}
		for _, n := range left {
			r.Notes = append(r.Notes, "recovery: "+n)
		}
	}
	var trusted []journal.Entry
	for i, en := range r.Entries {
		if states[i] != untrusted {
			trusted = append(trusted, en)
		}
	}
	// Written in this process's next journal transaction, with the snapshot told what
	// stands now; if that never happens, the next open settles the record again.
	j.Defer(func(t *journal.Tx) error {
		if err := e.snapEntries(t, trusted); err != nil {
			return err
		}
		return t.Put(r)
	})
	return nil
}

// deepestFirstEntries is steps with a folder's subfolders before it.
func deepestFirstEntries(steps []journal.Entry) []journal.Entry {
	out := slices.Clone(steps)
	slices.SortStableFunc(out, func(a, b journal.Entry) int { return depth(b.Path) - depth(a.Path) })
	return out
}

// blockedFolder is the refusal of an undo of p whose folders are in the way: the
// nearest folder above p that is something else now (a file, a symlink), named with
// what to do; nil when every folder above p is a folder or absent (an undo that puts
// p back makes those).
func (e *Engine) blockedFolder(p string) error {
	for i := range len(p) {
		if p[i] != '/' {
			continue
		}
		d := p[:i]
		kind, target, bits, err := e.fs.EntryAt(d)
		if err != nil || kind == "" {
			return nil
		}
		if kind != vfs.KindDir {
			what := describeEntry(kind, target, bits)
			return errs.New(errs.Conflict, p, "%s cannot be put back as it was: its folder %s is %s now, put there since. Nothing was undone; move %s aside, or make it a folder again, then retry.", p, d, what, d)
		}
	}
	return nil
}

// swaps sorts a reversal's steps where a folder and a file trade places, as undoing
// the calls one by one would: the file goes before its folder comes, and the folder
// goes before its file comes.
type swaps struct {
	first   []journal.Entry // the steps before the files (entriesBefore)
	cleared []string        // folders that go where a file comes back: removed once the deletions are set aside
	later   []journal.Entry // folders that come back where a file goes, or under one: made after the files
	then    []journal.Entry // the steps after the files (entriesAfter)
}

func (e *Engine) swapsOf(steps []journal.Entry, changes []*Change, made []string) swaps {
	created := map[string]bool{}
	var sw swaps
	for _, ch := range changes {
		if ch.Created {
			created[ch.Path] = true
			if slices.Contains(made, ch.Path) && e.fs.IsFolder(ch.Path) {
				sw.cleared = append(sw.cleared, ch.Path) // a folder a reverted create made
			}
		}
	}
	var roots []string // folders coming back where something other than a folder stands
	for _, ch := range changes {
		if ch.Deleted {
			roots = append(roots, ch.Path) // a folder at or under it waits for the deletion
		}
	}
	for _, en := range steps {
		if en.Before == vfs.KindDir && en.After != vfs.KindDir && created[en.Path] {
			sw.cleared = append(sw.cleared, en.Path)
		}
	}
	slices.Sort(sw.cleared)
	sw.cleared = slices.Compact(sw.cleared)
	within := func(p string, dirs []string) bool {
		for _, d := range dirs {
			if p == d || strings.HasPrefix(p, d+"/") {
				return true
			}
		}
		return false
	}
	for _, en := range steps {
		switch {
		case en.After == vfs.KindDir && en.Before != vfs.KindDir && within(en.Path, roots):
			sw.later = append(sw.later, en)
		case en.Before == vfs.KindDir && en.After != vfs.KindDir && within(en.Path, sw.cleared):
			// removed by clearFolders
		case journal.IsSpecial(en.Before) && en.After != vfs.KindDir && !created[en.Path]:
			// A FIFO or socket nothing comes in place of goes after the files: a crash
			// before then leaves it, whichever way recovery settles the call (vfsctl
			// cannot make it again).
			sw.then = append(sw.then, en)
		case journal.IsSpecial(en.Before):
			sw.first = append(sw.first, en) // it makes way for the file or folder that comes
		default:
			sw.first = append(sw.first, en)
			sw.then = append(sw.then, en)
		}
	}
	return sw
}

// swappedAway reports whether a file at p is read as absent by a reversal with
// steps: a folder stands at p that the steps remove or that a reverted create made, or something other than a
// folder stands above p where the steps make a folder again. checkFolderSteps
// refuses the reversal where what stands there does not go.
func swappedAway(p string, steps []journal.Entry, made []string) bool {
	if slices.Contains(made, p) {
		return true // a folder a reverted create made: it goes when emptied
	}
	for _, en := range steps {
		if en.Path == p && en.Before == vfs.KindDir && en.After != vfs.KindDir {
			return true
		}
		if en.After == vfs.KindDir && en.Before != vfs.KindDir && strings.HasPrefix(p, en.Path+"/") {
			return true
		}
	}
	return false
}

// clearFolders removes, once the deletions done are set aside, the folders dirs and
// what is left in them (the set-aside files, and empty folders going too), so that a
// file can come back at their path. A set-aside file removed here is gone before the
// commit point: a rollback makes it again from the content read.
func (e *Engine) clearFolders(dirs []string, done []*Change) error {
	for _, ch := range done {
		for _, d := range dirs {
			if ch.Deleted && ch.aside != "" && strings.HasPrefix(ch.Path, d+"/") {
				if err := e.fs.DropAside(ch.aside, e.durability != DurableJournal); err != nil {
					return errs.Wrap(errs.IOError, ch.Path, err, "Cannot remove %s: %v.", ch.Path, err)
				}
				ch.aside = ""
			}
		}
	}
	for _, d := range dirs {
		if !e.fs.IsFolder(d) {
			continue // named twice, or inside one removed already
		}
		if err := e.removeEmptyTree(d); err != nil {
			return errs.Wrap(errs.Conflict, d, err, "The folder %s/ could not be removed to put the file %s back (%v): something was put in it meanwhile. Nothing was changed.", d, d, err)
		}
	}
	return nil
}

// removeEmptyTree removes folder d and the empty folders in it, deepest first.
func (e *Engine) removeEmptyTree(d string) error {
	names, err := afero.ReadDir(e.fs.Afero(), d)
	if err != nil {
		return err
	}
	for _, fi := range names {
		if fi.IsDir() {
			if err := e.removeEmptyTree(path.Join(d, fi.Name())); err != nil {
				return err
			}
		}
	}
	return e.fs.RemoveDir(d)
}

// laterFolders makes the folders steps bring back where a file stood, shallowest
// first (a create in one may have made it already, with the default bits), each with
// ownerBits added to its own: a folder in one, or a symlink, is still to come.
// folderBits gives them their bits after. It returns notes on what could not be
// done.
func (e *Engine) laterFolders(steps []journal.Entry) []string {
	var notes []string
	order := slices.Clone(steps)
	slices.SortStableFunc(order, func(a, b journal.Entry) int { return depth(a.Path) - depth(b.Path) })
	look := e.fs.Looker()
	defer look.Close()
	for _, en := range order {
		if look.IsFolder(en.Path) {
			continue
		}
		if err := look.MakeDir(en.Path, en.AfterMode|ownerBits); err != nil {
			notes = append(notes, fmt.Sprintf("%s: could not be made %s: %v", en.Path, describeEntry(en.After, en.AfterTarget, en.AfterMode), err))
		}
	}
	return notes
}

// underFileGoing reports whether a folder above p is one of the files gone that the
// same reversal removes: p is read as absent, and its create makes the folder.
func underFileGoing(p string, gone []string) bool {
	for _, g := range gone {
		if strings.HasPrefix(p, g+"/") {
			return true
		}
	}
	return false
}

// withParents adds to steps a step for each missing folder above a folder that comes
// back, which nothing else makes first: a folder a create made, removed when an
// undo or rewind left it empty (not journaled), that an undo of that undo needs
// again. It is made with the bits mkdir -p gives under the usual umask.
func (e *Engine) withParents(steps []journal.Entry) []journal.Entry {
	have := map[string]bool{}
	for _, en := range steps {
		if en.After == vfs.KindDir {
			have[en.Path] = true
		}
	}
	var add []journal.Entry
	for _, en := range steps {
		if en.After != vfs.KindDir || en.Before == vfs.KindDir {
			continue
		}
		for d := path.Dir(en.Path); d != "." && !have[d]; d = path.Dir(d) {
			if kind, _, _, err := e.fs.EntryAt(d); err != nil || kind != "" {
				break // a folder, or something checkEntries names
			}
			have[d] = true
			add = append(add, journal.Entry{Path: d, After: vfs.KindDir, AfterMode: 0o755})
		}
	}
	return append(add, steps...)
}

// notComing drops from made the folders that steps (before leaveStanding) bring
// back as folders: those stay.
func notComing(made []string, steps []journal.Entry) []string {
	var out []string
	for _, d := range made {
		coming := false
		for _, en := range steps {
			coming = coming || en.Path == d && en.After == vfs.KindDir
		}
		if !coming {
			out = append(out, d)
		}
	}
	return out
}

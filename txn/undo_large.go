package txn

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/vfs"
)

// Files over the snapshot's size limit: a command's record keeps them by hash only
// (diffSnapshots' note), so no undo can put such a content back. One it created can
// still be taken back: it is removed when it is still the file the command left.
// That is told first by its identity, as the snapshot's stat cache tells it (the
// snapshot's entry for the path has the recorded hash and the file's device, inode,
// size, modification and change time): hashing gigabytes again for each undo cost
// seconds. Where the identity differs, the file is hashed, streamed.

// overLimit reports whether r, a command's record, kept path by hash only.
func overLimit(r *journal.Record, path string) bool {
	return r != nil && journal.IsCommand(r.Tool) && slices.ContainsFunc(r.Notes, func(n string) bool { return isOverLimitNote(n, path) })
}

// overLimitNote is the note of a command's record that marks path as kept by hash
// only. How the command changed it decides what an undo does: one it made (made) is
// removed while still the file the command left; one it grew past the limit
// (grownNote) gets its prior content back; any other change needs SkipUnrestorable.
// A record before that advice has the note without it, and one before grownNote
// has the plain note for a grown file too.
func overLimitNote(path string, made bool) string {
	n := fmt.Sprintf("%s is over the snapshot's size limit: recorded by hash only, not restorable", path)
	if made {
		return n
	}
	return n + fmt.Sprintf("; an undo of this call, or a rewind of its turn or of an earlier one, is refused unless given --skip-unrestorable, which takes back the rest and leaves %s as it is", path)
}

// grownNote is the overLimitNote of path, a small file the command grew past the
// limit: its prior content is in the journal, so an undo puts it back (reverseGrown).
func grownNote(path string) string {
	return fmt.Sprintf("%s is over the snapshot's size limit: the content the command left is recorded by hash only; an undo of this call, or a rewind of its turn, puts back the content it had before while it is still the file the command left, and a redo of that undo is refused", path)
}

// isOverLimitNote reports whether n is an overLimitNote of path, of any version.
func isOverLimitNote(n, path string) bool {
	return n == overLimitNote(path, true) || n == overLimitNote(path, false) || n == grownNote(path)
}

// HashOnly is the structure of a refusal (kind too_large) to put back Path, which
// call Seq changed over the snapshot's size limit: the record keeps it by hash only.
// UndoOptions.SkipUnrestorable and RewindOptions.SkipUnrestorable leave such a file
// as it is and take back the rest.
type HashOnly struct {
	Path string
	Seq  uint64
}

// HashOnlyOf is the HashOnly of err, nil when err is not such a refusal.
func HashOnlyOf(err error) *HashOnly {
	var e *errs.Error
	if !errors.As(err, &e) {
		return nil
	}
	h, _ := e.Detail.(*HashOnly)
	return h
}

// stays says that the file is left as it is (SkipUnrestorable), or with dryRun
// would be.
func (h *HashOnly) stays(dryRun bool) string {
	verb := "stays"
	if dryRun {
		verb = "would stay"
	}
	return fmt.Sprintf("%s %s as it is, not put back to before call %d: it was over the snapshot's size limit and recorded by hash only", h.Path, verb, h.Seq)
}

// notRestorable refuses the reversal of call seq's change of path, kept by hash only.
// Its caller says how to leave the file as it is and take back the rest.
func notRestorable(path string, seq uint64) error {
	e := errs.New(errs.TooLarge, path, "%s was over the snapshot's size limit when call %d changed it: it was recorded by hash only, and only a build, a download or git can put it back. Nothing was written.", path, seq)
	e.Detail = &HashOnly{Path: path, Seq: seq}
	return e
}

// removal is the change that removes path, a file over the size limit of the given
// hash, identity and mode, without reading it: its record keeps the hash only (no
// blob, and a diff that says so).
func removal(path, hash string, id vfs.Identity, mode fs.FileMode) *Change {
	d := fmt.Sprintf("(%s removed: a file over the snapshot's size limit, kept by hash only)\n", path)
	return &Change{Path: path, Name: path, Op: journal.OpDelete, Deleted: true, beforeHash: hash, id: id, mode: mode, diff: &d}
}

// leftAsMade is what stands at path, a file over the size limit a command made as
// hash: exists, and same when it is still that file (its identity as the snapshot
// knows it, else its hash), with its identity and mode for the removal.
func (e *Engine) leftAsMade(path, hash string) (id vfs.Identity, mode fs.FileMode, exists, same bool, err error) {
	kind, _, _, err := e.fs.EntryAt(path)
	switch {
	case err != nil:
		return id, 0, false, false, err
	case kind == "":
		return id, 0, false, false, nil
	case kind != vfs.KindFile:
		return id, 0, true, false, nil // a folder, a symlink or else in its place
	}
	fi, err := e.fs.Afero().Stat(path)
	if err == nil {
		id, err = e.fs.IdentityOf(path)
	}
	if err != nil {
		return id, 0, true, false, err
	}
	mode = fi.Mode()
	var snap journal.SnapEntry
	var known bool
	e.j.View(func(t *journal.Tx) error {
		snap, known = t.Snapshot()[path]
		return nil
	})
	if known && snap.Kind == vfs.KindFile && snap.Hash == hash && fromSnap(path, snap).ID.SameFile(id) {
		return id, mode, true, true, nil
	}
	h, err := e.fs.HashFile(path)
	if err != nil {
		return id, mode, true, false, err
	}
	if now, err := e.fs.IdentityOf(path); err != nil || now != id {
		return id, mode, true, false, nil // changed while it was hashed
	}
	return id, mode, true, h == hash, nil
}

// reverseOverLimit plans the reversal of call target's change of f, a file it kept by
// hash only: the removal of a file it created, if still as it left it; any other
// change is refused (notRestorable).
func (e *Engine) reverseOverLimit(hist *history, target uint64, f journal.File) (*Change, error) {
	if grown(f) {
		return e.reverseGrown(target, f)
	}
	if f.Op != journal.OpCreate {
		return nil, notRestorable(f.Path, target)
	}
	later := hist.laterChanges(target, f.Path)
	id, mode, exists, same, err := e.leftAsMade(f.Path, f.After)
	switch {
	case err != nil:
		return nil, errs.Wrap(errs.IOError, f.Path, err, "Cannot read %s to tell whether it is still the file call %d made: %v. Nothing was written.", f.Path, target, err)
	case same:
		return removal(f.Path, f.After, id, mode), nil
	case len(later) > 0:
		last := later[len(later)-1]
		if !undoable(hist.recs[last], f.Path, f.After) {
			// Undo call last first would be refused too: no way on but to leave it.
			return nil, notAsMade(errs.New(errs.Conflict, f.Path, "Call %d changed %s after call %d made it, and no undo of call %d can put back the file call %d made (over the snapshot's size limit, kept by hash only). Nothing was written.", last, f.Path, target, last, target), f.Path, target)
		}
		return nil, blocked(f.Path, last, "Call %d changed %s after call %d; nothing was written.", last, f.Path, target)
	case !exists:
		return nil, notAsMade(errs.New(errs.Conflict, f.Path, "%s was removed since call %d made it, outside vfsctl; there is nothing of it to undo. Nothing was written.", f.Path, target), f.Path, target)
	}
	return nil, notAsMade(errs.New(errs.Conflict, f.Path, "%s changed outside vfsctl since call %d made it (it is not the file the command left); undoing it would lose that change. Nothing was written.", f.Path, target), f.Path, target)
}

// undoable reports whether the undo of r, a later call that changed path, a file over
// the size limit, can put back what it found there: not when that was made (hash
// made) or kept by hash only, but for a change of bits alone.
func undoable(r *journal.Record, path, made string) bool {
	for _, f := range r.Files {
		if f.Path == path && f.Op.Changes() && !bitsOnly(f) && !f.BeforeBlob && (f.Before == made || overLimit(r, path)) {
			return false
		}
	}
	return true
}

// notAsMade marks e, the refusal to remove path, a file over the size limit that call
// seq made and that is no longer the file it left, as one SkipUnrestorable leaves as
// it is: else the rest of the call could never be taken back.
func notAsMade(e *errs.Error, path string, seq uint64) error {
	e.Detail = &HashOnly{Path: path, Seq: seq}
	return e
}

// grown reports whether f is a file a command grew past the size limit: its prior
// content is in the journal (it was small), the one it left by hash only.
func grown(f journal.File) bool {
	return f.Op != journal.OpCreate && f.Op != journal.OpDelete && f.BeforeBlob && !f.AfterBlob && f.Before != "" && f.After != ""
}

// reverseGrown plans putting back the prior content of f, which call target grew
// past the size limit, over the file while it is still the one the call left (its
// hash, streamed); else it is refused as any change kept by hash only.
func (e *Engine) reverseGrown(target uint64, f journal.File) (*Change, error) {
	var prior []byte
	err := e.j.View(func(t *journal.Tx) (err error) {
		prior, err = versionOf(t, f.Path, f.Before)
		return err
	})
	if err != nil {
		return nil, errs.Wrap(errs.IOError, f.Path, err, "Cannot undo call %d: %v.", target, err)
	}
	return e.putBackGrown(f.Path, f.After, prior, target)
}

// putBackGrown is the change that writes prior over path, a file over the size limit
// that call seq left as hash, when it still is that file; the file is not read whole.
func (e *Engine) putBackGrown(path, hash string, prior []byte, seq uint64) (*Change, error) {
	id, mode, _, same, err := e.leftAsMade(path, hash)
	switch {
	case err != nil:
		return nil, errs.Wrap(errs.IOError, path, err, "Cannot read %s to tell whether it is still the file call %d left: %v. Nothing was written.", path, seq, err)
	case !same:
		return nil, notRestorable(path, seq)
	}
	d := fmt.Sprintf("(%s put back as it was before call %d, %d bytes: the file it left was over the snapshot's size limit, kept by hash only)\n", path, seq, len(prior))
	return &Change{Path: path, Name: path, Op: journal.OpWrite, After: prior, beforeHash: hash, id: id, mode: mode, diff: &d}, nil
}

// rewindLarge plans the rewind of f, which step st, its only step, created over the
// size limit (f.unrestorable refuses more): its removal, when the file is still as
// the command left it.
func (e *Engine) rewindLarge(f *rewindFile, st rewindStep) (*Change, error) {
	id, mode, exists, same, err := e.leftAsMade(f.path, st.large)
	switch {
	case err != nil:
		return nil, errs.Wrap(errs.IOError, f.path, err, "Cannot read %s to tell whether it is still the file call %d made: %v. Nothing was written.", f.path, st.seq, err)
	case same:
		return removal(f.path, st.large, id, mode), nil
	case !exists:
		return nil, nil // made by the turn and gone since: the rewind wants it gone
	}
	return nil, f.conflict(st, nil, "%s changed since call %d made it (it is not the file the command left)")
}

// bitsOnly reports whether f changed only the bits of a file whose content its
// record does not hold (a command's chmod of a file over the snapshot's size limit,
// and the undo of it): the undo sets the bits back in place, reading no content.
func bitsOnly(f journal.File) bool {
	return f.Before == f.After && chmodOf(f) && !f.BeforeBlob && !f.AfterBlob
}

// reverseBits plans the reversal of call target's change of f's bits alone (bitsOnly):
// the old bits set in place, when the file is still the one the call left, known by
// its identity as the snapshot recorded it, else by its hash, streamed; and has the
// bits the call gave it.
func (e *Engine) reverseBits(hist *history, target uint64, f journal.File) (*Change, error) {
	id, mode, exists, same, err := e.leftAsMade(f.Path, f.After)
	switch {
	case err != nil:
		return nil, errs.Wrap(errs.IOError, f.Path, err, "Cannot read %s to tell whether it is still the file call %d left: %v. Nothing was written.", f.Path, target, err)
	case !exists:
		return nil, errs.New(errs.Conflict, f.Path, "%s was removed since call %d changed its bits; there is nothing of it to undo. Nothing was written.", f.Path, target)
	case !same:
		if later := hist.laterChanges(target, f.Path); len(later) > 0 {
			last := later[len(later)-1]
			return nil, blocked(f.Path, last, "Call %d changed %s after call %d; nothing was written.", last, f.Path, target)
		}
		return nil, errs.New(errs.Conflict, f.Path, "%s changed outside vfsctl since call %d changed its bits: its content is not the one the call left, which the journal holds by hash only (over the snapshot's size limit), so its bits are not set back. Nothing was written.", f.Path, target)
	}
	const bits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky
	if now := uint32(mode & bits); now != f.AfterMode {
		return nil, modeChanged(f.Path, now, f.AfterMode, target, hist.laterChanges(target, f.Path))
	}
	none := "" // no content changes: the reply names the change of bits
	return &Change{Path: f.Path, Name: f.Path, Op: journal.OpWrite, mode: mode, chmod: fs.FileMode(f.BeforeMode), id: id,
		beforeHash: f.After, afterHash: f.After, bitsOnly: true, diff: &none}, nil
}

// rewindBits plans the rewind of f, whose step st changed its bits alone (bitsOnly):
// the bits the oldest step found, set in place, when the file is still the one the
// newest step left, with its bits. Every step changed only the bits of that same
// content (f.unrestorable refuses any other).
func (e *Engine) rewindBits(f *rewindFile, st rewindStep) (*Change, error) {
	newest, oldest := f.steps[0], f.steps[len(f.steps)-1]
	id, mode, exists, same, err := e.leftAsMade(f.path, st.bits)
	switch {
	case err != nil:
		return nil, errs.Wrap(errs.IOError, f.path, err, "Cannot read %s to tell whether it is still the file call %d left: %v. Nothing was written.", f.path, newest.seq, err)
	case !exists:
		return nil, f.conflict(newest, nil, "%s was removed since call %d changed its bits")
	case !same:
		return nil, f.conflict(newest, nil, "%s changed since call %d changed its bits (its content is not the one the call left, which the journal holds by hash only)")
	}
	const bits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky
	if now := uint32(mode & bits); now != newest.afterMode {
		return nil, f.conflict(newest, nil, fmt.Sprintf("%%s has mode %04o, not the %04o call %%d gave it", now&0o777, newest.afterMode&0o777))
	}
	if oldest.beforeMode == newest.afterMode {
		return nil, nil // its bits are back already
	}
	none := ""
	return &Change{Path: f.path, Name: f.path, Op: journal.OpWrite, mode: mode, chmod: fs.FileMode(oldest.beforeMode), id: id,
		beforeHash: st.bits, afterHash: st.bits, bitsOnly: true, diff: &none}, nil
}

// modeChanged refuses the undo of call target's change of p's bits, which are now not
// the bits it gave: naming the later call that changed them, to be undone first, or,
// where they changed outside vfsctl, the chmod that gives them back, after which the
// undo goes through.
func modeChanged(p string, now, gave uint32, target uint64, later []uint64) error {
	fact := fmt.Sprintf("%s has mode %04o, not the %04o call %d gave it", p, now&0o7777, gave&0o7777, target)
	if len(later) > 0 {
		last := later[len(later)-1]
		return blocked(p, last, "%s: call %d changed it since; nothing was written.", fact, last)
	}
	return errs.New(errs.Conflict, p, "%s: it changed outside vfsctl since, and the undo would lose that change; nothing was written. To undo the call all the same, run chmod %o %s first, which gives back the bits it left, then undo call %d again.", fact, gave&0o7777, shellPath(p), target)
}

// keptByHashOnly is the command's call that left path as hash, a content over the
// size limit its record keeps by hash only; 0 when no command did. The reversal of a
// call that took such a content back (an undo, a rewind) needs it, and nothing holds it.
func (e *Engine) keptByHashOnly(path, hash string) (seq uint64) {
	e.j.View(func(t *journal.Tx) error {
		for _, s := range t.SeqsOf(path, 0) {
			r, err := t.Get(s)
			if err != nil || r == nil || !overLimit(r, path) {
				continue
			}
			for _, f := range r.Files {
				if f.Path == path && f.After == hash && !f.AfterBlob {
					seq = s
				}
			}
		}
		return nil
	})
	return seq
}

// notRewritable refuses to reverse call target, which took path back from the
// content call by left over the size limit: that content is kept by hash only. Like
// notRestorable, SkipUnrestorable leaves the file as it is; its caller says how.
func notRewritable(path string, by, target uint64) error {
	e := errs.New(errs.TooLarge, path, "The content call %d left in %s was over the snapshot's size limit and is kept by hash only: call %d took it back, and it cannot be written again (running call %d's command again makes it anew). Nothing was written.", by, path, target, by)
	e.Detail = &HashOnly{Path: path, Seq: target}
	return e
}

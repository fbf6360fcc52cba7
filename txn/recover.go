package txn

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/vfs"
)

// recover settles every pending record: the journal's OnOpen hook, so it runs before
// any call or query of a freshly opened workspace. It is idempotent: a crash during
// recovery leaves the records pending, and the next open settles them again.
func (e *Engine) recover(j *journal.Journal) error {
	for _, tmp := range j.TakeTemps() {
		if dir := path.Dir(tmp); strings.HasPrefix(path.Base(tmp), vfs.TempPrefix) && (dir == "." || e.writable(dir)) {
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
	landed := j.Landed()
	for _, r := range pending {
		if err := e.settle(j, r, landed[r.Seq]); err != nil {
			return fmt.Errorf("settling call %d: %w", r.Seq, err)
		}
	}
	return nil
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
		rollForward(j, r)
		return nil
	case !anyBefore && !anyAfter:
		// Every file changed outside vfsctl since: whether the call landed cannot be
		// told, and nothing is undone.
		r.State = journal.Unknown
		noteUnknown(r, states)
		put()
		return nil
	case !anyBefore:
		// Some files at their new content, the rest changed outside vfsctl since: the
		// call landed, and the others changed it afterwards.
		r.State = journal.Committed
		noteLandedThenChanged(r, states)
		put()
		return nil
	}
	// A file still at its prior content: the call did not finish writing, so it was
	// never acknowledged. Roll back what it wrote.
	if err := e.rollBackPending(j, r, states, current); err != nil {
		return err
	}
	r.State = journal.RolledBack
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
	rollForward(j, r)
}

// fileStates finds where each file of a pending record stands, with its content now;
// a path no call could write is untrusted and never read.
func (e *Engine) fileStates(r *journal.Record) ([]fileState, [][]byte, error) {
	states := make([]fileState, len(r.Files))
	current := make([][]byte, len(r.Files))
	for i, f := range r.Files {
		if !e.writable(f.Path) {
			// A record no call of vfsctl could have made: a path that is not canonical,
			// goes through a symlink, or lies in a reserved folder. Recovery obeys the
			// rules a call obeys, so the journal cannot be used to write where a call
			// could not.
			states[i] = untrusted
			continue
		}
		data, id, err := e.fs.ReadCanonicalID(f.Path)
		exists := err == nil
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, err
		}
		current[i] = data
		states[i] = e.stateOf(f, data, id, exists)
	}
	return states, current, nil
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
// files someone else changed, and untrusted paths, are left alone and noted.
func (e *Engine) rollBackPending(j *journal.Journal, r *journal.Record, states []fileState, current [][]byte) error {
	for i, f := range r.Files {
		switch states[i] {
		case atAfter:
			if err := e.restore(j, f, current[i]); err != nil {
				return fmt.Errorf("%s: %w", f.Path, err)
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
	return nil
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
		return e.fs.Create(f.Path, before)
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
		if bytes.HasPrefix([]byte(n), []byte(vfs.TempPrefix)) {
			afs.Remove(path.Join(dir, n))
		}
	}
}

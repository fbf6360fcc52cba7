package txn

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"

	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/vfs"
)

// recover settles every pending record: the journal's OnOpen hook, so it runs before
// any call or query of a freshly opened workspace. It is idempotent: a crash during
// recovery leaves the records pending, and the next open settles them again.
func (e *Engine) recover(j *journal.Journal) error {
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
	for _, r := range pending {
		if err := e.settle(j, r); err != nil {
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
)

func (e *Engine) settle(j *journal.Journal, r *journal.Record) error {
	states := make([]fileState, len(r.Files))
	current := make([][]byte, len(r.Files))
	allAfter := true
	for i, f := range r.Files {
		data, err := e.fs.ReadCanonical(f.Path)
		exists := err == nil
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		current[i] = data
		h := ""
		if exists {
			h = journal.Hash(data)
		}
		switch {
		case f.After == "": // nothing was to be written to this file
			states[i] = atBefore
		case exists && h == f.After:
			states[i] = atAfter
		case h == f.Before: // before, or still absent for a create
			states[i] = atBefore
		default:
			states[i] = elsewhere
		}
		if f.After != "" && states[i] != atAfter {
			allAfter = false
		}
	}
	for _, f := range r.Files {
		e.cleanTemp(path.Dir(f.Path))
	}
	if allAfter {
		r.State = journal.Committed
		r.Notes = append(r.Notes, "recovery: every file was at its new content; the call was rolled forward")
		return j.Update(func(t *journal.Tx) error {
			for _, f := range r.Files {
				if f.After != "" {
					t.SetHead(f.Path, f.After)
					t.SetRead(r.Session, f.Path, f.After)
				}
			}
			return t.Put(r)
		})
	}
	for i, f := range r.Files {
		switch states[i] {
		case atAfter:
			if err := e.restore(j, f, current[i]); err != nil {
				return fmt.Errorf("%s: %w", f.Path, err)
			}
			if f.Before == "" {
				r.Notes = append(r.Notes, fmt.Sprintf("recovery: %s removed (the call had created it)", f.Path))
			} else {
				r.Notes = append(r.Notes, fmt.Sprintf("recovery: %s restored to its prior content", f.Path))
			}
		case elsewhere:
			r.Notes = append(r.Notes, fmt.Sprintf("recovery: %s was changed by someone else; left alone", f.Path))
		}
	}
	r.State = journal.RolledBack
	return j.Update(func(t *journal.Tx) error { return t.Put(r) })
}

// restore puts a file back to its before state from its after state.
func (e *Engine) restore(j *journal.Journal, f journal.File, after []byte) error {
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

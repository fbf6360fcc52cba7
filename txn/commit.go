package txn

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
)

// commit writes planned changes: pending record (synced), the files, committed record
// (synced). A failure part-way rolls back the files already written; if even that
// fails, the record stays pending and the next open's recovery settles it.
func (e *Engine) commit(c *Call, changes []*Change) error {
	c.rec.State = journal.Pending
	for _, ch := range changes {
		ch.hash()
		c.file(fileRecord(ch))
	}
	err := e.j.Update(func(t *journal.Tx) error {
		if err := c.putArgs(t); err != nil {
			return err
		}
		for i, ch := range changes {
			f := &c.rec.Files[len(c.rec.Files)-len(changes)+i]
			// Prior content goes in a blob where splices cannot rebuild it: the file
			// was overwritten whole, or it changed outside vfsctl since its last
			// journaled state.
			if ch.Before != nil && (ch.Op == journal.OpWrite || t.Head(ch.Path) != f.Before) {
				if _, err := t.PutBlob(ch.Before); err != nil {
					return err
				}
				f.BeforeBlob = true
			}
		}
		return t.Put(&c.rec)
	})
	if err != nil {
		c.rec.Seq = 0 // the transaction that reserved it was rolled back
		return errs.Wrap(errs.IOError, "", err, "The journal could not record the change (%v); nothing was written.", err)
	}
	for i, ch := range changes {
		if err := e.writeFile(ch); err != nil {
			// The failing step may have come after the rename (the directory fsync), so
			// the file at fault is rolled back too if it holds its new content.
			rerr := e.rollback(changes[:i+1])
			c.final = true
			c.rec.State = journal.Failed
			c.rec.Kind = string(errs.KindOf(err))
			c.rec.Message = err.Error()
			c.rec.Duration = time.Since(c.start)
			if rerr != nil {
				// Leave the record pending: recovery will settle the files.
				c.rec.State = journal.Pending
				c.rec.Notes = append(c.rec.Notes, "rollback failed: "+rerr.Error())
			}
			e.j.Update(func(t *journal.Tx) error { return t.Put(&c.rec) })
			if len(changes) > 1 {
				return prefixError(fmt.Sprintf("changes[%d] (%s): ", i, ch.Name), err)
			}
			return err
		}
	}
	c.rec.State = journal.Committed
	c.rec.Duration = time.Since(c.start)
	c.final = true
	err = e.j.Update(func(t *journal.Tx) error {
		for _, ch := range changes {
			if err := t.SetHead(ch.Path, ch.afterHash); err != nil {
				return err
			}
			if err := t.SetRead(c.rec.Session, ch.Path, ch.afterHash); err != nil {
				return err
			}
		}
		return t.Put(&c.rec)
	})
	if err != nil {
		// The files are written; the record is pending and recovery rolls it forward.
		return errs.Wrap(errs.IOError, "", err, "The change was written but the journal could not mark it committed (%v); it will be settled when the workspace is next opened.", err)
	}
	for _, ch := range changes {
		ch.Seq = c.rec.Seq
	}
	return nil
}

// hash computes the before and after hashes, side by side: for a large file each is a
// full pass over its bytes.
func (ch *Change) hash() {
	done := make(chan struct{})
	go func() {
		ch.afterHash = journal.Hash(ch.After)
		close(done)
	}()
	if !ch.Created {
		ch.beforeHash = journal.Hash(ch.Before)
	}
	<-done
}

func fileRecord(ch *Change) journal.File {
	f := journal.File{Path: ch.Path, Op: ch.Op, After: ch.afterHash, AfterMode: uint32(ch.mode)}
	if ch.Created {
		f.AfterMode = 0o644
	} else {
		f.Before, f.BeforeMode = ch.beforeHash, uint32(ch.mode)
	}
	if ch.Plan != nil {
		for _, s := range ch.Plan.Splices {
			f.Splices = append(f.Splices, journal.Splice{Start: s.Start, Old: ch.Before[s.Start:s.End], New: s.Text})
		}
		for i, r := range ch.Plan.Edits {
			f.Edits = append(f.Edits, journal.Edit{Index: i, Tier: r.Tier.String(), Gutter: r.Gutter, Folded: r.Folded,
				Lines: r.Lines, ContextLines: r.ContextLines, ContextBytes: r.ContextBytes})
		}
	}
	f.Diff = bounded(ch.Diff())
	return f
}

// writeFile writes one planned change, refusing when the file is no longer what the
// plan was made from.
func (e *Engine) writeFile(ch *Change) error {
	if ch.Created {
		return e.fs.Create(ch.Path, ch.After)
	}
	if same, err := e.fs.SameContent(ch.Path, ch.Before); err != nil || !same {
		return errs.New(errs.Conflict, ch.Name, "%s changed on disk while this call ran; nothing was written. Read it again and resend.", ch.Name)
	}
	return e.fs.Replace(ch.Path, ch.After)
}

// rollback restores the files of a failed commit that hold their new content.
func (e *Engine) rollback(done []*Change) error {
	var all []error
	for i := len(done) - 1; i >= 0; i-- {
		ch := done[i]
		now, rerr := e.fs.ReadCanonical(ch.Path)
		if rerr != nil && ch.Created {
			continue // never created
		}
		if rerr == nil && !bytes.Equal(now, ch.After) {
			continue // never written
		}
		var err error
		if ch.Created {
			err = e.fs.Remove(ch.Path)
		} else {
			err = e.fs.Replace(ch.Path, ch.Before)
		}
		if err != nil {
			all = append(all, fmt.Errorf("%s: %w", ch.Path, err))
		}
	}
	return errors.Join(all...)
}

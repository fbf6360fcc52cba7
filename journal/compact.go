package journal

import (
	"errors"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// compactTxSize bounds each transaction of the copy: a journal of any size is copied
// in steps of this much, not held whole in memory.
const compactTxSize = 64 << 20

// Compact rewrites the journal at path to its live size and returns the file's size
// before and after. bbolt never gives pages back to the file system: pages freed by
// rewrites stay in the file, and pages split while calls were appended stay partly
// empty. The copy packs every bucket's pages full, in key order.
//
// It holds the journal as a call does (waiting at most opts.Wait for another
// process, then running opts.OnOpen, recovery, first), so no process reads or writes
// it meanwhile. The copy is written beside the journal, checked with bbolt's own
// check, synced, and renamed over it; the folder is synced. A crash leaves either the
// old journal or the new one, and at worst a stray copy, which the next Compact
// replaces. Every key and value is copied byte for byte, the meta bucket with the
// identity that ties the journal to its folder (identity.go) included: the folder
// keeps its identity, so the copy is this workspace's own as the original was.
// Records keep the form they were written in (codec.go).
func Compact(path string, opts Options) (before, after int64, err error) {
	j := New(path, opts)
	if err := j.Acquire(); err != nil {
		return 0, 0, err
	}
	defer j.Release()
	return j.compact()
}

func (j *Journal) compact() (before, after int64, err error) {
	d, base := j.dir, filepath.Base(j.path)
	tmp := base + ".compact"
	st, ok := d.stat(base)
	if !ok {
		return 0, 0, errs.New(errs.IOError, "", "The journal %s is gone.", j.showPath())
	}
	before = st.Size
	d.remove(tmp) // a copy an earlier Compact left by crashing: it was never renamed
	fail := func(err error) (int64, int64, error) {
		d.remove(tmp)
		return before, 0, errs.Wrap(errs.IOError, "", err, "Cannot compact the journal %s: %v. It is unchanged.", j.showPath(), err)
	}
	var file *os.File // the copy, for bbolt; a second handle to it, kept past dst.Close
	dst, err := bolt.Open(filepath.Join(filepath.Dir(j.path), tmp), st.perm&0o700, &bolt.Options{
		NoSync: j.opts.NoSync,
		OpenFile: func(_ string, flag int, perm os.FileMode) (*os.File, error) {
			f, err := d.open(tmp, flag|os.O_EXCL, perm)
			if err != nil {
				return nil, err
			}
			file, err = d.open(tmp, os.O_RDWR, 0)
			if err != nil {
				f.Close()
				return nil, err
			}
			return f, nil
		}})
	if err != nil {
		if file != nil {
			file.Close()
		}
		return fail(err)
	}
	err = j.guard(func() error { return bolt.Compact(dst, j.handle(), compactTxSize) })
	if err == nil {
		err = dst.View(func(tx *bolt.Tx) error {
			var all []error
			for err := range tx.Check() {
				all = append(all, err)
			}
			return errors.Join(all...)
		})
	}
	// bbolt grows a file ahead of its pages, doubling up to 1 GiB at a time: the copy
	// ends at its last page.
	var end int64
	if err == nil {
		err = dst.View(func(tx *bolt.Tx) error { end = tx.Size(); return nil })
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = file.Truncate(end)
	}
	if err == nil && !j.opts.NoSync {
		err = file.Sync()
	}
	file.Close()
	if err != nil {
		return fail(err)
	}
	// The old file closes first: bbolt's lock and mapping are on it, not on its name.
	// The journal's own lock (j.lock) stays held until Release.
	j.closeDB()
	if err := d.rename(tmp, base); err != nil {
		return fail(err)
	}
	if !j.opts.NoSync {
		if err := fullSync(d.fd); err != nil {
			return before, 0, errs.Wrap(errs.IOError, "", err, "The journal %s was compacted, but its folder could not be synced: %v.", j.showPath(), err)
		}
	}
	if st, ok := d.stat(base); ok {
		after = st.Size
	}
	return before, after, nil
}

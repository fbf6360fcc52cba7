package journal

import (
	"fmt"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// A journal can arrive with the files: .vfsctl/ committed to a repository, or copied
// in. Its records are then someone else's word, and recovery would act on them. So a
// journal records, when it is created, the identity of the folder that holds it (device
// and inode; the path too, for people), and is used only where that folder is the
// same one and the file belongs to this process's user, as git's safe.directory
// does. A copy (cp -a, a checkout, a restore) makes a new folder: refused until an
// operator adopts it (Adopt). A journal that records no identity (made before
// identities were recorded, or crafted without one) is refused the same way.

// identity is the journal folder's device and inode.
func (j *Journal) identity() (string, error) {
	st, err := statHandle(j.dir.fd)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d:%d", st.Dev, st.Ino), nil
}

func (j *Journal) recordIdentity(meta *bolt.Bucket) error {
	id, err := j.identity()
	if err != nil {
		return err
	}
	if abs, err := filepath.Abs(filepath.Dir(j.path)); err == nil {
		meta.Put([]byte("folder_path"), []byte(abs))
	}
	return meta.Put([]byte("folder"), []byte(id))
}

// checkOwn refuses a journal this workspace did not make (or adopt).
func (j *Journal) checkOwn(meta *bolt.Bucket) error {
	p := j.showPath()
	what := "Nothing in it was read or acted on. If it is this workspace's own, run `vfsctl adopt`; if not, move " + j.showFolder() + " aside (a new journal starts with the next call)."
	if j.file != nil {
		if st, err := statHandle(handle(j.file.Fd())); err == nil && !st.mine {
			return errs.New(errs.IOError, "", "The journal %s belongs to another user (%s). %s", p, st.owner, what)
		}
	}
	id, err := j.identity()
	if err != nil {
		return errs.Wrap(errs.IOError, "", err, "Cannot read the identity of the journal's folder: %v.", err)
	}
	switch rec := string(meta.Get([]byte("folder"))); rec {
	case id:
		return nil
	case "":
		return errs.New(errs.IOError, "", "The journal %s does not say which workspace made it (an older vfsctl, or it was copied in). %s", p, what)
	}
	return errs.New(errs.IOError, "", "The journal %s was made in another folder and copied or checked in here. %s", p, what)
}

// showFolder names the journal's folder in messages.
func (j *Journal) showFolder() string {
	if n := j.folderName(); n != "" {
		return n
	}
	return "the journal"
}

// Adoption is what Adopt found in the journal it adopted.
type Adoption struct {
	Records int // calls recorded
	Pending int // calls left pending, now marked unknown: no file is written for them
	// Unsynced counts the calls listed as written without fsync, now off the list: no
	// file is rolled forward from them.
	Unsynced int
	// Own says the journal was already this workspace's own (made here, by this
	// user): nothing was done to it, and Pending and Unsynced are zero.
	Own bool
}

// settleAdopted takes from an adopted journal everything that would have recovery
// write a working file: its records were written elsewhere, and putting back or
// rolling forward what they name would write content the journal chose into this
// workspace. The calls it left pending are marked unknown, with a note; the calls it
// lists as written without fsync (lazy.go) are taken off that list, which recovery
// would otherwise roll forward from the journal on a machine of another boot. The
// files stay as they are; fsck and log show the calls.
func settleAdopted(t *Tx) error {
	if err := t.clearAllLazy(); err != nil {
		return err
	}
	for _, seq := range t.Pending() {
		r, err := t.Get(seq)
		if err != nil {
			return err
		}
		if r == nil {
			continue
		}
		r.State = Unknown
		r.Notes = append(r.Notes, "adopted: this call was pending in a journal made elsewhere; it was not settled, and no file was written for it")
		if err := t.Put(r); err != nil {
			return err
		}
	}
	return nil
}

// Adopt makes a journal that another folder made (or that records no identity) this
// workspace's own: it is copied into a new file of this process's user, with this
// folder's identity, which replaces it. The marks, temps and log files are dropped
// (they speak of another folder's files) and the side files get a new key. A damaged
// journal is not adopted. Its pending calls are marked unknown, not recovered, and
// its list of calls written without fsync is emptied: adopting never writes a working
// file, and no later recovery writes one from a record made before the adoption.
func (j *Journal) Adopt() (Adoption, error) {
	var a Adoption
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.refs > 0 {
		return a, fmt.Errorf("journal: Adopt while the journal is in use")
	}
	if !j.Exists() {
		return a, errs.New(errs.IOError, "", "There is no journal at %s to adopt.", j.showPath())
	}
	defer j.unlock()
	j.wait = j.opts.Wait
	db, err := j.open(true)
	if err != nil {
		return a, err
	}
	j.db.Store(db)
	defer j.closeDB()
	// The workspace's own journal is left as it is: adopting it again would mark a
	// running process's pending calls unknown and give its side files a new key
	// under it, and that process's end would then find its journal gone.
	err = j.View(func(t *Tx) error {
		if meta := t.tx.Bucket([]byte(bMeta)); meta != nil && j.checkOwn(meta) == nil {
			a.Own = true
			t.b(bRecords).ForEach(func(k, v []byte) error { a.Records++; return nil })
		}
		return nil
	})
	if err != nil || a.Own {
		return a, err
	}
	const tmp = "journal.db.adopt"
	j.dir.remove(tmp)
	out, err := j.dir.open(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return a, err
	}
	defer j.dir.remove(tmp) // a no-op once renamed
	err = j.View(func(t *Tx) error {
		for err := range t.tx.Check() {
			return j.damage(fmt.Sprintf("bbolt's check fails (%v)", err))
		}
		a.Pending, a.Unsynced = len(t.Pending()), len(t.Lazy())
		t.b(bRecords).ForEach(func(k, v []byte) error { a.Records++; return nil })
		_, err := t.tx.WriteTo(out)
		return err
	})
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return a, err
	}
	j.closeDB()

	// The copy gets this folder's identity, then replaces the original.
	base := filepath.Base(j.path)
	err = j.guard(func() error {
		cp, err := bolt.Open(tmp, 0o600, &bolt.Options{OpenFile: func(_ string, flag int, perm os.FileMode) (*os.File, error) {
			return j.dir.open(tmp, flag, perm)
		}})
		if err != nil {
			return err
		}
		defer cp.Close()
		// The original was only read if it is another user's: its copy is brought
		// to this schema here.
		if err := j.checkSchema(cp, false, true); err != nil {
			return err
		}
		return cp.Update(func(tx *bolt.Tx) error {
			meta := tx.Bucket([]byte(bMeta))
			if meta == nil {
				return j.damage("it has no meta bucket")
			}
			if err := j.recordIdentity(meta); err != nil {
				return err
			}
			// A new key for the side files: marks and temps files signed with the
			// old one (a checkout brings them back) speak for the other folder.
			if err := j.makeSideKey(meta); err != nil {
				return err
			}
			return settleAdopted(&Tx{tx: tx})
		})
	})
	if err != nil {
		return a, err
	}
	if err := j.dir.rename(tmp, base); err != nil {
		return a, err
	}
	// The marks and temps files speak of the files of the folder the journal came
	// from: here recovery judges pending calls by the files themselves.
	j.dir.remove("marks")
	j.dir.remove("temps")
	j.dir.remove(walName)
	fullSync(j.dir.fd)
	return a, nil
}

// ForgetIdentity removes the recorded identity, as a journal made before identities
// were recorded lacks it: for tests.
func (t *Tx) ForgetIdentity() error { return t.b(bMeta).Delete([]byte("folder")) }

package journal

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// TestCommitLeaderPanics: when bbolt panics inside a group commit, the leader and
// every call waiting on its batch get an io_error instead of a panic or a hang.
func TestCommitLeaderPanics(t *testing.T) {
	j := open(t, filepath.Join(t.TempDir(), ".vfsctl", "journal.db"))
	release := make(chan struct{})
	errsOut := make(chan error, 3)
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					errsOut <- errs.New(errs.Busy, "", "panicked: %v", p)
				}
			}()
			errsOut <- j.Commit(func(*Tx) error {
				if i == 0 {
					<-release // the others queue behind this batch
				}
				panic("bbolt: page 7 already freed")
			})
		}()
	}
	time.Sleep(50 * time.Millisecond) // let the others queue (not asserted)
	close(release)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("a commit whose leader panicked never returned")
	}
	close(errsOut)
	for err := range errsOut {
		if errs.KindOf(err) != errs.IOError || !strings.Contains(err.Error(), "is damaged") {
			t.Errorf("got %v, want the damage error", err)
		}
	}
}

// TestEmptyJournalIsDamage: a journal.db of 0 bytes is reported, not silently begun
// again.
func TestEmptyJournalIsDamage(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ".vfsctl", "journal.db")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, nil, 0o644)
	j := New(p, Options{Root: dir, Wait: 200 * time.Millisecond})
	err := j.Acquire()
	if err == nil {
		j.Release()
		t.Fatal("a 0-byte journal was opened")
	}
	if !strings.Contains(err.Error(), ".vfsctl/journal.db is damaged: it is empty") {
		t.Errorf("got %v", err)
	}
}

// TestOtherUsersJournal: a journal another user owns is refused, like git's
// safe.directory, until adopted (which makes it a file of this user).
func TestOtherUsersJournal(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the file to another user")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, ".vfsctl", "journal.db")
	j := New(p, Options{Root: dir, Wait: 200 * time.Millisecond})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	j.Release()
	if err := os.Lchown(p, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	err := j.Acquire()
	if err == nil {
		j.Release()
		t.Fatal("another user's journal was opened")
	}
	if !strings.Contains(err.Error(), "belongs to another user (uid 4242)") {
		t.Errorf("got %v", err)
	}
	if _, err := j.Adopt(); err != nil {
		t.Fatal(err)
	}
	if err := j.Acquire(); err != nil {
		t.Fatalf("after adopt: %v", err)
	}
	j.Release()
}

// TestDamagedInLongProcess: a server process that met a journal bbolt panics on while
// opening keeps answering with the damage (not busy after a wait on its own leftover
// lock), and once the file is moved aside it starts a new journal.
func TestDamagedInLongProcess(t *testing.T) {
	dir := keptOpenDir(t)
	p := filepath.Join(dir, ".vfsctl", "journal.db")
	j := New(p, Options{Root: dir, Wait: 5 * time.Second})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	j.Update(func(tx *Tx) error {
		for range 50 {
			if err := tx.Put(&Record{Time: time.Now(), Session: "s", Tool: "read_file", State: Committed, Files: []File{{Path: "a.go", Op: OpRead}}}); err != nil {
				return err
			}
		}
		return nil
	})
	j.Release()
	// Noise over the freelist page, which bbolt reads while opening.
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	meta := 0 // the meta page of the latest transaction
	if le.Uint64(data[4096+64:]) > le.Uint64(data[64:]) {
		meta = 4096
	}
	free := int(le.Uint64(data[meta+48:]))
	for i := free * 4096; i < (free+1)*4096; i++ {
		data[i] = byte(i*31) ^ 0xa5
	}
	os.WriteFile(p, data, 0o644)
	for i := range 2 {
		err := j.Acquire()
		if err == nil {
			j.Release()
			t.Fatalf("open %d: the damaged journal was opened", i)
		}
		if errs.KindOf(err) != errs.IOError || !strings.Contains(err.Error(), ".vfsctl/journal.db is damaged") {
			t.Fatalf("open %d: %v", i, err)
		}
	}
	os.Rename(p, p+".damaged")
	if err := j.Acquire(); err != nil {
		t.Fatalf("after moving the damaged file aside: %v", err)
	}
	j.Release()
}

// TestAdoptOfTheOwnJournalLeavesIt: `vfsctl adopt` run on the workspace's own journal,
// while a process has a call pending in it (an exec whose command still runs), leaves
// the journal as it is. Adopting it again marked the call unknown and replaced the
// file under the process, whose end then found its journal gone.
func TestAdoptOfTheOwnJournalLeavesIt(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ".vfsctl", "journal.db")
	j := New(p, Options{Root: dir, Wait: 5 * time.Second})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	var pending uint64
	if err := j.Update(func(tx *Tx) error {
		r := &Record{Time: time.Now(), Session: "s", Tool: "exec", State: Pending}
		err := tx.Put(r)
		pending = r.Seq
		return err
	}); err != nil {
		t.Fatal(err)
	}
	j.Release()
	before, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	a, err := j.Adopt()
	if err != nil {
		t.Fatal(err)
	}
	if !a.Own || a.Records != 1 || a.Pending != 0 {
		t.Errorf("adopt of the own journal gave %+v; want Own, 1 record, none marked unknown", a)
	}
	after, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Error("adopt replaced the workspace's own journal file")
	}
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	defer j.Release()
	j.View(func(tx *Tx) error {
		if r, _ := tx.Get(pending); r == nil || r.State != Pending {
			t.Errorf("the pending call is now %+v; want it still pending", r)
		}
		return nil
	})
}

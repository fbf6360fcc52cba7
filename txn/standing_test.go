package txn

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/afero"
	bolt "go.etcd.io/bbolt"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/guard"
	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/vfs"
)

// A file the journal-durable mode wrote without fsync, found by the next process's
// recovery as a folder or read-only, is left as found with a note: it used to fail
// recovery, and so every command and call of the workspace, until it was moved.
func TestRollForwardLeavesWhatStandsInTheWay(t *testing.T) {
	for _, c := range []struct {
		name  string
		block func(afero.Fs)
		note  string
	}{
		{"folder", func(m afero.Fs) { m.Remove("a.txt"); m.Mkdir("a.txt", 0o755) }, "left as found"},
		{"read-only", func(m afero.Fs) { afero.WriteFile(m, "a.txt", []byte("alpha\nbeta\n"), 0o444); m.Chmod("a.txt", 0o444) }, "could not be rebuilt from the journal"},
	} {
		t.Run(c.name, func(t *testing.T) {
			mem := afero.NewMemMapFs()
			for p, s := range faultFiles {
				afero.WriteFile(mem, p, []byte(s), 0o644)
			}
			jpath := t.TempDir() + "/journal.db"
			open := func() *Engine {
				e, err := Open(vfs.New(mem, vfs.Options{}), Options{JournalPath: jpath, Durability: DurableJournal,
					CheckpointEvery: 1000, CheckpointInterval: -1})
				if err != nil {
					t.Fatal(err)
				}
				return e
			}
			a := open() // never closed: as a process killed after its reply
			var seq uint64
			if err := do(a, "s", func(cc *Call) error {
				_, err := a.Edit(cc, "a.txt", []matcher.Edit{{OldText: "beta", NewText: "BETA"}}, false)
				seq = cc.Seq()
				return err
			}); err != nil {
				t.Fatal(err)
			}
			c.block(mem)
			// After a restart: in the same boot, recovery leaves such a file alone
			// anyway (TestSameBootLeavesWhatChangedSince).
			b, err := afterRestart(func() (*Engine, error) { return open(), nil })
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if err := read(b, "s2", "b.txt"); err != nil {
				t.Fatalf("a read of another file after recovery: %v", err)
			}
			var rec *journal.Record
			b.View(func(tx *journal.Tx) error { rec, _ = tx.Get(seq); return nil })
			if rec == nil || !strings.Contains(strings.Join(rec.Notes, "\n"), c.note) {
				t.Errorf("record %d's notes do not say %q: %+v", seq, c.note, rec)
			}
			if fi, err := mem.Stat("a.txt"); err != nil || c.name == "folder" && !fi.IsDir() {
				t.Errorf("a.txt was not left as found: %v %v", fi, err)
			}
		})
	}
}

// inAKnownBoot makes the engines t opens run in a boot they can name, where the
// system names none: Wine has no BootId (readBootID), and an engine that cannot tell
// its boot takes every recovery as one after a restart, so the rules of the same boot
// that t checks would never apply.
func inAKnownBoot(t *testing.T) {
	if bootID() != "" {
		return
	}
	was := bootID
	bootID = func() string { return "a boot a test names" }
	t.Cleanup(func() { bootID = was })
}

// After a journal-durable process is killed (not a power loss: the machine did not
// restart), a file its calls wrote and someone then put back, emptied or deleted is
// left as found: the page cache kept what the calls wrote, so the change is someone
// else's. After a restart the same file is rebuilt, as a power loss may have lost it.
func TestSameBootLeavesWhatChangedSince(t *testing.T) {
	inAKnownBoot(t)
	for _, c := range []struct {
		name string
		do   func(afero.Fs)
		want string // a.txt afterwards in the same boot; "" for absent
	}{
		{"put back", func(m afero.Fs) { afero.WriteFile(m, "a.txt", []byte("alpha\nbeta\n"), 0o644) }, "alpha\nbeta\n"},
		{"emptied", func(m afero.Fs) { afero.WriteFile(m, "a.txt", nil, 0o644) }, ""},
		{"deleted", func(m afero.Fs) { m.Remove("a.txt") }, "-"},
	} {
		for _, restarted := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/restarted=%v", c.name, restarted), func(t *testing.T) {
				mem := afero.NewMemMapFs()
				for p, s := range faultFiles {
					afero.WriteFile(mem, p, []byte(s), 0o644)
				}
				jpath := t.TempDir() + "/journal.db"
				open := func() (*Engine, error) {
					return Open(vfs.New(mem, vfs.Options{}), Options{JournalPath: jpath, Durability: DurableJournal,
						CheckpointEvery: 1000, CheckpointInterval: -1})
				}
				a, err := open() // never closed: killed after its reply
				if err != nil {
					t.Fatal(err)
				}
				if err := do(a, "s", func(cc *Call) error {
					_, err := a.Edit(cc, "a.txt", []matcher.Edit{{OldText: "beta", NewText: "BETA"}}, false)
					return err
				}); err != nil {
					t.Fatal(err)
				}
				c.do(mem)
				var b *Engine
				if restarted {
					b, err = afterRestart(open)
				} else {
					b, err = open()
				}
				if err != nil {
					t.Fatal(err)
				}
				defer b.Close()
				if err := read(b, "s2", "b.txt"); err != nil {
					t.Fatal(err)
				}
				got, rerr := afero.ReadFile(mem, "a.txt")
				want := c.want
				if restarted {
					want = "alpha\nBETA\n" // rebuilt from the journal
				}
				switch {
				case want == "-" && rerr == nil:
					t.Errorf("a.txt was brought back: %q", got)
				case want != "-" && (rerr != nil || string(got) != want):
					t.Errorf("a.txt = %q (%v), want %q", got, rerr, want)
				}
			})
		}
	}
}

// A process killed between an edit's pending record and its rename leaves the file as
// the call before left it: written without fsync, and acknowledged. Recovery in the
// same boot takes both calls off the list of unsynced ones, so it must sync the file
// first, or a power loss later loses the acknowledged call with nothing left to say so.
func TestSameBootRecoverySyncsWhatItTakesOffTheList(t *testing.T) {
	inAKnownBoot(t)
	mem := afero.NewMemMapFs()
	for p, s := range faultFiles {
		afero.WriteFile(mem, p, []byte(s), 0o644)
	}
	cfs, err := testutil.NewCrashFs(mem)
	if err != nil {
		t.Fatal(err)
	}
	ffs := &testutil.FaultFs{Fs: cfs}
	jdir := t.TempDir()
	open := func() (*Engine, error) {
		return Open(vfs.New(ffs, vfs.Options{}), Options{JournalPath: filepath.Join(jdir, "journal.db"), NoSync: true,
			Durability: DurableJournal, CheckpointEvery: 1000, CheckpointInterval: -1})
	}
	a, err := open() // never closed: killed
	if err != nil {
		t.Fatal(err)
	}
	if err := edit(a, "s", "a.txt", "beta", "BETA"); err != nil {
		t.Fatal(err)
	}
	// The next call's journal as it stood once its pending record was written: the
	// kill comes there (its rename fails, so the file stays as a kill would leave it).
	var snap []journalFile
	testHookJournaled = func(what string) {
		if what != "pending" || snap != nil {
			return
		}
		for _, name := range []string{"journal.db", "marks", "temps"} {
			if data, err := os.ReadFile(filepath.Join(jdir, name)); err == nil {
				snap = append(snap, journalFile{name, data})
			}
		}
	}
	ffs.SetHook(func(op testutil.Op, name string) error {
		if op == testutil.OpRename {
			return syscall.EIO
		}
		return nil
	})
	err = edit(a, "s", "a.txt", "alpha", "ALPHA")
	ffs.SetHook(nil)
	testHookJournaled = nil
	if err == nil || snap == nil {
		t.Fatalf("the second edit: %v, journal taken: %v", err, snap != nil)
	}
	for _, name := range []string{"journal.db", "marks", "temps"} {
		os.Remove(filepath.Join(jdir, name))
	}
	for _, f := range snap {
		os.WriteFile(filepath.Join(jdir, f.name), f.data, 0o644)
	}

	b, err := open() // the same boot: nothing was lost, nothing is rebuilt
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var lazy []uint64
	var second *journal.Record
	if err := b.View(func(tx *journal.Tx) error {
		lazy = tx.Lazy()
		second, err = tx.Get(2)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(lazy) > 0 || second == nil || second.State != journal.RolledBack {
		t.Fatalf("after recovery: listed unsynced %v, the killed call %+v", lazy, second)
	}
	if n := strings.Join(second.Notes, "\n"); strings.Contains(n, "outside") {
		t.Errorf("the unfinished call's own file is said to have changed outside vfsctl: %s", n)
	}
	if got, _ := afero.ReadFile(mem, "a.txt"); string(got) != "alpha\nBETA\n" {
		t.Fatalf("a.txt = %q after recovery", got)
	}
	// Then the power goes: every state it could leave keeps the acknowledged edit.
	for _, st := range cfs.Rec.CrashStates(cfs.Rec.Len()) {
		if got := string(st.Files["a.txt"]); got != "alpha\nBETA\n" {
			t.Errorf("a power loss after recovery can leave a.txt = %q (%s): the acknowledged edit is lost", got, st.Why)
		}
	}
}

// A file written without fsync and then replaced by a FIFO, a folder or a symlink,
// or whose folder was swapped for a symlink, a FIFO or a file, holds nothing of the
// call's: the checkpoint has nothing to sync there. It used to fail on most of them,
// and so did every later checkpoint, leaving every call after it listed as unsynced.
func TestCheckpointPastAFileReplacedSince(t *testing.T) {
	for _, c := range []struct {
		name    string
		path    string // what is replaced: the file, or its folder
		replace func(p string) error
	}{
		{"fifo", "d/x.txt", mkfifo},
		{"folder", "d/x.txt", func(p string) error { return os.Mkdir(p, 0o755) }},
		{"symlink", "d/x.txt", func(p string) error { return os.Symlink("../b.txt", p) }},
		{"folder a symlink", "d", func(p string) error { return os.Symlink(".", p) }},
		{"folder a fifo", "d", mkfifo},
		{"folder a file", "d", func(p string) error { return os.WriteFile(p, []byte("x\n"), 0o644) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := t.TempDir()
			for p, s := range faultFiles {
				os.WriteFile(filepath.Join(ws, p), []byte(s), 0o644)
			}
			os.Mkdir(filepath.Join(ws, "d"), 0o755)
			os.WriteFile(filepath.Join(ws, "d", "x.txt"), []byte("alpha\nbeta\n"), 0o644)
			fsys, err := vfs.Open(ws, vfs.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { fsys.Close() }) // a folder held open cannot be removed on Windows
			e, err := Open(fsys, Options{Durability: DurableJournal, CheckpointEvery: 1000, CheckpointInterval: -1})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if err := edit(e, "s", "d/x.txt", "beta", "BETA"); err != nil {
				t.Fatal(err)
			}
			if err := edit(e, "s", "b.txt", "one", "ONE"); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(ws, c.path)
			if err := os.RemoveAll(p); err != nil {
				t.Fatal(err)
			}
			if err := c.replace(p); errors.Is(err, errNoFIFO) {
				t.Skip(err)
			} else if err != nil {
				t.Fatal(err)
			}
			if err := e.Checkpoint(); err != nil {
				t.Fatalf("checkpoint: %v", err)
			}
			var lazy []uint64
			e.View(func(tx *journal.Tx) error { lazy = tx.Lazy(); return nil })
			if len(lazy) > 0 {
				t.Errorf("calls %v still listed as unsynced after the checkpoint", lazy)
			}
		})
	}
}

// A FIFO found at a path a dead journal-durable process wrote is left as found, with
// a note: it used to fail recovery, and so every command of the workspace, in the same
// boot and after a restart alike, until it was moved.
func TestRecoveryPastAFIFO(t *testing.T) {
	for _, restarted := range []bool{false, true} {
		t.Run(fmt.Sprintf("restarted=%v", restarted), func(t *testing.T) {
			ws := t.TempDir()
			for p, s := range faultFiles {
				os.WriteFile(filepath.Join(ws, p), []byte(s), 0o644)
			}
			fsys, err := vfs.Open(ws, vfs.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { fsys.Close() }) // a folder held open cannot be removed on Windows
			open := func() (*Engine, error) {
				return Open(fsys, Options{Durability: DurableJournal, CheckpointEvery: 1000, CheckpointInterval: -1})
			}
			a, err := open() // never closed: killed after its reply
			if err != nil {
				t.Fatal(err)
			}
			if err := edit(a, "s", "a.txt", "beta", "BETA"); err != nil {
				t.Fatal(err)
			}
			os.Remove(filepath.Join(ws, "a.txt"))
			if err := mkfifo(filepath.Join(ws, "a.txt")); errors.Is(err, errNoFIFO) {
				t.Skip(err)
			} else if err != nil {
				t.Fatal(err)
			}
			var b *Engine
			if restarted {
				b, err = afterRestart(open)
			} else {
				b, err = open()
			}
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if err := read(b, "s2", "b.txt"); err != nil {
				t.Fatalf("a read of another file after recovery: %v", err)
			}
			var rec *journal.Record
			b.View(func(tx *journal.Tx) error { rec, _ = tx.Get(1); return nil })
			if rec == nil || !strings.Contains(strings.Join(rec.Notes, "\n"), "left as found") {
				t.Errorf("the call's record says nothing of the FIFO: %+v", rec)
			}
			if fi, err := os.Lstat(filepath.Join(ws, "a.txt")); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
				t.Errorf("the FIFO was not left as found: %v %v", fi, err)
			}
		})
	}
}

// Where the journal cannot rebuild a file's chain (its blob gone), same-boot recovery
// still syncs the file as found and the folders on its way before the calls leave the
// list: a create's new folder and name used to stay unsynced, and a power loss then
// lost the acknowledged file.
func TestSameBootUnrebuildableChainSyncsItsFolders(t *testing.T) {
	inAKnownBoot(t)
	mem := afero.NewMemMapFs()
	for p, s := range faultFiles {
		afero.WriteFile(mem, p, []byte(s), 0o644)
	}
	cfs, err := testutil.NewCrashFs(mem)
	if err != nil {
		t.Fatal(err)
	}
	jpath := filepath.Join(t.TempDir(), "journal.db")
	open := func() (*Engine, error) {
		return Open(vfs.New(cfs, vfs.Options{}), Options{JournalPath: jpath, NoSync: true,
			Durability: DurableJournal, CheckpointEvery: 1000, CheckpointInterval: -1})
	}
	a, err := open() // never closed: killed after its reply
	if err != nil {
		t.Fatal(err)
	}
	if err := do(a, "s", func(c *Call) error {
		_, err := a.Create(c, "new/deep/n.txt", []byte("n1\n"))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(jpath, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := hex.DecodeString(journal.Hash([]byte("n1\n")))
	err = db.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte("blobs")).Delete(key) })
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	b, err := open() // the same boot
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := read(b, "s2", "b.txt"); err != nil {
		t.Fatal(err)
	}
	var lazy []uint64
	b.View(func(tx *journal.Tx) error { lazy = tx.Lazy(); return nil })
	if len(lazy) > 0 {
		t.Fatalf("still listed: %v", lazy)
	}
	for _, st := range cfs.Rec.CrashStates(cfs.Rec.Len()) {
		if got := string(st.Files["new/deep/n.txt"]); got != "n1\n" {
			t.Errorf("a power loss after recovery can leave new/deep/n.txt = %q (%s)", got, st.Why)
		}
	}
}

// A call that began before the syntax refusal it repeats had ended cannot have read
// it: it is not insisting, and is refused too (two copies of one call sent at once).
func TestInsistingNeedsTheRefusalRead(t *testing.T) {
	const src = "package main\n\nfunc main() {\n\tprintln(1)\n}\n"
	mem := afero.NewMemMapFs()
	afero.WriteFile(mem, "main.go", []byte(src), 0o644)
	e, err := Open(vfs.New(mem, vfs.Options{}), Options{JournalPath: filepath.Join(t.TempDir(), "journal.db"), Guard: guard.Refuse})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	args := []byte(`{"path":"main.go","edits":[{"oldText":"println(1)","newText":"println(1"}]}`)
	edit := func(c *Call) error {
		_, err := e.Edit(c, "main.go", []matcher.Edit{{OldText: "println(1)", NewText: "println(1"}}, false)
		c.Finish(err)
		return err
	}
	early, err := e.Begin("s", "edit_file", args) // begun before the refusal below
	if err != nil {
		t.Fatal(err)
	}
	first, err := e.Begin("s", "edit_file", args)
	if err != nil {
		t.Fatal(err)
	}
	if err := edit(first); errs.KindOf(err) != errs.SyntaxError {
		t.Fatalf("the first call: %v", err)
	}
	if err := edit(early); errs.KindOf(err) != errs.SyntaxError {
		t.Errorf("a call begun before the refusal was let through: %v", err)
	}
	late, _ := e.Begin("s", "edit_file", args)
	if err := edit(late); err != nil {
		t.Errorf("the same call sent after the refusal: %v", err)
	}
}

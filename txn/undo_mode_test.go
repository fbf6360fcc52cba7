package txn

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
)

// fileAt is a file's bits and content as read from disk ("none" when absent).
func fileAt(t *testing.T, dir, p string) string {
	t.Helper()
	fi, err := os.Lstat(filepath.Join(dir, p))
	if err != nil {
		return "none"
	}
	data, _ := os.ReadFile(filepath.Join(dir, p))
	return fmt.Sprintf("%04o %q", fi.Mode().Perm(), data)
}

// recordState is the state and error kind the journal holds for call seq; nothing of
// the journal may be left pending.
func recordState(t *testing.T, e *Engine, seq uint64) string {
	t.Helper()
	var r *journal.Record
	e.View(func(tx *journal.Tx) error {
		if p := tx.Pending(); len(p) > 0 {
			t.Errorf("calls %v left pending", p)
		}
		r, _ = tx.Get(seq)
		return nil
	})
	if r == nil {
		return "missing"
	}
	return string(r.State) + " " + r.Kind
}

// A command that makes a file read-only (with or without changing its content) is
// taken back whole: the undo puts back the content and the bits it recorded, the redo
// does the command's work again, and a rewind of its turn does the same as the undo.
// The oracle is each file read from disk before the command and after it.
func TestUndoOfACommandThatMadeAFileReadOnly(t *testing.T) {
	for _, tc := range []struct{ name, script string }{
		{"bits only", "chmod 444 k.txt"},
		{"bits and another file", "chmod 444 k.txt; echo n > n.txt"},
		{"content and bits", "echo 3 >> k.txt; chmod a-w k.txt"},
		{"no bits left", "echo 3 >> k.txt; chmod 000 k.txt"},
	} {
		for _, how := range []string{"undo", "rewind"} {
			t.Run(how+" "+tc.name, func(t *testing.T) {
				e, dir := diskEngineWith(t, map[string]string{"k.txt": "keep\n"}, Options{NoSync: true})
				defer e.Close()
				os.Chmod(filepath.Join(dir, "k.txt"), 0o644)
				if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
					t.Fatal(err)
				}
				state := func() string { return fileAt(t, dir, "k.txt") + " " + fileAt(t, dir, "n.txt") }
				before := state()
				look := runExec(t, e, dir, "s", tc.script)
				after := state()
				var seq uint64
				err := do(e, "op", func(c *Call) error {
					var err error
					if how == "undo" {
						_, err = e.Undo(c, UndoOptions{Seq: look.Seq})
					} else {
						_, err = e.Rewind(c, RewindOptions{Session: "s", Turn: "t1"})
					}
					seq = c.Seq()
					return err
				})
				if err != nil {
					t.Fatalf("the %s: %v", how, err)
				}
				if got := state(); got != before {
					t.Errorf("after the %s: %s, want %s", how, got, before)
				}
				if got := recordState(t, e, seq); got != "committed " {
					t.Errorf("the %s's record: %s, want committed", how, got)
				}
				if next, err := e.CheckpointOutside(LookOptions{}); err != nil || next.Seq != 0 {
					t.Errorf("the look after the %s recorded %+v (%v), want nothing", how, next, err)
				}
				if how == "rewind" || tc.name == "no bits left" {
					return // a record keeps bits 0000 as "not kept": its redo cannot set them
				}
				if err := do(e, "op", func(c *Call) error { _, err := e.Undo(c, UndoOptions{Seq: seq, Redo: true}); return err }); err != nil {
					t.Fatalf("the redo: %v", err)
				}
				if got := state(); got != after {
					t.Errorf("after the redo: %s, want %s", got, after)
				}
			})
		}
	}
}

// An undo refused because a file was made read-only since (by someone else, not by
// the call undone) ends failed, with nothing written and nothing left pending: the
// next call works.
func TestRefusedUndoOfAReadOnlyFileEndsFailed(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"k.txt": "keep\n", "n.txt": "n\n"}, Options{NoSync: true})
	defer e.Close()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	look := runExec(t, e, dir, "s", "echo m >> k.txt; echo x >> n.txt")
	os.Chmod(filepath.Join(dir, "k.txt"), 0o444)
	found := fileAt(t, dir, "k.txt") + " " + fileAt(t, dir, "n.txt")
	var seq uint64
	err := do(e, "op", func(c *Call) error {
		_, err := e.Undo(c, UndoOptions{Seq: look.Seq})
		seq = c.Seq()
		return err
	})
	if errs.KindOf(err) != errs.PermissionDenied {
		t.Fatalf("the undo: %v, want permission_denied", err)
	}
	if got := fileAt(t, dir, "k.txt") + " " + fileAt(t, dir, "n.txt"); got != found {
		t.Errorf("the refused undo wrote: %s, was %s", got, found)
	}
	if got := recordState(t, e, seq); got != "failed permission_denied" {
		t.Errorf("the undo's record: %s, want failed permission_denied", got)
	}
	if err := edit(e, "s", "n.txt", "x", "y"); err != nil {
		t.Errorf("the next call: %v", err)
	}
}

// An undo of a command's chmod refused at its write (the file has a second hard link
// since) ends failed, the bits as found: it is never left pending, nor recovered as
// committed because the content was already what the undo writes.
func TestRefusedUndoOfAChmodEndsFailed(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"k.txt": "keep\n"}, Options{NoSync: true})
	os.Chmod(filepath.Join(dir, "k.txt"), 0o644)
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	look := runExec(t, e, dir, "s", "chmod 755 k.txt")
	if err := os.Link(filepath.Join(dir, "k.txt"), filepath.Join(dir, "k2")); err != nil {
		t.Fatal(err)
	}
	var seq uint64
	err := do(e, "op", func(c *Call) error {
		_, err := e.Undo(c, UndoOptions{Seq: look.Seq})
		seq = c.Seq()
		return err
	})
	if errs.KindOf(err) != errs.NotAFile {
		t.Fatalf("the undo: %v, want not_a_file", err)
	}
	if got := recordState(t, e, seq); got != "failed not_a_file" {
		t.Errorf("the undo's record: %s, want failed not_a_file", got)
	}
	e.Close()
	e = diskEngineOn(t, dir, Options{NoSync: true}) // the next process: recovery has nothing to settle
	defer e.Close()
	if got := recordState(t, e, seq); got != "failed not_a_file" {
		t.Errorf("the undo's record after the next open: %s, want failed not_a_file", got)
	}
	if got := fileAt(t, dir, "k.txt"); got != `0755 "keep\n"` {
		t.Errorf("k.txt: %s, want it as the command left it", got)
	}
}

// Recovery never jams the workspace on a read-only file: an undo of two files is
// killed at each of its changes to the disk, both files are made read-only before
// the next open, and that open settles the undo all the same. Where a file it had
// to put back could not be (read-only), the record says so and is not called rolled
// back; the other commands go on.
func TestRecoveryGoesOnPastAReadOnlyFile(t *testing.T) {
	rig := newEntriesRig(t, "echo A > a.txt && echo B > b.txt")
	var total int
	if out := rig.clone(t).undoKilled(t, 0); !strings.HasSuffix(out, " <nil>\n") {
		t.Fatalf("a clean run: %s", out)
	} else if _, err := fmt.Sscanf(out, "steps %d", &total); err != nil || total == 0 {
		t.Fatalf("a clean run: %s", out)
	}
	stuck := 0
	for n := 1; n <= total; n++ {
		r := rig.clone(t)
		r.undoKilled(t, n)
		os.Chmod(filepath.Join(r.dir, "a.txt"), 0o444)
		os.Chmod(filepath.Join(r.dir, "b.txt"), 0o444)
		e := r.open(t, nil)
		var rec *journal.Record
		err := e.View(func(tx *journal.Tx) error {
			if p := tx.Pending(); len(p) > 0 {
				t.Errorf("killed at change %d: calls %v still pending", n, p)
			}
			if tx.Last() > r.last {
				rec, _ = tx.Get(tx.Last())
			}
			return nil
		})
		if err != nil {
			t.Fatalf("killed at change %d: the next open: %v", n, err)
		}
		a, b := fileAt(t, r.dir, "a.txt"), fileAt(t, r.dir, "b.txt")
		undone := a == `0444 "a\n"` && b == `0444 "b\n"`
		if rec != nil && rec.State == journal.Unknown {
			stuck++
			if !slices.ContainsFunc(rec.Notes, func(s string) bool { return strings.Contains(s, "could not be put back") }) {
				t.Errorf("killed at change %d: the undo is unknown, its notes say not why: %q", n, rec.Notes)
			}
		}
		if rec != nil && rec.State == journal.RolledBack && (a != `0444 "A\n"` || b != `0444 "B\n"`) {
			t.Errorf("killed at change %d: the undo is rolled back, the files are %s and %s", n, a, b)
		}
		if rec != nil && rec.State == journal.Committed && !undone {
			t.Errorf("killed at change %d: the undo is committed, the files are %s and %s", n, a, b)
		}
		if err := edit(e, "s", "keep/k.txt", "k", "K"); err != nil {
			t.Errorf("killed at change %d: the next call: %v", n, err)
		}
		e.Close()
	}
	if stuck == 0 {
		t.Errorf("no kill left a file to put back: the test tested nothing")
	}
}

// The undo of a rewind puts a file back with the bits it had when the rewind removed
// it: a file the turns made, then a command of a later turn made 0600 (a secret) or
// executable. The rewind's record took the bits the file was created with, so the
// undo gave back a 0600 secret as 0644.
func TestUndoOfARewindKeepsTheBitsACommandGave(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows keeps no permission bits but read-only")
	}
	for _, bits := range []os.FileMode{0o600, 0o755} {
		t.Run(fmt.Sprintf("%04o", bits), func(t *testing.T) {
			e, dir := diskEngineWith(t, map[string]string{}, Options{NoSync: true})
			defer e.Close()
			must(t, turnCreate(e, "S", "t0", ".env", "TOKEN=secret\n"))
			x, err := e.BeginExec("S", "t1", ExecArgs{Argv: []string{"chmod", fmt.Sprintf("%o", bits), ".env"}, Cwd: "."}, LookOptions{})
			must(t, err)
			must(t, os.Chmod(filepath.Join(dir, ".env"), bits)) // the command
			_, err = x.End("exit 0")
			must(t, err)
			before := fileAt(t, dir, ".env")
			must(t, rewindTo(e, "S", "t0", false))
			if got := fileAt(t, dir, ".env"); got != "none" {
				t.Fatalf("after the rewind .env is %s; want it gone", got)
			}
			must(t, do(e, "op", func(c *Call) error { _, err := e.Undo(c, UndoOptions{}); return err }))
			if got := fileAt(t, dir, ".env"); got != before {
				t.Errorf("after the undo of the rewind .env is %s; want %s, as before the rewind", got, before)
			}
		})
	}
}

// A rewind of a folder the turns made for a file, whose bits a command of a later
// turn changed, removes the folder and can be undone: the undo makes it again with
// those bits. The rewind once recorded a step giving the folder back its first bits
// before removing it, and its undo was refused ("n11 is no longer as the command
// left it"), though only the rewind had touched it.
func TestUndoOfARewindOfAFolderACommandMadePrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows keeps no permission bits on folders")
	}
	e, dir := diskEngineWith(t, map[string]string{}, Options{NoSync: true})
	defer e.Close()
	must(t, turnCreate(e, "S", "t1", "n11/c.txt", "c\n"))
	x, err := e.BeginExec("S", "t3", ExecArgs{Argv: []string{"chmod", "700", "n11"}, Cwd: "."}, LookOptions{})
	must(t, err)
	must(t, os.Chmod(filepath.Join(dir, "n11"), 0o700)) // the command
	_, err = x.End("exit 0")
	must(t, err)
	state := func() string { return folderAt(t, dir, "n11") + " " + fileAt(t, dir, "n11/c.txt") }
	before := state()
	must(t, rewindTo(e, "S", "t1", false))
	if got := state(); got != "none none" {
		t.Fatalf("after the rewind: %s; want n11 gone", got)
	}
	must(t, do(e, "op", func(c *Call) error { _, err := e.Undo(c, UndoOptions{}); return err }))
	if got := state(); got != before {
		t.Errorf("after the undo of the rewind: %s; want %s", got, before)
	}
}

// folderAt is a folder's bits, or "none".
func folderAt(t *testing.T, dir, p string) string {
	t.Helper()
	fi, err := os.Lstat(filepath.Join(dir, p))
	if err != nil || !fi.IsDir() {
		return "none"
	}
	return fmt.Sprintf("%04o", fi.Mode().Perm())
}

// The undo of an outside record that removed private folders (rm -rf p by hand) makes
// them again with the bits they had, as the undo of a command's does: they were made
// 0755 before, a 0700 folder's files then readable by all. A folder a call removed
// is the call's, not the outside record's.
func TestUndoOfAnOutsideRemovalMakesItsFoldersWithTheirBits(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows keeps no permission bits but read-only")
	}
	e, dir := diskEngineWith(t, map[string]string{"p/q/x": "x\n", "p/y": "y\n", "keep.txt": "k\n"}, Options{NoSync: true})
	defer e.Close()
	must(t, os.Mkdir(filepath.Join(dir, "c"), 0o755))
	must(t, os.Chmod(filepath.Join(dir, "p/q"), 0o750))
	must(t, os.Chmod(filepath.Join(dir, "p"), 0o700))
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	must(t, turnDelete(e, "s", "t1", "c"))
	must(t, os.RemoveAll(filepath.Join(dir, "p")))
	look, err := e.CheckpointOutside(LookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var entries []string
	for _, en := range recordOf(t, e, look.Seq).Entries {
		entries = append(entries, fmt.Sprintf("%s %s->%s", en.Path, en.Before, en.After))
	}
	if want := []string{"p dir->", "p/q dir->"}; !slices.Equal(entries, want) {
		t.Errorf("the outside record's entries: %v, want %v", entries, want)
	}
	must(t, undoSeq(e, look.Seq))
	// The oracle: the bits and contents the test gave them.
	for p, want := range map[string]os.FileMode{"p": 0o700, "p/q": 0o750} {
		if fi, err := os.Stat(filepath.Join(dir, p)); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s after the undo: %v %v, want %04o", p, fi.Mode(), err, want)
		}
	}
	for p, want := range map[string]string{"p/q/x": "x\n", "p/y": "y\n"} {
		if b, err := os.ReadFile(filepath.Join(dir, p)); err != nil || string(b) != want {
			t.Errorf("%s after the undo: %q %v", p, b, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "c")); !os.IsNotExist(err) {
		t.Errorf("c, which a call removed, after the undo: %v", err)
	}
}

// A command's chmod alone of a file over the snapshot's size limit (kept by hash
// only): its undo, redo and the turn's rewind set the bits back in place, where they
// failed as io_error (no content to write back). A file whose content changed since is
// not the one the command left: refused, its bits kept.
func TestUndoOfAChmodOfAFileOverTheSizeLimit(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows keeps no permission bits but read-only")
	}
	big := strings.Repeat("0123456789\n", 20) // over the limit below
	o := LookOptions{MaxFile: 64}
	setup := func(t *testing.T) (*Engine, string, uint64) {
		e, dir := diskEngineWith(t, map[string]string{"big.bin": big}, Options{NoSync: true})
		must(t, os.Chmod(filepath.Join(dir, "big.bin"), 0o644))
		if _, err := e.CheckpointOutside(o); err != nil {
			t.Fatal(err)
		}
		x, err := e.BeginExec("s", "t1", ExecArgs{Argv: []string{"chmod", "600", "big.bin"}, Cwd: "."}, o)
		if err != nil {
			t.Fatal(err)
		}
		must(t, os.Chmod(filepath.Join(dir, "big.bin"), 0o600))
		if _, err := x.End("exit 0"); err != nil {
			t.Fatal(err)
		}
		return e, dir, x.Seq()
	}
	bits := func(t *testing.T, dir string) os.FileMode {
		t.Helper()
		fi, err := os.Stat(filepath.Join(dir, "big.bin"))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	t.Run("undo and redo", func(t *testing.T) {
		e, dir, seq := setup(t)
		defer e.Close()
		u, err := undoRedo(e, seq, false)
		if err != nil {
			t.Fatalf("undo of the chmod: %v", err)
		}
		if got := bits(t, dir); got != 0o644 {
			t.Errorf("bits after the undo: %04o, want 0644", got)
		}
		if _, err := undoRedo(e, u, true); err != nil {
			t.Fatalf("redo: %v", err)
		}
		if got := bits(t, dir); got != 0o600 {
			t.Errorf("bits after the redo: %04o, want 0600", got)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "big.bin")); string(b) != big {
			t.Errorf("the content changed: %d bytes", len(b))
		}
	})
	t.Run("rewind", func(t *testing.T) {
		e, dir, _ := setup(t)
		defer e.Close()
		if err := rewindTo(e, "s", "t1", false); err != nil {
			t.Fatalf("rewind: %v", err)
		}
		if got := bits(t, dir); got != 0o644 {
			t.Errorf("bits after the rewind: %04o, want 0644", got)
		}
	})
	t.Run("content changed since", func(t *testing.T) {
		e, dir, seq := setup(t)
		defer e.Close()
		must(t, os.WriteFile(filepath.Join(dir, "big.bin"), []byte(big+"more\n"), 0o600))
		err := undoSeq(e, seq)
		if errs.KindOf(err) != errs.Conflict || !strings.Contains(err.Error(), "changed outside vfsctl") {
			t.Errorf("undo of a chmod of a file changed since: %v, want a conflict that says so", err)
		}
		if got := bits(t, dir); got != 0o600 {
			t.Errorf("bits after the refused undo: %04o, want 0600", got)
		}
	})
}

// The undo of a command's chmod, whose bits a later call changed again, is refused
// naming that call and the undo to run first, as a refused undo of content does; with
// no call to name (the bits changed outside vfsctl, unseen), it says what to do.
func TestRefusedUndoOfAChmodNamesWhatIsInTheWay(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows keeps no permission bits but read-only")
	}
	for _, size := range []string{"small", "over the size limit"} {
		o := LookOptions{}
		content := "keep\n"
		if size != "small" {
			o.MaxFile = 64
			content = strings.Repeat("0123456789\n", 20)
		}
		chmod := func(t *testing.T, e *Engine, dir string, bits os.FileMode) uint64 {
			t.Helper()
			x, err := e.BeginExec("s", "t1", ExecArgs{Argv: []string{"chmod", fmt.Sprintf("%o", bits), "k.txt"}, Cwd: "."}, o)
			must(t, err)
			must(t, os.Chmod(filepath.Join(dir, "k.txt"), bits)) // the command
			_, err = x.End("exit 0")
			must(t, err)
			return x.Seq()
		}
		setup := func(t *testing.T) (*Engine, string, uint64) {
			e, dir := diskEngineWith(t, map[string]string{"k.txt": content}, Options{NoSync: true})
			must(t, os.Chmod(filepath.Join(dir, "k.txt"), 0o644))
			_, err := e.CheckpointOutside(o)
			must(t, err)
			return e, dir, chmod(t, e, dir, 0o600)
		}
		t.Run(size+" later call", func(t *testing.T) {
			e, dir, seq := setup(t)
			defer e.Close()
			later := chmod(t, e, dir, 0o640)
			err := undoSeq(e, seq)
			if want := fmt.Sprintf("Undo call %d first", later); errs.KindOf(err) != errs.Conflict || !strings.Contains(err.Error(), want) {
				t.Errorf("undo of call %d, whose bits call %d changed since: %v; want a conflict that says %q", seq, later, err, want)
			}
			if got := fileAt(t, dir, "k.txt"); !strings.HasPrefix(got, "0640 ") {
				t.Errorf("k.txt after the refused undo: %s, want 0640", got)
			}
		})
		t.Run(size+" outside", func(t *testing.T) {
			e, dir, seq := setup(t)
			defer e.Close()
			must(t, os.Chmod(filepath.Join(dir, "k.txt"), 0o640))
			err := undoSeq(e, seq)
			if want := "chmod 600 k.txt"; errs.KindOf(err) != errs.Conflict || !strings.Contains(err.Error(), want) {
				t.Errorf("undo of call %d, whose bits changed since outside vfsctl: %v; want a conflict that says %q", seq, err, want)
			}
			if got := fileAt(t, dir, "k.txt"); !strings.HasPrefix(got, "0640 ") {
				t.Errorf("k.txt after the refused undo: %s, want 0640", got)
			}
			must(t, os.Chmod(filepath.Join(dir, "k.txt"), 0o600)) // the step it names
			if err := undoSeq(e, seq); err != nil {
				t.Fatalf("the undo after the chmod it named: %v", err)
			}
			if got := fileAt(t, dir, "k.txt"); !strings.HasPrefix(got, "0644 ") {
				t.Errorf("k.txt after the undo: %s, want 0644", got)
			}
		})
	}
}

//go:build !windows

package txn

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An undo, redo or rewind goes through a folder whose bits deny its owner writing in
// it now (chmod 555) when the calls taken back name that folder: one whose bits they
// changed (it stays, and gets its old bits back) or that they made (it goes). The
// folder is opened for its owner first and gets its final bits once what it holds is
// settled. Before, for a user who is not root (root ignores the bits), the files in it
// were written or removed while it was still read-only, and the undo failed. It runs
// as nobody when the test runs as root.
func TestUndoGoesThroughAFolderTheCallsMadeReadOnly(t *testing.T) {
	if rerunAsNobody(t) {
		return
	}
	shapes := []struct {
		name   string
		files  map[string]string
		before []string // scripts run first, each as its own turn
		script string
	}{
		{name: "bits changed", files: map[string]string{"d/f": "a\n", "d/g": "g\n"}, script: "echo b > d/f && rm d/g && echo n > d/new && chmod 555 d"},
		{name: "folders made", files: map[string]string{"keep.txt": "k\n"}, script: "mkdir -p ro/sub && echo x > ro/f && echo y > ro/sub/g && ln -s f ro/link && chmod 555 ro/sub ro"},
		{name: "folders made, removed and put back", files: map[string]string{"keep.txt": "k\n"},
			before: []string{"mkdir -p ro/sub && echo x > ro/f && echo y > ro/sub/g && chmod 555 ro/sub ro", "chmod 755 ro ro/sub && rm -rf ro"}},
	}
	for _, sh := range shapes {
		for _, how := range []string{"undo", "rewind"} {
			if how == "rewind" && sh.before != nil {
				continue // a rewind to the first turn takes back both: the folders neither stand nor go
			}
			t.Run(sh.name+"/"+how, func(t *testing.T) {
				e, dir := diskEngineWith(t, sh.files, Options{NoSync: true})
				writableAgain(t, dir)
				defer e.Close()
				if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
					t.Fatal(err)
				}
				before := tree(t, dir)
				var look *Look
				if sh.before == nil {
					look = execTurn(t, e, dir, "t1", sh.script)
				} else {
					// The second removes what the first made; its undo puts it back,
					// read-only: the first is then taken back through it.
					look = execTurn(t, e, dir, "t1", sh.before[0])
					gone := execTurn(t, e, dir, "t2", sh.before[1])
					must(t, undoSeq(e, gone.Seq))
				}
				after := tree(t, dir)
				if !strings.Contains(fmt.Sprint(after), "dir 0555") {
					t.Fatalf("the command left no read-only folder: %v", after)
				}
				var self uint64
				var err error
				if how == "undo" {
					self, err = undoRedo(e, look.Seq, false)
				} else {
					err = do(e, "op", func(c *Call) error {
						self = c.Seq()
						_, err := e.Rewind(c, RewindOptions{Session: "s", Turn: "t1"})
						return err
					})
				}
				if err != nil {
					t.Fatalf("the %s: %v", how, err)
				}
				if got := tree(t, dir); !same(got, before) {
					t.Fatalf("after the %s:\n got  %v\n want %v", how, got, before)
				}
				// The way back: a redo of the undo, an undo of the rewind.
				if how == "undo" {
					_, err = undoRedo(e, self, true)
				} else {
					err = undoSeq(e, self)
				}
				if err != nil {
					t.Fatalf("taking the %s back: %v", how, err)
				}
				if got := tree(t, dir); !same(got, after) {
					t.Fatalf("after taking the %s back:\n got  %v\n want %v", how, got, after)
				}
			})
		}
	}
}

// A folder the calls taken back do not name, made read-only since by someone else,
// is theirs to open: the undo or rewind that would write in it is refused, naming the
// folder and what to run, and nothing changes. Once opened, the undo goes through.
func TestUndoRefusesAFolderOthersMadeReadOnly(t *testing.T) {
	if rerunAsNobody(t) {
		return
	}
	for _, how := range []string{"undo", "rewind"} {
		t.Run(how, func(t *testing.T) {
			e, dir := diskEngineWith(t, map[string]string{"d/f": "a\n", "d/g": "g\n"}, Options{NoSync: true})
			writableAgain(t, dir)
			defer e.Close()
			if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
				t.Fatal(err)
			}
			before := tree(t, dir)
			look := execTurn(t, e, dir, "t1", "echo b > d/f && rm d/g && echo n > d/new")
			if err := os.Chmod(filepath.Join(dir, "d"), 0o555); err != nil { // outside vfsctl
				t.Fatal(err)
			}
			want := tree(t, dir)
			run := func() error {
				if how == "undo" {
					return undoSeq(e, look.Seq)
				}
				return rewindTo(e, "s", "t1", false)
			}
			dry := func() error {
				if how == "undo" {
					return do(e, "op", func(c *Call) error {
						_, err := e.Undo(c, UndoOptions{Seq: look.Seq, DryRun: true})
						return err
					})
				}
				return rewindTo(e, "s", "t1", true)
			}
			for _, err := range []error{dry(), run()} {
				if err == nil || !strings.Contains(err.Error(), "d is not writable (mode 0555)") || !strings.Contains(err.Error(), "run `chmod u+w d` first, then "+how+" again") {
					t.Fatalf("the %s through a folder made read-only since: %v, want a refusal naming d and what to run", how, err)
				}
			}
			if got := tree(t, dir); !same(got, want) {
				t.Fatalf("the refused %s changed the tree:\n got  %v\n want %v", how, got, want)
			}
			if err := os.Chmod(filepath.Join(dir, "d"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := run(); err != nil {
				t.Fatalf("the %s once d is writable again: %v", how, err)
			}
			if got := tree(t, dir); !same(got, before) {
				t.Fatalf("after the %s:\n got  %v\n want %v", how, got, before)
			}
		})
	}
}

// An undo, rewind or redo through folders made read-only, as the test above takes
// back, is killed (SIGKILL) at each of its changes to the disk, with
// killEachStepOfUndo's oracle: once recovered, the tree is the one before it or the
// one after it, bits included, as the journal says. A folder opened for what it
// holds is never left with bits neither end has. By default the undo of a command
// that does both, and the redo of the undo of the one that makes folders (their
// bits come after the symlink in them); the full run (VFSCTL_FULL=1) adds the rest.
func TestKillAtEachStepOfAnUndoThroughAReadOnlyFolder(t *testing.T) {
	if rerunAsNobody(t) {
		return
	}
	const changed = "echo A > keep/k.txt && echo n > keep/n.txt && rm full/x.txt && chmod 555 keep full"
	const made = "mkdir -p ro/sub && echo x > ro/f && echo y > ro/sub/g && ln -s f ro/link && chmod 555 ro/sub ro"
	scripts := []string{changed + " && " + made, changed, made}
	for _, how := range []string{"undo", "rewind", "redo"} {
		for i, script := range scripts {
			if !full() && !(how == "undo" && i == 0 || how == "redo" && i == 2) {
				continue
			}
			t.Run(how+" "+script, func(t *testing.T) {
				writableAgain(t, filepath.Dir(t.TempDir())) // the copies killEachStepOfUndo makes
				killEachStepOfUndo(t, newEntriesRigFor(t, script, how))
			})
		}
	}
}

// The undo of a create whose folder the create made, in a folder someone made
// read-only since, takes the file back and leaves the made folder (its removal is
// best effort, as it always was), rather than refusing for a folder it does not need
// to write in. It runs as nobody when the test runs as root.
func TestUndoOfACreateBelowAFolderOthersMadeReadOnly(t *testing.T) {
	if rerunAsNobody(t) {
		return
	}
	e, dir := diskEngineWith(t, map[string]string{"new/keep.txt": "k\n"}, Options{NoSync: true})
	writableAgain(t, dir)
	defer e.Close()
	var seq uint64
	must(t, do(e, "s", func(c *Call) error {
		_, err := e.Create(c, "new/sub/f.txt", []byte("f\n"))
		seq = c.Seq()
		return err
	}))
	if err := os.Chmod(filepath.Join(dir, "new"), 0o555); err != nil { // outside vfsctl
		t.Fatal(err)
	}
	if err := undoSeq(e, seq); err != nil {
		t.Fatalf("the undo of the create: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "new", "sub", "f.txt")); !os.IsNotExist(err) {
		t.Fatalf("new/sub/f.txt is still there after its create's undo: %v", err)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "new", "sub")); err != nil || !fi.IsDir() {
		t.Fatalf("new/sub, which new's bits keep from going, is not there: %v", err)
	}
}

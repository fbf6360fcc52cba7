package txn

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/vfs"
)

// folderBytes reads every file of a folder, by name.
func folderBytes(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	ents, _ := os.ReadDir(dir)
	for _, en := range ents {
		b, err := os.ReadFile(filepath.Join(dir, en.Name()))
		if err == nil {
			out[en.Name()] = b
		}
	}
	return out
}

// A command that removes the journal's folder, or moves it away and leaves another in
// its place, ends with the journal said to be gone: nothing is recorded, no journal is
// made anew in the workspace, and the moved journal (outside the root) is not written.
func TestExecWhoseJournalIsGoneWritesNoJournal(t *testing.T) {
	for _, tc := range []struct{ name, script string }{
		{"removed", "rm -rf .vfsctl && echo b > b.txt"},
		{"replaced", "mv .vfsctl \"$AWAY\" && mkdir .vfsctl && echo b > b.txt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, dir := diskEngineWith(t, map[string]string{"a.txt": "a\n"}, Options{NoSync: true})
			defer e.Close()
			away := filepath.Join(t.TempDir(), "away")
			if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
				t.Fatal(err)
			}
			x, err := e.BeginExec("s", "", ExecArgs{Argv: []string{"sh", "-c", tc.script}}, LookOptions{})
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("sh", "-c", tc.script)
			cmd.Dir, cmd.Env = dir, append(os.Environ(), "AWAY="+away)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v", out, err)
			}
			moved := folderBytes(t, away)
			_, err = x.End("exit 0")
			if err == nil || !strings.Contains(err.Error(), "The journal .vfsctl/journal.db is gone") {
				t.Fatalf("End: %v, want the journal said to be gone", err)
			}
			if ents, _ := os.ReadDir(filepath.Join(dir, ".vfsctl")); len(ents) != 0 {
				t.Errorf(".vfsctl after End holds %d entries, want none (no new journal)", len(ents))
			}
			for name, b := range folderBytes(t, away) {
				if !bytes.Equal(b, moved[name]) {
					t.Errorf("the journal moved outside the root was written: %s changed", name)
				}
			}
		})
	}
}

// A command that changes a file and makes it unreadable: the look goes on, records
// the other files it changed, and says which file it could not read (which keeps its
// last known state until a look can read it).
func TestExecPastAFileMadeUnreadable(t *testing.T) {
	got := asNobody(t, "execunreadable", execUnreadableRun)
	if got != "ok: g.txt; f.txt could not be read; it keeps its last known state" {
		t.Fatal(got)
	}
}

func execUnreadableRun(ws string) string {
	fs, err := vfs.Open(ws, vfs.Options{})
	if err != nil {
		return "err " + err.Error()
	}
	e, err := Open(fs, Options{NoSync: true})
	if err != nil {
		return "err " + err.Error()
	}
	defer e.Close()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		return "checkpoint: " + err.Error()
	}
	x, err := e.BeginExec("s", "", ExecArgs{Argv: []string{"script"}}, LookOptions{})
	if err != nil {
		return "begin: " + err.Error()
	}
	cmd := exec.Command("sh", "-c", "echo two > f.txt && chmod 000 f.txt && echo g > g.txt")
	cmd.Dir = ws
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Sprintf("script: %v %s", err, out)
	}
	look, err := x.End("exit 0")
	if err != nil {
		return "end: " + err.Error()
	}
	return fmt.Sprintf("ok: %s; %s", strings.Join(journalPaths(look.Files), ","), strings.Join(look.Notes, "; "))
}

func journalPaths(files []journal.File) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out
}

// A call another process commits on the same file while the command runs, on other
// lines: whether the command changed the file before the call or after it, the exec's
// record holds the command's lines only, so undoing the exec keeps the call's change,
// and undoing the call keeps the command's.
func TestExecBesideACallOnTheSameFile(t *testing.T) {
	for _, cmdFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("command first %v", cmdFirst), func(t *testing.T) {
			e, dir := diskEngineWith(t, map[string]string{"f.txt": "one\ntwo\nthree\nfour\nfive\n"}, Options{NoSync: true})
			defer e.Close()
			if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
				t.Fatal(err)
			}
			x, err := e.BeginExec("s", "", ExecArgs{Argv: []string{"sed"}}, LookOptions{})
			if err != nil {
				t.Fatal(err)
			}
			sed := func() {
				if out, err := exec.Command("sed", "-i", "s/four/FOUR/", filepath.Join(dir, "f.txt")).CombinedOutput(); err != nil {
					t.Fatalf("%s %v", out, err)
				}
			}
			if cmdFirst {
				sed()
			}
			if err := edit(e, "other", "f.txt", "one\n", "ONE\n"); err != nil {
				t.Fatal(err)
			}
			if !cmdFirst {
				sed()
			}
			look, err := x.End("exit 0")
			if err != nil {
				t.Fatal(err)
			}
			if len(look.Files) != 1 || !strings.Contains(look.Files[0].Diff, "+FOUR") || strings.Contains(look.Files[0].Diff, "+ONE") {
				t.Fatalf("the exec's files: %+v, want f.txt's line 4 alone", look.Files)
			}
			if err := do(e, "op", func(c *Call) error { _, err := e.Undo(c, UndoOptions{Seq: look.Seq}); return err }); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(got) != "ONE\ntwo\nthree\nfour\nfive\n" {
				t.Errorf("after undoing the exec: %q, want the call's line 1 kept", got)
			}
		})
	}
}

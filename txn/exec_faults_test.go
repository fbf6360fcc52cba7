package txn

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/winetest"
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
			winetest.NeedPOSIXShell(t)
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
// the other files it changed and the file's new bits, and says which file it could
// not read (whose content keeps its last known state until a look can read it).
func TestExecPastAFileMadeUnreadable(t *testing.T) {
	winetest.NeedPOSIXShell(t)
	checkAsNobody(t, execUnreadableRun, "ok: f.txt,g.txt; f.txt: mode 0644 -> 0000; f.txt could not be read; it keeps its last known state")
}

func execUnreadableRun(ws string) string {
	e, look, failed := execScript(ws, "echo two > f.txt && chmod 000 f.txt && echo g > g.txt")
	if failed != "" {
		return failed
	}
	defer e.Close()
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
			winetest.NeedPOSIXShell(t)
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

// A command writes a file over the size limit (sparse: 2 GB in the full run, 64 MB
// over a 1 MB limit otherwise): it is recorded by hash only, said not restorable, and
// hashed as a stream, never read into memory.
func TestExecOfAHugeFileHashesItWithoutHoldingIt(t *testing.T) {
	size, o := int64(64<<20), LookOptions{MaxFile: 1 << 20}
	if full() {
		size, o = 2<<30, LookOptions{}
	}
	e, dir := diskEngineWith(t, map[string]string{"a.txt": "a\n"}, Options{NoSync: true})
	defer e.Close()
	if _, err := e.CheckpointOutside(o); err != nil {
		t.Fatal(err)
	}
	x, err := e.BeginExec("s", "", ExecArgs{Argv: []string{"truncate"}}, o)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	look, err := x.End("exit 0")
	runtime.ReadMemStats(&m1)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > uint64(size/8) {
		t.Errorf("the look allocated %d bytes for a file of %d: it was read into memory", alloc, size)
	}
	if len(look.Files) != 1 || look.Files[0].Path != "big.bin" || look.Files[0].AfterBlob || look.Files[0].After == "" ||
		!slices.ContainsFunc(look.Notes, func(n string) bool { return strings.Contains(n, "big.bin is over the snapshot's size limit") }) {
		t.Fatalf("the exec's look: %+v %v", look.Files, look.Notes)
	}
}

// A command that makes the workspace exceed the entry limit (200,000 files in the
// full run, 100 over a limit of 50 otherwise): the exec's end is refused with the
// count, the record says so (state unknown), and the snapshot is left as it was, so
// that nothing is recorded halfway: once the files are gone, a look finds nothing
// changed.
func TestExecOverTheEntryLimitSaysTheCount(t *testing.T) {
	n, o := 100, LookOptions{MaxEntries: 50}
	if full() {
		n, o = 200_000, LookOptions{}
	}
	e, dir := diskEngineWith(t, map[string]string{"a.txt": "a\n"}, Options{NoSync: true})
	defer e.Close()
	if _, err := e.CheckpointOutside(o); err != nil {
		t.Fatal(err)
	}
	x, err := e.BeginExec("s", "", ExecArgs{Argv: []string{"gen"}}, o)
	if err != nil {
		t.Fatal(err)
	}
	gen := filepath.Join(dir, "gen")
	os.Mkdir(gen, 0o755)
	for i := range n {
		if err := os.WriteFile(filepath.Join(gen, fmt.Sprint(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err = x.End("exit 0")
	limit := o.MaxEntries
	if limit == 0 {
		limit = vfs.DefaultSnapshotMaxEntries
	}
	want := fmt.Sprintf("The workspace holds %d entries, over the snapshot limit of %d", n+2, limit)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("End: %v, want %q", err, want)
	}
	var rec *journal.Record
	e.View(func(tx *journal.Tx) error { rec, _ = tx.Get(x.Seq()); return nil })
	if rec == nil || rec.State != journal.Unknown || !slices.ContainsFunc(rec.Notes, func(s string) bool { return strings.Contains(s, want) }) {
		t.Fatalf("the exec's record: %+v", rec)
	}
	os.RemoveAll(gen)
	look, err := e.CheckpointOutside(o)
	if err != nil || look.Seq != 0 {
		t.Fatalf("the look once the files are gone: %+v %v, want nothing changed", look, err)
	}
}

// A command that makes a FIFO and swaps a folder for a symlink to a folder outside
// the root: the look neither opens the FIFO nor follows the symlink, records the
// folder's file as deleted and names the FIFO and the symlink; undoing the exec
// writes nothing through the symlink: it removes it, and puts the folder and its file
// back.
func TestExecThatMakesAFIFOAndSwapsAFolderForASymlink(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"d/x.txt": "x\n", "a.txt": "a\n"}, Options{NoSync: true})
	defer e.Close()
	out := t.TempDir()
	os.WriteFile(filepath.Join(out, "theirs.txt"), []byte("theirs\n"), 0o644)
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	look := runExec(t, e, dir, "s", "mkfifo p && rm -rf d && ln -s "+out+" d")
	if len(look.Files) != 1 || look.Files[0].Path != "d/x.txt" || look.Files[0].Op != journal.OpDelete {
		t.Fatalf("the exec's files: %+v, want d/x.txt deleted", look.Files)
	}
	notes := strings.Join(look.Notes, "\n")
	for _, want := range []string{"p: a fifo was made", "d: a dir is now a symlink -> " + out} {
		if !strings.Contains(notes, want) {
			t.Errorf("the notes lack %q:\n%s", want, notes)
		}
	}
	err := do(e, "op", func(c *Call) error { _, err := e.Undo(c, UndoOptions{Seq: look.Seq}); return err })
	if ents, _ := os.ReadDir(out); len(ents) != 1 {
		t.Errorf("the folder outside the root holds %d entries after the undo, want its one file", len(ents))
	}
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "d")); err != nil || !fi.IsDir() {
		t.Fatalf("d after the undo: %v %v, want the folder back", fi, err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "d", "x.txt")); string(got) != "x\n" {
		t.Errorf("d/x.txt after the undo: %q", got)
	}
}

// Two commands at once in one workspace, each run by its own process: the second
// waits for the first to end, as long as its wait allows, else is refused naming it,
// and runs nothing. Each record then holds its own command's changes, and no outside
// record takes the first one's (before, the second's outside look journaled a1.txt as
// outside, and the first recorded nothing of it).
func TestSecondExecWaitsForTheFirst(t *testing.T) {
	a, dir := diskEngineWith(t, map[string]string{"f.txt": "f\n"}, Options{NoSync: true})
	defer a.Close()
	impatient := diskEngineOn(t, dir, Options{NoSync: true, Wait: 200 * time.Millisecond})
	defer impatient.Close()
	b := diskEngineOn(t, dir, Options{NoSync: true, Wait: time.Minute})
	defer b.Close()
	if _, err := a.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	xa, err := a.BeginExec("s", "", ExecArgs{Argv: []string{"cmd-a"}}, LookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "a1.txt"), []byte("a1\n"), 0o644)
	_, err = impatient.BeginExec("u", "", ExecArgs{Argv: []string{"cmd-c"}}, LookOptions{})
	if errs.KindOf(err) != errs.Conflict || !strings.Contains(err.Error(), fmt.Sprintf("exec %d of session s (cmd-a) still runs", xa.Seq())) || !strings.Contains(err.Error(), "Nothing was run.") {
		t.Fatalf("an exec started while exec %d runs: %v, want a conflict naming it", xa.Seq(), err)
	}
	started := make(chan *Exec)
	go func() {
		xb, err := b.BeginExec("u", "", ExecArgs{Argv: []string{"cmd-b"}}, LookOptions{})
		if err != nil {
			t.Error(err)
		}
		started <- xb
	}()
	os.WriteFile(filepath.Join(dir, "a2.txt"), []byte("a2\n"), 0o644)
	la, err := xa.End("exit 0")
	if err != nil {
		t.Fatal(err)
	}
	xb := <-started
	if xb == nil {
		t.FailNow()
	}
	os.WriteFile(filepath.Join(dir, "b1.txt"), []byte("b1\n"), 0o644)
	lb, err := xb.End("exit 0")
	if err != nil {
		t.Fatal(err)
	}
	if got := filePaths(la.Files); got != "a1.txt a2.txt" {
		t.Errorf("the first exec recorded %q, want a1.txt a2.txt", got)
	}
	if got := filePaths(lb.Files); got != "b1.txt" {
		t.Errorf("the second exec recorded %q, want b1.txt", got)
	}
	for _, r := range records(t, a) {
		if r.Tool == ToolOutside && len(r.Files) > 0 {
			t.Errorf("call %d recorded %s as outside", r.Seq, filesOf(r))
		}
	}
}

// filePaths are the paths of files, in order, separated by spaces.
func filePaths(files []journal.File) string {
	var ps []string
	for _, f := range files {
		ps = append(ps, f.Path)
	}
	return strings.Join(ps, " ")
}

package txn

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/internal/winetest"
	"github.com/vfsctl/vfsctl/journal"
)

// execAs runs a shell script in dir as an exec of session s in turn.
func execAs(t *testing.T, e *Engine, dir, s, turn, script string) *Look {
	t.Helper()
	winetest.NeedPOSIXShell(t)
	x, err := e.BeginExec(s, turn, ExecArgs{Argv: []string{"sh", "-c", script}, Cwd: "."}, LookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	look, err := x.End("exit 0")
	if err != nil {
		t.Fatal(err)
	}
	return look
}

// runExec runs a shell script in dir as an exec of session s, turn t1.
func runExec(t *testing.T, e *Engine, dir, s, script string) *Look {
	t.Helper()
	return execAs(t, e, dir, s, "t1", script)
}

// A file changed by hand before a command is journaled as outside, not as the
// command's; undoing the command's change of a text file reverts only its lines, so a
// later call's change on other lines of the same file stays.
func TestExecRecordsOutsideApartAndUndoesByLines(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"f.txt": "one\ntwo\nthree\nfour\nfive\n", "hand.txt": "mine\n"}, Options{NoSync: true})
	defer e.Close()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hand.txt"), []byte("mine, edited by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	look := runExec(t, e, dir, "s", "sed -i 's/four/FOUR/' f.txt")
	if len(look.Files) != 1 || look.Files[0].Path != "f.txt" || look.Files[0].Op != journal.OpEdit {
		t.Fatalf("the exec's files: %+v, want f.txt edited only", look.Files)
	}
	var outside *journal.Record
	e.View(func(tx *journal.Tx) error {
		outside, _ = tx.Get(look.Seq - 1)
		return nil
	})
	if outside == nil || outside.Tool != ToolOutside || outside.OriginOf() != OriginOutside || len(outside.Files) != 1 || outside.Files[0].Path != "hand.txt" {
		t.Fatalf("the record before the exec: %+v, want hand.txt as outside", outside)
	}
	// Another session edits line 1 after the command.
	if err := edit(e, "other", "f.txt", "one\n", "ONE\n"); err != nil {
		t.Fatal(err)
	}
	if err := do(e, "op", func(c *Call) error {
		_, err := e.Undo(c, UndoOptions{Seq: look.Seq})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "f.txt"))
	if string(got) != "ONE\ntwo\nthree\nfour\nfive\n" {
		t.Errorf("after undoing the exec: %q, want the other session's line 1 kept and line 4 back", got)
	}
	hand, _ := os.ReadFile(filepath.Join(dir, "hand.txt"))
	if string(hand) != "mine, edited by hand\n" {
		t.Errorf("hand.txt: %q", hand)
	}
}

// The limits are named where they are met: a file over the size limit is recorded by
// hash only and said not restorable, a tree over the entry limit is refused with its
// count before the command runs.
func TestExecNamesItsLimits(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"a.txt": "a\n"}, Options{NoSync: true})
	defer e.Close()
	o := LookOptions{MaxFile: 100, MaxEntries: 3}
	if _, err := e.CheckpointOutside(o); err != nil {
		t.Fatal(err)
	}
	x, err := e.BeginExec("s", "", ExecArgs{Argv: []string{"gen"}}, o)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "big.bin"), make([]byte, 500), 0o644)
	look, err := x.End("exit 0")
	if err != nil {
		t.Fatal(err)
	}
	var rec *journal.Record
	e.View(func(tx *journal.Tx) error { rec, _ = tx.Get(look.Seq); return nil })
	if rec == nil || len(rec.Files) != 1 || rec.Files[0].AfterBlob || !slices.ContainsFunc(rec.Notes, func(n string) bool {
		return strings.Contains(n, "big.bin is over the snapshot's size limit: recorded by hash only, not restorable")
	}) {
		t.Fatalf("the exec's record: %+v", rec)
	}
	for i := range 3 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%d", i)), nil, 0o644)
	}
	if _, err := e.BeginExec("s", "", ExecArgs{Argv: []string{"gen"}}, o); err == nil || !strings.Contains(err.Error(), "The workspace holds 5 entries, over the snapshot limit of 3") {
		t.Fatalf("BeginExec over the entry limit: %v", err)
	}
}

// An exec whose end was never recorded (vfsctl stopped while the command ran) is
// settled by the next open as unknown, saying so; its record is not taken for a call
// that changed nothing and rolled forward.
func TestExecNeverEndedIsUnknownAfterRecovery(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"a.txt": "a\n"}, Options{NoSync: true})
	x, err := e.BeginExec("s", "", ExecArgs{Argv: []string{"gen"}}, LookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
	e2 := diskEngineOn(t, dir, Options{NoSync: true})
	defer e2.Close()
	if _, err := e2.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	var rec *journal.Record
	e2.View(func(tx *journal.Tx) error { rec, _ = tx.Get(x.Seq()); return nil })
	if rec == nil || rec.State != journal.Unknown || !slices.ContainsFunc(rec.Notes, func(n string) bool { return strings.Contains(n, "stopped before it recorded") }) {
		t.Fatalf("the exec's record after recovery: %+v", rec)
	}
}

// A call another session commits while the command runs is that call's, not the
// command's: the exec's record leaves it out.
func TestExecLeavesOutCallsCommittedWhileItRan(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"f.txt": "f\n", "g.txt": "g\n"}, Options{NoSync: true})
	defer e.Close()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	x, err := e.BeginExec("s", "", ExecArgs{Argv: []string{"gen"}}, LookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("F\n"), 0o644) // the command
	if err := edit(e, "other", "g.txt", "g\n", "G\n"); err != nil {
		t.Fatal(err)
	}
	look, err := x.End("exit 0")
	if err != nil {
		t.Fatal(err)
	}
	if len(look.Files) != 1 || look.Files[0].Path != "f.txt" {
		t.Fatalf("the exec's files: %+v, want f.txt only", look.Files)
	}
}

// An exec whose vfsctl stopped while the command ran (the engine closed without
// ending it, as a kill leaves it) is recorded by the next open: what changed since the
// command began is the exec's, in state unknown, so the next look finds nothing
// changed outside vfsctl, and an undo of the exec takes it back.
func TestExecStoppedIsRecordedByTheNextOpen(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"f.txt": "one\ntwo\n", "gone.txt": "bye\n"}, Options{NoSync: true})
	x, err := e.BeginExec("s", "t1", ExecArgs{Argv: []string{"gen"}, Cwd: "."}, LookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var pending *journal.Record
	e.View(func(tx *journal.Tx) error { pending, _ = tx.Get(x.Seq()); return nil })
	if pending == nil || pending.Runner == nil || pending.Runner.PID != os.Getpid() || len(pending.Notes) != 0 {
		t.Fatalf("the pending exec record: %+v, want its runner as a field", pending)
	}
	// The command's changes, then vfsctl stops.
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("one\nTWO\n"), 0o644)
	os.Remove(filepath.Join(dir, "gone.txt"))
	os.WriteFile(filepath.Join(dir, "new.txt"), []byte("new\n"), 0o644)
	e.Close()

	e2 := diskEngineOn(t, dir, Options{NoSync: true})
	defer e2.Close()
	var rec *journal.Record
	e2.View(func(tx *journal.Tx) error { rec, _ = tx.Get(x.Seq()); return nil })
	if rec == nil || rec.State != journal.Unknown || rec.Runner != nil {
		t.Fatalf("the exec's record after the next open: %+v", rec)
	}
	got := map[string]journal.Op{}
	for _, f := range rec.Files {
		got[f.Path] = f.Op
	}
	want := map[string]journal.Op{"f.txt": journal.OpEdit, "gone.txt": journal.OpDelete, "new.txt": journal.OpCreate}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the exec's files: %v, want %v", got, want)
	}
	look, err := e2.CheckpointOutside(LookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if look.Seq != 0 {
		t.Fatalf("the next look journaled call %d as outside: %+v", look.Seq, look.Files)
	}
	if err := do(e2, "op", func(c *Call) error {
		_, err := e2.Undo(c, UndoOptions{Seq: x.Seq()})
		return err
	}); err != nil {
		t.Fatalf("undo of the stopped exec: %v", err)
	}
	for p, want := range map[string]string{"f.txt": "one\ntwo\n", "gone.txt": "bye\n"} {
		if b, _ := os.ReadFile(filepath.Join(dir, p)); string(b) != want {
			t.Errorf("%s after the undo: %q, want %q", p, b, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("new.txt after the undo: %v, want it removed", err)
	}
}

// A pending exec written before records named their runner (the process in the
// record's first note) is still left to that process while it lives.
func TestExecRunnerInTheOldNoteIsStillRead(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"f.txt": "f\n"}, Options{NoSync: true})
	defer e.Close()
	x, err := e.BeginExec("s", "", ExecArgs{Argv: []string{"gen"}, Cwd: "."}, LookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.j.Acquire(); err != nil {
		t.Fatal(err)
	}
	err = e.j.Commit(func(tx *journal.Tx) error {
		r, err := tx.Get(x.Seq())
		if err != nil {
			return err
		}
		r.Runner, r.Notes = nil, []string{fmt.Sprintf(execBegan, os.Getpid(), e.boot)}
		return tx.Put(r)
	})
	e.j.Release()
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("F\n"), 0o644)
	e2 := diskEngineOn(t, dir, Options{NoSync: true})
	var rec *journal.Record
	e2.View(func(tx *journal.Tx) error { rec, _ = tx.Get(x.Seq()); return nil })
	defer e2.Close() // not before End: closing an engine forgets this process's execs
	if rec == nil || rec.State != journal.Pending {
		t.Fatalf("the running exec after another open: %+v, want it pending", rec)
	}
	look, err := x.End("exit 0")
	if err != nil || len(look.Files) != 1 {
		t.Fatalf("End: %v %+v", err, look)
	}
}

// A look walks the workspace without holding the journal: another process that wants
// the journal while a look walks a big tree gets it, for a checkpoint and for the end
// of an exec alike, and what the walk saw is recorded all the same.
func TestLookWalksWithoutHoldingTheJournal(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"a.txt": "a\n"}, Options{NoSync: true})
	defer e.Close()
	other := journal.New(e.j.Path(), journal.Options{Wait: 200 * time.Millisecond, NoSync: true})
	var walks int
	var held []error
	testHookWalked = func() {
		walks++
		err := other.Acquire()
		if err == nil {
			other.Release()
		}
		held = append(held, err)
	}
	defer func() { testHookWalked = nil }()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	look := runExec(t, e, dir, "s", "echo b > b.txt")
	if len(look.Files) != 1 || look.Files[0].Path != "b.txt" {
		t.Fatalf("the exec's files: %+v, want b.txt", look.Files)
	}
	if walks < 3 {
		t.Fatalf("%d walks, want at least 3 (a checkpoint, an exec's start and end)", walks)
	}
	for i, err := range held {
		if err != nil {
			t.Errorf("walk %d: another process could not take the journal while it walked: %v", i, err)
		}
	}
}

// Two processes look at once: a file changes after one has walked, and the other
// records the change; the first, finding a newer snapshot once it holds the journal,
// walks again and records nothing (not the change twice, nor its walk's older view of
// the file as a change back).
func TestLookAfterAnotherLookRecordsNothingTwice(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"a.txt": "a\n"}, Options{NoSync: true})
	defer e.Close()
	e2 := diskEngineOn(t, dir, Options{NoSync: true})
	defer e2.Close()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	var inner *Look
	testHookWalked = func() {
		testHookWalked = nil
		os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a, by hand\n"), 0o644)
		var err error
		if inner, err = e2.CheckpointOutside(LookOptions{}); err != nil {
			t.Error(err)
		}
	}
	defer func() { testHookWalked = nil }()
	outer, err := e.CheckpointOutside(LookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if inner == nil || inner.Seq == 0 || len(inner.Files) != 1 {
		t.Fatalf("the other process's look: %+v, want a.txt recorded", inner)
	}
	if outer.Seq != 0 || len(outer.Files) != 0 {
		t.Errorf("the look that walked first recorded %+v again as call %d", outer.Files, outer.Seq)
	}
}

// An exec run with its own walk options (here: ignored paths included) whose vfsctl
// stops is recorded by the next open as it would have recorded it: the change of an
// ignored file is the command's. Before, recovery walked with the defaults and missed
// it.
func TestExecStoppedIsRecordedWithItsOwnWalk(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{".gitignore": "gen/\n", "gen/out.txt": "old\n", "f.txt": "f\n"}, Options{NoSync: true})
	o := LookOptions{IncludeIgnored: true, MaxFile: 1 << 20}
	x, err := e.BeginExec("s", "t1", ExecArgs{Argv: []string{"gen"}, Cwd: "."}, o)
	if err != nil {
		t.Fatal(err)
	}
	// The command changes the ignored file, then vfsctl stops.
	os.WriteFile(filepath.Join(dir, "gen/out.txt"), []byte("new\n"), 0o644)
	e.Close()

	e2 := diskEngineOn(t, dir, Options{NoSync: true})
	defer e2.Close()
	var rec *journal.Record
	e2.View(func(tx *journal.Tx) error { rec, _ = tx.Get(x.Seq()); return nil })
	if rec == nil || rec.State != journal.Unknown {
		t.Fatalf("the exec's record after the next open: %+v", rec)
	}
	var got []string
	for _, f := range rec.Files {
		got = append(got, fmt.Sprintf("%s %s", f.Op, f.Path))
	}
	if want := []string{"edit gen/out.txt"}; !slices.Equal(got, want) {
		t.Fatalf("the stopped exec's files: %v, want %v (notes %q)", got, want, rec.Notes)
	}
	if rec.Walk == nil || *rec.Walk != (journal.Walk{IncludeIgnored: true, MaxFile: 1 << 20}) {
		t.Errorf("the record's walk: %+v", rec.Walk)
	}
	// Undone like any command's change.
	if err := do(e2, "op", func(c *Call) error { _, err := e2.Undo(c, UndoOptions{Seq: x.Seq()}); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "gen/out.txt")); string(b) != "old\n" {
		t.Errorf("gen/out.txt after the undo: %q", b)
	}
}

// The walk recovery makes for several stopped execs is the widest of theirs.
func TestLookOfStoppedIsTheWidest(t *testing.T) {
	recs := []*journal.Record{{}, {Walk: &journal.Walk{IncludeIgnored: true, MaxFile: 1 << 10}}, {Walk: &journal.Walk{MaxFile: 1 << 30, MaxEntries: 10}}}
	if got, want := lookOfStopped(recs), (LookOptions{IncludeIgnored: true, MaxFile: 1 << 30}); got != want {
		t.Errorf("lookOfStopped: %+v, want %+v", got, want)
	}
	if got := lookOfStopped(recs[:1]); got != (LookOptions{}) {
		t.Errorf("lookOfStopped of a record written before walks were kept: %+v, want the defaults", got)
	}
}

// A command whose changes leave the tree's count of entries, and a file's size and
// modification time, as they were is still seen: a file rewritten in place with
// content of the same size and its time put back (only its change time tells), one
// file removed and another made in the same command. The look that finds nothing
// changed compares every entry whole, not only the count.
func TestExecSeesChangesThatKeepCountSizeAndTime(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"a.txt": "aaaa\n", "b.txt": "bbbb\n", "keep.txt": "k\n"}, Options{NoSync: true})
	defer e.Close()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	a := filepath.Join(dir, "a.txt")
	fi, err := os.Stat(a)
	if err != nil {
		t.Fatal(err)
	}
	x, err := e.BeginExec("s", "t1", ExecArgs{Argv: []string{"edit"}, Cwd: "."}, LookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(a, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("AAAA\n"), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(a, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	look, err := x.End("exit 0")
	if err != nil {
		t.Fatal(err)
	}
	ops := func(look *Look) string {
		got := map[string]journal.Op{}
		for _, f := range look.Files {
			got[f.Path] = f.Op
		}
		return fmt.Sprint(got)
	}
	if got, want := ops(look), fmt.Sprint(map[string]journal.Op{"a.txt": journal.OpEdit}); got != want {
		t.Errorf("the exec that rewrote a.txt in place recorded %v, want %v", got, want)
	}
	look = runExec(t, e, dir, "s", "mv b.txt c.txt")
	if got, want := ops(look), fmt.Sprint(map[string]journal.Op{"b.txt": journal.OpDelete, "c.txt": journal.OpCreate}); got != want {
		t.Errorf("the exec that renamed b.txt recorded %v, want %v", got, want)
	}
	// And a command that changes nothing records its run, with no file.
	if look := runExec(t, e, dir, "s", "true"); look.Seq == 0 || len(look.Files) != 0 || len(look.Entries) != 0 {
		t.Errorf("an exec that changed nothing: record %d, files %+v, entries %+v", look.Seq, look.Files, look.Entries)
	}
}

// A command's change of one line of a long file is shown in its record as that line
// with two lines of context, as an edit's diff shows it, not as the whole file: vfsctl show
// of a sed over a 300-line file printed all 300 lines.
func TestExecDiffShowsTheChangedLines(t *testing.T) {
	var long strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	e, dir := diskEngineWith(t, map[string]string{"f.txt": long.String()}, Options{NoSync: true})
	defer e.Close()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	look := runExec(t, e, dir, "s", "sed -i 's/^line 150$/LINE 150/' f.txt")
	if len(look.Files) != 1 {
		t.Fatalf("the exec's files: %+v", look.Files)
	}
	want := "--- a/f.txt\n+++ b/f.txt\n@@ -148,5 +148,5 @@\n line 148\n line 149\n-line 150\n+LINE 150\n line 151\n line 152\n"
	if got := look.Files[0].Diff; got != want {
		t.Errorf("the record's diff:\n%s\nwant:\n%s", got, want)
	}
}

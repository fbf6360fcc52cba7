package txn

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/vfs"
)

// hashOnlyLimit is the snapshot's size limit in these tests: big.bin is over it.
var hashOnlyLimit = LookOptions{MaxFile: 64}

// bigContent is big.bin before the command: over hashOnlyLimit.
var bigContent = strings.Repeat("0123456789\n", 20)

// hashOnlySetup is a workspace whose session B ran, in turn "1", a command that
// appended a line to big.bin (over the size limit: recorded by hash only) and to
// s.txt; it returns the command's call.
func hashOnlySetup(t *testing.T) (*Engine, string, uint64) {
	t.Helper()
	e, dir := diskEngineWith(t, map[string]string{"big.bin": bigContent, "s.txt": "small\n"}, Options{NoSync: true})
	if _, err := e.CheckpointOutside(hashOnlyLimit); err != nil {
		t.Fatal(err)
	}
	x, err := e.BeginExec("B", "1", ExecArgs{Argv: []string{"sh", "-c", "echo x >> big.bin; echo y >> s.txt"}, Cwd: "."}, hashOnlyLimit)
	must(t, err)
	appendTo(t, dir, "big.bin", "x\n") // the command
	appendTo(t, dir, "s.txt", "y\n")
	_, err = x.End("exit 0")
	must(t, err)
	return e, dir, x.Seq()
}

func appendTo(t *testing.T, dir, p, text string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, p), os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteString(text)
	must(t, err)
	must(t, f.Close())
}

func contentOf(t *testing.T, dir, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, p))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// rewindWith rewinds session s to before turn with o's other choices, as a call of
// the operator, and returns its result and own call.
func rewindWith(e *Engine, s, turn string, o RewindOptions) (*RewindResult, uint64, error) {
	var res *RewindResult
	var call *Call
	o.Session, o.Turn = s, turn
	err := do(e, "op", func(c *Call) error {
		call = c
		var err error
		res, err = e.Rewind(c, o)
		return err
	})
	return res, call.Seq(), err
}

// undoWith undoes (or redoes) as o says, as a call of the operator.
func undoWith(e *Engine, o UndoOptions) (*UndoResult, uint64, error) {
	var res *UndoResult
	var call *Call
	err := do(e, "op", func(c *Call) error {
		call = c
		var err error
		res, err = e.Undo(c, o)
		return err
	})
	return res, call.Seq(), err
}

// A command that changed a file over the snapshot's size limit refused every rewind
// reaching its turn, the command's small files too, with no way to rewind the rest.
// SkipUnrestorable rewinds the rest and names the file left as it is; the refusal
// without it says so; the rewind's undo brings back the rest, leaving the file alone.
func TestRewindSkipUnrestorable(t *testing.T) {
	e, dir, cmd := hashOnlySetup(t)
	defer e.Close()
	bigLeft := bigContent + "x\n" // as the command left it

	_, _, err := rewindWith(e, "B", "1", RewindOptions{})
	if h := HashOnlyOf(err); errs.KindOf(err) != errs.TooLarge || h == nil || h.Path != "big.bin" || h.Seq != cmd {
		t.Fatalf("rewind without SkipUnrestorable: %v, want too_large naming big.bin and call %d", err, cmd)
	}
	if strings.Contains(err.Error(), "leave that call as it is") {
		t.Errorf("the refusal offers what a rewind cannot do: %v", err)
	}
	if got := contentOf(t, dir, "s.txt"); got != "small\ny\n" {
		t.Fatalf("s.txt after a refused rewind: %q", got)
	}

	dry, _, err := rewindWith(e, "B", "1", RewindOptions{SkipUnrestorable: true, DryRun: true})
	if err != nil {
		t.Fatalf("dry run with SkipUnrestorable: %v", err)
	}
	if len(dry.Skipped) != 1 || !strings.HasPrefix(dry.Skipped[0], "big.bin would stay as it is") {
		t.Errorf("dry run's skipped: %q", dry.Skipped)
	}
	if got := contentOf(t, dir, "s.txt"); got != "small\ny\n" {
		t.Fatalf("s.txt after a dry run: %q", got)
	}

	res, rw, err := rewindWith(e, "B", "1", RewindOptions{SkipUnrestorable: true})
	if err != nil {
		t.Fatalf("rewind with SkipUnrestorable: %v", err)
	}
	if got := contentOf(t, dir, "s.txt"); got != "small\n" {
		t.Errorf("s.txt after the rewind: %q, want it as before the turn", got)
	}
	if got := contentOf(t, dir, "big.bin"); got != bigLeft {
		t.Errorf("big.bin after the rewind: %d bytes, want it as the command left it", len(got))
	}
	want := "big.bin stays as it is, not put back to before call 1: it was over the snapshot's size limit and recorded by hash only"
	if len(res.Skipped) != 1 || res.Skipped[0] != want {
		t.Errorf("skipped: %q, want %q", res.Skipped, want)
	}
	if !slices.Contains(recordOf(t, e, rw).Notes, want) {
		t.Errorf("the rewind's record does not say big.bin stayed: %q", recordOf(t, e, rw).Notes)
	}

	// The rewind's undo puts s.txt's line back; big.bin, which it did not change,
	// is as it was.
	_, un, err := undoWith(e, UndoOptions{Seq: rw})
	if err != nil {
		t.Fatalf("undo of the rewind: %v", err)
	}
	if got := contentOf(t, dir, "s.txt"); got != "small\ny\n" {
		t.Errorf("s.txt after the rewind's undo: %q", got)
	}
	if got := contentOf(t, dir, "big.bin"); got != bigLeft {
		t.Errorf("big.bin after the rewind's undo: %d bytes, want it as the command left it", len(got))
	}
	if _, _, err := undoWith(e, UndoOptions{Seq: un, Redo: true}); err != nil {
		t.Fatalf("redo of the rewind: %v", err)
	}
	if got := contentOf(t, dir, "s.txt"); got != "small\n" {
		t.Errorf("s.txt after the redo: %q", got)
	}
}

// With SkipUnrestorable, the rest is still all or nothing: a later change in the way
// of one of the other files refuses the rewind, and nothing is written.
func TestRewindSkipUnrestorableRefusesAConflict(t *testing.T) {
	e, dir, _ := hashOnlySetup(t)
	defer e.Close()
	must(t, read(e, "o", "s.txt"))
	must(t, edit(e, "o", "s.txt", "y\n", "Y\n"))
	_, _, err := rewindWith(e, "B", "1", RewindOptions{SkipUnrestorable: true})
	if errs.KindOf(err) != errs.Conflict || errs.Blocked(err) == nil {
		t.Fatalf("rewind over another session's change of the same line: %v, want a conflict", err)
	}
	if got := contentOf(t, dir, "s.txt"); got != "small\nY\n" {
		t.Errorf("s.txt after a refused rewind: %q", got)
	}
}

// The undo of such a command: refused without SkipUnrestorable (as before), with it
// the rest taken back and the file named; its redo re-applies the rest.
func TestUndoSkipUnrestorable(t *testing.T) {
	e, dir, cmd := hashOnlySetup(t)
	defer e.Close()
	_, _, err := undoWith(e, UndoOptions{Seq: cmd})
	if h := HashOnlyOf(err); errs.KindOf(err) != errs.TooLarge || h == nil || h.Path != "big.bin" {
		t.Fatalf("undo without SkipUnrestorable: %v, want too_large naming big.bin", err)
	}
	res, un, err := undoWith(e, UndoOptions{Seq: cmd, SkipUnrestorable: true})
	if err != nil {
		t.Fatalf("undo with SkipUnrestorable: %v", err)
	}
	if got := contentOf(t, dir, "s.txt"); got != "small\n" {
		t.Errorf("s.txt after the undo: %q", got)
	}
	if got := contentOf(t, dir, "big.bin"); got != bigContent+"x\n" {
		t.Errorf("big.bin after the undo: %d bytes, want it as the command left it", len(got))
	}
	if len(res.Skipped) != 1 || !strings.HasPrefix(res.Skipped[0], "big.bin stays as it is") || !slices.Contains(res.Notes, res.Skipped[0]) {
		t.Errorf("skipped %q, notes %q", res.Skipped, res.Notes)
	}
	if _, _, err := undoWith(e, UndoOptions{Seq: un, Redo: true}); err != nil {
		t.Fatalf("redo: %v", err)
	}
	if got := contentOf(t, dir, "s.txt"); got != "small\ny\n" {
		t.Errorf("s.txt after the redo: %q", got)
	}
	// A call that changed nothing but such a file has nothing to take back.
	x, err := e.BeginExec("B", "2", ExecArgs{Argv: []string{"grow"}, Cwd: "."}, hashOnlyLimit)
	must(t, err)
	appendTo(t, dir, "big.bin", "z\n")
	_, err = x.End("exit 0")
	must(t, err)
	_, _, err = undoWith(e, UndoOptions{Seq: x.Seq(), SkipUnrestorable: true})
	if errs.KindOf(err) != errs.NoChange || !strings.Contains(err.Error(), "big.bin stays as it is") {
		t.Errorf("undo of a call of big.bin alone: %v, want no_change saying big.bin stays", err)
	}
}

// The command's record says, of a file over the limit it changed, that taking the
// command back needs SkipUnrestorable; of one it made, which an undo removes, it
// does not. A record written before that advice is still read as hash only.
func TestOverLimitNoteNamesTheSkip(t *testing.T) {
	e, dir, cmd := hashOnlySetup(t)
	defer e.Close()
	rec := recordOf(t, e, cmd)
	i := slices.IndexFunc(rec.Notes, func(n string) bool { return strings.HasPrefix(n, "big.bin is over the snapshot's size limit") })
	if i < 0 || !strings.Contains(rec.Notes[i], "a rewind of its turn or of an earlier one, is refused unless given --skip-unrestorable") {
		t.Fatalf("the command's notes: %q", rec.Notes)
	}
	x, err := e.BeginExec("B", "2", ExecArgs{Argv: []string{"gen"}, Cwd: "."}, hashOnlyLimit)
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "new.bin"), []byte(bigContent), 0o644))
	_, err = x.End("exit 0")
	must(t, err)
	made := recordOf(t, e, x.Seq())
	if !slices.Contains(made.Notes, "new.bin is over the snapshot's size limit: recorded by hash only, not restorable") {
		t.Errorf("the notes of a command that made a file over the limit: %q", made.Notes)
	}
	old := &journal.Record{Tool: "exec", Notes: []string{"big.bin is over the snapshot's size limit: recorded by hash only, not restorable"}}
	if !overLimit(old, "big.bin") || overLimit(old, "big") {
		t.Errorf("a record's note before the advice is not read as it was")
	}
}

// A rewind refused by a change made outside vfsctl on the lines a call changed says
// how to go on, and each way it names works: the lines put back as the call left
// them, or a rewind from the turn after it.
func TestRewindOutsideConflictSaysTheWaysOn(t *testing.T) {
	var lines strings.Builder
	for i := 1; i <= 40; i++ {
		lines.WriteString("line " + strings.Repeat("i", i%7) + "\n")
	}
	start := "first\n" + lines.String() + "last\n"
	setup := func(t *testing.T) (*Engine, string) {
		e, dir := diskEngineWith(t, map[string]string{"b.py": start}, Options{NoSync: true})
		_, err := e.CheckpointOutside(LookOptions{}) // the first snapshot
		must(t, err)
		must(t, read(e, "S", "b.py"))
		for _, c := range []struct{ turn, old, new string }{{"t1", "first\n", "first (agent)\n"}, {"t2", "last\n", "last (agent)\n"}} {
			must(t, turnCall(e, "S", c.turn, func(cl *Call) error {
				_, err := e.Edit(cl, "b.py", []matcher.Edit{{OldText: c.old, NewText: c.new}}, false)
				return err
			}))
		}
		now := contentOf(t, dir, "b.py")
		must(t, os.WriteFile(filepath.Join(dir, "b.py"), []byte(strings.Replace(now, "first (agent)\n", "first (agent+user)\n", 1)), 0o644))
		return e, dir
	}
	e, dir := setup(t)
	_, _, err := rewindWith(e, "S", "t1", RewindOptions{})
	e.Close()
	var x *errs.Error
	if !errors.As(err, &x) || x.Kind != errs.Conflict || x.Blocker != 0 {
		t.Fatalf("rewind: %v, want a conflict with a change made outside vfsctl", err)
	}
	for _, w := range []string{
		`A change made outside vfsctl touched b.py where call 2 (turn "t1") changed it, or next to that (line 1, as that call left the file)`,
		"Nothing was written.",
		"To rewind all the same, put line 1 of b.py back as call 2 left it",
		`or rewind from turn "t2" on instead, which keeps call 2's change.`,
	} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the refusal does not say %q:\n%v", w, err)
		}
	}
	if got := contentOf(t, dir, "b.py"); !strings.HasPrefix(got, "first (agent+user)\n") || !strings.HasSuffix(got, "last (agent)\n") {
		t.Fatalf("a refused rewind changed b.py: %q", got)
	}

	t.Run("the line put back", func(t *testing.T) {
		e, dir := setup(t)
		defer e.Close()
		now := contentOf(t, dir, "b.py")
		must(t, os.WriteFile(filepath.Join(dir, "b.py"), []byte(strings.Replace(now, "first (agent+user)\n", "first (agent)\n", 1)), 0o644))
		if _, _, err := rewindWith(e, "S", "t1", RewindOptions{}); err != nil {
			t.Fatalf("rewind once the line is back: %v", err)
		}
		if got := contentOf(t, dir, "b.py"); got != start {
			t.Errorf("b.py after the rewind: %q, want it as before turn t1", got)
		}
	})
	t.Run("the later turn", func(t *testing.T) {
		e, dir := setup(t)
		defer e.Close()
		if _, _, err := rewindWith(e, "S", "t2", RewindOptions{}); err != nil {
			t.Fatalf("rewind from turn t2: %v", err)
		}
		if got := contentOf(t, dir, "b.py"); got != strings.Replace(start, "first\n", "first (agent+user)\n", 1) {
			t.Errorf("b.py after the rewind: %q", got)
		}
	})
	t.Run("journaled by a look", func(t *testing.T) {
		// A look records the change as a call of no session: named as made outside
		// vfsctl, with the undo that takes it back.
		e, _ := setup(t)
		defer e.Close()
		look, err := e.CheckpointOutside(LookOptions{})
		must(t, err)
		_, _, err = rewindWith(e, "S", "t1", RewindOptions{})
		if w := fmt.Sprintf("Call %d (a change made outside vfsctl) touched b.py", look.Seq); errs.Blocked(err) == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("rewind: %v, want a conflict blocked by call %d that says %q", err, look.Seq, w)
		}
	})
	t.Run("no later turn", func(t *testing.T) {
		// The line in the way is turn t2's, the last: only the line put back is named.
		e, dir := setup(t)
		defer e.Close()
		now := contentOf(t, dir, "b.py")
		now = strings.Replace(now, "first (agent+user)\n", "first (agent)\n", 1)
		must(t, os.WriteFile(filepath.Join(dir, "b.py"), []byte(strings.Replace(now, "last (agent)\n", "last (user)\n", 1)), 0o644))
		_, _, err := rewindWith(e, "S", "t1", RewindOptions{})
		if w := "To rewind all the same, put line 42 of b.py back as call 3 left it."; err == nil || !strings.Contains(err.Error(), w) || strings.Contains(err.Error(), "or rewind from turn") {
			t.Errorf("rewind: %v, want it to say %q and nothing more", err, w)
		}
	})
}

// The folders an undo or rewind removes are listed deepest first, the order they
// go in (a folder cannot go before what is in it); those a redo makes, shallowest
// first. The undo of a command that made sub/deep/ listed sub/ first.
func TestFoldersAreSaidInTheOrderTheyGo(t *testing.T) {
	setup := func(t *testing.T) (*Engine, uint64) {
		e, dir := diskEngineWith(t, map[string]string{"new": "a\n"}, Options{NoSync: true})
		if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
			t.Fatal(err)
		}
		x, err := e.BeginExec("A", "t2", ExecArgs{Argv: []string{"mk"}, Cwd: "."}, LookOptions{})
		must(t, err)
		appendTo(t, dir, "new", "hi\n")
		must(t, os.MkdirAll(filepath.Join(dir, "sub", "deep", "deeper"), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, "sub", "deep", "deeper", "f.txt"), []byte("x\n"), 0o644))
		_, err = x.End("exit 0")
		must(t, err)
		return e, x.Seq()
	}
	folders := func(entries []journal.Entry, going bool) []string {
		var out []string
		for _, en := range entries {
			if going && en.Before == vfs.KindDir && en.After != vfs.KindDir || !going && en.After == vfs.KindDir && en.Before != vfs.KindDir {
				out = append(out, en.Path)
			}
		}
		return out
	}
	deepest := []string{"sub/deep/deeper", "sub/deep", "sub"}
	t.Run("undo and redo", func(t *testing.T) {
		e, cmd := setup(t)
		defer e.Close()
		for _, dry := range []bool{true, false} {
			res, un, err := undoWith(e, UndoOptions{Seq: cmd, DryRun: dry})
			must(t, err)
			if got := folders(res.Entries, true); !slices.Equal(got, deepest) {
				t.Errorf("undo (dry run %v) says the folders go in the order %q, want %q", dry, got, deepest)
			}
			if dry {
				continue
			}
			res, _, err = undoWith(e, UndoOptions{Seq: un, Redo: true})
			must(t, err)
			if got, want := folders(res.Entries, false), []string{"sub", "sub/deep", "sub/deep/deeper"}; !slices.Equal(got, want) {
				t.Errorf("redo says the folders are made in the order %q, want %q", got, want)
			}
		}
	})
	t.Run("rewind", func(t *testing.T) {
		e, _ := setup(t)
		defer e.Close()
		res, _, err := rewindWith(e, "A", "t2", RewindOptions{})
		must(t, err)
		if got := folders(res.Entries, true); !slices.Equal(got, deepest) {
			t.Errorf("rewind says the folders go in the order %q, want %q", got, deepest)
		}
	})
}

// An undo refused by a change made outside vfsctl where the call changed the file
// says the way on, and it works: the lines put back as the call left them.
func TestUndoOutsideConflictSaysTheWayOn(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"b.py": "one\ntwo\nthree\n"}, Options{NoSync: true})
	defer e.Close()
	must(t, read(e, "S", "b.py"))
	must(t, edit(e, "S", "b.py", "two\n", "two (agent)\n"))
	must(t, os.WriteFile(filepath.Join(dir, "b.py"), []byte("one\ntwo (agent+user)\nthree\n"), 0o644))
	_, _, err := undoWith(e, UndoOptions{Seq: 2})
	if w := "To take it back all the same, put those lines back as call 2 left them first."; errs.KindOf(err) != errs.Conflict || !strings.Contains(err.Error(), w) {
		t.Fatalf("undo: %v, want a conflict that says %q", err, w)
	}
	must(t, os.WriteFile(filepath.Join(dir, "b.py"), []byte("one\ntwo (agent)\nthree\n"), 0o644))
	if _, _, err := undoWith(e, UndoOptions{Seq: 2}); err != nil {
		t.Fatalf("undo once the line is back: %v", err)
	}
	if got := contentOf(t, dir, "b.py"); got != "one\ntwo\nthree\n" {
		t.Errorf("b.py after the undo: %q", got)
	}
}

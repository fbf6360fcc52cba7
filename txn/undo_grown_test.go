package txn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// grownSetup: a command appends to a.txt and grows big.bin, a small file, past the
// snapshot's size limit (16 MiB) to 17 MB.
func grownSetup(t *testing.T) (*Engine, string, uint64) {
	t.Helper()
	e, dir := diskEngineWith(t, map[string]string{"a.txt": "a1\n", "big.bin": "small\n"}, Options{NoSync: true})
	_, err := e.CheckpointOutside(LookOptions{})
	must(t, err)
	x, err := e.BeginExec("S", "2", ExecArgs{Argv: []string{"sh", "-c", "echo a2 >> a.txt; head -c 17000000 /dev/zero >> big.bin"}, Cwd: "."}, LookOptions{})
	must(t, err)
	appendTo(t, dir, "a.txt", "a2\n")
	appendTo(t, dir, "big.bin", strings.Repeat("\x00", 17000000))
	_, err = x.End("exit 0")
	must(t, err)
	return e, dir, x.Seq()
}

// A small file a command grew past the size limit keeps its prior content in the
// journal: the undo and the rewind put it back (they refused it as unrestorable,
// and --skip-unrestorable left the 17 MB file).
func TestUndoPutsBackAFileGrownPastTheLimit(t *testing.T) {
	check := func(t *testing.T, dir string) {
		t.Helper()
		if got := contentOf(t, dir, "a.txt"); got != "a1\n" {
			t.Errorf("a.txt: %q, want it as before the command", got)
		}
		fi, err := os.Stat(filepath.Join(dir, "big.bin"))
		must(t, err)
		if fi.Size() != int64(len("small\n")) {
			t.Fatalf("big.bin is %d bytes, want it back to \"small\\n\"", fi.Size())
		}
		if got := contentOf(t, dir, "big.bin"); got != "small\n" {
			t.Errorf("big.bin: %q", got)
		}
	}
	t.Run("undo", func(t *testing.T) {
		e, dir, cmd := grownSetup(t)
		defer e.Close()
		if _, _, err := undoWith(e, UndoOptions{Seq: cmd}); err != nil {
			t.Fatalf("undo: %v", err)
		}
		check(t, dir)
	})
	t.Run("rewind", func(t *testing.T) {
		e, dir, _ := grownSetup(t)
		defer e.Close()
		if _, _, err := rewindWith(e, "S", "2", RewindOptions{}); err != nil {
			t.Fatalf("rewind: %v", err)
		}
		check(t, dir)
	})
	t.Run("changed since", func(t *testing.T) {
		// Not the file the command left: not written over.
		e, dir, cmd := grownSetup(t)
		defer e.Close()
		appendTo(t, dir, "big.bin", "user\n")
		res, _, err := undoWith(e, UndoOptions{Seq: cmd, SkipUnrestorable: true})
		if err != nil {
			t.Fatalf("undo: %v", err)
		}
		if fi, _ := os.Stat(filepath.Join(dir, "big.bin")); fi.Size() != 17000000+6+5 {
			t.Errorf("big.bin changed since the command was written over: %d bytes", fi.Size())
		}
		if len(res.Skipped) != 1 || !strings.HasPrefix(res.Skipped[0], "big.bin stays as it is") {
			t.Errorf("skipped: %q", res.Skipped)
		}
	})
	t.Run("changed since, rewind", func(t *testing.T) {
		e, dir, _ := grownSetup(t)
		defer e.Close()
		appendTo(t, dir, "big.bin", "user\n")
		res, _, err := rewindWith(e, "S", "2", RewindOptions{SkipUnrestorable: true})
		if err != nil {
			t.Fatalf("rewind: %v", err)
		}
		if fi, _ := os.Stat(filepath.Join(dir, "big.bin")); fi.Size() != 17000000+6+5 {
			t.Errorf("big.bin changed since the command was written over: %d bytes", fi.Size())
		}
		if got := contentOf(t, dir, "a.txt"); got != "a1\n" || len(res.Skipped) != 1 {
			t.Errorf("a.txt %q, skipped %q", got, res.Skipped)
		}
	})
}

// Taking back the undo (or the rewind) that put a grown file back needs the content
// the command left, which the journal keeps by hash only: that is refused as
// too_large (it was an io_error, "the journal cannot rebuild"), nothing written, and
// with SkipUnrestorable the rest is re-applied and the file left as it is.
func TestRedoOfAGrownFilePutBackIsTooLarge(t *testing.T) {
	for _, how := range []string{"undo", "rewind"} {
		t.Run(how, func(t *testing.T) {
			e, dir, cmd := grownSetup(t)
			defer e.Close()
			var back uint64
			var err error
			if how == "undo" {
				_, back, err = undoWith(e, UndoOptions{Seq: cmd})
			} else {
				_, back, err = rewindWith(e, "S", "2", RewindOptions{})
			}
			must(t, err)
			_, _, err = undoWith(e, UndoOptions{Seq: back, Redo: how == "undo"})
			if h := HashOnlyOf(err); h == nil || errs.KindOf(err) != errs.TooLarge || h.Path != "big.bin" {
				t.Fatalf("taking back call %d: %v (%s), want a too_large refusal of big.bin", back, err, errs.KindOf(err))
			}
			if !strings.Contains(err.Error(), "kept by hash only") || !strings.Contains(err.Error(), "command again") {
				t.Errorf("the refusal says neither why nor what to do: %v", err)
			}
			if a, b := contentOf(t, dir, "a.txt"), contentOf(t, dir, "big.bin"); a != "a1\n" || b != "small\n" {
				t.Fatalf("refused, yet written: a.txt %q, big.bin %q", a, b)
			}
			res, _, err := undoWith(e, UndoOptions{Seq: back, Redo: how == "undo", SkipUnrestorable: true})
			if err != nil {
				t.Fatalf("with SkipUnrestorable: %v", err)
			}
			if a, b := contentOf(t, dir, "a.txt"), contentOf(t, dir, "big.bin"); a != "a1\na2\n" || b != "small\n" {
				t.Errorf("with SkipUnrestorable: a.txt %q, big.bin %q", a, b)
			}
			if len(res.Skipped) != 1 || !strings.HasPrefix(res.Skipped[0], "big.bin stays as it is") {
				t.Errorf("skipped: %q", res.Skipped)
			}
		})
	}
}

// The command's note about a file it grew past the limit says what an undo does with
// it: it puts the small content back, with no --skip-unrestorable (the note said the
// undo was refused without it).
func TestGrownNoteSaysTheUndoPutsItBack(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"big.bin": "small\n"}, Options{NoSync: true})
	defer e.Close()
	_, err := e.CheckpointOutside(LookOptions{})
	must(t, err)
	x, err := e.BeginExec("S", "2", ExecArgs{Argv: []string{"sh", "-c", "head -c 17000000 /dev/zero >> big.bin"}, Cwd: "."}, LookOptions{})
	must(t, err)
	appendTo(t, dir, "big.bin", strings.Repeat("\x00", 17000000))
	look, err := x.End("exit 0")
	must(t, err)
	notes := strings.Join(look.Notes, "\n")
	if strings.Contains(notes, "refused") && !strings.Contains(notes, "redo of that undo is refused") || strings.Contains(notes, "--skip-unrestorable") {
		t.Errorf("the note says the undo is refused:\n%s", notes)
	}
	if !strings.Contains(notes, "an undo of this call, or a rewind of its turn, puts back the content it had before") {
		t.Errorf("the note does not say the undo puts big.bin back:\n%s", notes)
	}
	if _, _, err := undoWith(e, UndoOptions{Seq: x.Seq()}); err != nil {
		t.Fatalf("undo, as the note says, without SkipUnrestorable: %v", err)
	}
	if got := contentOf(t, dir, "big.bin"); got != "small\n" {
		t.Errorf("big.bin is %d bytes after the undo, want \"small\\n\" back", len(got))
	}
}

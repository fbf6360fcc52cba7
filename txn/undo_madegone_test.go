package txn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A command edits a.txt and makes big2.bin over the size limit (17 MB); big2.bin is
// then removed, or changed, outside vfsctl. The undo was refused with or without
// SkipUnrestorable: a.txt could never be taken back. Now the refusal is one that
// SkipUnrestorable leaves (the advice to use it is added by the caller, as for any
// file kept by hash only), and with it the rest is undone.
func TestUndoSkipsAMadeLargeFileGoneOrChanged(t *testing.T) {
	for _, c := range []struct {
		name    string
		outside func(p string) error
		size    int64 // of big2.bin after, -1: absent
		// journaled: a look journals the outside change as a call of its own,
		// whose undo (the way a blocked undo names) is refused too.
		journaled bool
	}{
		{"removed", os.Remove, -1, false},
		{"changed", func(p string) error {
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			f.WriteString("x\n")
			return f.Close()
		}, 17000002, false},
		{"removed, journaled", os.Remove, -1, true},
		{"changed, journaled", func(p string) error { return os.WriteFile(p, make([]byte, 17000001), 0o644) }, 17000001, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, dir := diskEngineWith(t, map[string]string{"a.txt": "a\n"}, Options{NoSync: true})
			defer e.Close()
			_, err := e.CheckpointOutside(LookOptions{})
			must(t, err)
			x, err := e.BeginExec("S", "2", ExecArgs{Argv: []string{"sh", "-c", "echo b >> a.txt; head -c 17000000 /dev/zero > big2.bin"}, Cwd: "."}, LookOptions{})
			must(t, err)
			appendTo(t, dir, "a.txt", "b\n")
			big := filepath.Join(dir, "big2.bin")
			must(t, os.WriteFile(big, make([]byte, 17000000), 0o644))
			_, err = x.End("exit 0")
			must(t, err)
			must(t, c.outside(big))
			if c.journaled {
				_, err := e.CheckpointOutside(LookOptions{})
				must(t, err)
			}

			// The rewind of its turn: a file gone since is what the rewind wants;
			// one changed since is left with SkipUnrestorable, as by the undo.
			if c.size >= 0 {
				if _, _, err := rewindWith(e, "S", "2", RewindOptions{}); HashOnlyOf(err) == nil {
					t.Errorf("rewind without SkipUnrestorable: %v, want a refusal SkipUnrestorable leaves", err)
				}
				dry, _, err := rewindWith(e, "S", "2", RewindOptions{SkipUnrestorable: true, DryRun: true})
				if err != nil || len(dry.Skipped) != 1 || !strings.HasPrefix(dry.Skipped[0], "big2.bin would stay as it is") {
					t.Errorf("rewind with SkipUnrestorable (dry run): %v, %+v", err, dry)
				}
			}
			_, _, err = undoWith(e, UndoOptions{Seq: x.Seq()})
			if h := HashOnlyOf(err); err == nil || h == nil || h.Path != "big2.bin" {
				t.Fatalf("undo without SkipUnrestorable: %v, want a refusal SkipUnrestorable leaves", err)
			}
			if got := contentOf(t, dir, "a.txt"); got != "a\nb\n" {
				t.Fatalf("a refused undo changed a.txt: %q", got)
			}
			res, _, err := undoWith(e, UndoOptions{Seq: x.Seq(), SkipUnrestorable: true})
			if err != nil {
				t.Fatalf("undo with SkipUnrestorable: %v", err)
			}
			if got := contentOf(t, dir, "a.txt"); got != "a\n" {
				t.Errorf("a.txt after the undo: %q, want it as before the command", got)
			}
			fi, err := os.Stat(big)
			switch {
			case c.size < 0 && !os.IsNotExist(err):
				t.Errorf("big2.bin is back: %v", err)
			case c.size >= 0 && (err != nil || fi.Size() != c.size):
				t.Errorf("big2.bin changed outside was not left as it is: %v", fi)
			}
			if len(res.Skipped) != 1 || !strings.HasPrefix(res.Skipped[0], "big2.bin stays as it is") {
				t.Errorf("skipped: %q", res.Skipped)
			}
		})
	}
}

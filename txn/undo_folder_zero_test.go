//go:build !windows

package txn

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// A folder a command left mode 0000 has those bits known (lstat gave them), not
// "never learnt": chmodded since, its undo and the rewind of its turn are refused as
// for any other bits (they removed it, taking the bits it had now for the command's),
// and put back to 0000, the undo removes it and the redo makes it 0000 again (it made
// it 0755 once chmodded). Refusals name the call that left the folder as it was.
func TestUndoOfAFolderLeft0000(t *testing.T) {
	for _, how := range []string{"undo", "rewind"} {
		t.Run(how, func(t *testing.T) {
			e, dir := diskEngineWith(t, map[string]string{"keep.txt": "k\n"}, Options{NoSync: true})
			defer e.Close()
			_, err := e.CheckpointOutside(LookOptions{})
			must(t, err)
			x, err := e.BeginExec("S", "2", ExecArgs{Argv: []string{"sh", "-c", "mkdir d; chmod 000 d"}, Cwd: "."}, LookOptions{})
			must(t, err)
			d := filepath.Join(dir, "d")
			must(t, os.Mkdir(d, 0o755))
			must(t, os.Chmod(d, 0))
			_, err = x.End("exit 0")
			must(t, err)
			back := func() (uint64, error) {
				if how == "undo" {
					_, seq, err := undoWith(e, UndoOptions{Seq: x.Seq()})
					return seq, err
				}
				_, seq, err := rewindWith(e, "S", "2", RewindOptions{})
				return seq, err
			}

			must(t, os.Chmod(d, 0o755))
			if _, err := back(); errs.KindOf(err) != errs.Conflict {
				t.Fatalf("d/ chmodded 0755 since the command left it 0000: %v, want a conflict", err)
			}
			if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o755 {
				t.Fatalf("refused, yet d/ is %v (%v)", fi, err)
			}

			must(t, os.Chmod(d, 0))
			seq, err := back()
			must(t, err)
			if _, err := os.Lstat(d); !os.IsNotExist(err) {
				t.Fatalf("d/ after the %s: %v", how, err)
			}
			_, again, err := undoWith(e, UndoOptions{Seq: seq, Redo: how == "undo"})
			must(t, err)
			if fi, err := os.Lstat(d); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0 {
				t.Errorf("d/ made again: %v (%v), want mode 0000 as the command left it", fi, err)
			}

			// Chmodded since, taking that call back (the undo of the redo, the redo of
			// the undo of the rewind) is refused, naming it: no command left d/ so.
			must(t, os.Chmod(d, 0o755))
			_, _, err = undoWith(e, UndoOptions{Seq: again, Redo: how == "rewind"})
			want := fmt.Sprintf("d is no longer as call %d left it: its mode is 0755 now, call %d left it 0000.", again, again)
			if errs.KindOf(err) != errs.Conflict || !strings.Contains(err.Error(), want) {
				t.Errorf("call %d taken back, d/ chmodded 0755 since: %v, want a conflict saying %q", again, err, want)
			}
			must(t, os.Chmod(d, 0))

			// Made again outside, 0755: the redo (the undo of the rewind) has nothing
			// to do, and says the bits are not those the command left.
			if how == "undo" {
				_, seq, err = undoWith(e, UndoOptions{Seq: again})
				must(t, err)
				must(t, os.Mkdir(d, 0o755))
				_, _, err = undoWith(e, UndoOptions{Seq: seq, Redo: true})
				if errs.KindOf(err) != errs.NoChange || !strings.Contains(err.Error(), "d/ has mode 0755, where call") || !strings.Contains(err.Error(), "found 0000 (chmod 0 d") {
					t.Errorf("redo over d/ made again 0755: %v, want it to say the command left it 0000", err)
				}
			}
		})
	}
}

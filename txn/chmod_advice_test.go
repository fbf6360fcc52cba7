//go:build !windows

package txn

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// The chmod a refusal advises works when run as given, in sh at the workspace root,
// for a folder whose name starts with "-" or holds a space or a quote: the advice
// named the path bare ("chmod 0 -x", "chmod 0 my dir"), which chmod took as an option
// or as two paths. The shell is the oracle: after it, the undo goes through.
func TestChmodAdviceRunsInSh(t *testing.T) {
	for _, name := range []string{"-x", "my dir", "it's", "a$b"} {
		t.Run(name, func(t *testing.T) {
			e, dir := diskEngineWith(t, map[string]string{"keep.txt": "k\n"}, Options{NoSync: true})
			defer e.Close()
			must(t, firstErr(e.CheckpointOutside(LookOptions{})))
			x, err := e.BeginExec("s", "t1", ExecArgs{Argv: []string{"mkdir", "--", name}, Cwd: "."}, LookOptions{})
			must(t, err)
			must(t, os.Mkdir(filepath.Join(dir, name), 0o700))
			must(t, os.Chmod(filepath.Join(dir, name), 0o700))
			_, err = x.End("exit 0")
			must(t, err)
			must(t, os.Chmod(filepath.Join(dir, name), 0o755)) // by hand, outside
			undo := func() error {
				return do(e, "op", func(c *Call) error {
					_, err := e.Undo(c, UndoOptions{Seq: x.Seq()})
					return err
				})
			}
			err = undo()
			msg := ""
			if err != nil {
				msg = err.Error()
			}
			i := strings.Index(msg, "run `")
			if errs.KindOf(err) != errs.Conflict || i < 0 {
				t.Fatalf("undo of a folder chmodded by hand: %v; want a conflict with a chmod to run", err)
			}
			advice := msg[i+len("run `"):]
			advice = advice[:strings.Index(advice, "`")]
			cmd := exec.Command("sh", "-c", advice)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("the advice %q fails in sh: %v %s", advice, err, out)
			}
			if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Mode().Perm() != 0o700 {
				t.Fatalf("after %q, %q: %v %v; want mode 0700", advice, name, fi, err)
			}
			if err := undo(); err != nil {
				t.Fatalf("undo after the advice %q: %v", advice, err)
			}
			if _, err := os.Lstat(filepath.Join(dir, name)); !os.IsNotExist(err) {
				t.Errorf("%q still there after the undo: %v", name, err)
			}
		})
	}
}

func firstErr[T any](_ T, err error) error { return err }

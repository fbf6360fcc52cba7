package txn

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// execBeside journals a command in two parts, with another session's edit of the
// same file committed between them: the command's record of the file includes that
// call's change. Each part replaces a whole line of f.txt, as sed -i would, done here
// in Go so that the test runs where there is no sed (Windows). It returns the exec's
// sequence number.
func execBeside(t *testing.T, e *Engine, dir string, first, second [2]string, oldText, newText string) uint64 {
	t.Helper()
	script := fmt.Sprintf("s/^%s$/%s/; s/^%s$/%s/", first[0], first[1], second[0], second[1])
	x, err := e.BeginExec("X", "x1", ExecArgs{Argv: []string{"sed", "-i", script, "f.txt"}, Cwd: "."}, LookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "f.txt")
	for i, line := range [][2]string{first, second} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		changed := strings.Replace(string(data), "\n"+line[0]+"\n", "\n"+line[1]+"\n", 1)
		if changed == string(data) {
			t.Fatalf("f.txt has no line %q", line[0])
		}
		if err := os.WriteFile(p, []byte(changed), 0o644); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if err := edit(e, "C", "f.txt", oldText, newText); err != nil {
				t.Fatal(err)
			}
		}
	}
	look, err := x.End("exit 0")
	if err != nil {
		t.Fatal(err)
	}
	return look.Seq
}

const tenLines = "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\nline 10\n"

// Undoing or rewinding a command keeps the lines another session's call committed in
// the same file while the command ran; where that call's lines meet the command's,
// it is refused as a conflict naming the call, and nothing is written. The oracle is
// the file as written out by hand.
func TestUndoOfACommandKeepsTheLinesOfACallBesideIt(t *testing.T) {
	for _, how := range []string{"undo", "rewind"} {
		t.Run(how, func(t *testing.T) {
			e, dir := diskEngineWith(t, map[string]string{"f.txt": tenLines}, Options{NoSync: true})
			defer e.Close()
			if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
				t.Fatal(err)
			}
			seq := execBeside(t, e, dir, [2]string{"line 2", "LINE 2 X"}, [2]string{"line 4", "LINE 4 X"}, "line 8", "LINE 8 by C")
			if err := takeBack(e, how, seq); err != nil {
				t.Fatalf("the %s: %v", how, err)
			}
			want := strings.Replace(tenLines, "line 8", "LINE 8 by C", 1)
			if got, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(got) != want {
				t.Errorf("after the %s:\n%s\nwant\n%s", how, got, want)
			}
		})
		t.Run(how+" meeting the call's lines", func(t *testing.T) {
			e, dir := diskEngineWith(t, map[string]string{"f.txt": tenLines}, Options{NoSync: true})
			defer e.Close()
			if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
				t.Fatal(err)
			}
			seq := execBeside(t, e, dir, [2]string{"line 2", "LINE 2 X"}, [2]string{"line 4", "LINE 4 X"}, "line 3", "LINE 3 by C")
			found, _ := os.ReadFile(filepath.Join(dir, "f.txt"))
			err := takeBack(e, how, seq)
			if errs.KindOf(err) != errs.Conflict || !strings.Contains(err.Error(), "Call 2 (session C)") {
				t.Fatalf("the %s: %v, want a conflict naming call 2 (session C)", how, err)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(got) != string(found) {
				t.Errorf("the refused %s wrote:\n%s", how, got)
			}
		})
	}
}

// takeBack undoes call seq, or rewinds session X's turn x1.
func takeBack(e *Engine, how string, seq uint64) error {
	return do(e, "op", func(c *Call) error {
		var err error
		if how == "undo" {
			_, err = e.Undo(c, UndoOptions{Seq: seq})
		} else {
			_, err = e.Rewind(c, RewindOptions{Session: "X", Turn: "x1"})
		}
		return err
	})
}

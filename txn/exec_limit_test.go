package txn

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
)

// A command that pushes the workspace over the entry limit: its end cannot walk, and
// says why, with a way out that exists (.gitignore). Once the workspace is under the
// limit again, the next look (in this process, or the next one's recovery) records
// what changed since the command began as the exec's, unknown, never as outside: a
// rewind of the turn takes the command's edit back.
func TestExecOverTheEntryLimitIsRecordedLater(t *testing.T) {
	for _, reopen := range []bool{false, true} {
		t.Run(fmt.Sprintf("reopened %v", reopen), func(t *testing.T) {
			e, dir := diskEngineWith(t, map[string]string{"a.txt": "a\n"}, Options{NoSync: true})
			defer func() { e.Close() }()
			o := LookOptions{MaxEntries: 10}
			if _, err := e.CheckpointOutside(o); err != nil {
				t.Fatal(err)
			}
			x, err := e.BeginExec("s", "t1", ExecArgs{Argv: []string{"gen"}, Cwd: "."}, o)
			if err != nil {
				t.Fatal(err)
			}
			// The command: many files in one folder, and an edit.
			os.Mkdir(filepath.Join(dir, "many"), 0o755)
			for i := range 12 {
				os.WriteFile(filepath.Join(dir, "many", fmt.Sprint(i)), nil, 0o644)
			}
			os.WriteFile(filepath.Join(dir, "a.txt"), []byte("changed\n"), 0o644)
			_, err = x.End("exit 0")
			if errs.KindOf(err) != errs.TooLarge || !strings.Contains(err.Error(), "many/ (12)") || !strings.Contains(err.Error(), ".gitignore") || strings.Contains(err.Error(), "raise the limit") {
				t.Fatalf("the end over the limit: %v", err)
			}
			if r := recordOf(t, e, x.Seq()); r.State != journal.Pending || r.Exit != "exit 0" {
				t.Fatalf("the exec's record after its end over the limit: %s, exit %q, notes %q", r.State, r.Exit, r.Notes)
			}
			// Someone removes the folder; the next look records the command's edit.
			os.RemoveAll(filepath.Join(dir, "many"))
			if reopen {
				e.Close()
				e = diskEngineOn(t, dir, Options{NoSync: true})
			}
			look, err := e.CheckpointOutside(o)
			if err != nil {
				t.Fatal(err)
			}
			if look.Seq != 0 {
				t.Errorf("the command's edit was journaled as outside, record %d: %v", look.Seq, journalPaths(look.Files))
			}
			r := recordOf(t, e, x.Seq())
			if r.State != journal.Unknown || len(r.Files) != 1 || r.Files[0].Path != "a.txt" {
				t.Fatalf("the exec's record: %s, files %v, notes %q", r.State, journalPaths(r.Files), r.Notes)
			}
			if err := do(e, "op", func(c *Call) error {
				_, err := e.Rewind(c, RewindOptions{Session: "s", Turn: "t1"})
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "a\n" {
				t.Fatalf("a.txt after the rewind of t1: %q", b)
			}
		})
	}
}

//go:build !windows

package txn

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/journal"
)

// A look that cannot list a folder notes what becomes of what changed in it: the
// first look that can list it again journals that, and the note must say as whose.
// d/q is edited by hand, d made unlistable (chmod 000) and a.txt edited; a
// checkpoint records a.txt with the note. Then the first look to list d again is a
// checkpoint (outside), the end of an exec whose command lists it again (chmod 755
// d), or recovery's record of that exec once its vfsctl stopped: the record that
// holds d/q's edit is outside in the first case and the exec's in the others, and
// the note names each case. Before, it promised outside in all three. Root lists
// any folder, so as root it runs as nobody.
func TestUnlistedFolderNoteSaysWhoseItsChangesBecome(t *testing.T) {
	if rerunAsNobody(t) {
		return
	}
	for _, lister := range []string{"checkpoint", "exec", "recovery"} {
		dir := t.TempDir()
		for p, c := range map[string]string{"a.txt": "a\n", "d/q": "q\n"} {
			os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
			if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		writableAgain(t, dir)
		e := diskEngineOn(t, dir, Options{NoSync: true})
		if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "d", "q"), []byte("by hand\n"), 0o644)
		os.Chmod(filepath.Join(dir, "d"), 0)
		os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a, by hand\n"), 0o644)
		cp, err := e.CheckpointOutside(LookOptions{})
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(cp.Notes, func(n string) bool { return strings.HasPrefix(n, "d could not be listed") })
		if i < 0 {
			t.Fatalf("the checkpoint's notes say nothing of d: %q", cp.Notes)
		}
		note := cp.Notes[i]

		switch lister {
		case "checkpoint":
			os.Chmod(filepath.Join(dir, "d"), 0o755)
			if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
				t.Fatal(err)
			}
		case "exec", "recovery":
			x, err := e.BeginExec("s", "t1", ExecArgs{Argv: []string{"sh", "-c", "chmod 755 d"}, Cwd: "."}, LookOptions{})
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("sh", "-c", "chmod 755 d")
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v", out, err)
			}
			if lister == "exec" {
				if _, err := x.End("exit 0"); err != nil {
					t.Fatal(err)
				}
			} else {
				e.Close() // vfsctl stopped before the command's end was recorded
				e = diskEngineOn(t, dir, Options{NoSync: true})
			}
		}
		var holder *journal.Record
		for _, r := range records(t, e) {
			if slices.ContainsFunc(r.Files, func(f journal.File) bool { return f.Path == "d/q" }) {
				holder = r
			}
		}
		e.Close()
		if holder == nil {
			t.Fatalf("%s: no record holds d/q's edit", lister)
		}
		if want := map[string]string{"checkpoint": ToolOutside, "exec": ToolExec, "recovery": ToolExec}[lister]; holder.Tool != want {
			t.Errorf("%s lists d again: d/q's edit is in record %d of tool %s, want %s", lister, holder.Seq, holder.Tool, want)
		}
		// What the note must say of the record that holds the edit.
		said := map[string]string{ToolOutside: "else as outside", "exec": "as that exec's if the look ends an exec (or recovers one whose vfsctl stopped)"}[holder.Tool]
		if said == "" || !strings.Contains(note, said) {
			t.Errorf("%s lists d again: d/q's edit is in record %d (%s), and the note says %q", lister, holder.Seq, holder.Tool, note)
		}
	}
}

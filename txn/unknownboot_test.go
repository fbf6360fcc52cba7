package txn

import (
	"os"
	"path/filepath"
	"testing"
)

// Where the boot cannot be read (Wine has no BootId), an exec this process is running
// is still known as running: the open of the journal at its end does not settle it
// as abandoned, and its end records what the command changed.
func TestExecRunningHereWithoutABootID(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"a.txt": "a\n"}, Options{NoSync: true})
	defer e.Close()
	e.boot = ""
	o := LookOptions{}
	if _, err := e.CheckpointOutside(o); err != nil {
		t.Fatal(err)
	}
	x, err := e.BeginExec("s", "", ExecArgs{Argv: []string{"gen"}}, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	look, err := x.End("exit 0")
	if err != nil {
		t.Fatalf("the exec's end: %v", err)
	}
	if len(look.Files) != 1 || look.Files[0].Path != "b.txt" {
		t.Fatalf("the exec's look: %+v", look.Files)
	}
}

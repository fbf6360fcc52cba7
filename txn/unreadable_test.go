package txn

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/vfsctl/vfsctl/internal/winetest"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/vfs"
)

// A file made unreadable (chmod 000) after a journal-durable call wrote it cannot be
// opened to be synced: the checkpoint syncs its filesystem instead and takes the call
// off the list, rather than failing every time after. Root reads any file, so as
// root the test runs as nobody.
func TestCheckpointPastAFileMadeUnreadable(t *testing.T) {
	winetest.NeedPOSIXModes(t, "chmod 000 to make a file unreadable")
	checkAsNobody(t, unreadableRun, "ok, 0 listed")
}

// checkAsNobody runs scenario, one that permission bits decide, on a new workspace
// holding f.txt ("one\n"), and fails t unless it says want. Root ignores the bits: as
// root, t runs again as nobody (rerunAsNobody).
func checkAsNobody(t *testing.T, scenario func(ws string) string, want string) {
	t.Helper()
	if rerunAsNobody(t) {
		return
	}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "f.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := scenario(ws); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// execScript is the setup of the exec scenarios checkAsNobody runs: it opens an engine
// over ws, takes the first snapshot, and runs script with sh as one exec of session
// s. It returns the engine, open for later looks, and the exec's look; or, when a
// step failed, a line that says which.
func execScript(ws, script string) (*Engine, *Look, string) {
	fs, err := vfs.Open(ws, vfs.Options{})
	if err != nil {
		return nil, nil, "err " + err.Error()
	}
	e, err := Open(fs, Options{NoSync: true})
	if err != nil {
		return nil, nil, "err " + err.Error()
	}
	failed := func(step string, err error) (*Engine, *Look, string) {
		e.Close()
		return nil, nil, step + ": " + err.Error()
	}
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		return failed("checkpoint", err)
	}
	x, err := e.BeginExec("s", "", ExecArgs{Argv: []string{"script"}}, LookOptions{})
	if err != nil {
		return failed("begin", err)
	}
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = ws
	if out, err := cmd.CombinedOutput(); err != nil {
		return failed("script", fmt.Errorf("%v %s", err, out))
	}
	look, err := x.End("exit 0")
	if err != nil {
		return failed("end", err)
	}
	return e, look, ""
}

// unreadableRun edits f.txt in ws in the journal-durable mode, makes it unreadable,
// checkpoints, and says how that went and how many calls are still listed unsynced.
func unreadableRun(ws string) string {
	fs, err := vfs.Open(ws, vfs.Options{})
	if err != nil {
		return "err " + err.Error()
	}
	e, err := Open(fs, Options{Durability: DurableJournal, CheckpointInterval: -1})
	if err != nil {
		return "err " + err.Error()
	}
	defer e.Close()
	if err := edit(e, "s", "f.txt", "one", "two"); err != nil {
		return "edit: " + err.Error()
	}
	if err := os.Chmod(filepath.Join(ws, "f.txt"), 0); err != nil {
		return "chmod: " + err.Error()
	}
	if _, err := os.ReadFile(filepath.Join(ws, "f.txt")); err == nil {
		return "f.txt is still readable"
	}
	if err := e.Checkpoint(); err != nil {
		return "checkpoint: " + err.Error()
	}
	var listed int
	e.View(func(t *journal.Tx) error { listed = len(t.Lazy()); return nil })
	return fmt.Sprintf("ok, %d listed", listed)
}

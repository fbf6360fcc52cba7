package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/winetest"
)

// log --path and undo --path of a symlink a command made followed it to its target:
// log said "no calls match", undo "There is no change to undo on f.txt". A symlink
// names itself, as in git log -- link: the calls that made it are found, and the
// undo takes the command back (or says how, when it did more).
func TestPathOfASymlinkFindsTheCallsThatMadeIt(t *testing.T) {
	winetest.NeedPOSIXShell(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("f\n"), 0o644)
	cliIn(t, dir, "", "checkpoint", "--root", dir)
	for _, script := range []string{"ln -s f.txt lnk; mkdir -p nd/nn", "echo g >> f.txt", "ln -s f.txt solo"} {
		if code, out, errb := cliIn(t, dir, "", "exec", "--root", dir, "--", "sh", "-c", script); code != 0 {
			t.Skipf("exec %q: exit %d (no symlinks here?)\n%s%s", script, code, out, errb)
		}
	}
	// Calls 1, 2, 3: the symlinks' are 1 and 3; f.txt's is 2.
	for path, want := range map[string]string{"lnk": "1", "solo": "3", "f.txt": "2"} {
		code, out, errb := cliIn(t, dir, "", "log", "--root", dir, "--path", path)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if code != 0 || len(lines) != 2 || strings.Fields(lines[1])[0] != want {
			t.Errorf("log --path %s: exit %d, want call %s alone\n%s%s", path, code, want, out, errb)
		}
	}
	code, out, errb := cliIn(t, dir, "", "undo", "--root", dir, "--path", "lnk")
	if code == 0 || !strings.Contains(errb, "Call 1 (exec)") || !strings.Contains(errb, "vfsctl undo 1") {
		t.Errorf("undo --path lnk, of a command that made folders too: exit %d, want it to name call 1 and how to take it back whole\n%s%s", code, out, errb)
	}
	if code, out, errb := cliIn(t, dir, "", "undo", "--root", dir, "--path", "solo"); code != 0 {
		t.Errorf("undo --path solo: exit %d\n%s%s", code, out, errb)
	}
	if _, err := os.Lstat(filepath.Join(dir, "solo")); !os.IsNotExist(err) {
		t.Errorf("after undo --path solo, solo is still there (%v)", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(b) != "f\ng\n" {
		t.Errorf("undo --path solo changed its target: f.txt is %q", b)
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/winetest"
)

// vfsctl exec --root R from the same folder named through a symlink was refused as
// "the current folder ... is outside the workspace"; it runs the command there now.
func TestExecRootThroughASymlink(t *testing.T) {
	winetest.NeedPOSIXShell(t)
	base := t.TempDir()
	real := filepath.Join(base, "real")
	os.MkdirAll(filepath.Join(real, "sub"), 0o755)
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if code, out, errb := cliIn(t, real, "", "exec", "--root", link, "--", "true"); code != 0 {
		t.Errorf("exec --root LINK from REAL: exit %d %s%s", code, out, errb)
	}
	if code, out, errb := cliIn(t, filepath.Join(link, "sub"), "", "exec", "--root", real, "--", "sh", "-c", "echo x > x.txt"); code != 0 {
		t.Errorf("exec --root REAL from LINK/sub: exit %d %s%s", code, out, errb)
	}
	if _, err := os.Stat(filepath.Join(real, "sub", "x.txt")); err != nil {
		t.Errorf("the command did not run in sub: %v", err)
	}
	if code, _, errb := cliIn(t, base, "", "exec", "--root", real, "--", "true"); code != exitVfsctl || !strings.Contains(errb, "is outside the workspace") {
		t.Errorf("exec from outside the workspace: exit %d %s", code, errb)
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/winetest"
)

// A command grew big.bin, a small file, past the size limit: exec's warning and
// exec --help said an undo is refused without --skip-unrestorable, where vfsctl undo
// puts the small content back. What they say is checked against what undo does.
func TestExecGrownFileWarningMatchesUndo(t *testing.T) {
	winetest.NeedPOSIXShell(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "big.bin"), []byte("small\n"), 0o644)
	if code, out, errb := cliIn(t, dir, "", "checkpoint", "--root", dir); code != 0 {
		t.Fatalf("checkpoint: %s%s", out, errb)
	}
	code, out, errb := cliIn(t, dir, "", "exec", "--root", dir, "--", "sh", "-c", "head -c 17000000 /dev/zero >> big.bin")
	if code != 0 {
		t.Fatalf("exec: %s%s", out, errb)
	}
	if strings.Contains(errb, "--skip-unrestorable") || !strings.Contains(errb, "puts back the content it had before") {
		t.Errorf("exec's warning does not say the undo puts big.bin back:\n%s", errb)
	}
	h := strings.Join(strings.Fields(execUsage), " ") // what exec --help prints
	if strings.Contains(h, "a change of one cannot be undone") || !strings.Contains(h, "puts back the prior content of a small file it grew past 16 MB") {
		t.Errorf("exec --help does not say a grown file is put back:\n%s", h)
	}
	if code, out, errb := cliIn(t, dir, "", "undo", "1", "--root", dir); code != 0 {
		t.Fatalf("undo 1, which the warning and help say goes through: %s%s", out, errb)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "big.bin")); string(b) != "small\n" {
		t.Errorf("big.bin is %d bytes after the undo, want \"small\\n\"", len(b))
	}
}

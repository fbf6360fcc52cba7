package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/winetest"
)

// vfsctl undo of a command's change to a file with another hard link was refused in
// a model's words ("changes[0] (a.txt): ... or edit another file"), with no way
// offered to take the change back. The refusal says how; following it, the undo
// goes through.
func TestUndoOfAHardLinkedFileSaysHowToTakeItBack(t *testing.T) {
	winetest.NeedPOSIXShell(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	os.WriteFile(a, []byte("orig\n"), 0o644)
	if err := os.Link(a, b); err != nil {
		t.Skip("no hard links here:", err)
	}
	cliIn(t, dir, "", "checkpoint", "--root", dir)
	if code, out, errb := cliIn(t, dir, "", "exec", "--root", dir, "--", "sh", "-c", "echo more >> a.txt"); code != 0 {
		t.Fatalf("exec: exit %d\n%s%s", code, out, errb)
	}
	code, out, errb := cliIn(t, dir, "", "undo", "--root", dir)
	if code == 0 || strings.Contains(errb, "changes[0]") || strings.Contains(errb, "edit another file") || !strings.Contains(errb, "cp -p a.txt a.txt.tmp && mv a.txt.tmp a.txt") {
		t.Fatalf("undo of a hard-linked file's change: exit %d\n%s%s", code, out, errb)
	}
	if got := readFiles(t, dir, "a.txt", "b.txt"); got != "orig\nmore\norig\nmore\n" {
		t.Fatalf("the refused undo changed the files: %q", got)
	}
	// As the refusal says, by hand: a file of its own, then undo again.
	tmp := filepath.Join(dir, "a.txt.tmp")
	if err := os.WriteFile(tmp, []byte("orig\nmore\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, a); err != nil {
		t.Fatal(err)
	}
	if code, out, errb := cliIn(t, dir, "", "undo", "--root", dir); code != 0 {
		t.Fatalf("undo after the link was broken: exit %d\n%s%s", code, out, errb)
	}
	if got := readFiles(t, dir, "a.txt", "b.txt"); got != "orig\norig\n" {
		t.Errorf("after the undo: a.txt and b.txt are %q, want orig twice", got)
	}
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// vfsctl exec's exit status says how things went: 124 with the record written when
// --timeout killed a command that never ends (its whole process group), 125 when the
// command removed the journal, which is then not made anew.
func TestExecTimeoutAndJournalGone(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	vfsctl := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := run(args, strings.NewReader(""), &out, &errb)
		return code, out.String() + errb.String()
	}
	if code, out := vfsctl("checkpoint", "--root", dir); code != exitOK {
		t.Fatalf("checkpoint: %d %s", code, out)
	}
	// The shell's child sleeps on: only a kill of the group ends it.
	code, out := vfsctl("exec", "--root", dir, "--timeout", "300ms", "--", "sh", "-c", "echo started > "+filepath.Join(dir, "s.txt")+"; sleep 60; echo late")
	if code != 124 || !strings.Contains(out, "call 1: killed after the timeout of 300ms, 1 file changed") {
		t.Fatalf("exec past its timeout: exit %d, %s", code, out)
	}
	if code, out := vfsctl("log", "--root", dir); code != exitOK || !strings.Contains(out, "(killed after the timeout of 300ms): s.txt") {
		t.Errorf("log: %d %s", code, out)
	}
	code, out = vfsctl("exec", "--root", dir, "--", "sh", "-c", "rm -rf "+filepath.Join(dir, ".vfsctl")+"; echo b > "+filepath.Join(dir, "b.txt"))
	if code != exitVfsctl || !strings.Contains(out, "The journal .vfsctl/journal.db is gone") {
		t.Fatalf("exec that removed the journal: exit %d, %s", code, out)
	}
	if _, err := os.Lstat(filepath.Join(dir, ".vfsctl")); err == nil {
		t.Errorf("a journal was made anew after the command removed it")
	}
}

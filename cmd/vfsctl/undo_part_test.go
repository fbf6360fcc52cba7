package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/winetest"
)

// cliIn runs the CLI in-process in dir (exec runs its command in the current folder).
func cliIn(t *testing.T, dir, stdin string, args ...string) (int, string, string) {
	t.Helper()
	t.Chdir(dir)
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func readFiles(t *testing.T, dir string, names ...string) string {
	t.Helper()
	var s []string
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		s = append(s, string(b))
	}
	return strings.Join(s, "")
}

// undo_edit {path} after a run_command that changed two files took both back. It is
// refused now, naming the other file and how to take the command back whole; with
// wholeCall it does; the refusal wrote nothing.
func TestUndoEditOfOneFileOfACommand(t *testing.T) {
	winetest.NeedPOSIXShell(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b\n"), 0o644)
	calls := `{"tool":"run_command","args":{"command":"echo A > a.txt; echo B > b.txt"}}
{"tool":"undo_edit","args":{"path":"a.txt"}}
`
	_, out, errb := cliIn(t, dir, calls, "call", "--root", dir, "--session", "m", "--tools", "all,shell")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 replies:\n%s%s", out, errb)
	}
	var r struct {
		OK   bool   `json:"ok"`
		Kind string `json:"kind"`
		Text string `json:"text"`
	}
	json.Unmarshal([]byte(lines[1]), &r)
	if r.OK || r.Kind != "invalid_input" || !strings.Contains(r.Text, "also changed b.txt") || !strings.Contains(r.Text, `"wholeCall": true`) {
		t.Errorf("undo_edit a.txt of a command that changed a.txt and b.txt: %s", lines[1])
	}
	if got := readFiles(t, dir, "a.txt", "b.txt"); got != "A\nB\n" {
		t.Errorf("after the refused undo_edit: %q, want the command's A, B", got)
	}
	_, out, errb = cliIn(t, dir, `{"tool":"undo_edit","args":{"path":"a.txt","wholeCall":true}}`+"\n", "call", "--root", dir, "--session", "m", "--tools", "all,shell")
	if !strings.Contains(out, `"ok":true`) {
		t.Fatalf("undo_edit with wholeCall: %s%s", out, errb)
	}
	if got := readFiles(t, dir, "a.txt", "b.txt"); got != "a\nb\n" {
		t.Errorf("after undo_edit with wholeCall: %q, want a, b", got)
	}
}

// vfsctl undo --path a.txt after an exec that changed two files took both back; it is
// refused naming the other file and `vfsctl undo N`, which takes it back whole.
func TestUndoPathOfOneFileOfAnExec(t *testing.T) {
	winetest.NeedPOSIXShell(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b\n"), 0o644)
	if code, out, errb := cliIn(t, dir, "", "exec", "--root", dir, "--", "sh", "-c", "echo A > a.txt; echo B > b.txt"); code != 0 {
		t.Fatalf("exec: %d %s%s", code, out, errb)
	}
	code, out, errb := cliIn(t, dir, "", "undo", "--root", dir, "--path", "a.txt")
	if code != exitRefused || !strings.Contains(errb, "a.txt together with b.txt") || !strings.Contains(errb, "run `vfsctl undo 1`") {
		t.Errorf("undo --path a.txt: exit %d\n%s%s", code, out, errb)
	}
	if got := readFiles(t, dir, "a.txt", "b.txt"); got != "A\nB\n" {
		t.Errorf("after the refused undo --path: %q, want the command's A, B", got)
	}
	if code, out, errb := cliIn(t, dir, "", "undo", "--root", dir, "1"); code != exitOK {
		t.Fatalf("undo 1: %d %s%s", code, out, errb)
	}
	if got := readFiles(t, dir, "a.txt", "b.txt"); got != "a\nb\n" {
		t.Errorf("after undo 1: %q, want a, b", got)
	}
	code, _, errb = cliIn(t, dir, "", "redo", "--root", dir, "--path", "b.txt")
	if code != exitRefused || !strings.Contains(errb, "b.txt together with a.txt") || !strings.Contains(errb, "run `vfsctl redo 3`") {
		t.Errorf("redo --path b.txt: exit %d %s", code, errb)
	}
}

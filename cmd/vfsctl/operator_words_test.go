package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/toolapi"
)

// An operator command's refusal reads as words on a terminal, its kind only in --json:
// "vfsctl undo: invalid_input: Call 1 is already undone" read as an internal error,
// and nothing about that input was invalid.
func TestOperatorRefusalsShowNoKind(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "keyword.py"), []byte("x\n"), 0o644)
	edit := `{"tool":"edit_file","args":{"path":"keyword.py","edits":[{"oldText":"x","newText":"y"}]}}` + "\n"
	if code, out, errb := cliIn(t, dir, edit, "call", "--root", dir); code != exitOK {
		t.Fatalf("edit: %d %s%s", code, out, errb)
	}
	if code, out, errb := cliIn(t, dir, "", "undo", "1"); code != exitOK {
		t.Fatalf("undo 1: %d %s%s", code, out, errb)
	}
	refused := `{"tool":"edit_file","args":{"path":"keyword.py","edits":[{"oldText":"zzz","newText":"y"}]}}` + "\n"
	if code, out, errb := cliIn(t, dir, refused, "call", "--root", dir); !strings.Contains(out, `"txn":3`) {
		t.Fatalf("refused edit: %d %s%s", code, out, errb)
	}
	for _, args := range [][]string{
		{"undo", "1"}, // already undone
		{"undo", "3"}, // refused: changed nothing
		{"rewind", "--session", "nobody", "--turn", "t9"}, // no such session
		{"undo", "99"}, // no such call
	} {
		code, out, errb := cliIn(t, dir, "", args...)
		if code != exitRefused || out != "" || !strings.HasPrefix(errb, "vfsctl "+args[0]+": ") {
			t.Fatalf("%v: %d\n%s%s", args, code, out, errb)
		}
		for _, k := range toolapi.Kinds() {
			if strings.Contains(errb, string(k)) {
				t.Errorf("%v names the kind %s: %s", args, k, errb)
			}
		}
		code, out, _ = cliIn(t, dir, "", append(args, "--json")...)
		var r struct {
			OK   *bool  `json:"ok"`
			Kind string `json:"kind"`
		}
		if code != exitRefused || json.Unmarshal([]byte(out), &r) != nil || r.OK == nil || *r.OK || r.Kind == "" {
			t.Errorf("%v --json: %d %s", args, code, out)
		}
	}
}

// undo --path of a file whose change was undone already names the undo and the redo
// that re-applies it, as undo N does; following the advice puts the change back.
func TestUndoPathOfUndoneChangeNamesRedo(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "keyword.py"), []byte("x\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "other.py"), []byte("o\n"), 0o644)
	calls := `{"tool":"edit_file","args":{"path":"keyword.py","edits":[{"oldText":"x","newText":"y"}]}}
{"tool":"read_file","args":{"path":"other.py"}}
`
	if code, out, errb := cliIn(t, dir, calls, "call", "--root", dir); code != exitOK {
		t.Fatalf("calls: %d %s%s", code, out, errb)
	}
	if code, out, errb := cliIn(t, dir, "", "undo", "1"); code != exitOK {
		t.Fatalf("undo 1: %d %s%s", code, out, errb)
	}
	// A read after the undo is no change: the undo is still the file's latest.
	cliIn(t, dir, `{"tool":"read_file","args":{"path":"keyword.py"}}`+"\n", "call", "--root", dir)
	code, _, errb := cliIn(t, dir, "", "undo", "--path", "keyword.py")
	if code != exitRefused || !strings.Contains(errb, "call 1, was undone by call 3; `vfsctl redo 3` re-applies it.") {
		t.Fatalf("undo --path keyword.py after undo 1: %d %s", code, errb)
	}
	// A file that was only read has no undo to name.
	if code, _, errb := cliIn(t, dir, "", "undo", "--path", "other.py"); code != exitRefused || strings.Contains(errb, "redo") {
		t.Errorf("undo --path other.py: %d %s", code, errb)
	}
	if code, out, errb := cliIn(t, dir, "", "redo", "3"); code != exitOK {
		t.Fatalf("redo 3, as advised: %d %s%s", code, out, errb)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "keyword.py")); string(b) != "y\n" {
		t.Errorf("after redo 3, keyword.py holds %q, want the edit's %q", b, "y\n")
	}
}

// --until at or before --since is an empty window: a usage error that says which is
// the older time, not "0 calls" as if the journal were quiet.
func TestEmptyWindowRefused(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("a\n"), 0o644)
	if code, out, errb := cliIn(t, dir, `{"tool":"read_file","args":{"path":"f.txt"}}`+"\n", "call", "--root", dir); code != exitOK {
		t.Fatalf("call: %d %s%s", code, out, errb)
	}
	for _, cmd := range []string{"stats", "log", "export"} {
		code, out, errb := cliIn(t, dir, "", cmd, "--since", "1d", "--until", "2d")
		if code != exitUsage || out != "" || !strings.Contains(errb, "--until 2d") || !strings.Contains(errb, "--since is the older time") {
			t.Errorf("%s --since 1d --until 2d: %d %q %q", cmd, code, out, errb)
		}
		if code, out, errb := cliIn(t, dir, "", cmd, "--since", "2026-01-02", "--until", "2026-01-02"); code != exitUsage {
			t.Errorf("%s with --since and --until the same day: %d %q %q", cmd, code, out, errb)
		}
		// The window the advice gives is taken.
		if code, out, errb := cliIn(t, dir, "", cmd, "--since", "2d", "--until", "1d"); code != exitOK {
			t.Errorf("%s --since 2d --until 1d: %d %q %q", cmd, code, out, errb)
		}
	}
}

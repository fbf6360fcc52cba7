package toolapi

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A model used to tools that apply a call's edits in order sends a later edit against
// the text an earlier one writes. The call is still refused and the file untouched,
// but the refusal names the edit whose text it is and how to send the change, rather
// than telling the model to re-read a file it has read right.
func TestChainedEditsNamed(t *testing.T) {
	const src = "def foo():\n    return 1\n"
	dir := t.TempDir()
	for _, n := range []string{"ch.py", "crlf.py", "miss.py", "sr.py"} {
		c := src
		if n == "crlf.py" {
			c = strings.ReplaceAll(src, "\n", "\r\n")
		}
		if err := os.WriteFile(filepath.Join(dir, n), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e, err := Open(dir, Options{Tools: "all"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	chained := `[{"oldText": "def foo():", "newText": "def bar():"}, {"oldText": "def bar():\n    return 1", "newText": "def bar():\n    return 2"}]`
	// The oracle: applied one after the other, edits[1] finds its text.
	if seq := strings.Replace(src, "def foo():", "def bar():", 1); !strings.Contains(seq, "def bar():\n    return 1") {
		t.Fatal("the case is not a chained one")
	}
	do := func(tool, args string) string {
		t.Helper()
		r := e.Call(context.Background(), "s", tool, json.RawMessage(args))
		if r.OK || kindOf(r) != "text_not_found" {
			t.Fatalf("%s %s: want text_not_found, got ok=%v kind=%q: %s", tool, args, r.OK, kindOf(r), r.Text)
		}
		return r.Text
	}
	for _, c := range []struct{ tool, args string }{
		{"edit_file", `{"path": "ch.py", "edits": ` + chained + `}`},
		{"edit_file", `{"path": "crlf.py", "edits": ` + chained + `}`},
		{"apply_changes", `{"changes": [{"path": "ch.py", "edits": ` + chained + `}]}`},
	} {
		text := do(c.tool, c.args)
		for _, w := range []string{"it is the text edits[0] writes", "as it was before the call", "Merge edits[0] into edits[1]", "edits[1] alone in a second call"} {
			if !strings.Contains(text, w) {
				t.Errorf("%s: %q lacks %q", c.tool, text, w)
			}
		}
		if strings.Contains(text, "Re-read") {
			t.Errorf("%s: a chained edit told to re-read the file: %q", c.tool, text)
		}
	}

	// An oldText missing even after the earlier edits is the usual not-found.
	text := do("edit_file", `{"path": "miss.py", "edits": [{"oldText": "def foo():", "newText": "def bar():"}, {"oldText": "def baz():", "newText": "def qux():"}]}`)
	if !strings.Contains(text, "Re-read the file") || strings.Contains(text, "writes") {
		t.Errorf("a plain miss: %q", text)
	}

	// replace_in_file matches every block in the original too (Cline applies them in
	// order): the same advice, in blocks.
	diff := "------- SEARCH\ndef foo():\n=======\ndef bar():\n+++++++ REPLACE\n------- SEARCH\ndef bar():\n    return 1\n=======\ndef bar():\n    return 2\n+++++++ REPLACE\n"
	args, _ := json.Marshal(map[string]string{"path": "sr.py", "diff": diff})
	text = do("replace_in_file", string(args))
	for _, w := range []string{"block 2: its SEARCH section was not found", "it is the text block 1 writes", "Merge block 1 into block 2", "None of the 2 blocks was applied."} {
		if !strings.Contains(text, w) {
			t.Errorf("replace_in_file: %q lacks %q", text, w)
		}
	}
	if strings.Contains(text, "Re-read") || strings.Contains(text, "all in one call, with this one fixed") {
		t.Errorf("replace_in_file: advice that contradicts the chained one: %q", text)
	}

	for _, n := range []string{"ch.py", "crlf.py", "miss.py", "sr.py"} {
		want := src
		if n == "crlf.py" {
			want = strings.ReplaceAll(src, "\n", "\r\n")
		}
		if b, _ := os.ReadFile(filepath.Join(dir, n)); string(b) != want {
			t.Errorf("%s changed by a refused call: %q", n, b)
		}
	}
}

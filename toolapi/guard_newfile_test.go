package toolapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/guard"
	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/toolapi"
)

// A new Python file that CPython's tokenizer would refuse (each case's error is
// CPython's own) is refused as an edit that breaks one is, in both builds: the check
// of tokens and indentation does not lag behind the language.
func TestNewPythonFileRefusedOnItsTokens(t *testing.T) {
	eng, ws := guardEngine(t, "", nil)
	for _, c := range []struct {
		name, content, want string
		line                int
	}{
		{"block.py", "def f():\nreturn 1\n", "expected an indented block", 2},            // IndentationError
		{"paren.py", "def f(:\n    return 1\n", "'(' was never closed", 1},               // SyntaxError
		{"tabs.py", "if x:\n        a = 1\n\tb = 2\n", "TabError", 3},                    // TabError
		{"level.py", "def f():\n    if x:\n        a = 1\n      b = 2\n", "unindent", 4}, // IndentationError
	} {
		r := call(t, eng, "create_file", map[string]any{"path": c.name, "content": c.content})
		if r.OK || *r.Kind != "syntax_error" || !strings.Contains(r.Text, c.want) || !strings.Contains(r.Text, fmt.Sprintf("> %5d\t", c.line)) {
			t.Errorf("%s: want a syntax_error naming %q at line %d, got %+v", c.name, c.want, c.line, r)
		}
		if _, err := os.Stat(filepath.Join(ws, c.name)); err == nil {
			t.Errorf("%s was written", c.name)
		}
	}
}

// A new Python file whose errors only tree-sitter finds is written (its grammar may
// lag behind the language), and the reply says the first error and its line, as
// --guard warn says an edit's; by create_file and by Gemini's write_file, which makes
// a new file too. Without cgo these languages have no parser but Python's tokens:
// the file is written without a word. A new file in a language whose grammar
// misparses valid code (C: a macro it cannot expand; shell: "for f do") is written
// without a word, valid (gcc -fsyntax-only, bash -n) or not.
func TestNewFileWithTreeSitterErrorIsWrittenWithAWarning(t *testing.T) {
	treeSitter := guard.Backend() == "tree-sitter"
	cases := []struct {
		name, content string
		line          int // of the first error, as the reply's excerpt marks it; 0: no warning
	}{
		{"args.py", "def f(x y):\n    return x\n", 1},
		{"my.h", "#ifndef MY_H\n#define MY_H\n\n#define NOTHROW __attribute__((nothrow))\n\nextern int my_get(int fd) NOTHROW;\n\n#endif\n", 0},
		{"run.sh", "#!/bin/sh\nfor f do\n  echo \"$f\"\ndone\n", 0},
		{"tool.c", "int main(void) {\n    return 0;\n", 0},
	}
	check := func(tool, name, content string, line int, r toolapi.Result, ws string) {
		t.Helper()
		if !r.OK {
			t.Errorf("%s %s refused: %s", tool, name, r.Text)
			return
		}
		if got, _ := os.ReadFile(filepath.Join(ws, name)); string(got) != content {
			t.Errorf("%s %s: the file holds %q", tool, name, got)
		}
		warned := strings.Contains(r.Text, "warning: the new file "+name+" has a syntax error")
		if warned != (treeSitter && line > 0) {
			t.Errorf("%s %s (%s): warned %v:\n%s", tool, name, guard.Backend(), warned, r.Text)
		}
		if warned && !strings.Contains(r.Text, fmt.Sprintf("> %5d\t", line)) {
			t.Errorf("%s %s: the warning does not mark line %d:\n%s", tool, name, line, r.Text)
		}
	}
	eng, ws := guardEngine(t, "", nil)
	for _, c := range cases {
		check("create_file", c.name, c.content, c.line, call(t, eng, "create_file", map[string]any{"path": c.name, "content": c.content}), ws)
	}
	// Valid files, and a valid Rust file: no word.
	if r := call(t, eng, "create_file", map[string]any{"path": "ok.rs", "content": "fn main() {\n    let x = 1;\n}\n"}); !r.OK || strings.Contains(r.Text, "warning") {
		t.Errorf("a valid new file: %+v", r)
	}
	// JavaScript is parsed exactly: a new file that does not parse is refused.
	if r := call(t, eng, "create_file", map[string]any{"path": "bad.js", "content": "function f( {\n"}); r.OK || *r.Kind != "syntax_error" {
		t.Errorf("a broken new JavaScript file: %+v", r)
	}

	ws = testutil.Workspace(t, nil)
	gem, err := toolapi.Open(ws, toolapi.Options{Tools: "gemini"})
	if err != nil {
		t.Fatal(err)
	}
	defer gem.Close()
	for _, c := range cases {
		b, _ := json.Marshal(map[string]any{"file_path": c.name, "content": c.content})
		check("write_file", c.name, c.content, c.line, gem.Call(context.Background(), "g", "write_file", b), ws)
	}

	// --guard off says nothing.
	off, _ := guardEngine(t, toolapi.GuardOff, nil)
	if r := call(t, off, "create_file", map[string]any{"path": "args.py", "content": cases[0].content}); !r.OK || strings.Contains(r.Text, "warning") {
		t.Errorf("--guard off: %+v", r)
	}
}

// A moved file is judged against its source, not as a new file: one that was broken
// before moves as it is, without a word, and a move that also edits a file that
// parsed is refused where the edit breaks it, as an edit in place is.
func TestMovedFileJudgedAgainstItsSource(t *testing.T) {
	broken := map[string]string{
		"a.py": "def f():\nreturn 1\n",
		"a.go": "package main\n\nfunc main() {\n",
		"a.rs": "fn main() {\n    let x = 1;\n",
	}
	files := map[string]string{"ok.go": goFile}
	for p, c := range broken {
		files[p] = c
	}
	ws := testutil.Workspace(t, files)
	eng, err := toolapi.Open(ws, toolapi.Options{Tools: "all"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	for p, c := range broken {
		r := call(t, eng, "move_file", map[string]any{"source": p, "destination": "sub/" + p})
		if !r.OK || strings.Contains(r.Text, "warning") {
			t.Errorf("move of the broken %s: %+v", p, r)
			continue
		}
		if got := testutil.ReadFile(t, filepath.Join(ws, "sub", p)); got != c {
			t.Errorf("sub/%s holds %q", p, got)
		}
	}
	patch := "*** Begin Patch\n*** Update File: ok.go\n*** Move to: moved.go\n@@\n-\tfmt.Println(\"done\")\n+\tfmt.Println(\"done\"\n*** End Patch"
	r := call(t, eng, "apply_patch", map[string]any{"input": patch})
	if r.OK || *r.Kind != "syntax_error" || !strings.Contains(r.Text, "which parsed before") {
		t.Errorf("a move that breaks a file that parsed: %+v", r)
	}
	if got := testutil.ReadFile(t, filepath.Join(ws, "ok.go")); got != goFile {
		t.Errorf("ok.go holds %q", got)
	}
}

// A new Python file beginning with a UTF-8 BOM, which CPython runs, is written as sent.
func TestNewPythonFileWithBOMWritten(t *testing.T) {
	eng, ws := guardEngine(t, "", nil)
	content := "\ufeffimport os\nif os:\n    x = 1\n"
	r := call(t, eng, "create_file", map[string]any{"path": "bom.py", "content": content})
	if !r.OK || strings.Contains(r.Text, "warning") {
		t.Fatalf("refused or warned: %+v", r)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "bom.py")); string(got) != content {
		t.Errorf("the file holds %q", got)
	}
}

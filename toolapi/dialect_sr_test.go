package toolapi

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func sr(blocks ...string) string {
	s := ""
	for i := 0; i+1 < len(blocks); i += 2 {
		s += "------- SEARCH\n" + blocks[i] + "=======\n" + blocks[i+1] + "+++++++ REPLACE\n"
	}
	return s
}

func TestReplaceInFile(t *testing.T) {
	const app = "function add(a, b) {\n  return a + b;\n}\n\nfunction sub(a, b) {\n  return a - b;\n}\n"
	rf := ReplaceInFile
	runDialectCases(t, "search-replace", []dialectCase{
		{name: "two blocks, both applied", files: map[string]string{"app.js": app}, steps: []step{
			{tool: rf, args: ed("path", "app.js", "diff", sr("  return a + b;\n", "  return b + a;\n", "function sub(a, b) {\n", "function subtract(a, b) {\n")),
				has: []string{"Edited app.js with 2 blocks (line 2, line 5).", "+function subtract(a, b) {"}},
		}, disk: map[string]string{"app.js": "function add(a, b) {\n  return b + a;\n}\n\nfunction subtract(a, b) {\n  return a - b;\n}\n"}},
		{name: "the second block fails: the file is unchanged", files: map[string]string{"app.js": app}, steps: []step{
			{tool: rf, args: ed("path", "app.js", "diff", sr("  return a + b;\n", "  return b + a;\n", "  return a * b;\n", "  return 0;\n")),
				kind: "text_not_found", has: []string{"block 2", "None of the 2 blocks was applied"}},
		}, disk: map[string]string{"app.js": app}},
		{name: "blocks are matched in the original, not after each other", files: map[string]string{"a.txt": "one\ntwo\n"}, steps: []step{
			{tool: rf, args: ed("path", "a.txt", "diff", sr("one\n", "uno\n", "uno\n", "eins\n")), kind: "text_not_found", has: []string{"block 2"}},
		}, disk: map[string]string{"a.txt": "one\ntwo\n"}},
		{name: "ambiguous SEARCH refused", files: map[string]string{"a.py": "x = 1\ny = 2\nx = 1\n"}, steps: []step{
			{tool: rf, args: ed("path", "a.py", "diff", sr("x = 1\n", "x = 3\n")), kind: "multiple_matches", has: []string{"lines 1, 3", ":start_line:"}},
		}, disk: map[string]string{"a.py": "x = 1\ny = 2\nx = 1\n"}},
		{name: ":start_line: picks one of several matches", files: map[string]string{"a.py": "x = 1\ny = 2\nx = 1\n"}, steps: []step{
			{tool: rf, args: ed("path", "a.py", "diff", "<<<<<<< SEARCH\n:start_line:3\n-------\nx = 1\n=======\nx = 3\n>>>>>>> REPLACE\n")},
		}, disk: map[string]string{"a.py": "x = 1\ny = 2\nx = 3\n"}},
		{name: "curly quotes in SEARCH forgiven, the file's bytes kept", files: map[string]string{"q.py": "msg = \"hi\"\t\nprint(msg)\n"}, steps: []step{
			{tool: rf, args: ed("path", "q.py", "diff", sr("msg = “hi”\n", "msg = “hi there”\n")),
				has: []string{"block 1: matched after folding curly quotes"}},
		}, disk: map[string]string{"q.py": "msg = \"hi there\"\t\nprint(msg)\n"}},
		{name: "CRLF file keeps its line endings", files: map[string]string{"w.txt": "a\r\nb\r\nc\r\n"}, steps: []step{
			{tool: rf, args: ed("path", "w.txt", "diff", sr("b\n", "B\nB2\n"))},
		}, disk: map[string]string{"w.txt": "a\r\nB\r\nB2\r\nc\r\n"}},
		{name: "malformed diff refused", files: map[string]string{"a.txt": "a\n"}, steps: []step{
			{tool: rf, args: ed("path", "a.txt", "diff", "just replace a with b"), kind: "invalid_input"},
		}, disk: map[string]string{"a.txt": "a\n"}},
		{name: "missing file", steps: []step{
			{tool: rf, args: ed("path", "nope.txt", "diff", sr("a\n", "b\n")), kind: "file_not_found"},
		}, gone: []string{"nope.txt"}},
		{name: "edit_file is not offered in the search-replace set", files: map[string]string{"a.txt": "a\n"}, steps: []step{
			{tool: EditFile, args: ed("path", "a.txt", "edits", []map[string]string{{"oldText": "a", "newText": "b"}}), kind: "unknown_tool", has: []string{"replace_in_file"}},
		}, disk: map[string]string{"a.txt": "a\n"}},
	})
}

// The search-replace set can make a file and rewrite one whole, as Cline's tools do
// with write_to_file: its file_not_found refusal points to create_file, which it now
// offers.
func TestSearchReplaceSetMakesFiles(t *testing.T) {
	eng, err := Open(t.TempDir(), Options{Tools: "search-replace"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	do := func(tool, args string) Result {
		return eng.Call(context.Background(), "s", tool, json.RawMessage(args))
	}
	r := do(ReplaceInFile, `{"path":"new.py","diff":"<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE"}`)
	if r.OK || !strings.Contains(r.Text, "create_file makes a new file") {
		t.Fatalf("replace_in_file of a missing file: %+v", r)
	}
	if r := do(CreateFile, `{"path":"new.py","content":"a = 1\n"}`); !r.OK {
		t.Fatalf("create_file in the search-replace set: %s", r.Text)
	}
	if r := do(ReplaceInFile, `{"path":"new.py","diff":"<<<<<<< SEARCH\na = 1\n=======\na = 2\n>>>>>>> REPLACE"}`); !r.OK {
		t.Fatalf("replace_in_file of the new file: %s", r.Text)
	}
	do(ReadFile, `{"path":"new.py"}`)
	if r := do(WriteFile, `{"path":"new.py","content":"a = 3\n"}`); !r.OK {
		t.Fatalf("write_file in the search-replace set: %s", r.Text)
	}
	if r := do(EditFile, `{"path":"new.py","edits":[{"oldText":"a = 3","newText":"a = 4"}]}`); r.OK || *r.Kind != "unknown_tool" {
		t.Errorf("edit_file is offered in the search-replace set: %+v", r)
	}
}

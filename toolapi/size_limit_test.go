package toolapi

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

// Every tool that writes content refuses as too_large, and writes nothing, a change
// whose text as sent or whose result is over the file size limit: a file over it can
// no longer be read or edited by any tool. The text as sent is refused before it is
// matched or guarded (an oldText that is nowhere still gets too_large, a result that
// does not parse still gets too_large). The limit is set small here; the default is
// 32 MiB.
func TestEditsOverTheSizeLimit(t *testing.T) {
	const limit = 4096
	line := "y = 2\n"
	n := limit/len(line) + 1 // lines just over the limit
	over := strings.Repeat(line, n)
	lines := make([]string, n)
	for i := range lines {
		lines[i] = "y = 2"
	}
	plus := strings.Repeat("+y = 2\n", n)
	big := "first line\n" + strings.Repeat("0123456789abcde\n", 249) // 3,995 bytes: 102 more are over
	half := over[:limit/2+6]                                         // two of them are over
	files := map[string]string{
		"ab.py":    "a = 1\nb = 1\n",
		"a.py":     "x = 1\n",
		"two.py":   "x = 1\nx = 1\n",
		"big.txt":  big,
		"crlf.txt": "a\r\nb\r\n",
		"r.txt":    strings.Repeat("a\n", 100),
	}
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	edit := func(path, old, new string) string {
		return js(map[string]any{"path": path, "edits": []map[string]any{{"oldText": old, "newText": new}}})
	}
	cases := []struct {
		name, tools string
		read        string // read first (a licence for write_file, anchors for edit_lines)
		tool, args  string
	}{
		// The text as sent is over the limit.
		{"edit_file", "native", "", EditFile, edit("a.py", "x = 1", over)},
		{"edit_file, oldText found nowhere", "native", "", EditFile, edit("a.py", "nowhere", over)},
		{"edit_file, a result that does not parse", "native", "", EditFile, edit("a.py", "x = 1", strings.Repeat("def (\n", n))},
		{"edit_file, two edits over it together", "native", "", EditFile, js(map[string]any{"path": "ab.py", "edits": []map[string]any{
			{"oldText": "a = 1", "newText": half}, {"oldText": "b = 1", "newText": half}}})},
		{"edit_file dry run", "native", "", EditFile, js(map[string]any{"path": "a.py", "edits": []map[string]any{{"oldText": "x = 1", "newText": over}}, "dryRun": true})},
		{"apply_changes edits", "native", "", ApplyChanges, js(map[string]any{"changes": []map[string]any{{"path": "a.py", "edits": []map[string]any{{"oldText": "x = 1", "newText": over}}}}})},
		{"apply_changes create", "native", "", ApplyChanges, js(map[string]any{"changes": []map[string]any{{"path": "new.py", "create": over}}})},
		{"create_file", "native", "", CreateFile, js(map[string]any{"path": "new.py", "content": over})},
		{"write_file", "native", "a.py", WriteFile, js(map[string]any{"path": "a.py", "content": over})},
		{"str_replace", "anthropic", "", TextEditor, js(map[string]any{"command": "str_replace", "path": "a.py", "old_str": "x = 1", "new_str": over})},
		{"insert", "anthropic", "", TextEditor, js(map[string]any{"command": "insert", "path": "a.py", "insert_line": 1, "insert_text": over})},
		{"text editor create", "anthropic", "", TextEditor, js(map[string]any{"command": "create", "path": "new.py", "file_text": over})},
		{"str_replace_editor", TextEditorOld, "", TextEditorOld, js(map[string]any{"command": "str_replace", "path": "a.py", "old_str": "x = 1", "new_str": over})},
		{"replace_in_file", "search-replace", "", ReplaceInFile, js(map[string]any{"path": "a.py", "diff": "------- SEARCH\nx = 1\n=======\n" + over + "+++++++ REPLACE\n"})},
		{"replace_in_file, SEARCH found nowhere", "search-replace", "", ReplaceInFile, js(map[string]any{"path": "a.py", "diff": "------- SEARCH\nnowhere\n=======\n" + over + "+++++++ REPLACE\n"})},
		{"apply_patch update", "codex", "", ApplyPatch, js(map[string]any{"input": "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n" + plus + "*** End Patch"})},
		{"apply_patch move and update", "codex", "", ApplyPatch, js(map[string]any{"input": "*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@\n-x = 1\n" + plus + "*** End Patch"})},
		{"apply_patch add", "codex", "", ApplyPatch, js(map[string]any{"input": "*** Begin Patch\n*** Add File: new.py\n" + plus + "*** End Patch"})},
		{"apply_diff", "udiff", "", ApplyDiff, js(map[string]any{"diff": fmt.Sprintf("--- a/a.py\n+++ b/a.py\n@@ -1 +1,%d @@\n-x = 1\n%s", n, plus)})},
		{"edit_lines", "hashline", "a.py", EditLines, js(map[string]any{"path": "a.py", "edits": []map[string]any{{"op": "replace", "start": anchorFor(1, "x = 1"), "lines": lines}}})},
		{"gemini replace", "gemini", "", GeminiReplace, js(map[string]any{"file_path": "a.py", "old_string": "x = 1", "new_string": over})},
		{"gemini replace, expected_replacements", "gemini", "", GeminiReplace, js(map[string]any{"file_path": "two.py", "old_string": "x = 1", "new_string": half, "expected_replacements": 2})},
		{"gemini replace creating", "gemini", "", GeminiReplace, js(map[string]any{"file_path": "new.py", "old_string": "", "new_string": over})},
		{"gemini write_file", "gemini", "a.py", WriteFile, js(map[string]any{"file_path": "a.py", "content": over})},

		// Each text fits; the file it makes does not.
		{"edit_file, a large file grows over it", "native", "", EditFile, edit("big.txt", "first line\n", strings.Repeat("z", 200)+"\nfirst line\n")},
		{"edit_file, replaceAll in many places", "native", "", EditFile, js(map[string]any{"path": "r.txt", "edits": []map[string]any{{"oldText": "a", "newText": strings.Repeat("b", 50), "replaceAll": true}}})},
		{"replace_in_file, a large file grows over it", "search-replace", "", ReplaceInFile, js(map[string]any{"path": "big.txt", "diff": "------- SEARCH\nfirst line\n=======\n" + strings.Repeat("z", 200) + "\nfirst line\n+++++++ REPLACE\n"})},
		{"apply_patch, a large file grows over it", "codex", "", ApplyPatch, js(map[string]any{"input": "*** Begin Patch\n*** Update File: big.txt\n@@\n-first line\n+" + strings.Repeat("z", 200) + "\n+first line\n*** End Patch"})},
		{"write_file, the file's CRLF put on it", "native", "crlf.txt", WriteFile, js(map[string]any{"path": "crlf.txt", "content": strings.Repeat("c\n", limit/3+1)})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := testutil.Workspace(t, files)
			e, err := Open(dir, Options{Tools: c.tools, MaxFileSize: limit})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { e.Close() })
			if c.read != "" {
				if r := e.Call(context.Background(), "s", ReadFile, json.RawMessage(js(map[string]any{"path": c.read}))); !r.OK {
					t.Fatalf("read: %s", r.Text)
				}
			}
			before := testutil.Snapshot(t, dir)
			r := e.Call(context.Background(), "s", c.tool, json.RawMessage(c.args))
			if r.OK || kindOf(r) != "too_large" {
				t.Errorf("want too_large, got ok %v, %s: %.300s", r.OK, kindOf(r), r.Text)
			}
			for _, want := range []string{fmt.Sprint(limit), "other files"} {
				if !strings.Contains(r.Text, want) {
					t.Errorf("the refusal does not say %q: %.300s", want, r.Text)
				}
			}
			testutil.SameSnapshot(t, before, testutil.Snapshot(t, dir))
		})
	}
}

// A change that makes a file of exactly the limit is written: the bound refuses only
// what is over it.
func TestEditUpToTheSizeLimit(t *testing.T) {
	const limit = 4096
	big := strings.Repeat("0123456789abcde\n", 250) // 4,000 bytes
	add := strings.Repeat("z", limit-len(big)-1) + "\n"
	dir := testutil.Workspace(t, map[string]string{"big.txt": big})
	e, err := Open(dir, Options{MaxFileSize: limit})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	args, _ := json.Marshal(map[string]any{"path": "big.txt", "edits": []map[string]any{{"oldText": big, "newText": add + big}}})
	r := e.Call(context.Background(), "s", EditFile, args)
	if got := testutil.ReadFile(t, dir+"/big.txt"); !r.OK || got != add+big || len(got) != limit {
		t.Fatalf("ok %v: %.300s; the file is %d bytes", r.OK, r.Text, len(got))
	}
}

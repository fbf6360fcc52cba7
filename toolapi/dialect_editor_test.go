package toolapi

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

// dialectAPI is an API over a workspace of files that offers the tools spec chooses.
func dialectAPI(t *testing.T, spec string, files map[string]string) (*dispatcher, string) {
	t.Helper()
	a, dir := newAPI(t, files)
	tools, err := selectTools(spec)
	if err != nil {
		t.Fatal(err)
	}
	a.tools = tools
	return a, dir
}

// step is one call of a dialect test and what it must do.
type step struct {
	tool string
	args map[string]any
	kind string   // "" for success
	has  []string // what the reply must say
	text string   // the whole reply, when set
}

// dialectCase runs steps on files and checks the disk after them.
type dialectCase struct {
	name  string
	files map[string]string
	steps []step
	disk  map[string]string // path -> content; "" with absent lists paths that must not exist
	gone  []string
}

func runDialectCases(t *testing.T, spec string, cases []dialectCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, dir := dialectAPI(t, spec, tc.files)
			for i, s := range tc.steps {
				args, _ := json.Marshal(s.args)
				args = []byte(strings.ReplaceAll(string(args), "$ROOT", filepath.ToSlash(dir)))
				r := a.Call("s", s.tool, args)
				if kindOf(r) != s.kind {
					t.Fatalf("step %d: kind %q, want %q: %s", i, kindOf(r), s.kind, r.Text)
				}
				if want := strings.ReplaceAll(s.text, "$ROOT", filepath.ToSlash(dir)); s.text != "" && r.Text != want {
					t.Errorf("step %d: reply\n%q\nwant\n%q", i, r.Text, want)
				}
				for _, h := range s.has {
					if !strings.Contains(r.Text, h) {
						t.Errorf("step %d: reply does not say %q:\n%s", i, h, r.Text)
					}
				}
			}
			for p, want := range tc.disk {
				if got := testutil.ReadFile(t, filepath.Join(dir, p)); got != want {
					t.Errorf("%s on disk:\n%q\nwant\n%q", p, got, want)
				}
			}
			for _, p := range tc.gone {
				if _, err := os.Lstat(filepath.Join(dir, p)); err == nil {
					t.Errorf("%s exists", p)
				}
			}
		})
	}
}

func ed(args ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(args); i += 2 {
		m[args[i].(string)] = args[i+1]
	}
	return m
}

const primes = "def is_prime(n):\n    if n < 2:\n        return False\n    return all(n % i for i in range(2, n))\n"

func TestTextEditorView(t *testing.T) {
	te := TextEditor
	runDialectCases(t, "anthropic", []dialectCase{
		{name: "file numbered as read_file shows it, absolute path", files: map[string]string{"primes.py": primes}, steps: []step{
			{tool: te, args: ed("command", "view", "path", "$ROOT/primes.py"),
				text: "     1\tdef is_prime(n):\n     2\t    if n < 2:\n     3\t        return False\n     4\t    return all(n % i for i in range(2, n))\n"},
		}},
		{name: "view_range to -1", files: map[string]string{"primes.py": primes}, steps: []step{
			{tool: te, args: ed("command", "view", "path", "primes.py", "view_range", []int{3, -1}),
				text: "     3\t        return False\n     4\t    return all(n % i for i in range(2, n))\n(lines 3-4 of 4)\n"},
		}},
		{name: "view_range inside", files: map[string]string{"primes.py": primes}, steps: []step{
			{tool: te, args: ed("command", "view", "path", "primes.py", "view_range", []int{2, 2}),
				text: "     2\t    if n < 2:\n(lines 2-2 of 4)\n"},
		}},
		{name: "view_range starting past the end", files: map[string]string{"primes.py": primes}, steps: []step{
			{tool: te, args: ed("command", "view", "path", "primes.py", "view_range", []int{9, -1}), kind: "invalid_input", has: []string{"has 4 lines", "1 to 4"}},
		}},
		{name: "view_range of three numbers", files: map[string]string{"primes.py": primes}, steps: []step{
			{tool: te, args: ed("command", "view", "path", "primes.py", "view_range", []int{1, 2, 3}), kind: "invalid_input"},
		}},
		{name: "folder two levels, hidden left out", files: map[string]string{
			"src/app.py": "x\n", "src/lib/util.py": "y\n", "src/lib/deep/z.py": "z\n", ".env": "SECRET=1\n", "src/.cache/c": "c\n", "README.md": "r\n",
		}, steps: []step{
			{tool: te, args: ed("command", "view", "path", "$ROOT"),
				text: "Files and folders in $ROOT, two levels deep (paths relative to the workspace root; hidden entries and what .gitignore ignores left out):\nREADME.md\nsrc/\nsrc/app.py\nsrc/lib/"},
			{tool: te, args: ed("command", "view", "path", "src/"),
				text: "Files and folders in src, two levels deep (paths relative to the workspace root; hidden entries and what .gitignore ignores left out):\nsrc/app.py\nsrc/lib/\nsrc/lib/deep/\nsrc/lib/util.py"},
		}},
		{name: "outside the root and .git refused", files: map[string]string{"a.txt": "a\n", ".git/config": "[core]\n"}, steps: []step{
			{tool: te, args: ed("command", "view", "path", "$ROOT/../outside.txt"), kind: "path_outside_root"},
			{tool: te, args: ed("command", "view", "path", ".git/config"), kind: "path_reserved"},
		}},
	})
}

// The folder text names the root as sent: checked apart, since the root is a temp dir.
func TestTextEditorViewFolderRootName(t *testing.T) {
	a, dir := dialectAPI(t, "anthropic", map[string]string{"a.txt": "a\n"})
	r := call(a, TextEditor, `{"command": "view", "path": "`+filepath.ToSlash(dir)+`"}`)
	if !r.OK || !strings.HasSuffix(r.Text, "left out):\na.txt") {
		t.Fatalf("%s", r.Text)
	}
}

func TestTextEditorEdits(t *testing.T) {
	te := TextEditor
	runDialectCases(t, "anthropic", []dialectCase{
		{name: "str_replace as documented", files: map[string]string{"primes.py": primes}, steps: []step{
			{tool: te, args: ed("command", "str_replace", "path", "$ROOT/primes.py", "old_str", "range(2, n)", "new_str", "range(2, int(n ** 0.5) + 1)"),
				has: []string{"Replaced old_str in primes.py (line 4).", "+    return all(n % i for i in range(2, int(n ** 0.5) + 1))"}},
		}, disk: map[string]string{"primes.py": strings.Replace(primes, "range(2, n)", "range(2, int(n ** 0.5) + 1)", 1)}},
		{name: "curly quotes forgiven, the file's bytes kept", files: map[string]string{"q.py": "import os\nprint(\"a\")  \n"}, steps: []step{
			{tool: te, args: ed("command", "str_replace", "path", "q.py", "old_str", "print(“a”)", "new_str", "print(“a”, “b”)"),
				has: []string{"matched after folding", "written as the file's"}},
		}, disk: map[string]string{"q.py": "import os\nprint(\"a\", \"b\")  \n"}},
		{name: "ambiguous old_str refused", files: map[string]string{"a.py": "x = 1\ny = 2\nx = 1\n"}, steps: []step{
			{tool: te, args: ed("command", "str_replace", "path", "a.py", "old_str", "x = 1", "new_str", "x = 3"),
				kind: "multiple_matches", has: []string{"lines 1 and 3", "old_str"}},
		}, disk: map[string]string{"a.py": "x = 1\ny = 2\nx = 1\n"}},
		{name: "old_str not found", files: map[string]string{"a.py": "x = 1\n"}, steps: []step{
			{tool: te, args: ed("command", "str_replace", "path", "a.py", "old_str", "z = 9", "new_str", "z = 3"), kind: "text_not_found"},
		}, disk: map[string]string{"a.py": "x = 1\n"}},
		{name: "missing new_str deletes", files: map[string]string{"a.py": "keep\n# TODO remove\nkeep too\n"}, steps: []step{
			{tool: te, args: ed("command", "str_replace", "path", "a.py", "old_str", "# TODO remove\n")},
		}, disk: map[string]string{"a.py": "keep\nkeep too\n"}},
		{name: "an argument of another command refused", files: map[string]string{"a.py": "x = 1\n"}, steps: []step{
			{tool: te, args: ed("command", "str_replace", "path", "a.py", "old_str", "x = 1", "new_str", "x = 2", "file_text", "x"), kind: "invalid_input", has: []string{"file_text"}},
		}, disk: map[string]string{"a.py": "x = 1\n"}},
		{name: "create a new file, parents made", steps: []step{
			{tool: te, args: ed("command", "create", "path", "$ROOT/pkg/new.py", "file_text", "print(1)\n"), text: "Created pkg/new.py (1 line, 9 bytes)."},
		}, disk: map[string]string{"pkg/new.py": "print(1)\n"}},
		{name: "create over an unseen file refused", files: map[string]string{"a.py": "precious\n"}, steps: []step{
			{tool: te, args: ed("command", "create", "path", "a.py", "file_text", "gone\n"), kind: "file_exists", has: []string{"str_replace", "view the whole file first"}},
		}, disk: map[string]string{"a.py": "precious\n"}},
		{name: "create over a file seen only in part refused", files: map[string]string{"a.py": "one\ntwo\nthree\n"}, steps: []step{
			{tool: te, args: ed("command", "view", "path", "a.py", "view_range", []int{1, 2})},
			{tool: te, args: ed("command", "create", "path", "a.py", "file_text", "new\n"), kind: "file_exists"},
		}, disk: map[string]string{"a.py": "one\ntwo\nthree\n"}},
		{name: "create over a file viewed whole replaces it", files: map[string]string{"a.py": "one\ntwo\n"}, steps: []step{
			{tool: te, args: ed("command", "view", "path", "a.py")},
			{tool: te, args: ed("command", "create", "path", "a.py", "file_text", "new\n"), text: "Replaced a.py whole: now 1 line, 4 bytes (was 8 bytes)."},
		}, disk: map[string]string{"a.py": "new\n"}},
		{name: "create over a folder refused", files: map[string]string{"src/a.py": "x\n"}, steps: []step{
			{tool: te, args: ed("command", "create", "path", "src", "file_text", "x\n"), kind: "file_exists", has: []string{"folder"}},
		}, disk: map[string]string{"src/a.py": "x\n"}},
		{name: "create in .git refused", steps: []step{
			{tool: te, args: ed("command", "create", "path", ".git/hooks/pre-commit", "file_text", "rm -rf /\n"), kind: "path_reserved"},
		}, gone: []string{".git/hooks/pre-commit"}},
		{name: "insert at the top", files: map[string]string{"a.py": "\ufeffx = 1\n"}, steps: []step{
			{tool: te, args: ed("command", "insert", "path", "a.py", "insert_line", 0, "insert_text", "import os\n"), has: []string{"Inserted 1 line into a.py at the top (now line 1)."}},
		}, disk: map[string]string{"a.py": "\ufeffimport os\nx = 1\n"}},
		{name: "insert at the end of a file without a final newline", files: map[string]string{"a.py": "a\r\nb"}, steps: []step{
			{tool: te, args: ed("command", "insert", "path", "a.py", "insert_line", 2, "new_str", "c\nd"), has: []string{"now lines 3-4"}},
		}, disk: map[string]string{"a.py": "a\r\nb\r\nc\r\nd"}},
		{name: "insert in the middle takes the file's line ending", files: map[string]string{"a.py": "a\r\nb\r\n"}, steps: []step{
			{tool: te, args: ed("command", "insert", "path", "a.py", "insert_line", 1, "insert_text", "mid\n")},
		}, disk: map[string]string{"a.py": "a\r\nmid\r\nb\r\n"}},
		{name: "insert past the end names the line count", files: map[string]string{"a.py": "a\nb\n"}, steps: []step{
			{tool: te, args: ed("command", "insert", "path", "a.py", "insert_line", 5, "insert_text", "x\n"), kind: "invalid_input", has: []string{"has 2 lines", "0 to 2"}},
		}, disk: map[string]string{"a.py": "a\nb\n"}},
		{name: "insert into an empty file", files: map[string]string{"a.py": ""}, steps: []step{
			{tool: te, args: ed("command", "insert", "path", "a.py", "insert_line", 0, "insert_text", "first")},
		}, disk: map[string]string{"a.py": "first\n"}},
		{name: "undo_edit does not exist in the newer version", files: map[string]string{"a.py": "x = 1\n"}, steps: []step{
			{tool: te, args: ed("command", "str_replace", "path", "a.py", "old_str", "x = 1", "new_str", "x = 2")},
			{tool: te, args: ed("command", "undo_edit", "path", "a.py"), kind: "invalid_input", has: []string{"no undo_edit"}},
		}, disk: map[string]string{"a.py": "x = 2\n"}},
		{name: "undo_edit of str_replace_editor reverts the session's last change", files: map[string]string{"a.py": "x = 1\n"}, steps: []step{
			{tool: TextEditorOld, args: ed("command", "str_replace", "path", "a.py", "old_str", "x = 1", "new_str", "x = 2")},
			{tool: TextEditorOld, args: ed("command", "insert", "path", "a.py", "insert_line", 1, "insert_text", "y = 3\n")},
			{tool: TextEditorOld, args: ed("command", "undo_edit", "path", "$ROOT/a.py"), has: []string{"Reverted call 2 (a.py)"}},
		}, disk: map[string]string{"a.py": "x = 2\n"}},
		{name: "undo_edit with nothing to undo", files: map[string]string{"a.py": "x = 1\n"}, steps: []step{
			{tool: TextEditorOld, args: ed("command", "undo_edit", "path", "a.py"), kind: "no_change"},
		}, disk: map[string]string{"a.py": "x = 1\n"}},
	})
}

func TestTextEditorMaxCharacters(t *testing.T) {
	a, dir := dialectAPI(t, "anthropic", map[string]string{"a.txt": "alpha\nbeta\ngamma\n"})
	a.maxChars = 30 // "     1\talpha\n" is 13 characters: two lines fit
	r := call(a, TextEditor, `{"command": "view", "path": "a.txt"}`)
	want := "     1\talpha\n     2\tbeta\n(output truncated at max_characters (30): lines 1-2 of 3 shown. View the rest with view_range [3, -1].)\n"
	if r.Text != want {
		t.Fatalf("view:\n%q\nwant\n%q", r.Text, want)
	}
	// What was cut was not seen: the file cannot be replaced whole yet.
	r = call(a, TextEditor, `{"command": "create", "path": "a.txt", "file_text": "x\n"}`)
	if kindOf(r) != "file_exists" {
		t.Fatalf("create after a cut view: %s %s", kindOf(r), r.Text)
	}
	call(a, TextEditor, `{"command": "view", "path": "a.txt", "view_range": [3, -1]}`)
	r = call(a, TextEditor, `{"command": "create", "path": "a.txt", "file_text": "x\n"}`)
	if !r.OK || testutil.ReadFile(t, filepath.Join(dir, "a.txt")) != "x\n" {
		t.Fatalf("create after seeing every line: %s", r.Text)
	}
}

// A runtime that chose one dialect's tools gets only those: the others are unknown.
func TestToolSetSelection(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFile(t, filepath.Join(dir, "a.txt"), "a\n")
	eng, err := Open(dir, Options{Tools: "codex"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	r := eng.Call(t.Context(), "s", EditFile, json.RawMessage(`{"path": "a.txt", "edits": [{"oldText": "a", "newText": "b"}]}`))
	if kindOf(r) != "unknown_tool" || !strings.Contains(r.Text, "read_file") {
		t.Fatalf("edit_file in the codex set: %s %s", kindOf(r), r.Text)
	}
	if got := testutil.ReadFile(t, filepath.Join(dir, "a.txt")); got != "a\n" {
		t.Fatalf("disk: %q", got)
	}
	for _, tl := range eng.Tools() {
		if tl.Name == EditFile || tl.Name == TextEditor {
			t.Errorf("the codex set offers %s", tl.Name)
		}
	}

	eng2, err := Open(dir, Options{Tools: "anthropic"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng2.Close()
	var names []string
	for _, tl := range eng2.Tools() {
		names = append(names, tl.Name)
	}
	if got := strings.Join(names, ","); got != "read_file,list_files,search_files,str_replace_based_edit_tool,str_replace_editor" {
		t.Fatalf("anthropic set: %s", got)
	}
	if _, err := Open(dir, Options{Tools: "anthropic,nope"}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("unknown set: %v", err)
	}
}

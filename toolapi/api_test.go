package toolapi

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/txn"
	"github.com/vfsctl/vfsctl/vfs"
)

func newAPI(t *testing.T, files map[string]string) (*dispatcher, string) {
	t.Helper()
	parent := t.TempDir()
	dir := filepath.Join(parent, "ws")
	os.MkdirAll(dir, 0o755)
	for p, c := range files {
		testutil.WriteFile(t, filepath.Join(dir, p), c)
	}
	testutil.WriteFile(t, filepath.Join(parent, "outside.txt"), "secret\n")
	fs, err := vfs.Open(dir, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() }) // a folder held open cannot be removed on Windows
	eng, err := txn.Open(fs, txn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() }) // before fs: Windows removes no file held open
	return newDispatcher(eng), dir
}

func call(a *dispatcher, tool, args string) Result {
	return a.Call("test", tool, json.RawMessage(args))
}

func kindOf(r Result) string {
	if r.Kind == nil {
		return ""
	}
	return *r.Kind
}

// TestBadInputCatalog feeds malformed calls of every sort: each is refused with the
// right kind and a message naming what was wrong, nothing on disk changes, and nothing
// panics.
func TestBadInputCatalog(t *testing.T) {
	a, dir := newAPI(t, map[string]string{
		"a.txt":       "alpha\nbeta\nbeta\n",
		"src/main.go": "package main\n",
	})
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink("../outside.txt", filepath.Join(dir, "esc.txt")))
	must(os.Symlink("nothing-here", filepath.Join(dir, "dangling.txt")))
	must(os.Symlink("loop-b", filepath.Join(dir, "loop-a")))
	must(os.Symlink("loop-a", filepath.Join(dir, "loop-b")))
	must(os.Symlink("..", filepath.Join(dir, "up")))
	must(os.Link(filepath.Join(dir, "src/main.go"), filepath.Join(dir, "hard.go")))
	makeFIFO(t, filepath.Join(dir, "pipe"))
	testutil.WriteFile(t, filepath.Join(dir, "bin.dat"), "a\x00b")
	testutil.WriteFile(t, filepath.Join(dir, "ro.txt"), "fixed\n")
	must(os.Chmod(filepath.Join(dir, "ro.txt"), 0o444))
	// A character device inside the root (mknod needs root, which CI has).
	hasDevice := makeNullDevice(filepath.Join(dir, "null"))
	cases := badInputCases()
	if hasDevice {
		cases = append(cases,
			badInput{"edit_file", `{"path": "null", "edits": [{"oldText": "a", "newText": "x"}]}`, "not_a_file", "a device"},
			badInput{"read_file", `{"path": "null"}`, "not_a_file", "a device"})
	} else {
		t.Log("not root: the device case is skipped")
	}
	before := testutil.Snapshot(t, dir)
	for _, c := range cases {
		r := call(a, c.tool, c.args)
		short := c.args
		if len(short) > 80 {
			short = short[:80] + "..."
		}
		if r.OK || kindOf(r) != c.kind {
			t.Errorf("%s %s: want %s, got ok=%v kind=%q: %s", c.tool, short, c.kind, r.OK, kindOf(r), r.Text)
			continue
		}
		if !strings.Contains(r.Text, c.says) {
			t.Errorf("%s %s: message %q lacks %q", c.tool, short, r.Text, c.says)
		}
		if strings.Contains(r.Text, "internal error") {
			t.Errorf("%s %s: panicked: %s", c.tool, short, r.Text)
		}
	}
	testutil.SameSnapshot(t, before, testutil.Snapshot(t, dir))
}

type badInput struct{ tool, args, kind, says string }

// badInputCases are the malformed calls of TestBadInputCatalog, over its workspace:
// arguments the decoder refuses, then paths and contents the engine refuses.
func badInputCases() []badInput { return append(badArgCases(), badPathCases()...) }

func badArgCases() []badInput {
	deep := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	return []badInput{
		{"edit_file", `not json`, "invalid_input", "object"},
		{"edit_file", `[1,2]`, "invalid_input", "object"},
		{"edit_file", `"a.txt"`, "invalid_input", "object"},
		{"edit_file", `{"path": "a.txt", "edits": [{"oldText": "alpha", "newText": "A"}]`, "invalid_input", "not valid JSON"},
		{"edit_file", `{}`, "invalid_input", "missing path"},
		{"edit_file", `null`, "invalid_input", "missing path"},
		{"edit_file", `{"path": 7, "edits": []}`, "invalid_input", "path must be a string, not a number"},
		{"edit_file", `{"path": null, "edits": []}`, "invalid_input", "not null"},
		{"edit_file", `{"path": "a.txt"}`, "invalid_input", "missing edits"},
		{"edit_file", `{"path": "a.txt", "edits": []}`, "invalid_input", "edits is empty"},
		{"edit_file", `{"path": "a.txt", "edits": 5}`, "invalid_input", "not a number"},
		{"edit_file", `{"path": "a.txt", "edits": [5]}`, "invalid_input", "edits[0] must be an object"},
		{"edit_file", `{"path": "a.txt", "edits": "not json"}`, "invalid_input", "string that is not a JSON array"},
		{"edit_file", `{"path": "a.txt", "edits": [{"oldText": "alpha"}]}`, "invalid_input", "edits[0] is missing newText"},
		{"edit_file", `{"path": "a.txt", "edits": [{"newText": "x"}]}`, "invalid_input", "edits[0] is missing oldText"},
		{"edit_file", `{"path": "a.txt", "edits": [{"oldText": 1, "newText": "x"}]}`, "invalid_input", "edits[0].oldText must be a string"},
		{"edit_file", `{"path": "a.txt", "edits": [{"oldText": "alpha", "newText": ["x"]}]}`, "invalid_input", "edits[0].newText must be a string, not an array"},
		{"edit_file", `{"path": "a.txt", "edits": [{"oldText": "alpha", "newText": "x", "replaceAll": "yes"}]}`, "invalid_input", "replaceAll must be true or false"},
		{"edit_file", `{"path": "a.txt", "edits": [{"oldText": "alpha", "newText": "x", "extra": 1}]}`, "invalid_input", `unknown field "extra"`},
		{"edit_file", `{"path": "a.txt", "edits": [{"oldText": "alpha", "old_string": "alpha", "newText": "x"}]}`, "invalid_input", "both oldText and old_string"},
		{"edit_file", `{"path": "a.txt", "edits": [{"oldText": "alpha", "newText": "x"}], "oldText": "beta", "newText": "y"}`, "invalid_input", "both edits and a top-level"},
		{"edit_file", `{"path": "a.txt", "edits": [{"oldText": "alpha", "newText": "x"}], "force": true}`, "invalid_input", `unknown field "force"`},
		{"edit_file", `{"path": "a.txt", "edits": [{"oldText": "alpha", "newText": "x"}], "dryRun": "no"}`, "invalid_input", "dryRun must be true or false"},
		{"edit_file", `{"path": "a.txt", "edits": [{"oldText": "", "newText": "x"}]}`, "invalid_input", "oldText is empty"},
		{"edit_file", `{"path": "a.txt", "edits": ` + deep + `}`, "invalid_input", "nested"},
		{"edit_file", `{"path": "a.txt", "edits": [` + strings.Repeat(`{"oldText":"a","newText":"b"},`, 300) + `{"oldText":"a","newText":"b"}]}`, "invalid_input", "at most 200"},
		{"edit_file", `{"path": "a\u0000.txt", "edits": [{"oldText": "alpha", "newText": "x"}]}`, "invalid_input", "NUL"},
		{"edit_file", `{"path": "", "edits": [{"oldText": "alpha", "newText": "x"}]}`, "invalid_input", "path is empty"},
	}
}

func badPathCases() []badInput {
	big := strings.Repeat("x", vfs.DefaultMaxFileSize+1)
	return []badInput{
		{"edit_file", `{"path": "../outside.txt", "edits": [{"oldText": "secret", "newText": "x"}]}`, "path_outside_root", "outside"},
		{"edit_file", `{"path": "/etc/passwd", "edits": [{"oldText": "root", "newText": "x"}]}`, "path_outside_root", "outside"},
		{"edit_file", `{"path": "esc.txt", "edits": [{"oldText": "secret", "newText": "x"}]}`, "path_outside_root", "symlink"},
		{"edit_file", `{"path": "up/outside.txt", "edits": [{"oldText": "secret", "newText": "x"}]}`, "path_outside_root", "outside"},
		{"edit_file", `{"path": ".vfsctl/journal.db", "edits": [{"oldText": "a", "newText": "x"}]}`, "path_reserved", ".vfsctl"},
		{"edit_file", `{"path": ".git/hooks/pre-commit", "edits": [{"oldText": "a", "newText": "x"}]}`, "path_reserved", ".git"},
		{"edit_file", `{"path": "src", "edits": [{"oldText": "a", "newText": "x"}]}`, "not_a_file", "directory"},
		{"edit_file", `{"path": "pipe", "edits": [{"oldText": "a", "newText": "x"}]}`, "not_a_file", "named pipe"},
		{"edit_file", `{"path": "/dev/null", "edits": [{"oldText": "a", "newText": "x"}]}`, "path_outside_root", "outside"},
		{"edit_file", `{"path": "loop-a", "edits": [{"oldText": "a", "newText": "x"}]}`, "not_a_file", "loop"},
		{"edit_file", `{"path": "dangling.txt", "edits": [{"oldText": "a", "newText": "x"}]}`, "file_not_found", "symlink"},
		{"edit_file", `{"path": "hard.go", "edits": [{"oldText": "main", "newText": "x"}]}`, "not_a_file", "hard links"},
		{"edit_file", `{"path": "bin.dat", "edits": [{"oldText": "a", "newText": "x"}]}`, "binary_file", "binary"},
		{"edit_file", `{"path": "src/mian.go", "edits": [{"oldText": "a", "newText": "x"}]}`, "file_not_found", "Did you mean src/main.go?"},
		{"edit_file", `{"path": "main.go", "edits": [{"oldText": "a", "newText": "x"}]}`, "file_not_found", "Did you mean src/main.go?"},
		{"edit_file", `{"path": "a.txt", "edits": [{"oldText": "beta", "newText": "x"}]}`, "multiple_matches", "lines 2 and 3"},
		{"edit_file", `{"path": "a.txt", "edits": [{"oldText": "gamma", "newText": "x"}]}`, "text_not_found", "not found"},
		{"edit_file", `{"path": "a.txt", "edits": [{"oldText": "alpha", "newText": "alpha"}]}`, "no_change", "identical"},
		{"edit_file", `{"path": "a.txt", "edits": [{"oldText": "alpha\nbeta", "newText": "x"}, {"oldText": "alpha", "newText": "y"}]}`, "overlapping_edits", "edits[0] and edits[1]"},
		{"read_file", `{"path": "a.txt", "offset": -1.5}`, "invalid_input", "offset must be a whole number"},
		{"read_file", `{"path": "a.txt", "limit": 0}`, "invalid_input", "limit must be a whole number of 1 or more"},
		{"read_file", `{"path": "a.txt", "limit": "ten"}`, "invalid_input", "limit must be"},
		{"read_file", `{"path": "a.txt", "limit": 2.5}`, "invalid_input", "limit must be"},
		{"read_file", `{"path": "a.txt", "path": "src/main.go"}`, "invalid_input", `the key "path" twice`},
		{"edit_file", `{"path": "a.txt", "edits": [{"oldText": "alpha", "newText": "x", "newText": "y"}]}`, "invalid_input", `the key "newText" twice`},
		{"create_file", `{"path": "vendor/lib/.git/hooks/pre-commit", "content": "#!/bin/sh"}`, "path_reserved", ".git"},
		{"edit_file", `{"path": "vendor/lib/.git/config", "edits": [{"oldText": "a", "newText": "x"}]}`, "path_reserved", ".git"},
		{"create_file", `{"path": ".GIT/config", "content": "[core]"}`, "path_reserved", ".git"},
		{"create_file", `{"path": "sub/.Vfsctl/x", "content": "x"}`, "path_reserved", ".vfsctl"},
		{"create_file", `{"path": "con\nfig.txt", "content": "x"}`, "invalid_input", "control character"},
		{"create_file", `{"path": "new file .txt ", "content": "x"}`, "invalid_input", "ends with a space"},
		{"create_file", `{"path": " lead.txt", "content": "x"}`, "invalid_input", "starts or ends with a space"},
		{"create_file", `{"path": "newdir/", "content": "x"}`, "invalid_input", "trailing slash"},
		{"edit_file", `{"path": "ro.txt", "edits": [{"oldText": "fixed", "newText": "x"}]}`, "permission_denied", "read-only"},
		{"write_file", `{"path": "ro.txt", "content": "x"}`, "permission_denied", "read-only"},
		{"read_file", `{"path": "a.txt", "lines": 3}`, "invalid_input", `unknown field "lines"`},
		{"read_file", `{"path": "bin.dat"}`, "binary_file", "binary"},
		{"read_file", `{"path": "pipe"}`, "not_a_file", "named pipe"},
		{"create_file", `{"path": "a.txt", "content": "x"}`, "file_exists", "edit_file"},
		{"create_file", `{"path": "src", "content": "x"}`, "file_exists", "directory"},
		{"create_file", `{"path": "dangling.txt", "content": "x"}`, "file_exists", "dangling symlink"},
		{"create_file", `{"path": "new.txt"}`, "invalid_input", "missing content"},
		{"create_file", `{"path": "new.txt", "content": 12}`, "invalid_input", "content must be a string"},
		{"create_file", `{"path": "a.txt/sub.txt", "content": "x"}`, "not_a_file", "not a directory"},
		{"create_file", `{"path": "huge.txt", "content": "` + big + `"}`, "too_large", "bytes"},
		{"create_file", `{"path": ".git/hooks/post-commit", "content": "rm -rf ~"}`, "path_reserved", ".git"},
		{"create_file", `{"path": "../escape.txt", "content": "x"}`, "path_outside_root", "outside"},
		{"write_file", `{"path": "a.txt", "content": "x"}`, "not_read", "read_file"},
		{"write_file", `{"path": "new.txt", "content": "x"}`, "file_not_found", "create_file"},
		{"remove_file", `{"path": "a.txt"}`, "unknown_tool", "edit_file"},
		{"move_file", `{"source": "a.txt", "destination": "src"}`, "file_exists", "a folder"},
		{"move_file", `{"source": "a.txt", "destination": "src/main.go"}`, "file_exists", "never overwrites"},
		{"move_file", `{"source": "a.txt", "destination": "../x.txt"}`, "path_outside_root", "destination"},
		{"move_file", `{"source": "a.txt", "destination": "sub/.git/x"}`, "path_reserved", ".git"},
		{"move_file", `{"source": "src", "destination": "src/inner"}`, "invalid_input", "into itself"},
		{"move_file", `{"source": "ro.txt", "destination": "rw.txt"}`, "permission_denied", "read-only"},
		{"move_file", `{"source": "dangling.txt", "destination": "d2.txt"}`, "not_a_file", "symlink"},
		{"move_file", `{"source": "nope.txt", "destination": "d2.txt"}`, "file_not_found", "does not exist"},
		{"move_file", `{"source": "a.txt", "destination": "./a.txt"}`, "invalid_input", "the same file"},
		{"move_file", `{"source": "a.txt"}`, "invalid_input", "missing destination"},
		{"delete_file", `{"path": "src"}`, "not_a_file", "holds 1 entry"},
		{"delete_file", `{"path": "ro.txt"}`, "permission_denied", "read-only"},
		{"delete_file", `{"path": "nope.txt"}`, "file_not_found", "nothing to delete"},
		{"delete_file", `{"path": ".git/config"}`, "path_reserved", ".git"},
		{"delete_file", `{"path": "../a.txt"}`, "path_outside_root", "outside"},
		{"create_directory", `{"path": "a.txt"}`, "file_exists", "as a file"},
		{"create_directory", `{"path": "dangling.txt"}`, "file_exists", "symlink"},
		{"create_directory", `{"path": "../d"}`, "path_outside_root", "outside"},
		{"create_directory", `{"path": "x/.vfsctl/d"}`, "path_reserved", ".vfsctl"},
		{"read_files", `{"paths": []}`, "invalid_input", "between 1 and"},
		{"read_files", `{"paths": "a.txt"}`, "invalid_input", "array of strings"},
		{"read_files", `{"paths": ["nope.txt", "bin.dat"]}`, "file_not_found", "None of the 2 files"},
		{"file_info", `{"path": "nope.txt"}`, "file_not_found", "does not exist"},
		{"file_info", `{"path": "../x"}`, "path_outside_root", "outside"},
		{"", `{}`, "unknown_tool", "no tool"},
	}
}

func TestAliasesAndShapes(t *testing.T) {
	shapes := []string{
		`{"path": "f.txt", "edits": [{"oldText": "one", "newText": "ONE"}]}`,
		`{"file_path": "f.txt", "edits": [{"old_string": "one", "new_string": "ONE"}]}`,
		`{"path": "f.txt", "edits": [{"old_str": "one", "new_str": "ONE"}]}`,
		`{"path": "f.txt", "edits": [{"search": "one", "replace": "ONE"}]}`,
		`{"path": "f.txt", "edits": {"oldText": "one", "newText": "ONE"}}`,
		`{"path": "f.txt", "edits": "[{\"oldText\": \"one\", \"newText\": \"ONE\"}]"}`,
		`{"path": "f.txt", "oldText": "one", "newText": "ONE"}`,
		`{"path": "f.txt", "old_string": "one", "new_string": "ONE", "replace_all": false}`,
	}
	for _, s := range shapes {
		a, dir := newAPI(t, map[string]string{"f.txt": "one\ntwo\n"})
		r := call(a, "edit_file", s)
		if !r.OK {
			t.Errorf("%s: %s", s, r.Text)
			continue
		}
		if got := testutil.ReadFile(t, filepath.Join(dir, "f.txt")); got != "ONE\ntwo\n" {
			t.Errorf("%s: file %q", s, got)
		}
	}
	a, dir := newAPI(t, map[string]string{"f.txt": "one\n"})
	if r := call(a, "edit_file", editCall(filepath.Join(dir, "f.txt"), "one", "1")); !r.OK {
		t.Errorf("absolute path inside the root: %s", r.Text)
	}
}

func TestEditText(t *testing.T) {
	a, dir := newAPI(t, map[string]string{"app.js": "const a = 1;\nsay(“hello”);\nconst b = 2;\n"})
	r := call(a, "edit_file", `{"path": "app.js", "edits": [{"oldText": "say(\"hello\");", "newText": "say(\"goodbye\");"}], "dryRun": true}`)
	if !r.OK {
		t.Fatalf("dry run: %+v", r)
	}
	for _, s := range []string{"Dry run", "line 2", "matched after folding curly quotes", "-say(“hello”);", "+say(“goodbye”);"} {
		if !strings.Contains(r.Text, s) {
			t.Errorf("dry-run text lacks %q:\n%s", s, r.Text)
		}
	}
	if got := testutil.ReadFile(t, filepath.Join(dir, "app.js")); strings.Contains(got, "goodbye") {
		t.Fatal("dry run wrote the file")
	}
	r = call(a, "edit_file", `{"path": "app.js", "edits": [{"oldText": "say(\"hello\");", "newText": "say(\"goodbye\");"}]}`)
	if !r.OK || r.Txn == nil {
		t.Fatalf("edit: %+v", r)
	}
	if got := testutil.ReadFile(t, filepath.Join(dir, "app.js")); got != "const a = 1;\nsay(“goodbye”);\nconst b = 2;\n" {
		t.Fatalf("file %q", got)
	}
}

func TestReadWriteCreate(t *testing.T) {
	a, dir := newAPI(t, map[string]string{"f.txt": "\ufeffone\r\ntwo\r\nthree\r\n"})
	r := call(a, "read_file", `{"path": "f.txt", "offset": 2, "limit": 1}`)
	if !r.OK || r.Text != "     2\ttwo\n(line 2 of 3; read on with offset 3)\n" {
		t.Fatalf("read: %q", r.Text)
	}
	// One line seen of three is not enough to replace the file whole.
	r = call(a, "write_file", `{"path": "f.txt", "content": "new\n"}`)
	if r.OK || kindOf(r) != "not_read" || !strings.Contains(r.Text, "only line 2 of 3 of f.txt") || !strings.Contains(r.Text, "read line 1, line 3 first") {
		t.Fatalf("write after a partial read: %+v", r)
	}
	// Reads that together cover every line are. Offset 0, a common slip, reads from
	// the first line.
	if r := call(a, "read_file", `{"path": "f.txt", "offset": 0, "limit": 1}`); !r.OK || !strings.HasPrefix(r.Text, "     1\tone\n") {
		t.Fatalf("read from offset 0: %+v", r)
	}
	call(a, "read_file", `{"path": "f.txt", "offset": "3", "limit": 1.0}`)
	r = call(a, "write_file", `{"path": "f.txt", "content": "new\n"}`)
	if !r.OK {
		t.Fatalf("write after reads covering the file: %s", r.Text)
	}
	r = call(a, "create_file", `{"path": "deep/er/g.txt", "content": "g\n"}`)
	if !r.OK || testutil.ReadFile(t, filepath.Join(dir, "deep/er/g.txt")) != "g\n" {
		t.Fatalf("create: %s", r.Text)
	}
	r = call(a, "read_file", `{"path": "deep/er/g.txt"}`)
	if !r.OK || r.Text != "     1\tg\n" {
		t.Fatalf("read whole: %q", r.Text)
	}
}

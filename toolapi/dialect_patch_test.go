package toolapi

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/internal/winetest"
	"github.com/vfsctl/vfsctl/txn"
	"github.com/vfsctl/vfsctl/vfs"
)

// patchAPI is an API offering every tool, apply_patch among them.
func patchAPI(t *testing.T, files map[string]string) (*dispatcher, string) {
	t.Helper()
	a, dir := newAPI(t, files)
	a.tools = toolTable
	return a, dir
}

func patchCall(a *dispatcher, patch string) Result {
	b, _ := json.Marshal(map[string]string{"input": patch})
	return call(a, ApplyPatch, string(b))
}

// disk checks each file's bytes; "" means the file must not exist.
func disk(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	for p, w := range want {
		b, err := os.ReadFile(filepath.Join(dir, p))
		switch {
		case w == "" && err == nil:
			t.Errorf("%s exists (%q), want it absent", p, b)
		case w == "":
		case err != nil:
			t.Errorf("%s: %v, want %q", p, err, w)
		case string(b) != w:
			t.Errorf("%s = %q, want %q", p, b, w)
		}
	}
}

func TestApplyPatchCodexSuccessText(t *testing.T) {
	a, dir := patchAPI(t, map[string]string{"a.txt": "one\ntwo\nthree\n", "old.txt": "bye\n"})
	r := patchCall(a, `*** Begin Patch
*** Add File: new.txt
+hello
*** Update File: a.txt
@@
 one
-two
+TWO
 three
*** Delete File: old.txt
*** End Patch`)
	want := "Success. Updated the following files:\nA new.txt\nM a.txt\nD old.txt\n" +
		"Created new.txt (1 line, 6 bytes).\n" +
		"Updated a.txt (line 2).\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n" +
		"Deleted old.txt (1 line, 4 bytes)."
	if !r.OK || r.Text != want {
		t.Fatalf("ok=%v\n got %q\nwant %q", r.OK, r.Text, want)
	}
	disk(t, dir, map[string]string{"new.txt": "hello\n", "a.txt": "one\nTWO\nthree\n", "old.txt": ""})
}

// Lines only added have no line of the original: the reply says after which line
// they went, not a range that runs backwards ("lines 3-2").
func TestApplyPatchPureAdditionSaysWhere(t *testing.T) {
	a, dir := patchAPI(t, map[string]string{"a.txt": "one\ntwo\nthree\n", "b.go": "package p\r\n\r\nfunc F() {\r\n}"})
	r := patchCall(a, "*** Begin Patch\n*** Update File: a.txt\n@@ two\n+two and a half\n*** Update File: b.go\n@@\n func F() {\n }\n+\n+func G() {\n+}\n*** End Patch")
	for _, want := range []string{"Updated a.txt (lines added after line 2).", "Updated b.go (lines added after line 4)."} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("the reply does not say %q:\n%s", want, r.Text)
		}
	}
	disk(t, dir, map[string]string{"a.txt": "one\ntwo\ntwo and a half\nthree\n", "b.go": "package p\r\n\r\nfunc F() {\r\n}\r\n\r\nfunc G() {\r\n}"})
}

// Codex applies the files of a patch one by one and leaves the first changed when a
// later one fails; here the patch is one transaction.
func TestApplyPatchAllOrNothing(t *testing.T) {
	a, dir := patchAPI(t, map[string]string{"a.txt": "one\ntwo\n", "b.txt": "x\ny\n", "gone.txt": "g\n"})
	r := patchCall(a, `*** Begin Patch
*** Update File: a.txt
@@
-one
+ONE
*** Delete File: gone.txt
*** Add File: c.txt
+c
*** Update File: b.txt
@@
 x
-not there
+z
*** End Patch`)
	if r.OK || kindOf(r) != "text_not_found" {
		t.Fatalf("ok=%v kind=%s: %s", r.OK, kindOf(r), r.Text)
	}
	for _, w := range []string{"apply_patch refused (text_not_found); no file was changed.", "b.txt chunk 1", "Re-read the file"} {
		if !strings.Contains(r.Text, w) {
			t.Errorf("reply lacks %q: %s", w, r.Text)
		}
	}
	disk(t, dir, map[string]string{"a.txt": "one\ntwo\n", "b.txt": "x\ny\n", "gone.txt": "g\n", "c.txt": ""})
}

// Codex takes the first place the context fits; here context that fits two places is
// refused, and an @@ anchor picks one.
func TestApplyPatchAmbiguousContextRefused(t *testing.T) {
	src := "def a():\n    x = 1\n    return x\n\ndef b():\n    x = 1\n    return x\n"
	a, dir := patchAPI(t, map[string]string{"m.py": src})
	r := patchCall(a, "*** Begin Patch\n*** Update File: m.py\n@@\n-    x = 1\n+    x = 2\n     return x\n*** End Patch")
	if r.OK || kindOf(r) != "multiple_matches" || !strings.Contains(r.Text, "lines 2, 6") || !strings.Contains(r.Text, "@@") {
		t.Fatalf("ok=%v kind=%s: %s", r.OK, kindOf(r), r.Text)
	}
	disk(t, dir, map[string]string{"m.py": src})
	r = patchCall(a, "*** Begin Patch\n*** Update File: m.py\n@@ def b():\n-    x = 1\n+    x = 2\n     return x\n*** End Patch")
	if !r.OK {
		t.Fatal(r.Text)
	}
	disk(t, dir, map[string]string{"m.py": "def a():\n    x = 1\n    return x\n\ndef b():\n    x = 2\n    return x\n"})
}

// Codex's Add File overwrites a file that exists; here it is file_exists, and the
// reply says to send an Update File section.
func TestApplyPatchAddOverExistingIsFileExists(t *testing.T) {
	a, dir := patchAPI(t, map[string]string{"a.txt": "keep\n"})
	r := patchCall(a, "*** Begin Patch\n*** Add File: a.txt\n+new\n*** End Patch")
	if r.OK || kindOf(r) != "file_exists" || !strings.Contains(r.Text, "*** Update File: a.txt") {
		t.Fatalf("ok=%v kind=%s: %s", r.OK, kindOf(r), r.Text)
	}
	disk(t, dir, map[string]string{"a.txt": "keep\n"})
}

// A chunk of only '+' lines under an @@ anchor goes right after the anchor line;
// without an anchor, at the end of the file.
func TestApplyPatchAnchorPureAdditionAfterAnchor(t *testing.T) {
	a, dir := patchAPI(t, map[string]string{"c.py": "class A:\n    def f(self):\n        pass\n", "n.txt": "a\nb\n"})
	r := patchCall(a, "*** Begin Patch\n*** Update File: c.py\n@@ class A:\n+    x = 1\n*** Update File: n.txt\n@@\n+c\n*** End Patch")
	if !r.OK {
		t.Fatal(r.Text)
	}
	disk(t, dir, map[string]string{"c.py": "class A:\n    x = 1\n    def f(self):\n        pass\n", "n.txt": "a\nb\nc\n"})
}

func TestApplyPatchMoveOntoExistingRefused(t *testing.T) {
	a, dir := patchAPI(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	r := patchCall(a, "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-a\n+A\n*** End Patch")
	if r.OK || kindOf(r) != "file_exists" || !strings.Contains(r.Text, "Move to: b.txt") {
		t.Fatalf("ok=%v kind=%s: %s", r.OK, kindOf(r), r.Text)
	}
	disk(t, dir, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
}

func TestApplyPatchMove(t *testing.T) {
	a, dir := patchAPI(t, map[string]string{"a.txt": "one\ntwo\n", "p.txt": "p\n"})
	r := patchCall(a, "*** Begin Patch\n*** Update File: a.txt\n*** Move to: sub/b.txt\n@@\n-two\n+2\n*** Update File: p.txt\n*** Move to: q.txt\n*** End Patch")
	if !r.OK {
		t.Fatal(r.Text)
	}
	if !strings.HasPrefix(r.Text, "Success. Updated the following files:\nM sub/b.txt\nM q.txt\n") {
		t.Errorf("reply: %s", r.Text)
	}
	disk(t, dir, map[string]string{"a.txt": "", "sub/b.txt": "one\n2\n", "p.txt": "", "q.txt": "p\n"})
}

// Codex writes into .git (a hook runs code on the next git command); here .git is
// reserved as it is for every tool.
func TestApplyPatchIntoGitRefused(t *testing.T) {
	a, dir := patchAPI(t, map[string]string{"a.txt": "a\n", ".git/config": "[core]\n"})
	for _, p := range []string{
		"*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+rm -rf /\n*** End Patch",
		"*** Begin Patch\n*** Update File: .git/config\n@@\n+[alias]\n*** End Patch",
		"*** Begin Patch\n*** Update File: a.txt\n*** Move to: sub/.GIT/x\n*** End Patch",
		"*** Begin Patch\n*** Delete File: .git/config\n*** End Patch",
	} {
		r := patchCall(a, p)
		if r.OK || kindOf(r) != "path_reserved" {
			t.Errorf("%q: ok=%v kind=%s: %s", p, r.OK, kindOf(r), r.Text)
		}
	}
	disk(t, dir, map[string]string{"a.txt": "a\n", ".git/config": "[core]\n", ".git/hooks/pre-commit": "", "sub/.GIT/x": ""})
}

func TestApplyPatchThroughSymlinkOutsideRefused(t *testing.T) {
	winetest.NeedSymlinks(t)
	a, dir := patchAPI(t, map[string]string{"a.txt": "a\n"})
	if err := os.Symlink("../outside.txt", filepath.Join(dir, "esc.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("..", filepath.Join(dir, "up")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		"*** Begin Patch\n*** Update File: esc.txt\n@@\n-secret\n+leaked\n*** End Patch",
		"*** Begin Patch\n*** Add File: up/planted.txt\n+x\n*** End Patch",
		"*** Begin Patch\n*** Delete File: up/outside.txt\n*** End Patch",
		"*** Begin Patch\n*** Update File: a.txt\n*** Move to: ../moved.txt\n*** End Patch",
	} {
		r := patchCall(a, p)
		if r.OK || kindOf(r) != "path_outside_root" {
			t.Errorf("%q: ok=%v kind=%s: %s", p, r.OK, kindOf(r), r.Text)
		}
	}
	parent := filepath.Dir(dir)
	disk(t, parent, map[string]string{"outside.txt": "secret\n", "planted.txt": "", "moved.txt": ""})
	disk(t, dir, map[string]string{"a.txt": "a\n"})
}

// The Responses API's operations, and a patch sent as the whole input.
func TestApplyPatchOperationShapes(t *testing.T) {
	a, dir := patchAPI(t, map[string]string{"u.txt": "alpha\nbeta\n", "d.txt": "d\n"})
	for _, c := range []struct{ args, want string }{
		{`{"operation": {"type": "create_file", "path": "c/new.txt", "diff": "+first\n+second\n"}}`, "A c/new.txt"},
		{`{"operation": {"type": "update_file", "path": "u.txt", "diff": "@@\n alpha\n-beta\n+gamma\n"}}`, "M u.txt"},
		{`{"operation": {"type": "delete_file", "path": "d.txt"}}`, "D d.txt"},
		{`"*** Begin Patch\n*** Add File: bare.txt\n+bare\n*** End Patch"`, "A bare.txt"},
	} {
		r := call(a, ApplyPatch, c.args)
		if !r.OK || !strings.Contains(r.Text, c.want) {
			t.Errorf("%s: ok=%v %s", c.args, r.OK, r.Text)
		}
	}
	disk(t, dir, map[string]string{"c/new.txt": "first\nsecond\n", "u.txt": "alpha\ngamma\n", "d.txt": "", "bare.txt": "bare\n"})
	r := call(a, ApplyPatch, `{"operation": {"type": "update_file", "path": "u.tx", "diff": "@@\n-a\n+b\n"}}`)
	if r.OK || kindOf(r) != "file_not_found" || !strings.Contains(r.Text, "Did you mean u.txt?") {
		t.Errorf("missing file: ok=%v kind=%s: %s", r.OK, kindOf(r), r.Text)
	}
	r = call(a, ApplyPatch, `{"operation": {"type": "rename_file", "path": "u.txt"}}`)
	if r.OK || kindOf(r) != "invalid_input" || !strings.Contains(r.Text, "create_file, update_file or delete_file") {
		t.Errorf("unknown type: ok=%v kind=%s: %s", r.OK, kindOf(r), r.Text)
	}
}

func TestApplyPatchHeredocInput(t *testing.T) {
	a, dir := patchAPI(t, map[string]string{"h.txt": "a\nb\n"})
	r := patchCall(a, "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: h.txt\n@@\n a\n-b\n+B\n\n*** End Patch\nEOF\n")
	if !r.OK {
		t.Fatal(r.Text)
	}
	disk(t, dir, map[string]string{"h.txt": "a\nB\n"})
}

// The file's line endings, BOM and missing final newline are kept; new lines take the
// file's line ending.
func TestApplyPatchKeepsCRLFAndBOM(t *testing.T) {
	a, dir := patchAPI(t, map[string]string{"w.txt": "\ufeffone\r\ntwo\r\nthree", "m.txt": "a\r\nb\nc\r\n"})
	r := patchCall(a, "*** Begin Patch\n*** Update File: w.txt\n@@\n one\n-two\n+2\n+2.5\n three\n*** Update File: m.txt\n@@\n-b\n+B\n*** End Patch")
	if !r.OK {
		t.Fatal(r.Text)
	}
	disk(t, dir, map[string]string{"w.txt": "\ufeffone\r\n2\r\n2.5\r\nthree", "m.txt": "a\r\nB\nc\r\n"})
}

// Curly quotes and an en dash in the context are forgiven; the context and what the
// model did not change are written as the file has them.
func TestApplyPatchCurlyQuotesForgiven(t *testing.T) {
	a, dir := patchAPI(t, map[string]string{"q.js": "const a = 1;\nsay(\"hi\");  \nlet r = x - 1;\n"})
	r := patchCall(a, "*** Begin Patch\n*** Update File: q.js\n@@\n const a = 1;\n-say(“hi”);\n+say(“bye”);\n let r = x – 1;\n*** End Patch")
	if !r.OK {
		t.Fatal(r.Text)
	}
	disk(t, dir, map[string]string{"q.js": "const a = 1;\nsay(\"bye\");  \nlet r = x - 1;\n"})
	if !strings.Contains(r.Text, "chunk 1: matched after folding") {
		t.Errorf("reply does not say how the chunk matched: %s", r.Text)
	}
}

// undo of an apply_patch call reverts every file it touched: an edit, an add, a
// delete and a move.
func TestApplyPatchUndoRevertsAllFiles(t *testing.T) {
	before := map[string]string{"a.txt": "a\nb\n", "d.txt": "d\n", "m.txt": "m1\nm2\n"}
	a, dir := patchAPI(t, before)
	r := patchCall(a, "*** Begin Patch\n*** Update File: a.txt\n@@\n-b\n+B\n*** Add File: n.txt\n+n\n*** Delete File: d.txt\n*** Update File: m.txt\n*** Move to: moved/m.txt\n@@\n m1\n-m2\n+M2\n*** End Patch")
	if !r.OK {
		t.Fatal(r.Text)
	}
	disk(t, dir, map[string]string{"a.txt": "a\nB\n", "n.txt": "n\n", "d.txt": "", "m.txt": "", "moved/m.txt": "m1\nM2\n"})
	u := (&Engine{api: a}).Undo(context.Background(), uint64(*r.Txn))
	if !u.OK {
		t.Fatal(u.Text)
	}
	disk(t, dir, map[string]string{"a.txt": "a\nb\n", "d.txt": "d\n", "m.txt": "m1\nm2\n", "n.txt": "", "moved/m.txt": ""})
}

// Misuse that edit_file's corpus covers, sent as patches: each is refused with the
// kind a model can act on, or applied as meant.
func TestApplyPatchMisuse(t *testing.T) {
	src := "package main\n\nfunc main() {\n\tfmt.Println(\"a\")\n\tfmt.Println(\"b\")\n}\n"
	cases := []struct {
		name, patch, kind, says, want string
	}{
		{"stale context", "@@\n-\tfmt.Println(\"c\")\n+\tfmt.Println(\"d\")", "text_not_found",
			`it first differs at line 4, where the file has "\tfmt.Println(\"a\")"`, src},
		{"spaces for the file's tabs", "@@\n func main() {\n-    fmt.Println(\"a\")\n+    fmt.Println(\"A\")", "", "",
			"package main\n\nfunc main() {\n\tfmt.Println(\"A\")\n\tfmt.Println(\"b\")\n}\n"},
		{"changes nothing", "@@\n-\tfmt.Println(\"a\")\n+\tfmt.Println(\"a\")", "no_change", "chunk 1 changes nothing", src},
		{"overlapping chunks", "@@\n-\tfmt.Println(\"a\")\n+\tx()\n@@\n-\tfmt.Println(\"a\")\n+\ty()", "text_not_found", "chunk 2", src},
		{"context only part of a line", "@@\n-Println(\"a\")\n+Println(\"z\")", "text_not_found", "only as part of a line", src},
		{"anchor not in file", "@@ func other() {\n-\tfmt.Println(\"a\")\n+\tfmt.Println(\"z\")", "text_not_found", `anchor "func other() {"`, src},
		{"no-break space for a space", "@@\n-\tfmt.Println(\"a\")\u00a0\n+\tfmt.Println(\"a\",\u00a01)", "", "",
			"package main\n\nfunc main() {\n\tfmt.Println(\"a\", 1)\n\tfmt.Println(\"b\")\n}\n"},
		{"lazy placeholder for real lines", "@@\n func main() {\n-\tfmt.Println(\"a\")\n-\tfmt.Println(\"b\")\n+\t// ... existing code ...\n }", "placeholder_text", "existing code", src},
		{"breaks the syntax", "@@\n-func main() {\n+func main() {{", "syntax_error", "main.go", src},
		{"trailing spaces the file lacks", "@@\n-\tfmt.Println(\"b\")   \n+\tfmt.Println(\"B\")   ", "", "",
			"package main\n\nfunc main() {\n\tfmt.Println(\"a\")\n\tfmt.Println(\"B\")\n}\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, dir := patchAPI(t, map[string]string{"main.go": src})
			r := patchCall(a, "*** Begin Patch\n*** Update File: main.go\n"+c.patch+"\n*** End Patch")
			if kindOf(r) != c.kind || !strings.Contains(r.Text, c.says) {
				t.Errorf("kind %q, want %q; text: %s", kindOf(r), c.kind, r.Text)
			}
			disk(t, dir, map[string]string{"main.go": c.want})
		})
	}
}

// A malformed patch names its line and what was expected; a path named twice and a
// missing file are refused before anything is read.
func TestApplyPatchMalformed(t *testing.T) {
	a, dir := patchAPI(t, map[string]string{"a.txt": "a\n", "src/app.go": "x\n"})
	for _, c := range []struct{ patch, kind, says string }{
		{"*** Update File: a.txt\n@@\n-a\n+b\n*** End Patch", "invalid_input", "line 1: expected \"*** Begin Patch\""},
		{"*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b", "invalid_input", "`*** End Patch`"},
		{"*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n*** Update File: ./a.txt\n@@\n-x\n+y\n*** End Patch", "invalid_input", "Name each file once"},
		{"*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n*** Delete File: a.txt\n*** End Patch", "invalid_input", "line 6"},
		{"*** Begin Patch\n*** Update File: app.go\n@@\n-x\n+y\n*** End Patch", "file_not_found", "Did you mean src/app.go?"},
		{"*** Begin Patch\n*** Delete File: nothing.txt\n*** End Patch", "file_not_found", "nothing.txt does not exist"},
		{"*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\noops\n*** End Patch", "invalid_input", "apply_patch line 6: expected a chunk line"},
	} {
		r := patchCall(a, c.patch)
		if kindOf(r) != c.kind || !strings.Contains(r.Text, c.says) {
			t.Errorf("%q: kind %q, want %q; text: %s", c.patch, kindOf(r), c.kind, r.Text)
		}
	}
	disk(t, dir, map[string]string{"a.txt": "a\n", "src/app.go": "x\n"})
}

// The schema offers the Codex function tool's one argument; the Responses API's
// operation is accepted but not offered.
func TestApplyPatchSchemaIsCodexs(t *testing.T) {
	var s map[string]any
	json.Unmarshal(inputSchema(applyPatchDef, false), &s)
	props := s["properties"].(map[string]any)
	if len(props) != 1 || props["input"] == nil {
		t.Errorf("properties = %v", props)
	}
	if req, _ := s["required"].([]any); len(req) != 1 || req[0] != "input" {
		t.Errorf("required = %v", s["required"])
	}
}

// A recorded apply_patch call replays with the same outcome: the handler reads only
// the files and the patch.
func TestApplyPatchReplays(t *testing.T) {
	a, _ := patchAPI(t, map[string]string{"a.txt": "a\nb\n", "d.txt": "d\n", "m.txt": "m\n"})
	r := patchCall(a, "*** Begin Patch\n*** Update File: a.txt\n@@\n a\n-b\n+B\n*** Delete File: d.txt\n*** Update File: m.txt\n*** Move to: n.txt\n*** End Patch")
	if !r.OK {
		t.Fatal(r.Text)
	}
	rp, err := NewReplayer(a.eng)
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	res, err := rp.Replay(uint64(*r.Txn))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Replayable || !res.Same || !res.NowOK {
		t.Errorf("replay: %+v", res)
	}
}

// A refused patch replays when what it met is in the record, and says why not when a
// section before the refused one read a file the record does not keep.
func TestApplyPatchRefusalReplays(t *testing.T) {
	a, _ := patchAPI(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	exists := patchCall(a, "*** Begin Patch\n*** Delete File: b.txt\n*** Add File: a.txt\n+x\n*** End Patch")
	later := patchCall(a, "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-nope\n+x\n*** End Patch")
	if kindOf(exists) != "file_exists" || kindOf(later) != "text_not_found" {
		t.Fatalf("kinds %s, %s", kindOf(exists), kindOf(later))
	}
	rp, err := NewReplayer(a.eng)
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	alone := patchCall(a, "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch")
	res, err := rp.Replay(uint64(*alone.Txn))
	if err != nil || !res.Replayable || !res.Same {
		t.Errorf("Add over existing: %v %+v", err, res)
	}
	res, err = rp.Replay(uint64(*exists.Txn))
	if err != nil || res.Replayable || !strings.Contains(res.Why, "*** Delete File: b.txt (patch line 2) needs b.txt") {
		t.Errorf("Add over existing after a delete: %v %+v", err, res)
	}
	res, err = rp.Replay(uint64(*later.Txn))
	if err != nil || res.Replayable || !strings.Contains(res.Why, "*** Update File: a.txt (patch line 2) needs a.txt") {
		t.Errorf("refused second file: %v %+v", err, res)
	}
}

// TestApplyPatchJournalDurable: in the journal-durable mode a patch that adds,
// updates, moves and deletes files lands whole, new folders included (a created file
// has nothing to exchange entries with), and undo takes it back.
func TestApplyPatchJournalDurable(t *testing.T) {
	dir := t.TempDir()
	for p, c := range map[string]string{"a.txt": "one\ntwo\n", "old.txt": "o\n", "gone.txt": "g\n"} {
		testutil.WriteFile(t, filepath.Join(dir, p), c)
	}
	fs, err := vfs.Open(dir, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() }) // a folder held open cannot be removed on Windows
	eng, err := txn.Open(fs, txn.Options{Durability: txn.DurableJournal})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	a := newDispatcher(eng)
	a.tools = toolTable
	r := call(a, CreateFile, `{"path": "new/deep/c.txt", "content": "c\n"}`)
	if !r.OK {
		t.Fatalf("create_file: %s", r.Text)
	}
	r = patchCall(a, `*** Begin Patch
*** Update File: a.txt
@@
-one
+ONE
*** Add File: added/b.txt
+b
*** Update File: old.txt
*** Move to: moved/new.txt
@@
-o
+O
*** Delete File: gone.txt
*** End Patch`)
	if !r.OK {
		t.Fatalf("apply_patch: %s", r.Text)
	}
	disk(t, dir, map[string]string{"a.txt": "ONE\ntwo\n", "added/b.txt": "b\n", "moved/new.txt": "O\n", "old.txt": "", "gone.txt": "", "new/deep/c.txt": "c\n"})
	if r := call(a, UndoEdit, `{"path": "a.txt"}`); !r.OK {
		t.Fatalf("undo: %s", r.Text)
	}
	disk(t, dir, map[string]string{"a.txt": "one\ntwo\n", "old.txt": "o\n", "gone.txt": "g\n", "added/b.txt": "", "moved/new.txt": ""})
}

// A move keeps the file's name but may make folders: `*** Move to: a\b/x.go` would
// make a folder named `a\b`, and a move into `ｓrc/` a folder beside src that looks the
// same. The patch is refused as create_file refuses the same path, and nothing of it is
// written, not even its other sections.
func TestApplyPatchMoveChecksNewFolders(t *testing.T) {
	type move struct{ to, says string }
	moves := []move{{"\uff53rc/x.go", `beside "src"`}}
	if filepath.Separator == '/' { // on Windows a backslash separates folders
		moves = append(moves, move{`a\b/x.go`, "Use / between folders: a/b/x.go."})
	}
	for _, m := range moves {
		t.Run(m.to, func(t *testing.T) {
			a, dir := patchAPI(t, map[string]string{"x.go": "package x\n", "src/y.go": "package y\n", "n.txt": "n\n"})
			b, _ := json.Marshal(map[string]string{"path": m.to, "content": "package x\n"})
			created := call(a, "create_file", string(b))
			if created.OK || kindOf(created) != "invalid_input" || !strings.Contains(created.Text, m.says) {
				t.Fatalf("create_file %s: %s: %s", m.to, kindOf(created), created.Text)
			}
			before := names(t, dir)
			r := patchCall(a, "*** Begin Patch\n*** Update File: n.txt\n@@\n-n\n+N\n*** Update File: x.go\n*** Move to: "+m.to+"\n@@\n-package x\n+package z\n*** End Patch")
			if r.OK || kindOf(r) != "invalid_input" || !strings.HasSuffix(r.Text, created.Text) {
				t.Errorf("got %s: %s\nwant the end of create_file's: %s", kindOf(r), r.Text, created.Text)
			}
			// apply_diff's rename is the same move.
			b, _ = json.Marshal(map[string]string{"diff": "--- a/n.txt\n+++ b/n.txt\n@@ -1 +1 @@\n-n\n+N\n" +
				"diff --git a/x.go b/" + m.to + "\nsimilarity index 100%\nrename from x.go\nrename to " + m.to + "\n"})
			if r := call(a, ApplyDiff, string(b)); r.OK || kindOf(r) != "invalid_input" || !strings.HasSuffix(r.Text, created.Text) {
				t.Errorf("apply_diff: got %s: %s", kindOf(r), r.Text)
			}
			if got := names(t, dir); got != before {
				t.Errorf("the workspace changed: %s, was %s", got, before)
			}
			disk(t, dir, map[string]string{"x.go": "package x\n", "n.txt": "n\n"})
		})
	}
}

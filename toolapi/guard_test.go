package toolapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/toolapi"
)

const goFile = "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"start\")\n\tfmt.Println(\"done\")\n}\n"

func guardEngine(t *testing.T, mode toolapi.GuardMode, files map[string]string) (*toolapi.Engine, string) {
	t.Helper()
	ws := testutil.Workspace(t, files)
	eng, err := toolapi.Open(ws, toolapi.Options{Guard: mode})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() }) // Windows removes no folder with an open file
	return eng, ws
}

func call(t *testing.T, eng *toolapi.Engine, tool string, args any) toolapi.Result {
	t.Helper()
	b, _ := json.Marshal(args)
	return eng.Call(context.Background(), "s", tool, b)
}

func edit(path, old, new string) map[string]any {
	return map[string]any{"path": path, "edits": []map[string]string{{"oldText": old, "newText": new}}}
}

func TestSyntaxGuardRefuses(t *testing.T) {
	eng, ws := guardEngine(t, "", map[string]string{"main.go": goFile})
	r := call(t, eng, "edit_file", edit("main.go", "\tfmt.Println(\"done\")\n", "\tfmt.Println(\"done\")\n\tfmt.Println(\"bye\"\n"))
	if r.OK || *r.Kind != "syntax_error" {
		t.Fatalf("want syntax_error, got %+v", r)
	}
	for _, want := range []string{"line 8", "main.go", "go", ">     8\t\tfmt.Println(\"bye\"", "one call"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("message lacks %q:\n%s", want, r.Text)
		}
	}
	if got := testutil.ReadFile(t, filepath.Join(ws, "main.go")); got != goFile {
		t.Errorf("the file changed: %q", got)
	}
	// The refusal's structure is journaled.
	var ref *journal.Refusal
	jn := journal.New(filepath.Join(ws, ".vfsctl", "journal.db"), journal.Options{})
	if err := jn.Acquire(); err != nil {
		t.Fatal(err)
	}
	jn.View(func(tx *journal.Tx) error {
		rec, err := tx.Get(uint64(*r.Txn))
		if err == nil && rec != nil {
			ref = rec.Refusal
		}
		return err
	})
	jn.Release()
	if ref == nil || ref.Language != "go" || len(ref.Lines) != 1 || ref.Lines[0] != 8 || ref.Column == 0 {
		t.Errorf("journaled refusal: %+v", ref)
	}
	// A dry run says the same, a valid edit passes.
	d := call(t, eng, "edit_file", map[string]any{"path": "main.go", "dryRun": true, "edits": []map[string]string{{"oldText": "\tfmt.Println(\"done\")\n", "newText": "\tfmt.Println(\"bye\"\n"}}})
	if d.OK || *d.Kind != "syntax_error" {
		t.Errorf("dry run: %+v", d)
	}
	if r := call(t, eng, "edit_file", edit("main.go", "\"done\"", "\"bye\"")); !r.OK {
		t.Errorf("a valid edit: %s", r.Text)
	}
}

func TestSyntaxGuardLetsABrokenFileBeEdited(t *testing.T) {
	broken := "{\n  \"a\": 1,\n  \"b\": 2,\n}\n"
	eng, ws := guardEngine(t, "", map[string]string{"c.json": broken})
	if r := call(t, eng, "edit_file", edit("c.json", "\"a\": 1", "\"a\": 5")); !r.OK {
		t.Fatalf("an edit of an already broken file: %s", r.Text)
	}
	if got := testutil.ReadFile(t, filepath.Join(ws, "c.json")); !strings.Contains(got, "\"a\": 5") {
		t.Errorf("file: %q", got)
	}
}

func TestGuardModes(t *testing.T) {
	for _, mode := range []toolapi.GuardMode{toolapi.GuardWarn, toolapi.GuardOff} {
		eng, ws := guardEngine(t, mode, map[string]string{"main.go": goFile})
		r := call(t, eng, "edit_file", edit("main.go", "\tfmt.Println(\"done\")\n}\n", "\tfmt.Println(\"done\")\n"))
		if !r.OK {
			t.Fatalf("%s: %s", mode, r.Text)
		}
		if got := testutil.ReadFile(t, filepath.Join(ws, "main.go")); strings.HasSuffix(got, "}\n") {
			t.Errorf("%s: not applied", mode)
		}
		warned := strings.Contains(r.Text, "warning: the change leaves main.go with a syntax error")
		if warned != (mode == toolapi.GuardWarn) {
			t.Errorf("%s: warning shown %v:\n%s", mode, warned, r.Text)
		}
	}
}

func TestPlaceholderGuard(t *testing.T) {
	py := "def f(x):\n    a = x + 1\n    b = a * 2\n    c = b - 3\n    return c\n"
	eng, ws := guardEngine(t, "", map[string]string{"f.py": py})
	r := call(t, eng, "edit_file", edit("f.py", "    a = x + 1\n    b = a * 2\n    c = b - 3\n    return c\n", "    a = x + 2\n    # ... rest of the function unchanged ...\n"))
	if r.OK || *r.Kind != "placeholder_text" {
		t.Fatalf("want placeholder_text, got %+v", r)
	}
	for _, want := range []string{"line 3", "3 lines", "rest of the function unchanged"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("message lacks %q: %s", want, r.Text)
		}
	}
	if got := testutil.ReadFile(t, filepath.Join(ws, "f.py")); got != py {
		t.Errorf("the file changed: %q", got)
	}
	// write_file too.
	call(t, eng, "read_file", map[string]any{"path": "f.py"})
	w := call(t, eng, "write_file", map[string]any{"path": "f.py", "content": "def f(x):\n    # ... existing code ...\n"})
	if w.OK || *w.Kind != "placeholder_text" {
		t.Errorf("write_file: %+v", w)
	}
}

// The placeholder refusal tells each tool's model what to send in that tool's terms:
// write_file has no oldText, nor has a patch or a SEARCH/REPLACE block.
func TestPlaceholderRefusalInEachToolsWords(t *testing.T) {
	py := "def f(x):\n    a = x + 1\n    b = a * 2\n    c = b - 3\n    return c\n"
	ws := testutil.Workspace(t, map[string]string{"f.py": py})
	eng, err := toolapi.Open(ws, toolapi.Options{Tools: "all"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	call(t, eng, "read_file", map[string]any{"path": "f.py"})
	cases := []struct {
		tool string
		args any
		say  string
	}{
		{"edit_file", edit("f.py", "    b = a * 2\n    c = b - 3\n", "    # ... rest unchanged ...\n"), "leave them out of oldText"},
		{"write_file", map[string]any{"path": "f.py", "content": "def f(x):\n    # ... existing code ...\n"}, "use edit_file"},
		{"apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: f.py\n@@\n     a = x + 1\n-    b = a * 2\n-    c = b - 3\n+    # ... rest unchanged ...\n*** End Patch"}, "leave them out of the chunk's '-' lines"},
		{"replace_in_file", map[string]any{"path": "f.py", "diff": "------- SEARCH\n    b = a * 2\n    c = b - 3\n=======\n    # ... rest unchanged ...\n+++++++ REPLACE\n"}, "leave them out of SEARCH"},
	}
	for _, c := range cases {
		r := call(t, eng, c.tool, c.args)
		if r.OK || *r.Kind != "placeholder_text" {
			t.Errorf("%s: want placeholder_text, got %+v", c.tool, r)
			continue
		}
		if !strings.Contains(r.Text, c.say) || c.tool != "edit_file" && strings.Contains(r.Text, "oldText") {
			t.Errorf("%s: the refusal does not say %q in its own words:\n%s", c.tool, c.say, r.Text)
		}
	}
	if got := testutil.ReadFile(t, filepath.Join(ws, "f.py")); got != py {
		t.Errorf("the file changed: %q", got)
	}
}

// Curly quotes the model typed as string delimiters (oldText showed none, so fidelity
// writes them as sent) would break the file: they are written as '"', and the reply
// says so; an apostrophe inside the string stays as sent.
func TestTypographyOnlyAParserSees(t *testing.T) {
	eng, ws := guardEngine(t, "", map[string]string{"main.go": goFile})
	r := call(t, eng, "edit_file", edit("main.go", "\tfmt.Println(\"done\")\n", "\tfmt.Println(\"done\")\n\tfmt.Println(“it’s over”)\n"))
	if !r.OK {
		t.Fatalf("%s", r.Text)
	}
	want := strings.Replace(goFile, "\tfmt.Println(\"done\")\n", "\tfmt.Println(\"done\")\n\tfmt.Println(\"it’s over\")\n", 1)
	if got := testutil.ReadFile(t, filepath.Join(ws, "main.go")); got != want {
		t.Fatalf("file:\n%s\nwant:\n%s", got, want)
	}
	for _, note := range []string{`'“' at line 8, where the code needs '"', was written as '"'`, `'’' at line 8 is inside a string or a comment and was written as sent; main.go did not use it before.`} {
		if !strings.Contains(r.Text, note) {
			t.Errorf("reply lacks %q:\n%s", note, r.Text)
		}
	}
	// The journal rebuilds what was written: an undo puts the file back exactly.
	if u := call(t, eng, "undo_edit", map[string]any{"path": "main.go"}); !u.OK {
		t.Fatalf("undo: %s", u.Text)
	}
	if got := testutil.ReadFile(t, filepath.Join(ws, "main.go")); got != goFile {
		t.Errorf("after undo: %q", got)
	}
}

// An en dash the code could not hold (typed for minus) shows that the model drifts
// dashes in this edit: the one in the message is written plain too, and the reply says
// how to keep it. Where the file already used en dashes, the message's stays as sent.
func TestTypographyInCodeMarksItsTwinInAString(t *testing.T) {
	sent := "\tfmt.Println(\"done\")\n\tfmt.Println(\"2–3 items\", 5 – 2)\n"
	eng, ws := guardEngine(t, "", map[string]string{"main.go": goFile, "dash.go": strings.Replace(goFile, "start", "start – now", 1)})
	for _, c := range []struct{ name, want, note string }{
		{"main.go", "\tfmt.Println(\"2-3 items\", 5 - 2)\n", `'–' at line 8, inside a string or a comment, was written as '-' like the one the code needed`},
		{"dash.go", "\tfmt.Println(\"2–3 items\", 5 - 2)\n", `'–' at line 8, where the code needs '-', was written as '-'`},
	} {
		r := call(t, eng, "edit_file", edit(c.name, "\tfmt.Println(\"done\")\n", sent))
		if !r.OK {
			t.Fatalf("%s: %s", c.name, r.Text)
		}
		if got := testutil.ReadFile(t, filepath.Join(ws, c.name)); !strings.Contains(got, "\tfmt.Println(\"done\")\n"+c.want) {
			t.Errorf("%s: file:\n%s\nwant the line %q", c.name, got, c.want)
		}
		if !strings.Contains(r.Text, c.note) {
			t.Errorf("%s: reply lacks %q:\n%s", c.name, c.note, r.Text)
		}
	}
}

// The repair's notes name the lines the characters are on.
func TestTypographyNotesNameTheirLines(t *testing.T) {
	eng, ws := guardEngine(t, "", map[string]string{"q.py": "x = 1\ny = 2\n"})
	r := call(t, eng, "edit_file", edit("q.py", "x = 1", "x = ‘a’ + ‘b’ + ‘c’ + ‘d’"))
	if !r.OK {
		t.Fatalf("%s", r.Text)
	}
	if got := testutil.ReadFile(t, filepath.Join(ws, "q.py")); got != "x = 'a' + 'b' + 'c' + 'd'\ny = 2\n" {
		t.Fatalf("file: %q", got)
	}
	if n := strings.Count(r.Text, "at line 1,"); n != 8 || strings.Contains(r.Text, "at line 2") {
		t.Errorf("want 8 notes, all at line 1:\n%s", r.Text)
	}
}

// A guard's refusal replays as itself: its record keeps the content the guard judged,
// as a matcher's refusal does. It used to record no content, and replay reported
// file_not_found, a different outcome, for every syntax and placeholder refusal.
func TestGuardRefusalsReplayAsRecorded(t *testing.T) {
	eng, _ := guardEngine(t, "", map[string]string{"main.go": goFile, "b.go": goFile})
	var seqs []uint64
	for what, args := range map[string]any{
		"syntax":      edit("main.go", "\tfmt.Println(\"done\")\n", "\tfmt.Println(\"done\"\n"),
		"placeholder": edit("main.go", "\tfmt.Println(\"start\")\n\tfmt.Println(\"done\")\n", "\t// ... existing code ...\n"),
		"two files": map[string]any{"changes": []map[string]any{
			{"path": "b.go", "edits": []map[string]string{{"oldText": "start", "newText": "begin"}}},
			{"path": "main.go", "edits": []map[string]string{{"oldText": "\tfmt.Println(\"done\")\n", "newText": "\tfmt.Println(\"done\"\n"}}},
		}},
	} {
		tool := "edit_file"
		if what == "two files" {
			tool = "apply_changes"
		}
		r := call(t, eng, tool, args)
		if r.OK || r.Txn == nil || (*r.Kind != "syntax_error" && *r.Kind != "placeholder_text") {
			t.Fatalf("%s: want a guard refusal, got %+v", what, r)
		}
		seqs = append(seqs, uint64(*r.Txn))
	}
	rp, err := eng.Replayer()
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	for _, seq := range seqs {
		res, err := rp.Replay(seq)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Replayable || !res.Same || res.NowKind != res.RecordedKind {
			t.Errorf("call %d: recorded %s, today %s (%s; %s)", seq, res.RecordedKind, res.NowKind, res.NowText, res.Why)
		}
	}
}

// A parser's grammar can lag behind a language: a model sure of its code sends the
// refused call again, unchanged, as its session's next call, and it is written with a
// warning. Anything else (another call between, another session, other arguments) is
// refused as before.
func TestSyntaxRefusalGivesWayToTheSameCallAgain(t *testing.T) {
	const bad = "\tfmt.Println(\"done\"\n"
	broken := strings.Replace(goFile, "\tfmt.Println(\"done\")\n", bad, 1)
	insist := edit("main.go", "\tfmt.Println(\"done\")\n", bad)
	eng, ws := guardEngine(t, "", map[string]string{"main.go": goFile})
	do := func(session string, args any) toolapi.Result {
		b, _ := json.Marshal(args)
		return eng.Call(context.Background(), session, "edit_file", b)
	}
	refused := func(what string, r toolapi.Result) {
		t.Helper()
		if r.OK || *r.Kind != "syntax_error" {
			t.Fatalf("%s: want syntax_error, got %+v", what, r)
		}
		if got := testutil.ReadFile(t, filepath.Join(ws, "main.go")); got != goFile {
			t.Fatalf("%s: the file changed: %q", what, got)
		}
	}
	r := do("a", insist)
	refused("the first call", r)
	if !strings.Contains(r.Text, "send this same call again, unchanged, as your next call") {
		t.Errorf("the refusal does not say how to insist:\n%s", r.Text)
	}
	refused("the same call from another session", do("b", insist))
	call(t, eng, "read_file", map[string]any{"path": "main.go"}) // session "s"
	do("a", map[string]any{"path": "main.go"})                   // not an edit: refused as invalid
	refused("the same call with another between", do("a", insist))
	refused("other arguments", do("a", edit("main.go", "\tfmt.Println(\"done\")\n", "\tfmt.Println(\"done\"\n\n")))
	refused("again, once", do("a", insist))
	r = do("a", insist)
	if !r.OK || !strings.Contains(r.Text, "warning: written as sent again after call") {
		t.Fatalf("the same call right after its refusal: %+v", r)
	}
	if got := testutil.ReadFile(t, filepath.Join(ws, "main.go")); got != broken {
		t.Errorf("the file holds %q, want what was sent", got)
	}
}

// Insisting on a call that breaks two files writes neither until each was named in a
// refusal: the first repeat is refused for the second file, the next one writes both.
func TestInsistingNamesEveryBrokenFileFirst(t *testing.T) {
	const bad = "\tfmt.Println(\"done\"\n"
	broken := strings.Replace(goFile, "\tfmt.Println(\"done\")\n", bad, 1)
	eng, ws := guardEngine(t, "", map[string]string{"a.go": goFile, "b.go": goFile})
	both, _ := json.Marshal(map[string]any{"changes": []map[string]any{
		{"path": "a.go", "edits": []map[string]string{{"oldText": "\tfmt.Println(\"done\")\n", "newText": bad}}},
		{"path": "b.go", "edits": []map[string]string{{"oldText": "\tfmt.Println(\"done\")\n", "newText": bad}}},
	}})
	send := func() toolapi.Result { return eng.Call(context.Background(), "m", "apply_changes", both) }
	for k, want := range []string{"a.go", "b.go"} {
		r := send()
		if r.OK || *r.Kind != "syntax_error" || !strings.Contains(r.Text, "changes["+fmt.Sprint(k)+"] ("+want+")") {
			t.Fatalf("send %d: want a syntax refusal naming %s, got %+v", k+1, want, r)
		}
		for _, f := range []string{"a.go", "b.go"} {
			if got := testutil.ReadFile(t, filepath.Join(ws, f)); got != goFile {
				t.Fatalf("send %d changed %s", k+1, f)
			}
		}
	}
	if r := send(); !r.OK || strings.Count(r.Text, "warning: written as sent again") != 2 {
		t.Fatalf("the third send: %+v", r)
	}
	for _, f := range []string{"a.go", "b.go"} {
		if got := testutil.ReadFile(t, filepath.Join(ws, f)); got != broken {
			t.Errorf("%s holds %q", f, got)
		}
	}
	// Two copies sent at once are not insisting: txn's TestInsistingNeedsTheRefusalRead
	// begins both before either ends, which goroutines here cannot promise.
}

// Each replay runs in a session of its own: replaying one syntax refusal does not make
// the next identical one a repeat the guard gives way to (replay --failed replays
// such runs back to back).
func TestReplaysDoNotInsist(t *testing.T) {
	eng, _ := guardEngine(t, "", map[string]string{"main.go": goFile})
	bad, _ := json.Marshal(edit("main.go", "\tfmt.Println(\"done\")\n", "\tfmt.Println(\"done\"\n"))
	var seqs []uint64
	for _, session := range []string{"a", "b"} {
		r := eng.Call(context.Background(), session, "edit_file", bad)
		if r.OK || r.Txn == nil {
			t.Fatalf("session %s: want a refusal: %+v", session, r)
		}
		seqs = append(seqs, uint64(*r.Txn))
	}
	rp, err := eng.Replayer()
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	for _, seq := range append(seqs, seqs...) {
		res, err := rp.Replay(seq)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Same || res.NowOK {
			t.Errorf("replay of call %d: recorded %s, today ok=%v %s", seq, res.RecordedKind, res.NowOK, res.NowKind)
		}
	}
}

// A call whose lines were re-indented to the file's (oldText matched only ignoring
// indentation) is not written by sending it again: what would be written is not what
// was sent, and the guard refused it (attack4 D2). The refusal says what to send.
func TestReindentedSyntaxRefusalDoesNotGiveWay(t *testing.T) {
	const py = "def f(x):\n    if x:\n        return 1\n    return 0\n"
	eng, ws := guardEngine(t, "", map[string]string{"c.py": py})
	args, _ := json.Marshal(edit("c.py", "if x:\n    return 1", "if x:\n    return 1\n  return 2"))
	for k := range 3 {
		r := eng.Call(context.Background(), "a", "edit_file", args)
		if r.OK || *r.Kind != "syntax_error" {
			t.Fatalf("send %d: want syntax_error, got %+v", k+1, r)
		}
		if strings.Contains(r.Text, "send this same call again") || !strings.Contains(r.Text, "exactly as the file has them") {
			t.Errorf("send %d: the refusal offers to write the re-indented lines, or does not say what to send:\n%s", k+1, r.Text)
		}
		if got := testutil.ReadFile(t, filepath.Join(ws, "c.py")); got != py {
			t.Fatalf("send %d: the file changed: %q", k+1, got)
		}
	}
}

package dialect

import (
	"reflect"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
)

func TestV4AParsesEveryOperation(t *testing.T) {
	// Codex's parser test: add, delete, update with a move and an anchor.
	patch := "*** Begin Patch\n*** Add File: path/add.py\n+abc\n+def\n*** Delete File: path/delete.py\n" +
		"*** Update File: path/update.py\n*** Move to: path/update2.py\n@@ def f():\n-    pass\n+    return 123\n*** End Patch"
	got, err := ParsePatch(patch)
	if err != nil {
		t.Fatal(err)
	}
	want := []FileOp{
		{Kind: OpAdd, Path: "path/add.py", Content: "abc\ndef\n", Line: 2},
		{Kind: OpDelete, Path: "path/delete.py", Line: 5},
		{Kind: OpUpdate, Path: "path/update.py", MoveTo: "path/update2.py", Line: 6, Chunks: []Chunk{
			{Anchors: []string{"def f():"}, Old: []string{"    pass"}, New: []string{"    return 123"}, Line: 8},
		}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %#v\nwant %#v", got, want)
	}
}

func TestV4ALenientForms(t *testing.T) {
	upd := []FileOp{{Kind: OpUpdate, Path: "foo.txt", Chunks: []Chunk{{Old: []string{"old"}, New: []string{"new"}}}}}
	cases := []struct {
		name, patch string
		want        []FileOp
	}{
		// Codex fixture 017: a padded file header.
		{"PaddedHunkHeader", "*** Begin Patch\n  *** Update File: foo.txt\n@@\n-old\n+new\n*** End Patch\n", upd},
		// Codex fixture 020: padded Begin and End markers.
		{"PaddedPatchMarkers", "*** Begin Patch \n*** Update File: foo.txt\n@@\n-old\n+new\n *** End Patch\n", upd},
		{"HeredocQuoted", "<<'EOF'\n*** Begin Patch\n*** Update File: foo.txt\n@@\n-old\n+new\n*** End Patch\nEOF\n", upd},
		{"HeredocBare", "<<EOF\n*** Begin Patch\n*** Update File: foo.txt\n@@\n-old\n+new\n*** End Patch\nEOF", upd},
		{"HeredocDoubleQuoted", "<<\"EOF\"\n*** Begin Patch\n*** Update File: foo.txt\n@@\n-old\n+new\n*** End Patch\nEOF", upd},
		{"HeredocWithCommand", "apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: foo.txt\n@@\n-old\n+new\n*** End Patch\nPATCH\n", upd},
		{"BlankLineBeforeEnd", "*** Begin Patch\n*** Update File: foo.txt\n@@\n-old\n+new\n\n*** End Patch", upd},
		{"CRLF", "*** Begin Patch\r\n*** Update File: foo.txt\r\n@@\r\n-old\r\n+new\r\n*** End Patch\r\n", upd},
		{"FirstChunkWithoutAt", "*** Begin Patch\n*** Update File: foo.txt\n-old\n+new\n*** End Patch", upd},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParsePatch(c.patch)
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				got[i].Line = 0
				for j := range got[i].Chunks {
					got[i].Chunks[j].Line = 0
				}
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got  %#v\nwant %#v", got, c.want)
			}
		})
	}
}

func TestV4AEmptyLineIsEmptyContext(t *testing.T) {
	// The model dropped the space of an empty context line.
	got, err := ParsePatch("*** Begin Patch\n*** Update File: a\n@@\n a\n\n-b\n+c\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	c := got[0].Chunks[0]
	if !reflect.DeepEqual(c.Old, []string{"a", "", "b"}) || !reflect.DeepEqual(c.New, []string{"a", "", "c"}) {
		t.Fatalf("old %q new %q", c.Old, c.New)
	}
}

func TestV4AStackedAnchors(t *testing.T) {
	got, err := ParsePatch("*** Begin Patch\n*** Update File: a.py\n@@ class A\n@@     def f(self):\n-        pass\n+        return 1\n@@ -10,2 +10,2 @@ def g():\n-    x\n+    y\n*** End of File\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	ch := got[0].Chunks
	if len(ch) != 2 || !reflect.DeepEqual(ch[0].Anchors, []string{"class A", "def f(self):"}) ||
		!reflect.DeepEqual(ch[1].Anchors, []string{"def g():"}) || !ch[1].EndOfFile || ch[0].EndOfFile {
		t.Fatalf("%#v", ch)
	}
	if ch[0].Line != 3 || ch[1].Line != 7 {
		t.Fatalf("lines %d %d", ch[0].Line, ch[1].Line)
	}
}

func TestV4AMalformedNamesLine(t *testing.T) {
	cases := []struct{ name, patch, want string }{
		{"NoBegin", "*** Update File: a\n-x\n+y\n*** End Patch", "line 1: expected \"*** Begin Patch\""},
		{"NoEnd", "*** Begin Patch\n*** Update File: a\n-x\n+y", "line 4: expected \"*** End Patch\""},
		{"BadHeader", "*** Begin Patch\n*** Frobnicate File: a\n*** End Patch", "line 2: expected a file header"},
		{"BadChunkLine", "*** Begin Patch\n*** Update File: a\n@@\n x\nbad\n*** End Patch", "line 5: expected a chunk line"},
		{"EmptyUpdate", "*** Begin Patch\n*** Update File: a\n*** End Patch", "expected a chunk for a"},
		{"AnchorWithoutLines", "*** Begin Patch\n*** Update File: a\n@@ def f\n*** End Patch", "line 4: expected chunk lines"},
		{"EmptyPatch", "*** Begin Patch\n*** End Patch", "holds no file sections"},
		{"UnclosedHeredoc", "<<'EOF'\n*** Begin Patch\n*** Delete File: a\n*** End Patch", "heredoc opened on line 1 is not closed"},
		{"TwoEnvelopes", "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** End Patch\n*** Begin Patch\n*** Update File: b\n@@\n-x\n+y\n*** End Patch", "line 7: a second `*** Begin Patch`"},
		{"TwoEnvelopesBlankBetween", "*** Begin Patch\n*** Delete File: a\n*** End Patch\n\n*** Begin Patch\n*** Delete File: b\n*** End Patch", "line 5: a second `*** Begin Patch`"},
		{"BeginInside", "*** Begin Patch\n*** Delete File: a\n*** Begin Patch\n*** Delete File: b\n*** End Patch", "line 3: a second `*** Begin Patch`"},
		{"EndTwice", "*** Begin Patch\n*** Delete File: a\n*** End Patch\n\n*** End Patch", "`*** End Patch` twice (lines 3 and 5)"},
		{"TextAfterEnd", "*** Begin Patch\n*** Delete File: a\n*** End Patch\nDone.\n*** End Patch", "line 3: the patch ends here with `*** End Patch`, but line 4 goes on with \"Done.\""},
		{"EmptyFence", "```diff\n\n```", "its fence holds nothing"},
		{"EndOfFileFirst", "*** Begin Patch\n*** Update File: a\n@@\n*** End of File\n*** End Patch", "line 4: expected chunk lines"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParsePatch(c.patch)
			wantKind(t, err, errs.InvalidInput)
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("message %q lacks %q", err, c.want)
			}
		})
	}
}

// A patch in a Markdown fence, as models wrap code, reads as the patch inside it;
// the fence may also hold a heredoc, and line numbers still count from the input's
// first line.
func TestV4AFenced(t *testing.T) {
	want, err := ParsePatch("*** Begin Patch\n*** Update File: m.py\n@@ def f():\n-    a = 1\n+    a = 2\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{
		"```diff\n*** Begin Patch\n*** Update File: m.py\n@@ def f():\n-    a = 1\n+    a = 2\n*** End Patch\n```",
		"\n```\n\n*** Begin Patch\n*** Update File: m.py\n@@ def f():\n-    a = 1\n+    a = 2\n*** End Patch\n\n```\n",
		"```bash\napply_patch <<'EOF'\n*** Begin Patch\n*** Update File: m.py\n@@ def f():\n-    a = 1\n+    a = 2\n*** End Patch\nEOF\n```",
	} {
		got, err := ParsePatch(in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		for i := range got {
			got[i].Line, want[i].Line = 0, 0
			for j := range got[i].Chunks {
				got[i].Chunks[j].Line, want[i].Chunks[j].Line = 0, 0
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %#v\nwant %#v", in, got, want)
		}
	}
	_, err = ParsePatch("```diff\n*** Begin Patch\n*** Update File: a\nbad\n*** End Patch\n```")
	if err == nil || !strings.Contains(err.Error(), "line 4:") {
		t.Fatalf("a fenced patch's error should name the input's line 4: %v", err)
	}
}

func TestV4AResponsesOperations(t *testing.T) {
	op, err := ParseOperation(Operation{Type: "create_file", Path: "hello.txt", Diff: "+Hello\n+\n+World"})
	if err != nil || op.Kind != OpAdd || op.Content != "Hello\n\nWorld\n" {
		t.Fatalf("%#v %v", op, err)
	}
	op, err = ParseOperation(Operation{Type: "update_file", Path: "/src/main.ts", Diff: "@@ function main() {\n+  console.log(\"hi\");\n }"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Chunk{{Anchors: []string{"function main() {"}, Old: []string{"}"}, New: []string{"  console.log(\"hi\");", "}"}, Line: 1}}
	if op.Kind != OpUpdate || !reflect.DeepEqual(op.Chunks, want) {
		t.Fatalf("%#v", op)
	}
	op, err = ParseOperation(Operation{Type: "delete_file", Path: "gone.txt"})
	if err != nil || op.Kind != OpDelete || op.Path != "gone.txt" {
		t.Fatalf("%#v %v", op, err)
	}
	_, err = ParseOperation(Operation{Type: "create_file", Path: "a", Diff: "+a\nb"})
	wantKind(t, err, errs.InvalidInput)
	if !strings.Contains(err.Error(), "line 2") {
		t.Fatal(err)
	}
	_, err = ParseOperation(Operation{Type: "rename_file", Path: "a"})
	wantKind(t, err, errs.InvalidInput)
	_, err = ParseOperation(Operation{Type: "update_file", Path: "a", Diff: ""})
	wantKind(t, err, errs.InvalidInput)
}

func FuzzParsePatch(f *testing.F) {
	for _, s := range []string{
		"*** Begin Patch\n*** Add File: a\n+x\n*** End Patch",
		"<<'EOF'\n*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@ x\n@@ y\n a\n-b\n+c\n\n*** End of File\n*** End Patch\nEOF",
		"*** Begin Patch\n*** Update File: a\n@@ -1 +1 @@\n\n\n*** End Patch",
		"*** Begin Patch\n*** Delete File: \n*** End Patch",
		"\r\r\n*** Begin Patch",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ops, err := ParsePatch(s)
		if err != nil {
			if errs.KindOf(err) != errs.InvalidInput {
				t.Fatalf("kind %s", errs.KindOf(err))
			}
			return
		}
		for _, op := range ops {
			if op.Path == "" {
				t.Fatalf("empty path in %#v", op)
			}
			if op.Kind == OpUpdate && len(op.Chunks) == 0 && op.MoveTo == "" {
				t.Fatalf("update without chunks: %#v", op)
			}
		}
		_, _ = ParseOperation(Operation{Type: "update_file", Path: "a", Diff: s})
		_, _ = ParseOperation(Operation{Type: "create_file", Path: "a", Diff: s})
	})
}

package dialect

import (
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// patchFile parses a one-file patch and applies it to content.
func patchFile(t *testing.T, content, patch string) (string, error) {
	t.Helper()
	ops, err := ParsePatch(patch)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	sp, err := LocateChunks(ops[0].Path, []byte(content), ops[0].Chunks)
	if err != nil {
		return "", err
	}
	return string(applySplices(t, []byte(content), sp)), nil
}

func update(path string, body ...string) string {
	return "*** Begin Patch\n*** Update File: " + path + "\n" + strings.Join(body, "\n") + "\n*** End Patch\n"
}

func TestV4ALocate(t *testing.T) {
	cases := []struct {
		name, file, patch, want string
	}{
		// Codex fixture 003: two chunks.
		{"MultipleChunks", "line1\nline2\nline3\nline4\n",
			update("multi.txt", "@@", "-line2", "+changed2", "@@", "-line4", "+changed4"),
			"line1\nchanged2\nline3\nchanged4\n"},
		// Codex fixture 021: a deletion only.
		{"DeletionOnly", "line1\ndelete me\nline3\n",
			update("lines.txt", "@@", " line1", "-delete me", " line3"),
			"line1\nline3\n"},
		{"AnchorThenContext", "def a():\n    return 1\n\ndef b():\n    return 1\n",
			update("m.py", "@@ def b():", "-    return 1", "+    return 2"),
			"def a():\n    return 1\n\ndef b():\n    return 2\n"},
		{"StackedAnchors", "class A:\n    def f(self):\n        pass\nclass B:\n    def f(self):\n        pass\n",
			update("m.py", "@@ class B:", "@@ def f(self):", "-        pass", "+        return 1"),
			"class A:\n    def f(self):\n        pass\nclass B:\n    def f(self):\n        return 1\n"},
		{"CRLFKept", "a\r\nb\r\nc\r\n",
			update("w.txt", "@@", " a", "-b", "+B", "+B2", " c"),
			"a\r\nB\r\nB2\r\nc\r\n"},
		{"BOMKept", "\ufeffa\nb\n",
			update("w.txt", "@@", "-a", "+A"),
			"\ufeffA\nb\n"},
		{"NoFinalNewlineKept", "a\nb",
			update("w.txt", "@@", " a", "-b", "+B"),
			"a\nB"},
		{"DeleteLastLineWithoutFinalNewline", "a\nb",
			update("w.txt", "@@", " a", "-b"),
			"a"},
		{"CurlyQuotesInPatchFileKeepsStraight", "say(\"hi\")\nx = 1\n",
			update("q.py", "@@", " say(“hi”)", "-x = 1", "+x = 2"),
			"say(\"hi\")\nx = 2\n"},
		{"WrongIndentationForgiven", "func f() {\n\treturn 1\n}\n",
			update("f.go", "@@", " func f() {", "-    return 1", "+    return 2", " }"),
			"func f() {\n\treturn 2\n}\n"},
		{"TrailingEmptyContextMeansEnd", "a\nb\n",
			update("w.txt", "@@", "-b", "+c", " "),
			"a\nc\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := patchFile(t, c.file, c.patch)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Fatalf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestV4AAnchorPureAdditionGoesAfterAnchor(t *testing.T) {
	got, err := patchFile(t, "import os\n\ndef main():\n    pass\n",
		update("m.py", "@@ import os", "+import sys"))
	if err != nil || got != "import os\nimport sys\n\ndef main():\n    pass\n" {
		t.Fatalf("%q %v", got, err)
	}
}

func TestV4ABarePureAdditionAppends(t *testing.T) {
	// Codex fixture 016.
	got, err := patchFile(t, "line1\nline2\n", update("input.txt", "@@", "+added line 1", "+added line 2"))
	if err != nil || got != "line1\nline2\nadded line 1\nadded line 2\n" {
		t.Fatalf("%q %v", got, err)
	}
	// Without a final newline: the file still ends without one; CRLF is used.
	got, err = patchFile(t, "a\r\nb", update("x", "@@", "+c"))
	if err != nil || got != "a\r\nb\r\nc" {
		t.Fatalf("%q %v", got, err)
	}
}

// A chunk whose context runs to the last line of a file without a final line break,
// and adds lines after it: once a panic (its splice began past the file's end).
func TestV4AAddAfterLastLineWithoutFinalBreak(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"package p\n\nfunc F() {\n}", "package p\n\nfunc F() {\n}\n\nfunc G() {\n}"},
		{"package p\r\n\r\nfunc F() {\r\n}", "package p\r\n\r\nfunc F() {\r\n}\r\n\r\nfunc G() {\r\n}"},
	} {
		for _, body := range [][]string{
			{"@@", " func F() {", " }", "+", "+func G() {", "+}"},
			{"@@", " func F() {", "-}", "+}", "+", "+func G() {", "+}"},
		} {
			got, err := patchFile(t, c.file, update("a.go", body...))
			if err != nil || got != c.want {
				t.Errorf("%q with %q:\ngot  %q %v\nwant %q", c.file, body, got, err, c.want)
			}
		}
	}
}

func TestV4AEndOfFilePinsChunk(t *testing.T) {
	// Codex fixture 022.
	got, err := patchFile(t, "first\nsecond\n", update("tail.txt", "@@", " first", "-second", "+second updated", "*** End of File"))
	if err != nil || got != "first\nsecond updated\n" {
		t.Fatalf("%q %v", got, err)
	}
	// The same lines earlier in the file are not the end: only the last ones match.
	got, err = patchFile(t, "x\ny\nx\ny\n", update("t", "@@", " x", "-y", "+z", "*** End of File"))
	if err != nil || got != "x\ny\nx\nz\n" {
		t.Fatalf("%q %v", got, err)
	}
	_, err = patchFile(t, "x\ny\nq\n", update("t", "@@", " x", "-y", "+z", "*** End of File"))
	wantKind(t, err, errs.TextNotFound)
}

func TestV4AAmbiguousContextIsRefused(t *testing.T) {
	_, err := patchFile(t, "a\nx = 1\nb\nx = 1\n", update("d.py", "@@", "-x = 1", "+x = 2"))
	wantKind(t, err, errs.MultipleMatches)
	for _, w := range []string{"d.py chunk 1", "lines 2, 4", "@@"} {
		if !strings.Contains(err.Error(), w) {
			t.Fatalf("%q lacks %q", err, w)
		}
	}
	// An anchor makes it unique.
	got, err := patchFile(t, "a\nx = 1\nb\nx = 1\n", update("d.py", "@@ b", "-x = 1", "+x = 2"))
	if err != nil || got != "a\nx = 1\nb\nx = 2\n" {
		t.Fatalf("%q %v", got, err)
	}
}

func TestV4APartOfALineIsNoMatch(t *testing.T) {
	// "return x" is inside "// return x": a chunk's lines are whole lines.
	_, err := patchFile(t, "// return x\n", update("c.go", "@@", "-return x", "+return y"))
	wantKind(t, err, errs.TextNotFound)
	if !strings.Contains(err.Error(), "only as part of a line") {
		t.Fatal(err)
	}
}

func TestV4ANotFoundNamesChunk(t *testing.T) {
	// Codex fixture 006: missing context.
	_, err := patchFile(t, "line1\nline2\n", update("modify.txt", "@@", "-missing", "+changed"))
	wantKind(t, err, errs.TextNotFound)
	if !strings.Contains(err.Error(), "modify.txt chunk 1") {
		t.Fatal(err)
	}
	_, err = patchFile(t, "a\nb\n", update("m", "@@ nope", "-a", "+b"))
	wantKind(t, err, errs.TextNotFound)
	if !strings.Contains(err.Error(), `anchor "nope"`) {
		t.Fatal(err)
	}
}

func TestV4AChunksInFileOrder(t *testing.T) {
	// The second chunk's context is above the first's: chunks go in file order.
	_, err := patchFile(t, "a\nb\nc\n", update("o", "@@", "-c", "+C", "@@", "-a", "+A"))
	wantKind(t, err, errs.TextNotFound)
	if !strings.Contains(err.Error(), "chunk 2") || !strings.Contains(err.Error(), "line 1, before") {
		t.Fatal(err)
	}
}

func TestV4AOverlappingChunksAreRefused(t *testing.T) {
	// Two pure additions at the same place cannot be ordered.
	_, err := patchFile(t, "a\nb\n", update("o", "@@ a", "+x", "@@", "+y", "*** End of File", "@@", "+z"))
	wantKind(t, err, errs.OverlappingEdits)
	if !strings.Contains(err.Error(), "chunk 2 and chunk 3") {
		t.Fatal(err)
	}
}

func TestV4ANoChangeIsRefused(t *testing.T) {
	_, err := patchFile(t, "a\nb\n", update("n", "@@", " a", " b"))
	wantKind(t, err, errs.NoChange)
	// Curly quotes for the file's straight ones change nothing the file would show.
	_, err = patchFile(t, "say(\"hi\")\n", update("n", "@@", "-say(“hi”)", "+say(\"hi\")"))
	wantKind(t, err, errs.NoChange)
}

func TestV4ABinaryIsRefused(t *testing.T) {
	_, err := LocateChunks("b", []byte("a\x00b\n"), []Chunk{{Old: []string{"a"}, New: []string{"b"}}})
	wantKind(t, err, errs.BinaryFile)
}

// A read_file gutter pasted into a chunk's lines is taken out, as edit_file takes it
// out of oldText: from the context and removed lines, from the context written back,
// and from an added line that carries one; an added line without one is kept as sent.
// The expected file is written out by hand.
func TestV4AChunkGutter(t *testing.T) {
	file := "def main():\n    print(1)\n    return 0\n\nmain()\n"
	cases := []struct{ name, patch, want string }{
		{"context, removed and added lines", update("app.py", "@@", "      1\tdef main():", "-     2\t    print(1)", "+     2\t    print(2)", "+    log()", "      3\t    return 0"),
			"def main():\n    print(2)\n    log()\n    return 0\n\nmain()\n"},
		{"a gutter from line 4", update("app.py", "@@", "      4\t", "-     5\tmain()", "+main(argv)"),
			"def main():\n    print(1)\n    return 0\n\nmain(argv)\n"},
	}
	for _, c := range cases {
		got, err := patchFile(t, file, c.patch)
		if err != nil || got != c.want {
			t.Errorf("%s: %v\n%q\nwant\n%q", c.name, err, got, c.want)
		}
	}
	// Numbers that do not count up one by one are no gutter: the chunk is not found,
	// and nothing is guessed.
	if _, err := patchFile(t, file, update("app.py", "@@", "      1\tdef main():", "-     7\t    print(1)", "+    print(2)")); errs.KindOf(err) != errs.TextNotFound {
		t.Errorf("a broken gutter: %v", err)
	}
	// A gutter over lines that are not there is refused, and the refusal says the
	// numbers were taken out.
	_, err := patchFile(t, file, update("app.py", "@@", "      1\tdef main():", "-     2\t    print(9)", "+    print(2)"))
	if errs.KindOf(err) != errs.TextNotFound || !strings.Contains(err.Error(), "read_file line numbers") {
		t.Errorf("a gutter over the wrong lines: %v", err)
	}
}

package dialect

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// What a unified diff's headers make of each file: created, deleted, moved, changed.
func TestParseUnifiedDiffSections(t *testing.T) {
	diff := `commit 0123456789abcdef
Author: A <a@example.com>

    change several files

diff --git a/new.txt b/new.txt
new file mode 100644
index 0000000..e69de29
--- /dev/null
+++ b/new.txt
@@ -0,0 +1,2 @@
+one
+two
diff --git a/gone.txt b/gone.txt
deleted file mode 100644
--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
diff --git a/old name.txt b/new name.txt
similarity index 100%
rename from old name.txt
rename to new name.txt
diff --git a/src/a.go b/lib/a.go
similarity index 90%
rename from src/a.go
rename to lib/a.go
index 1111111..2222222 100644
--- a/src/a.go
+++ b/lib/a.go
@@ -1,3 +1,3 @@
 package a
-var x = 1
+var x = 2
 // end
diff --git a/mode.sh b/mode.sh
old mode 100644
new mode 100755
diff --git a/empty.txt b/empty.txt
new file mode 100644
index 0000000..e69de29
`
	ops, err := ParseUnifiedDiff(diff)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, op := range ops {
		s := op.Kind.String() + " " + op.Path
		if op.MoveTo != "" {
			s += " -> " + op.MoveTo
		}
		if op.Kind == OpAdd {
			s += " " + strings.ReplaceAll(op.Content, "\n", "|")
		}
		for _, c := range op.Chunks {
			s += " [" + strings.Join(c.Old, "|") + " => " + strings.Join(c.New, "|") + "]"
		}
		got = append(got, s)
	}
	want := []string{
		"add new.txt one|two|",
		"delete gone.txt [bye => ]",
		"update old name.txt -> new name.txt",
		"update src/a.go -> lib/a.go [package a|var x = 1|// end => package a|var x = 2|// end]",
		"add empty.txt ",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// diff -u (timestamps after a tab, no a/ b/ prefixes) and Aider's udiff (`@@ ... @@`,
// no numbers, in a fence, two sections for one file) read as git's diff does.
func TestParseUnifiedDiffForms(t *testing.T) {
	cases := []struct {
		name, diff string
		path       string
		chunks     int
		near       int
	}{
		{"diff -u", "--- app.py\t2024-01-01 10:00:00.000000000 +0000\n+++ app.py\t2024-01-02 10:00:00.000000000 +0000\n@@ -3,2 +3,2 @@\n x = 1\n-y = 2\n+y = 3\n", "app.py", 1, 3},
		{"aider", "```diff\n--- app.py\n+++ app.py\n@@ ... @@\n x = 1\n-y = 2\n+y = 3\n```\n", "app.py", 1, 0},
		{"aider, two sections", "--- app.py\n+++ app.py\n@@ ... @@\n-a\n+b\n--- app.py\n+++ app.py\n@@ ... @@\n-c\n+d\n", "app.py", 2, 0},
		{"bare @@", "--- a/app.py\n+++ b/app.py\n@@\n-a\n+b\n", "app.py", 1, 0},
		{"quoted path", "--- \"a/caf\\303\\251.txt\"\n+++ \"b/caf\\303\\251.txt\"\n@@ -1 +1 @@\n-a\n+b\n", "café.txt", 1, 1},
		{"CRLF", "--- a/x\r\n+++ b/x\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n", "x", 1, 1},
	}
	for _, c := range cases {
		ops, err := ParseUnifiedDiff(c.diff)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if len(ops) != 1 || ops[0].Path != c.path || len(ops[0].Chunks) != c.chunks || ops[0].Chunks[0].Near != c.near {
			t.Errorf("%s: %+v", c.name, ops)
			continue
		}
		if got := ops[0].Chunks[0]; strings.Join(got.Old, "|") == "" || strings.ContainsRune(strings.Join(got.New, ""), '\r') {
			t.Errorf("%s: chunk %+v", c.name, got)
		}
	}
}

// Counts that disagree with the hunk's lines are forgiven: the hunk ends at the next
// header. Counts that agree end it where they say, so that a removed line that reads
// like a header (`--- x`, a removed SQL comment) is still the hunk's.
func TestHunkCounts(t *testing.T) {
	ops, err := ParseUnifiedDiff("--- a/f\n+++ b/f\n@@ -1,9 +1,2 @@\n a\n-b\n+B\n c\n@@ -20,1 +20,1 @@\n-x\n+X\n")
	if err != nil {
		t.Fatal(err)
	}
	if cs := ops[0].Chunks; len(cs) != 2 || strings.Join(cs[0].Old, "|") != "a|b|c" || strings.Join(cs[1].New, "|") != "X" {
		t.Errorf("wrong counts: %+v", ops[0].Chunks)
	}
	ops, err = ParseUnifiedDiff("--- a/q.sql\n+++ b/q.sql\n@@ -1,3 +1,2 @@\n select 1;\n--- old comment\n++++ new comment\n-x\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 1 || strings.Join(ops[0].Chunks[0].Old, "|") != "select 1;|-- old comment|x" || strings.Join(ops[0].Chunks[0].New, "|") != "select 1;|+++ new comment" {
		t.Errorf("header-like lines: %+v", ops)
	}
}

func TestParseUnifiedDiffRefusals(t *testing.T) {
	cases := []struct{ name, diff, says string }{
		{"empty", "", "names no file"},
		{"prose", "I changed the greeting.\n", "names no file"},
		{"hunk first", "@@ -1 +1 @@\n-a\n+b\n", "before any file header"},
		{"binary", "diff --git a/i.png b/i.png\nindex 1..2\nGIT binary patch\nliteral 5\n", "binary patch"},
		{"binary files", "diff --git a/i.png b/i.png\nBinary files a/i.png and b/i.png differ\n", "binary patch"},
		{"combined", "diff --cc f\nindex 1,2..3\n--- a/f\n+++ b/f\n@@@ -1,1 -1,1 +1,1 @@@\n", "combined diff"},
		{"garbled header", "--- a/f\n+++ b/f\n@@-1 +1@@\n-a\n+b\n", "expected a hunk header"},
		{"empty hunk", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n", "has no lines"},
		{"mode only", "diff --git a/u.txt b/u.txt\nold mode 100644\nnew mode 100755\n", "only changes a file's mode"},
		{"context in new file", "--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n a\n+b\n", "hunk 1 has ' ' or '-' lines"},
	}
	for _, c := range cases {
		_, err := ParseUnifiedDiff(c.diff)
		if errs.KindOf(err) != errs.InvalidInput || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want invalid_input saying %q", c.name, err, c.says)
		}
	}
}

func planDiff(t *testing.T, content, diff string) (string, error) {
	t.Helper()
	ops, err := ParseUnifiedDiff(diff)
	if err != nil {
		t.Fatal(err)
	}
	res, err := PlanHunks(ops[0].Path, []byte(content), ops[0].Chunks)
	if err != nil {
		return "", err
	}
	return string(res.Output), nil
}

// The header's line chooses among several places; it never places a hunk alone.
func TestHunkPlacement(t *testing.T) {
	file := "x\nsame\nx\nmid\nx\nsame\nx\nend\n"
	got, err := planDiff(t, file, "--- a/f\n+++ b/f\n@@ -5,3 +5,3 @@\n x\n-same\n+SAME\n x\n")
	if err != nil || got != "x\nsame\nx\nmid\nx\nSAME\nx\nend\n" {
		t.Errorf("the second place, by its line: %q %v", got, err)
	}
	// A drifted line number still picks the nearest place.
	got, err = planDiff(t, file, "--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n x\n-same\n+SAME\n x\n")
	if err != nil || got != "x\nSAME\nx\nmid\nx\nsame\nx\nend\n" {
		t.Errorf("the first place, by its line: %q %v", got, err)
	}
	// Equally near two places: refused, naming them.
	_, err = planDiff(t, file, "--- a/f\n+++ b/f\n@@ -3,3 +3,3 @@\n x\n-same\n+SAME\n x\n")
	wantRefusal(t, err, errs.MultipleMatches, 0, []int{1, 5}, "equally near")
	// No numbers, two places: refused.
	_, err = planDiff(t, file, "--- a/f\n+++ b/f\n@@ ... @@\n x\n-same\n+SAME\n x\n")
	wantRefusal(t, err, errs.MultipleMatches, 0, []int{1, 5}, "f hunk 1: its context and removed lines match 2 places (lines 1, 5)")
	// A number that points at lines that are not there does not place the hunk.
	_, err = planDiff(t, file, "--- a/f\n+++ b/f\n@@ -2 +2 @@\n-gone\n+here\n")
	wantRefusal(t, err, errs.TextNotFound, 0, nil, "f hunk 1: its context and removed lines were not found.")
	// Only '+' lines in a file that has lines: nothing says where.
	_, err = planDiff(t, file, "--- a/f\n+++ b/f\n@@ -3,0 +4 @@\n+new\n")
	wantRefusal(t, err, errs.InvalidInput, 0, nil, "only '+' lines")
	// Hunks in any order, each placed on its own.
	got, err = planDiff(t, file, "--- a/f\n+++ b/f\n@@ ... @@\n-end\n+END\n@@ ... @@\n-mid\n+MID\n")
	if err != nil || got != "x\nsame\nx\nMID\nx\nsame\nx\nEND\n" {
		t.Errorf("hunks out of order: %q %v", got, err)
	}
}

// A model that numbered its hunks against a file some lines longer is off by the same
// for each: a hunk whose lines fit many places is looked for at its @@ line moved by
// the offset at which the hunks before it were found, as patch(1) does, not at the
// place nearest to its stale number.
func TestHunkOffsetCarriesToTheNextHunk(t *testing.T) {
	block := []string{"def handler(req):", "    a = 1", "    b = 2", "    c = 3", "    return a"}
	var lines []string
	for k := 0; k < 20; k++ {
		if k == 3 {
			lines = append(lines, "# unique section")
		}
		lines = append(lines, block...)
	}
	file := strings.Join(lines, "\n") + "\n"
	want := append([]string(nil), lines...)
	want[15] = "# unique section (edited)" // line 16
	want[48] = "    b = 20"                // line 49, in the tenth block
	// Both headers are 7 lines too high: hunk 1 is unique and found 8 lines above
	// its number (its first line is its context); hunk 2's lines fit all 20 blocks,
	// and the one nearest to its own number, 55, is the block after the one meant.
	diff := "--- a/g.py\n+++ b/g.py\n@@ -23,3 +23,3 @@\n     return a\n-# unique section\n+# unique section (edited)\n def handler(req):\n" +
		"@@ -55,3 +55,3 @@\n     a = 1\n-    b = 2\n+    b = 20\n     c = 3\n"
	got, err := planDiff(t, file, diff)
	if err != nil || got != strings.Join(want, "\n")+"\n" {
		t.Fatalf("hunk 2 at the wrong place: %v\n%s", err, got)
	}
	ops, _ := ParseUnifiedDiff(diff)
	res, err := PlanHunks("g.py", []byte(file), ops[0].Chunks)
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Edits[1]; r.Among != 20 || r.Near != 47 || r.Offset != -8 {
		t.Errorf("hunk 2's report: among %d, near %d, offset %d; want 20, 47, -8", r.Among, r.Near, r.Offset)
	}
	if r := res.Edits[0]; r.Among != 0 {
		t.Errorf("hunk 1 fits one place, its report says %d", r.Among)
	}
}

// A refusal names the file, the hunk and the closest region, with the line that
// differs as the file has it.
func TestHunkRefusals(t *testing.T) {
	file := "def f():\n    a = 1\n    b = 2\n    return a + b\n"
	_, err := planDiff(t, file, "--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n def f():\n     a = 1\n-    b = 2\n+    b = 3\n@@ -2,3 +2,3 @@\n     a = 1\n     b = 22\n-    return a + b\n+    return a * b\n")
	wantRefusal(t, err, errs.TextNotFound, 1, []int{2, 4}, `m.py hunk 2: its context and removed lines were not found. The closest region is lines 2-4; it first differs at line 3, where the file has "    b = 2" and the hunk has "    b = 22".`)
	_, err = planDiff(t, file, "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n def f():\n-    a = 1\n+    a = 1\n")
	wantRefusal(t, err, errs.NoChange, 0, nil, "m.py hunk 1 changes nothing")
	_, err = planDiff(t, file, "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n-def f():\n-    a = 1\n+def g():\n+    a = 5\n@@ -2,2 +2,2 @@\n-    a = 1\n+    a = 0\n     b = 2\n")
	if errs.KindOf(err) != errs.OverlappingEdits || !strings.Contains(err.Error(), "hunk 1 and hunk 2 change the same lines") {
		t.Errorf("overlap: %v", err)
	}
}

// `\ No newline at end of file` adds or takes away the final line break; without it
// the file keeps whether it has one.
func TestHunkFinalNewline(t *testing.T) {
	cases := []struct{ name, file, diff, want string }{
		{"added", "a\nb", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n", "a\nb\n"},
		{"added with a change", "a\nb", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n", "a\nc\n"},
		{"taken away", "a\nb\n", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n", "a\nb"},
		{"taken away, CRLF", "a\r\nb\r\n", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n", "a\r\nc"},
		{"lines deleted", "a\nb\nc\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,1 @@\n-a\n-b\n-c\n+a\n\\ No newline at end of file\n", "a"},
		// A last line that is empty: the result's own bytes cannot say whether it ends
		// in a line break ("a\n" is "a" ended, or "a" then an empty line unended).
		{"added, an empty last line", "a\nb", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+\n", "a\n\n"},
		{"taken away, an empty last line", "a\nb\n", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+\n\\ No newline at end of file\n", "a\n"},
		{"kept", "a\nb", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n", "A\nb"},
		{"context without one", "a\nb", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n\\ No newline at end of file\n", "A\nb"},
	}
	for _, c := range cases {
		got, err := planDiff(t, c.file, c.diff)
		if err != nil || got != c.want {
			t.Errorf("%s: %q %v, want %q", c.name, got, err, c.want)
		}
	}
	// The marker pins the hunk to the end of the file.
	_, err := planDiff(t, "b\nb\nb\n", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-b\n+c\n\\ No newline at end of file\n")
	if err != nil {
		t.Errorf("pinned: %v", err)
	}
}

func wantRefusal(t *testing.T, err error, kind errs.Kind, hunk int, lines []int, says string) {
	t.Helper()
	var e *errs.Error
	if !errors.As(err, &e) || e.Kind != kind {
		t.Fatalf("want %s, got %v", kind, err)
	}
	if !strings.Contains(e.Error(), says) {
		t.Errorf("%s: %q does not say %q", kind, e.Error(), says)
	}
	if e.Where == nil || e.Where.Edit != hunk || lines != nil && !slices.Equal(e.Where.Lines, lines) {
		t.Errorf("%s: where %+v, want hunk %d lines %v", kind, e.Where, hunk, lines)
	}
}

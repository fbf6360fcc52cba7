package toolapi

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func diffCall(a *dispatcher, diff string) Result {
	b, _ := json.Marshal(map[string]string{"diff": diff})
	return call(a, ApplyDiff, string(b))
}

var diffFiles = map[string]string{
	"app.py":   "def main():\n    print(\"hi\")\n    return 0\n",
	"util.py":  "def helper():\n    return 1\n",
	"old.txt":  "obsolete\n",
	"twice.py": "x = 1\ny = 2\nz = 3\n" + strings.Repeat("pad\n", 11) + "x = 1\ny = 2\nz = 3\n",
}

// One diff of four files: a change (context in curly quotes, forgiven), a new file, a
// rename with a change, a deletion. Undo takes every file back.
func TestApplyDiffFiles(t *testing.T) {
	a, dir := patchAPI(t, diffFiles)
	r := diffCall(a, `diff --git a/app.py b/app.py
--- a/app.py
+++ b/app.py
@@ -1,3 +1,3 @@
 def main():
-    print(“hi”)
+    print("hello")
     return 0
diff --git a/notes.md b/notes.md
new file mode 100644
--- /dev/null
+++ b/notes.md
@@ -0,0 +1 @@
+# Notes
diff --git a/util.py b/lib/util.py
similarity index 50%
rename from util.py
rename to lib/util.py
--- a/util.py
+++ b/lib/util.py
@@ -1,2 +1,2 @@
 def helper():
-    return 1
+    return 2
diff --git a/old.txt b/old.txt
deleted file mode 100644
--- a/old.txt
+++ /dev/null
@@ -1 +0,0 @@
-obsolete
`)
	if !r.OK {
		t.Fatalf("%s: %s", kindOf(r), r.Text)
	}
	for _, s := range []string{"Applied the diff:\nA notes.md\nM app.py\nM lib/util.py\nD old.txt\n", "hunk 1: matched after folding curly quotes", "Moved util.py to lib/util.py", "Deleted old.txt"} {
		if !strings.Contains(r.Text, s) {
			t.Errorf("reply does not say %q:\n%s", s, r.Text)
		}
	}
	disk(t, dir, map[string]string{
		"app.py":      "def main():\n    print(\"hello\")\n    return 0\n",
		"notes.md":    "# Notes\n",
		"lib/util.py": "def helper():\n    return 2\n",
		"util.py":     "",
		"old.txt":     "",
	})
	if u := (&Engine{api: a}).Undo(context.Background(), uint64(*r.Txn)); !u.OK {
		t.Fatalf("undo: %s", u.Text)
	}
	disk(t, dir, map[string]string{"app.py": diffFiles["app.py"], "util.py": diffFiles["util.py"], "old.txt": diffFiles["old.txt"], "notes.md": "", "lib/util.py": ""})
}

// Each refusal says that nothing changed, names the file and the hunk (and the
// closest region where there is one), and leaves every file as it was, the files the
// diff changed before the refused hunk included.
func TestApplyDiffRefusals(t *testing.T) {
	good := "--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n def main():\n-    print(\"hi\")\n+    print(\"bye\")\n"
	cases := []struct {
		name, diff, kind string
		says             []string
	}{
		{"not found", good + "--- a/util.py\n+++ b/util.py\n@@ -1,2 +1,2 @@\n def helper():\n-    return 7\n+    return 8\n", "text_not_found",
			[]string{"util.py hunk 1: its context and removed lines were not found. The closest region is lines 1-2; it first differs at line 2, where the file has \"    return 1\" and the hunk has \"    return 7\"."}},
		{"second hunk not found", "--- a/twice.py\n+++ b/twice.py\n@@ -1,2 +1,2 @@\n-x = 1\n+x = 0\n y = 2\n@@ -9 +9 @@\n-nowhere\n+here\n", "text_not_found",
			[]string{"twice.py hunk 2: its context and removed lines were not found."}},
		{"two places, no numbers", "--- a/twice.py\n+++ b/twice.py\n@@ ... @@\n x = 1\n-y = 2\n+y = 5\n", "multiple_matches",
			[]string{"twice.py hunk 1: its context and removed lines match 2 places (lines 1, 15)", "give the place's line in the @@ header"}},
		{"two places, equally near", "--- a/twice.py\n+++ b/twice.py\n@@ -8,2 +8,2 @@\n x = 1\n-y = 2\n+y = 5\n", "multiple_matches",
			[]string{"equally near"}},
		{"missing file", good + "--- a/nope.py\n+++ b/nope.py\n@@ ... @@\n-a\n+b\n", "file_not_found",
			[]string{"nope.py (diff line 7): nope.py does not exist.", "`--- /dev/null` and `+++ b/nope.py`"}},
		{"new file over a file", good + "--- /dev/null\n+++ b/util.py\n@@ -0,0 +1 @@\n+x\n", "file_exists",
			[]string{"new file util.py (diff line 7): A file already exists at util.py, and a diff never overwrites one."}},
		{"rename onto a file", "diff --git a/util.py b/app.py\nrename from util.py\nrename to app.py\n", "file_exists",
			[]string{"rename to app.py (diff line 1)"}},
		{"deletion of other lines", good + "--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-current\n", "text_not_found",
			[]string{"old.txt is deleted by the diff, but its '-' lines are not the file's lines.", `where the file has "obsolete" and the hunk has "current"`}},
		{"a file named twice", good + "--- /dev/null\n+++ b/app2.py\n@@ -0,0 +1 @@\n+x\n--- a/app2.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n", "invalid_input",
			[]string{"names app2.py, which new file app2.py on line 7 names already"}},
		{"only added lines", "--- a/app.py\n+++ b/app.py\n@@ -3,0 +4 @@\n+print(2)\n", "invalid_input",
			[]string{"app.py hunk 1 has only '+' lines"}},
		{"no change", "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-def main():\n+def main():\n", "no_change",
			[]string{"app.py hunk 1 changes nothing"}},
		{"not a diff", "Here is the fix: print bye instead of hi.", "invalid_input",
			[]string{"the diff names no file"}},
		{"binary", "diff --git a/i.png b/i.png\nBinary files a/i.png and b/i.png differ\n", "invalid_input",
			[]string{"a binary patch cannot be applied"}},
		{"outside the root", "--- a/../outside.txt\n+++ b/../outside.txt\n@@ -1 +1 @@\n-secret\n+public\n", "path_outside_root", nil},
		{"reserved", "--- /dev/null\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1 @@\n+rm -rf /\n", "path_reserved", nil},
	}
	for _, c := range cases {
		a, dir := patchAPI(t, diffFiles)
		r := diffCall(a, c.diff)
		if r.OK || kindOf(r) != c.kind {
			t.Errorf("%s: %v %s: %s", c.name, r.OK, kindOf(r), r.Text)
			continue
		}
		if want := "apply_diff refused (" + c.kind + "); no file was changed. "; !strings.HasPrefix(r.Text, want) {
			t.Errorf("%s: %q does not start with %q", c.name, r.Text, want)
		}
		for _, s := range c.says {
			if !strings.Contains(r.Text, s) {
				t.Errorf("%s: %q does not say %q", c.name, r.Text, s)
			}
		}
		disk(t, dir, diffFiles)
		disk(t, dir, map[string]string{"app2.py": "", "lib/util.py": ""})
	}
}

// The header's numbers choose among places; counts that disagree with the lines are
// forgiven; Aider's hunks without numbers, in any order, each in its own section.
func TestApplyDiffForgiving(t *testing.T) {
	a, dir := patchAPI(t, diffFiles)
	r := diffCall(a, "--- a/twice.py\n+++ b/twice.py\n@@ -16,7 +16,70 @@\n x = 1\n-y = 2\n+y = 5\n z = 3\n")
	if !r.OK {
		t.Fatalf("%s: %s", kindOf(r), r.Text)
	}
	disk(t, dir, map[string]string{"twice.py": strings.Replace(diffFiles["twice.py"], "pad\nx = 1\ny = 2", "pad\nx = 1\ny = 5", 1)})
	// The reply says that a line number chose the place, so that a model (or an
	// operator reading the log) can check it.
	if !strings.Contains(r.Text, "hunk 1: its lines fit 2 places; the one nearest to its @@ line 16 was taken.") {
		t.Errorf("the reply does not say how the place was chosen:\n%s", r.Text)
	}
	r = diffCall(a, "```diff\n--- app.py\n+++ app.py\n@@ ... @@\n-    return 0\n+    return 1\n```\n\n```diff\n--- app.py\n+++ app.py\n@@ ... @@\n def main():\n-    print(\"hi\")\n+    print(\"hey\")\n```\n")
	if !r.OK {
		t.Fatalf("%s: %s", kindOf(r), r.Text)
	}
	disk(t, dir, map[string]string{"app.py": "def main():\n    print(\"hey\")\n    return 1\n"})
}

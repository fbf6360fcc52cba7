package vfs

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

// Ignores built from a workspace's .gitignore files leave out exactly what a walk under
// them leaves out: the walk itself is the oracle, over nested rules, negations,
// folder-only and anchored patterns. A .gitignore whose rules are not known hides
// everything below its folder.
func TestIgnoresHideWhatTheWalkLeavesOut(t *testing.T) {
	f, ws, _ := setup(t)
	ignores := map[string]string{
		".gitignore":         "*.log\nbuild/\n/top.txt\ndocs/*.tmp\n",
		"src/.gitignore":     "!keep.log\ngen\n",
		"src/sub/.gitignore": "*.go\n!main.go\n",
		"build/.gitignore":   "!*\n", // inside an ignored folder: never read
	}
	for p, c := range ignores {
		testutil.WriteFile(t, filepath.Join(ws, p), c)
	}
	for _, p := range []string{"app.log", "top.txt", "x/top.txt", "build/out.bin", "docs/a.tmp", "docs/a.md",
		"src/keep.log", "src/other.log", "src/gen/x.c", "src/sub/a.go", "src/sub/main.go", "src/sub/gen/y", "src/sub/b.txt"} {
		testutil.WriteFile(t, filepath.Join(ws, p), "x")
	}
	all := f.Walker()
	all.IncludeIgnored = true
	seen := walked(f.Walker(), ".")
	rules := map[string][]byte{}
	for p, c := range ignores {
		rules[filepath.ToSlash(filepath.Dir(p))] = []byte(c)
	}
	ig := NewIgnores(rules, nil)
	checked := 0
	for _, p := range walked(all, ".") {
		dir := strings.HasSuffix(p, "/")
		want := !slices.Contains(seen, p)
		if got := ig.Hid(strings.TrimSuffix(p, "/"), dir); got != want {
			t.Errorf("Hid(%s) = %v, the walk left it out: %v", p, got, want)
		}
		checked++
	}
	if checked < 20 {
		t.Fatalf("only %d paths checked", checked)
	}
	rules["src/sub"] = nil
	if ig := NewIgnores(rules, nil); !ig.Hid("src/sub/b.txt", false) || ig.Hid("src/x.txt", false) {
		t.Error("a .gitignore of unknown rules: src/sub/b.txt not hidden, or src/x.txt hidden")
	}
}

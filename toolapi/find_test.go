package toolapi

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/journal"
)

func TestListAndSearch(t *testing.T) {
	files := map[string]string{
		".gitignore":          "build/\n*.log\n!keep.log\n",
		"src/app.go":          "package app\n\nfunc Hello() string { return \"hello\" }\n",
		"src/util/strings.go": "package util\n\n// Hello is not here\n",
		"build/out.go":        "package build // hello\n",
		"debug.log":           "hello from a log\n",
		"keep.log":            "hello kept\n",
		"docs/readme.md":      "Say hello.\n",
		".git/config":         "[core]\nhello = 1\n",
		"vendor/x/.git/HEAD":  "hello\n",
		"bin.dat":             "hello\x00binary",
	}
	a, dir := newAPI(t, files)
	wants := []string{"src/\n", "src/app.go", "src/util/strings.go", "docs/readme.md", "keep.log"}
	// Where no symbolic link can be made (Windows without the privilege, Wine), the
	// listing has none to show.
	if os.Symlink("../outside.txt", filepath.Join(dir, "esc.txt")) == nil {
		if _, err := os.Lstat(filepath.Join(dir, "esc.txt")); err == nil {
			wants = append(wants, "esc.txt")
		}
	}

	r := call(a, ListFiles, `{}`)
	for _, want := range wants {
		if !strings.Contains(r.Text, want) {
			t.Errorf("list lacks %q:\n%s", want, r.Text)
		}
	}
	for _, not := range []string{"build", "debug.log", ".git/", "config", "HEAD", "outside"} {
		if strings.Contains(r.Text, not) {
			t.Errorf("list shows %q:\n%s", not, r.Text)
		}
	}
	if r := call(a, ListFiles, `{"includeIgnored": true, "pattern": "*.log"}`); r.Text != "debug.log\nkeep.log" {
		t.Errorf("ignored files asked for: %q", r.Text)
	}
	if r := call(a, ListFiles, `{"path": "src", "depth": 1}`); r.Text != "src/app.go\nsrc/util/" {
		t.Errorf("depth 1: %q", r.Text)
	}
	if r := call(a, ListFiles, `{"path": "../"}`); kindOf(r) != "path_outside_root" {
		t.Errorf("outside: %+v", r)
	}
	if r := call(a, ListFiles, `{"path": ".git"}`); kindOf(r) != "path_reserved" {
		t.Errorf(".git: %+v", r)
	}

	r = call(a, SearchFiles, `{"pattern": "(?i)hello"}`)
	for _, want := range []string{"src/app.go:3: func Hello()", "src/util/strings.go:3: // Hello is not here", "docs/readme.md:1: Say hello.", "keep.log:1: hello kept"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("search lacks %q:\n%s", want, r.Text)
		}
	}
	for _, not := range []string{"build/", "debug.log", ".git/", "bin.dat", "outside"} {
		if strings.Contains(r.Text, not) {
			t.Errorf("search shows %q:\n%s", not, r.Text)
		}
	}
	if r := call(a, SearchFiles, `{"pattern": "hello(", "glob": "*.go"}`); kindOf(r) != "invalid_input" || !strings.Contains(r.Text, "RE2") {
		t.Errorf("bad regexp: %+v", r)
	}
	if r := call(a, SearchFiles, `{"pattern": "Hello()", "literal": true, "glob": "*.go"}`); r.Text != "src/app.go:3: func Hello() string { return \"hello\" }" {
		t.Errorf("literal: %q", r.Text)
	}
	if r := call(a, SearchFiles, `{"pattern": "nothing-like-this"}`); !strings.HasPrefix(r.Text, "(no match in ") {
		t.Errorf("no match: %q", r.Text)
	}

	// Both are journaled like reads, by the folder they looked at.
	a.eng.View(func(tx *journal.Tx) error {
		recs, _ := tx.Find(journal.Query{Path: "src"})
		if len(recs) != 1 || recs[0].Tool != ListFiles {
			t.Errorf("journal by path src: %d records", len(recs))
		}
		return nil
	})
}

func TestListBounded(t *testing.T) {
	files := map[string]string{}
	for i := range 1100 {
		files[fmt.Sprintf("d/f%04d.txt", i)] = "match\n"
	}
	a, _ := newAPI(t, files)
	r := call(a, ListFiles, `{}`)
	if !strings.Contains(r.Text, "more entries not shown: narrow with path, pattern or depth") || strings.Count(r.Text, "\n") > 1001 {
		t.Errorf("list of 1100 files: %d lines, tail %q", strings.Count(r.Text, "\n"), r.Text[len(r.Text)-100:])
	}
	r = call(a, SearchFiles, `{"pattern": "match"}`)
	if !strings.Contains(r.Text, "900 more matches not shown") {
		t.Errorf("search of 1100 matches, tail %q", r.Text[len(r.Text)-120:])
	}
}

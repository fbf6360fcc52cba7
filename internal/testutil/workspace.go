// Package testutil holds helpers shared by the tests of several packages: workspaces
// on disk, and checks on error kinds.
package testutil

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// Workspace makes a temporary directory holding files (path -> content) and returns it.
func Workspace(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		WriteFile(t, filepath.Join(dir, p), c)
	}
	return dir
}

// WriteFile writes content at p, creating parent directories.
func WriteFile(t testing.TB, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ReadFile returns the content of p, failing the test if it cannot be read.
func ReadFile(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Snapshot records every file and symlink under dir (path -> content or link target),
// so a test can assert that a refused call changed nothing. The journal folder
// .vfsctl/ is left out: every call, refused or not, is recorded there.
func Snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == ".vfsctl" {
			return filepath.SkipDir
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			out[rel] = "-> " + l
		case fi.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			out[rel] = string(b) + "\x00" + fi.Mode().String()
		case fi.IsDir():
			out[rel+"/"] = fi.Mode().String()
		default:
			out[rel] = fi.Mode().String()
		}
		return nil
	})
	return out
}

// SameSnapshot fails the test when two snapshots differ, naming the paths.
func SameSnapshot(t testing.TB, before, after map[string]string) {
	t.Helper()
	var diff []string
	for p, v := range before {
		if after[p] != v {
			diff = append(diff, p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			diff = append(diff, p+" (new)")
		}
	}
	sort.Strings(diff)
	if len(diff) > 0 {
		t.Fatalf("workspace changed: %v", diff)
	}
}

// WantKind fails the test unless err carries kind.
func WantKind(t testing.TB, err error, kind errs.Kind) {
	t.Helper()
	if got := errs.KindOf(err); got != kind {
		t.Fatalf("want %s, got %q (%v)", kind, got, err)
	}
}

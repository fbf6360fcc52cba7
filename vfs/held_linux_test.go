package vfs

import (
	"os"
	"path/filepath"
	"testing"
)

// A folder held is told in place, in one look, where it is: under a root opened
// through a symlink, with names holding a newline or ending " (deleted)", and after
// the root itself was renamed. Moved within the root, it is told out of place, and in
// place again once back. Without this every change would walk from the root.
func TestHeldInPlace(t *testing.T) {
	parent := t.TempDir()
	real := filepath.Join(parent, "real ws")
	link := filepath.Join(parent, "link")
	comps := []string{"a\nb", "c (deleted)", "d"}
	if err := os.MkdirAll(filepath.Join(real, filepath.Join(comps...)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	f, err := Open(link, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	root, err := f.cursor("")
	if err != nil {
		t.Fatal(err)
	}
	held := []cursor{root}
	for _, c := range comps {
		next, err := held[len(held)-1].enter(c)
		if err != nil {
			t.Fatal(err)
		}
		defer next.close()
		held = append(held, next)
	}
	check := func(when string, want ...bool) {
		t.Helper()
		for i, c := range held {
			in, known := c.(placed).inPlace()
			if !known || in != want[i] {
				t.Errorf("%s: %q in place %v (known %v), want %v", when, c.(fdCursor).dir, in, known, want[i])
			}
		}
	}
	check("as entered", true, true, true, true)
	moved := filepath.Join(parent, "moved ws")
	if err := os.Rename(real, moved); err != nil {
		t.Fatal(err)
	}
	check("the root renamed", true, true, true, true)
	mid := filepath.Join(moved, comps[0], comps[1])
	if err := os.Rename(mid, mid+"2"); err != nil {
		t.Fatal(err)
	}
	check("c moved within the root", true, true, false, false)
	if err := os.Rename(mid+"2", mid); err != nil {
		t.Fatal(err)
	}
	check("c moved back", true, true, true, true)
}

//go:build !windows

package vfs

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEuidAskedOnce: whether a file may be written depends on the effective user,
// which vfsctl never changes. It is asked of the system at most once, not at each
// check (an edit checked it three times).
func TestEuidAskedOnce(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	writable(fi)
	asks := 0
	geteuid = func() int { asks++; return os.Geteuid() }
	defer func() { geteuid = os.Geteuid }()
	for range 5 {
		if !writable(fi) {
			t.Fatal("a file of mode 0644 made by this process is not writable")
		}
	}
	if asks > 1 {
		t.Errorf("5 checks asked the system for the effective user %d times; want at most once", asks)
	}
}

//go:build !windows

package journal

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEuidAskedOnce: each call while a hold lingers looks at the journal's place,
// whose stats say whether the files are the process's own. The effective user is
// asked of the system at most once, not at each stat (it was twice a call).
func TestEuidAskedOnce(t *testing.T) {
	j, _ := lingering(t, filepath.Join(t.TempDir(), "journal.db"))
	call(t, j)
	asks := 0
	geteuid = func() int { asks++; return os.Geteuid() }
	defer func() { geteuid = os.Geteuid }()
	for range 5 {
		call(t, j)
	}
	if asks > 1 {
		t.Errorf("5 calls asked the system for the effective user %d times; want at most once", asks)
	}
}

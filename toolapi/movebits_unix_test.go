//go:build !windows

package toolapi

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// modeBits is the permission bits of p with setuid, setgid and sticky, as stat(2)
// gives them: the oracle the folder move is checked against.
func modeBits(t *testing.T, p string) uint32 {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		t.Fatal(err)
	}
	return uint32(st.Mode) & 0o7777 // uint16 on macOS
}

// A move of a folder makes its new folders with the bits of those they replace, as
// mv keeps them: a private folder stays private, a setgid one setgid, in the move,
// and again in the redo of its undo. Only the missing folders above the destination
// are made as mkdir -p makes them.
func TestAFolderMoveKeepsItsFoldersBits(t *testing.T) {
	e, dir := openWorkspace(t, map[string]string{"p/q/x": "secret\n", "p/y": "y\n"})
	at := func(p string) string { return filepath.Join(dir, p) }
	if err := unix.Chmod(at("p/q"), 0o2751); err != nil {
		t.Fatal(err)
	}
	if modeBits(t, at("p/q")) != 0o2751 {
		t.Skip("this filesystem does not keep a folder's setgid bit")
	}
	unix.Chmod(at("p"), 0o700)
	want := map[string]uint32{"lib/r": 0o700, "lib/r/q": 0o2751}
	check := func(when string, bits map[string]uint32) {
		t.Helper()
		for p, w := range bits {
			if got := modeBits(t, at(p)); got != w {
				t.Errorf("%s: %s has bits %04o, want %04o", when, p, got, w)
			}
		}
	}
	mustCall(t, e, "move_file", `{"source": "p", "destination": "lib/r"}`)
	check("after the move", want)
	gone(t, at("p"))
	if r := e.Undo(context.Background(), 0); !r.OK {
		t.Fatalf("undo: %s", r.Text)
	}
	check("after the undo", map[string]uint32{"p": 0o700, "p/q": 0o2751})
	gone(t, at("lib"))
	if r := e.Redo(context.Background(), 0); !r.OK {
		t.Fatalf("redo: %s", r.Text)
	}
	check("after the redo", want)
	gone(t, at("p"))
	if b, err := os.ReadFile(at("lib/r/q/x")); err != nil || string(b) != "secret\n" {
		t.Errorf("lib/r/q/x after the redo: %q, %v", b, err)
	}
}

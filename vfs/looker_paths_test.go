package vfs

import (
	"os"
	"path/filepath"
	"testing"
)

// A Looker's answer for a path must not depend on the folder it holds: a path that is
// not canonical, as a hostile record may give, gets FS.EntryAt's answer, which a walk
// from the root gives.
func TestLookerAnswersOddPathsAsEntryAt(t *testing.T) {
	f, ws, _ := setup(t)
	for _, p := range []string{"etc/x", "d/f.txt"} {
		if err := os.MkdirAll(filepath.Join(ws, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, filepath.FromSlash(p)), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, held := range []string{"top.txt", "d/f.txt"} { // the root held, then d
		for _, odd := range []string{"/etc/x", "d/../etc/x", "./etc/x", "d//f.txt", "d/./f.txt"} {
			l := f.Looker()
			if _, _, _, err := l.EntryAt(held); err != nil {
				t.Fatal(err)
			}
			kind, _, _, err := l.EntryAt(odd)
			l.Close()
			wantKind, _, _, wantErr := f.EntryAt(odd)
			if kind != wantKind || (err == nil) != (wantErr == nil) {
				t.Errorf("holding the folder of %s, EntryAt(%q) = %q, %v; from the root: %q, %v", held, odd, kind, err, wantKind, wantErr)
			}
		}
	}
}

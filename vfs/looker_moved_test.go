package vfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A folder a Looker holds, or one above it, moved out of the root and replaced by a
// symlink to where it went, between two changes: the next change through the folder
// held is refused, as one walked from the root is, and nothing outside the root
// changes. Looks through it answer as a fresh look from the root does, where the
// system can tell the folder moved (Linux).
func TestLookerRefusesAHeldFolderMovedOut(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no symlinks made here on Windows")
	}
	const chain = "a/b/c/d"
	for _, moved := range []string{"a/b/c/d", "a/b"} { // the folder held, then an ancestor
		t.Run(strings.ReplaceAll(moved, "/", "_"), func(t *testing.T) {
			f, ws, _ := setup(t)
			host := func(p string) string { return filepath.Join(ws, filepath.FromSlash(p)) }
			outside := filepath.Join(t.TempDir(), "outside")
			if err := os.MkdirAll(host(chain+"/x"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("/etc/passwd", host(chain+"/lnk")); err != nil {
				t.Fatal(err)
			}
			l := f.Looker()
			defer l.Close()
			if err := l.MakeDir(chain+"/y", 0o755); err != nil { // holds a, a/b, a/b/c, a/b/c/d
				t.Fatal(err)
			}
			if kind, _, _, err := l.EntryAt(chain + "/lnk"); err != nil || kind != KindSymlink {
				t.Fatalf("EntryAt(lnk) = %q, %v", kind, err)
			}

			if err := os.Rename(host(moved), outside); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, host(moved)); err != nil {
				t.Fatal(err)
			}
			out := func(p string) string { // where p is now, outside the root
				return filepath.Join(outside, filepath.FromSlash(strings.TrimPrefix(p, moved+"/")))
			}
			if _, err := os.Lstat(out(chain + "/x")); err != nil {
				t.Fatalf("the move did not take x along: %v", err)
			}

			if err := l.MakeDir(chain+"/z", 0o755); err == nil {
				t.Errorf("MakeDir(%s/z) through the moved folder was done", chain)
			}
			if _, err := os.Lstat(out(chain + "/z")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("MakeDir(%s/z) made %s outside the root (%v)", chain, out(chain+"/z"), err)
			}
			if err := l.SetBits(chain+"/x", 0o700); err == nil {
				t.Errorf("SetBits(%s/x) through the moved folder was done", chain)
			}
			if fi, err := os.Lstat(out(chain + "/x")); err != nil || fi.Mode().Perm() != 0o755 {
				t.Errorf("SetBits(%s/x) changed %s outside the root: %v %v", chain, out(chain+"/x"), fi.Mode(), err)
			}
			if err := l.RemoveDir(chain + "/y"); err == nil {
				t.Errorf("RemoveDir(%s/y) through the moved folder was done", chain)
			}
			if _, err := os.Lstat(out(chain + "/y")); err != nil {
				t.Errorf("RemoveDir(%s/y) removed %s outside the root: %v", chain, out(chain+"/y"), err)
			}
			if err := l.rmdir(chain + "/x"); err == nil {
				t.Errorf("rmdir(%s/x) through the moved folder was done", chain)
			}
			if _, err := os.Lstat(out(chain + "/x")); err != nil {
				t.Errorf("rmdir(%s/x) removed %s outside the root: %v", chain, out(chain+"/x"), err)
			}
			f.RemoveDirs([]string{chain + "/x", chain + "/y"})
			if _, err := os.Lstat(out(chain + "/y")); err != nil {
				t.Errorf("RemoveDirs removed %s outside the root: %v", out(chain+"/y"), err)
			}

			if runtime.GOOS != "linux" {
				return // elsewhere a look may still be made in the folder held
			}
			// The oracle: a look walked from the root, by a Looker holding nothing.
			wantKind, wantTarget, _, wantErr := f.EntryAt(chain + "/lnk")
			kind, target, _, err := l.EntryAt(chain + "/lnk")
			if kind != wantKind || target != wantTarget || (err == nil) != (wantErr == nil) {
				t.Errorf("EntryAt(%s/lnk) = %q %q %v; from the root %q %q %v", chain, kind, target, err, wantKind, wantTarget, wantErr)
			}
			if _, err := l.ReadDir(chain); err == nil {
				t.Errorf("ReadDir(%s) read the moved folder", chain)
			}
		})
	}
}

// A held folder moved within the root, a real folder made at its path in its place:
// a change through the Looker lands in the folder at the path, not in the one held.
func TestLookerWritesWhereThePathIs(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("renames a held folder")
	}
	f, ws, _ := setup(t)
	host := func(p string) string { return filepath.Join(ws, filepath.FromSlash(p)) }
	if err := os.MkdirAll(host("p/q"), 0o755); err != nil {
		t.Fatal(err)
	}
	l := f.Looker()
	defer l.Close()
	if err := l.MakeDir("p/q/r", 0o755); err != nil { // holds p, p/q
		t.Fatal(err)
	}
	if err := os.Rename(host("p"), host("old")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(host("p/q"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := l.MakeDir("p/q/s", 0o750); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(host("p/q/s")); err != nil || fi.Mode().Perm() != 0o750 {
		t.Errorf("p/q/s: %v %v, want a folder 0750", fi, err)
	}
	if _, err := os.Lstat(host("old/q/s")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("MakeDir(p/q/s) made old/q/s, the folder held (%v)", err)
	}
}

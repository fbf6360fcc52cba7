package vfs

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// snapTree is a workspace to snapshot, and whether it holds the symlink link (Wine
// makes none, and Windows only with a privilege).
func snapTree(t *testing.T) (string, *FS, bool) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{"a.txt": "a\n", "sub/b.txt": "b\n", "big.bin": string(make([]byte, 3000)), ".gitignore": "ignored.log\n", "ignored.log": "x"} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink("a.txt", filepath.Join(dir, "link"))
	_, err := os.Lstat(filepath.Join(dir, "link"))
	linked := err == nil
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref"), 0o644)
	fsys, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	return dir, fsys, linked
}

func byPath(s *Scan) map[string]Entry {
	m := map[string]Entry{}
	for _, e := range s.Entries {
		m[e.Path] = e
	}
	return m
}

// A second walk of a tree nothing changed opens no file: every hash comes from the
// first walk's identities. A file changed since is opened again, and only that one.
func TestSnapshotOfAnUnchangedTreeOpensNoFile(t *testing.T) {
	dir, fsys, linked := snapTree(t)
	first, err := fsys.Snapshot(ScanOptions{MaxFile: 1000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := byPath(first)
	if first.Opened != 4 { // .gitignore, a.txt, big.bin, sub/b.txt
		t.Errorf("first walk opened %d files, want 4", first.Opened)
	}
	for _, p := range []string{"ignored.log", ".git", ".git/HEAD"} {
		if _, ok := m[p]; ok {
			t.Errorf("the snapshot holds %s", p)
		}
	}
	if e := m["link"]; linked && (e.Kind != KindSymlink || e.Target != "a.txt") {
		t.Errorf("link: %+v", e)
	}
	if e := m["sub"]; e.Kind != KindDir {
		t.Errorf("sub: %+v", e)
	}
	if e := m["big.bin"]; !e.Large || e.Hash == "" || first.Data[e.Hash] != nil {
		t.Errorf("a file over the size limit must be hashed and not kept: %+v", e)
	}
	if e := m["a.txt"]; string(first.Data[e.Hash]) != "a\n" {
		t.Errorf("a.txt's content not kept: %+v", e)
	}
	again, err := fsys.Snapshot(ScanOptions{MaxFile: 1000}, m)
	if err != nil {
		t.Fatal(err)
	}
	if again.Opened != 0 || len(again.Data) != 0 {
		t.Errorf("a walk of an unchanged tree opened %d files", again.Opened)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub/b.txt"), []byte("B\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	third, err := fsys.Snapshot(ScanOptions{MaxFile: 1000}, byPath(again))
	if err != nil {
		t.Fatal(err)
	}
	if e := byPath(third)["sub/b.txt"]; third.Opened != 1 || string(third.Data[e.Hash]) != "B\n" {
		t.Errorf("after changing one file: opened %d, content %q", third.Opened, third.Data[e.Hash])
	}
}

// A tree over the entry limit is refused with its count, before any file is opened.
func TestSnapshotRefusesATreeOverTheEntryLimit(t *testing.T) {
	_, fsys, linked := snapTree(t)
	_, err := fsys.Snapshot(ScanOptions{MaxEntries: 3}, nil)
	// 6 entries: .gitignore, a.txt, big.bin, link, sub, sub/b.txt.
	want := 6
	if !linked {
		want = 5
	}
	if errs.KindOf(err) != errs.TooLarge || err == nil || !strings.Contains(err.Error(), fmt.Sprintf("holds %d entries, over the snapshot limit of 3", want)) {
		t.Fatalf("err = %v, want too_large naming %d entries over 3", err, want)
	}
}

// A create recorded with 0644 reads back 0666 on Windows, which keeps only whether a
// file is read-only: the same bits there, not here. Read-only and writable, or a
// setuid bit, differ everywhere.
func TestSameBitsAsTheSystemStoresThem(t *testing.T) {
	if got, want := SameBits(0o644, 0o666), runtime.GOOS == "windows"; got != want {
		t.Errorf("SameBits(0644, 0666) = %v on %s, want %v", got, runtime.GOOS, want)
	}
	if SameBits(0o644, 0o444) {
		t.Error("SameBits(0644, 0444): a writable file taken for a read-only one")
	}
	if SameBits(0o4755, 0o755) {
		t.Error("SameBits(04755, 0755): a setuid bit not told")
	}
}

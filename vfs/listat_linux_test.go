package vfs

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A folder whose listing takes several getdents calls (names of every length up to
// the longest a name may be), with a subfolder, a symlink and a FIFO: listAt gives
// every entry once, as os.Lstat sees it.
func TestListAtAsLstat(t *testing.T) {
	dir := t.TempDir()
	want := map[string]bool{}
	for i := range 600 {
		name := fmt.Sprintf("%03d-%s", i, strings.Repeat("x", i%252))
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Repeat("y", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		// A modification time of its own (the change time stays now).
		at := time.Date(2001, 2, 3, 4, 5, 6, i, time.UTC)
		if err := os.Chtimes(filepath.Join(dir, name), at, at); err != nil {
			t.Fatal(err)
		}
		want[name] = true
	}
	for name, mk := range map[string]func(string) error{
		"sub":  func(p string) error { return os.Mkdir(p, 0o755) },
		"link": func(p string) error { return os.Symlink("sub", p) },
		"fifo": func(p string) error { return unix.Mkfifo(p, 0o600) },
	} {
		if err := mk(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		want[name] = true
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	got, err := listAt(fd, dir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, fi := range got {
		name := fi.Name()
		if !want[name] || seen[name] {
			t.Fatalf("listAt gave %q, which is not in the folder or came twice", name)
		}
		seen[name] = true
		ls, err := os.Lstat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		a, b := fi.Sys().(*syscall.Stat_t), ls.Sys().(*syscall.Stat_t)
		if fi.Mode() != ls.Mode() || fi.Size() != ls.Size() || a.Ino != b.Ino || a.Ctim != b.Ctim {
			t.Errorf("%s: listAt has mode %v size %d inode %d, lstat %v %d %d", name, fi.Mode(), fi.Size(), a.Ino, ls.Mode(), ls.Size(), b.Ino)
		}
		// What a snapshot and an edit read of it: the identity, the owner, the links.
		if identityOf(fi) != identityOf(ls) || !fi.ModTime().Equal(ls.ModTime()) || fi.IsDir() != ls.IsDir() ||
			a.Dev != b.Dev || a.Nlink != b.Nlink || a.Uid != b.Uid || a.Gid != b.Gid || a.Mtim != b.Mtim {
			t.Errorf("%s: listAt has identity %+v, %+v; lstat %+v, %+v", name, identityOf(fi), *a, identityOf(ls), *b)
		}
	}
	if len(seen) != len(want) {
		t.Errorf("listAt gave %d entries, the folder holds %d", len(seen), len(want))
	}
}

// listAt allocates by the getdents call, not by the entry: a walk lists every entry of
// the tree, and in a fresh process each new page of heap is a page fault.
func TestListAtAllocatesPerListingNotPerEntry(t *testing.T) {
	dir := t.TempDir()
	for i := range 300 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file-%d.go", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	allocs := testing.AllocsPerRun(5, func() {
		if _, err := unix.Seek(fd, 0, 0); err != nil {
			t.Fatal(err)
		}
		if got, err := listAt(fd, dir); err != nil || len(got) != 300 {
			t.Fatalf("listAt: %d entries, %v", len(got), err)
		}
	})
	if allocs > 30 {
		t.Errorf("listAt of 300 entries made %.0f allocations; want at most 30", allocs)
	}
	// And few bytes an entry: a walk holds every entry of the tree until its end, and
	// each new page of a fresh process's heap is a page fault (the walk before an
	// exec's command took 1,900 of them for the Go tree, the walk after it 800).
	// The counts are the process's: the least of several runs leaves out what other
	// goroutines (an earlier test's, the runtime's) allocated meanwhile.
	least := uint64(math.MaxUint64)
	for range 7 {
		var before, after runtime.MemStats
		unix.Seek(fd, 0, 0)
		runtime.ReadMemStats(&before)
		listAt(fd, dir)
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	if per := least / 300; per > 160 {
		t.Errorf("listAt of 300 entries allocated %d bytes an entry; want at most 160", per)
	}
}

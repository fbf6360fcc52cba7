package vfs

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

// discard is read from a mount's own options or from its file system's, for its
// device only, and not mistaken for nodiscard.
func TestDiscardIn(t *testing.T) {
	info := `26 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,resv_strict
27 26 254:1 / /data rw,relatime - ext4 /dev/vdb rw,nodiscard
28 26 254:2 / /fast rw,discard - ext4 /dev/vdc rw
29 26 8:17 / /home rw,relatime - ext4 /dev/sdb1 rw,errors=remount-ro
30 29 8:17 /sub /mnt/bind rw,relatime,discard - ext4 /dev/sdb1 rw
`
	for _, c := range []struct {
		major, minor uint32
		want         bool
	}{
		{254, 0, true},  // file-system option
		{254, 1, false}, // nodiscard
		{254, 2, true},  // mount option
		{8, 17, true},   // one of its two mounts discards
		{8, 1, false},   // not mounted
		{25, 4, false},  // 254:0's digits, another device
	} {
		if got := discardIn([]byte(info), c.major, c.minor); got != c.want {
			t.Errorf("%d:%d: discard %v, want %v", c.major, c.minor, got, c.want)
		}
	}
}

// On ext4 mounted with discard, freeing a file's blocks waits for the device, in the
// rename over it: a replace of a small file holds the file it replaces, so that the
// freeing happens after the call, and lets go of it once done. Without discard,
// freeing a small file costs little, and it is not held.
func TestSmallFileHeldWhereDiscarded(t *testing.T) {
	f, ws, _ := setup(t)
	if !onExt4(ws) {
		t.Skip("files are held on ext4 only")
	}
	discard := mountedWithDiscard(t, ws)
	small := strings.Repeat("a short line\n", 700) // 9 KB
	testutil.WriteFile(t, filepath.Join(ws, "f.txt"), small)
	for _, sync := range []bool{true, false} {
		stage := f.StageReplace
		if !sync {
			stage = f.StageReplaceNoSync
		}
		st, err := stage("f.txt", []byte(small+"more\n"))
		if err != nil {
			t.Fatal(err)
		}
		if held := st.old >= 0; held != discard {
			t.Fatalf("synced %v: a 9 KB file on ext4 (discard %v) held %v while replaced", sync, discard, held)
		}
		if _, err := st.Commit(); err != nil {
			t.Fatal(err)
		}
		f.WaitFreed()
		if n := f.held.Load(); n != 0 {
			t.Fatalf("synced %v: %d files still held after the replace", sync, n)
		}
	}
	// An empty file has no blocks to free: not held.
	testutil.WriteFile(t, filepath.Join(ws, "e.txt"), "")
	st, err := f.StageReplace("e.txt", []byte("x\n"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Abort()
	if st.old >= 0 {
		t.Fatal("an empty file was held")
	}
}

// mountedWithDiscard reads /proc/mounts (not mountinfo, which the code reads) for the
// mount that holds dir: the longest mount point that is a prefix of it.
func mountedWithDiscard(t *testing.T, dir string) bool {
	b, err := os.ReadFile("/proc/mounts")
	if err != nil {
		t.Skipf("no /proc/mounts: %v", err)
	}
	dir, err = filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	best, discard := "", false
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		at := f[1]
		if (dir == at || strings.HasPrefix(dir, strings.TrimSuffix(at, "/")+"/")) && len(at) >= len(best) {
			best, discard = at, slices.Contains(strings.Split(f[3], ","), "discard")
		}
	}
	return discard
}

// The small files a call replaced are kept until the next call's staging is done
// (FreeHeld): they do not use up the holds of that next call, whose renames would
// otherwise wait for the discard again. Each round is ordered as txn stages a call:
// every file staged, then FreeHeld, then the commits.
func TestNextCallHoldsWhileSmallFilesAreKept(t *testing.T) {
	f, ws, _ := setup(t)
	if !onExt4(ws) || !mountedWithDiscard(t, ws) {
		t.Skip("small files are held on ext4 mounted with discard only")
	}
	small := strings.Repeat("a short line\n", 700) // 9 KB
	names := make([]string, maxHeld)
	for i := range names {
		names[i] = fmt.Sprintf("f%d.txt", i)
		testutil.WriteFile(t, filepath.Join(ws, names[i]), small)
	}
	before := openDescriptors(t)
	for round := 1; round <= 3; round++ {
		var staged []*Staged
		held := 0
		for _, name := range names {
			st, err := f.StageReplace(name, []byte(small+strings.Repeat("x\n", round)))
			if err != nil {
				t.Fatal(err)
			}
			if st.old >= 0 {
				held++
			}
			staged = append(staged, st)
		}
		f.FreeHeld()
		for _, st := range staged {
			if _, err := st.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		if held != len(names) {
			t.Fatalf("call %d held %d of its %d small files", round, held, len(names))
		}
	}
	f.WaitFreed()
	if n := openDescriptors(t); n != before {
		t.Fatalf("%d descriptors open after the calls were let go of, %d before", n, before)
	}
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(ws, name))
		if err != nil || string(b) != small+"x\nx\nx\n" {
			t.Fatalf("%s: %d bytes after three replaces (%v)", name, len(b), err)
		}
	}
}

// openDescriptors counts the descriptors the process has open.
func openDescriptors(t *testing.T) int {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(fds)
}

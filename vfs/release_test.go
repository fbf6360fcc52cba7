package vfs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

// openFDs counts this process's open descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd here: %v", err)
	}
	return len(ents)
}

// A replace holds the replaced file from staging to the rename and lets go of it
// after (Staged.release): every way a staged replace ends must close what it held,
// else each edit would keep a replaced file's blocks until the process exits.
func TestReplacedFilesAreLetGo(t *testing.T) {
	f, ws, _ := setup(t)
	p := filepath.Join(ws, "f.txt")
	testutil.WriteFile(t, p, "v0\n")
	f.WaitFreed()
	before := openFDs(t)
	for i := range 20 {
		st, err := f.StageReplace("f.txt", []byte("synced\n"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Commit(); err != nil {
			t.Fatal(err)
		}
		if st, err = f.StageReplaceNoSync("f.txt", []byte("unsynced\n")); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Commit(); err != nil { // the exchange, where the file system has it
			t.Fatal(err)
		}
		if st, err = f.StageReplace("f.txt", []byte("never\n")); err != nil {
			t.Fatal(err)
		}
		st.Abort()
		if st, err = f.StageReplace("f.txt", []byte("gone\n")); err != nil {
			t.Fatal(err)
		}
		os.Remove(p) // the rename still happens: the file is put back with the staged content
		if _, err := st.Commit(); err != nil {
			t.Fatalf("commit %d after the file was removed: %v", i, err)
		}
		if err := f.Replace("f.txt", []byte("v1\n")); err != nil {
			t.Fatal(err)
		}
	}
	f.WaitFreed()
	if got := testutil.ReadFile(t, p); got != "v1\n" {
		t.Fatalf("content %q", got)
	}
	if after := openFDs(t); after != before {
		t.Fatalf("%d descriptors open before 100 replaces, %d after: the replaced files were not all let go of", before, after)
	}
}

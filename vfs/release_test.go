package vfs

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

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

// background.wait returns only once the work added before it is done, and may be
// called while work is being added (an engine closed while a call runs).
func TestBackgroundWait(t *testing.T) {
	var b background
	var started, finished atomic.Int64
	stop := make(chan struct{})
	adders := make(chan struct{})
	go func() {
		defer close(adders)
		for {
			select {
			case <-stop:
				return
			default:
			}
			b.Go(func() {
				time.Sleep(time.Duration(rand.IntN(50)) * time.Microsecond)
				finished.Add(1)
			})
			started.Add(1) // counted once added
		}
	}()
	for range 2000 {
		before := started.Load()
		b.wait()
		if got := finished.Load(); got < before {
			t.Fatalf("wait returned with %d of the %d pieces of work added before it done", got, before)
		}
	}
	close(stop)
	<-adders
	b.wait()
	if finished.Load() != started.Load() {
		t.Fatalf("%d added, %d done after the last wait", started.Load(), finished.Load())
	}
}

package vfs

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/testutil"
)

// openFDs counts this process's open descriptors, once the files that earlier
// tests dropped without closing them are closed by their finalizers.
func openFDs(t *testing.T) int {
	t.Helper()
	if runtime.GOOS == "windows" {
		// Under Wine /proc/self/fd is there, and lists Wine's own Linux descriptors.
		t.Skip("descriptors are counted in Linux's /proc/self/fd; Windows has none")
	}
	runtime.GC()
	runtime.GC()
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
	big := strings.Repeat("a line of a file large enough to be held\n", holdMin/40+1)
	testutil.WriteFile(t, p, big)
	before := openFDs(t)
	ext4 := false
	for i := range 20 {
		st, err := f.StageReplace("f.txt", []byte(big+"synced\n"))
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if ext4 = onExt4(ws); ext4 && st.old < 0 {
				t.Fatal("a file of 64 KiB on ext4 was not held while it was replaced")
			}
		}
		if _, err := st.Commit(); err != nil {
			t.Fatal(err)
		}
		if st, err = f.StageReplaceNoSync("f.txt", []byte(big+"unsynced\n")); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Commit(); err != nil { // the exchange, where the file system has it
			t.Fatal(err)
		}
		if st, err = f.StageReplace("f.txt", []byte("never\n")); err != nil {
			t.Fatal(err)
		}
		st.Abort()
		if st, err = f.StageReplace("f.txt", []byte(big)); err != nil {
			t.Fatal(err)
		}
		os.Remove(p) // the rename still happens: the file is put back with the staged content
		if _, err := st.Commit(); err != nil {
			t.Fatalf("commit %d after the file was removed: %v", i, err)
		}
		if err := f.Replace("f.txt", []byte(big+"v1\n")); err != nil {
			t.Fatal(err)
		}
	}
	f.WaitFreed()
	if got := testutil.ReadFile(t, p); got != big+"v1\n" {
		t.Fatalf("content %d bytes, want %d", len(got), len(big)+3)
	}
	if after := openFDs(t); after > before {
		t.Fatalf("%d descriptors open before 100 replaces, %d after: the replaced files were not all let go of", before, after)
	}
	if !ext4 {
		t.Log("not on ext4: no file was held")
	}
}

// At most maxHeld files are held at once, so that a call that changes many files
// needs at most maxHeld descriptors more than before.
func TestHeldFilesAreBounded(t *testing.T) {
	f, ws, _ := setup(t)
	if !onExt4(ws) {
		t.Skip("files are held on ext4 only")
	}
	big := strings.Repeat("x", holdMin)
	var staged []*Staged
	held := 0
	for i := range 3 * maxHeld {
		name := fmt.Sprintf("f%d.txt", i)
		testutil.WriteFile(t, filepath.Join(ws, name), big)
		st, err := f.StageReplace(name, []byte(big+"y"))
		if err != nil {
			t.Fatal(err)
		}
		if st.old >= 0 {
			held++
		}
		staged = append(staged, st)
	}
	if held != maxHeld {
		t.Fatalf("%d of %d staged replaces hold their file, want %d", held, len(staged), maxHeld)
	}
	for i, st := range staged {
		if i%2 == 0 {
			st.Abort()
		} else if _, err := st.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	f.WaitFreed()
	if n := f.held.Load(); n != 0 {
		t.Fatalf("%d files still counted as held after every replace ended", n)
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
	// Waits side by side, while work keeps coming: each ends, once the work added
	// before it is done, though the work never stops.
	var waiters sync.WaitGroup
	for range 4 {
		waiters.Go(func() {
			for range 50 {
				before := started.Load()
				ended := make(chan struct{})
				go func() { b.wait(); close(ended) }()
				select {
				case <-ended:
				case <-time.After(10 * time.Second):
					t.Error("a wait did not end while work kept being added")
					return
				}
				if got := finished.Load(); got < before {
					t.Errorf("a wait beside others returned with %d of the %d pieces of work added before it done", got, before)
					return
				}
			}
		})
	}
	waiters.Wait()
	close(stop)
	<-adders
	b.wait()
	if finished.Load() != started.Load() {
		t.Fatalf("%d added, %d done after the last wait", started.Load(), finished.Load())
	}
}

// Holding a replaced file costs a descriptor only where one is to spare: a staging
// that finds none left lets go of the files held (FS.shed), so replaces that fit in
// a descriptor limit without holding their files fit in it with it. The oracle is the
// same replaces of small files, which are never held.
func TestHeldFilesGiveWayAtTheDescriptorLimit(t *testing.T) {
	f, ws, _ := setup(t)
	if !onExt4(ws) {
		t.Skip("files are held on ext4 only")
	}
	limit, err := fileLimit()
	if err != nil {
		t.Skip(err)
	}
	const n = 3 * maxHeld
	// fits stages n replaces of files of size bytes with spare descriptors beyond
	// those open, and reports whether all were staged.
	fits := func(size, spare int) bool {
		data := strings.Repeat("x", size)
		for i := range n {
			testutil.WriteFile(t, filepath.Join(ws, fmt.Sprintf("f%d.txt", i)), data)
		}
		f.WaitFreed()
		if err := setFileLimit(uint64(openFDs(t) + spare)); err != nil {
			t.Skip(err)
		}
		var staged []*Staged
		var err error
		for i := 0; i < n && err == nil; i++ {
			var st *Staged
			if st, err = f.StageReplace(fmt.Sprintf("f%d.txt", i), []byte(data+"y")); err == nil {
				staged = append(staged, st)
			}
		}
		if err := setFileLimit(limit); err != nil {
			t.Fatal(err)
		}
		for _, st := range staged {
			st.Abort()
		}
		// Out of descriptors is said so, not taken for a permission refused.
		if err != nil && (errs.KindOf(err) != errs.IOError || !strings.Contains(err.Error(), "No file descriptor was left")) {
			t.Errorf("with %d spare descriptors: %s: %v", spare, errs.KindOf(err), err)
		}
		return err == nil
	}
	least := func(size int) int {
		for spare := 0; spare < 4*n; spare++ {
			if fits(size, spare) {
				return spare
			}
		}
		t.Fatalf("%d replaces of %d-byte files did not fit in %d spare descriptors", n, size, 4*n)
		return 0
	}
	small, large := least(100), least(holdMin)
	t.Logf("spare descriptors needed: %d for small files, %d for held ones", small, large)
	if large > small {
		t.Fatalf("%d replaces of files that are held need %d spare descriptors, of small files %d", n, large, small)
	}
	if n := f.held.Load(); n != 0 {
		t.Fatalf("%d files still counted as held", n)
	}
}

// Shedding runs beside the replaces of other calls: each held descriptor is closed
// once, by whoever takes it first (a double close would close a descriptor someone
// else has opened since), and none is left open.
func TestShedBesideReplaces(t *testing.T) {
	f, ws, _ := setup(t)
	big := strings.Repeat("a line of a file large enough to be held\n", holdMin/40+1)
	for g := range 4 {
		testutil.WriteFile(t, filepath.Join(ws, fmt.Sprintf("g%d.txt", g)), big)
	}
	f.WaitFreed()
	before := openFDs(t)
	var wg sync.WaitGroup
	var stop atomic.Bool
	wg.Go(func() {
		for !stop.Load() {
			f.shed()
		}
	})
	var work sync.WaitGroup
	for g := range 4 {
		work.Go(func() {
			name := fmt.Sprintf("g%d.txt", g)
			for i := range 30 {
				st, err := f.StageReplace(name, []byte(big+strings.Repeat("y", i)))
				if err != nil {
					t.Error(err)
					return
				}
				if i%3 == 0 {
					st.Abort()
				} else if _, err := st.Commit(); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	work.Wait()
	stop.Store(true)
	wg.Wait()
	f.WaitFreed()
	if n := f.held.Load(); n != 0 {
		t.Fatalf("%d files still counted as held", n)
	}
	if after := openFDs(t); after != before {
		t.Fatalf("%d descriptors open before, %d after", before, after)
	}
	runtime.KeepAlive(f) // else the count above finalizes its root's descriptor
}

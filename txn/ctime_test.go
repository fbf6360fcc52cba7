package txn

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

// An outside program rewrites a file this engine wrote, in place and keeping its size,
// then sets its modification time back: the next edit is planned from the disk, and
// the outside change survives.
func TestOutsideWriteWithMtimeRestored(t *testing.T) {
	for _, held := range []bool{true, false} {
		e, _, dir := diskRig(t, map[string]string{"x.txt": "keep\naaaa\n"})
		if held {
			e.j.Acquire()
		}
		if err := edit(e, "s", "x.txt", "aaaa", "bbbb"); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "x.txt")
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		h, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		h.WriteAt([]byte("KEEP"), 0)
		h.Close()
		if err := os.Chtimes(p, time.Time{}, fi.ModTime()); err != nil {
			t.Fatal(err)
		}
		if now, _ := os.Stat(p); !now.ModTime().Equal(fi.ModTime()) || now.Size() != fi.Size() {
			t.Fatalf("the outside write did not keep size and time: %v %d", now.ModTime(), now.Size())
		}
		if err := edit(e, "s", "x.txt", "bbbb", "dddd"); err != nil {
			t.Fatal(err)
		}
		if got := testutil.ReadFile(t, p); got != "KEEP\ndddd\n" {
			t.Fatalf("held %v: x.txt is %q, want %q: the outside change was lost", held, got, "KEEP\ndddd\n")
		}
		if held {
			e.j.Release()
		}
	}
}

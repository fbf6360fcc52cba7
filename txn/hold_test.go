package txn

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/vfs"
)

// A call that only reads holds the journal only while its record is written: another
// process (here a second engine on the same workspace, with its own lock) edits while
// the read is in progress, where a call begun by Begin turns it away as busy. The read
// is journaled all the same, and licenses write_file.
func TestReadDoesNotHoldTheJournal(t *testing.T) {
	a, dir := diskEngine(t, map[string]string{"a.txt": "one\n", "b.txt": "two\n"})
	fs, err := vfs.Open(dir, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(fs, Options{Wait: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}

	c, err := a.BeginRead(context.Background(), "s", "read_file", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Read(c, "a.txt"); err != nil {
		t.Fatal(err)
	}
	if err := edit(b, "other", "b.txt", "two", "2"); err != nil {
		t.Fatalf("another process's edit while a read is in progress: %v", err)
	}
	if err := c.Finish(nil); err != nil {
		t.Fatal(err)
	}
	if err := write(a, "s", "a.txt", "ONE\n"); err != nil {
		t.Fatalf("write_file after the read: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "b.txt")); string(got) != "2\n" {
		t.Fatalf("b.txt = %q", got)
	}

	// A call begun by Begin holds the journal until Finish.
	c, err = a.Begin("s", "edit_file", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := edit(b, "other", "b.txt", "2", "3"); errs.KindOf(err) != errs.Busy {
		t.Fatalf("an edit while a held call is in progress: want busy, got %v", err)
	}
	c.Finish(nil)
}

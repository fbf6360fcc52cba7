package txn

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/vfs"
)

// TestJournalGrowth: 1,000 one-line edits of a 1 MB file must grow the journal by less
// than 5 MB: records hold splices, and the file's content is stored once, not per edit.
func TestJournalGrowth(t *testing.T) {
	edits := 1000
	if !full() {
		edits = 100 // .ci/run also runs the full 1,000 without the race detector
	}
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "line %06d: some ordinary source text that does not repeat exactly\n", i)
	}
	mem := afero.NewMemMapFs()
	afero.WriteFile(mem, "big.txt", []byte(b.String()), 0o644)
	path := t.TempDir() + "/journal.db"
	// NoSync: growth does not depend on fsync, and 1,000 synced commits would only make
	// the test slow.
	e, err := Open(vfs.New(mem, vfs.Options{}), Options{JournalPath: path, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range edits {
		old := fmt.Sprintf("line %06d: some", i*7%14000)
		if err := edit(e, "s", "big.txt", old, old+" changed"); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("journal after %d one-line edits of a %d-byte file: %d bytes (%.1f KB per edit)",
		edits, b.Len(), fi.Size(), float64(fi.Size())/1024/float64(edits))
	if fi.Size() >= 5<<20 {
		t.Fatalf("journal is %d bytes, want under 5 MB", fi.Size())
	}
}

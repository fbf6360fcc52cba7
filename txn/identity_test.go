package txn

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/vfs"
)

// diskRig is an engine over a real directory seen through a FaultFs, so that tests can
// count and intercept operations on files that have real identities. The FaultFs
// wraps the workspace's own walk by handle (vfs.Open), which reads an identity on
// every system: on Windows, a file's index and volume serial come from its handle
// (winfs.Stat), which an afero.OsFs's os.FileInfo does not carry.
func diskRig(t *testing.T, files map[string]string) (*Engine, *testutil.FaultFs, string) {
	dir := testutil.Workspace(t, files)
	root, err := vfs.Open(dir, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	ffs := &testutil.FaultFs{Fs: root.Afero()}
	e, err := Open(vfs.New(ffs, vfs.Options{}), Options{JournalPath: filepath.Join(t.TempDir(), "journal.db")})
	if err != nil {
		t.Fatal(err)
	}
	return e, ffs, dir
}

// The conflict check does not read the file again when its identity proves it
// unchanged, and a file that keeps the identity of what this engine wrote is not
// hashed again.
func TestNoNeedlessPasses(t *testing.T) {
	e, ffs, _ := diskRig(t, map[string]string{"x.go": strings.Repeat("line\n", 1000) + "end\n"})
	// Held, as a server holds it: no recovery runs between the calls.
	e.j.Acquire()
	defer e.j.Release()
	if err := edit(e, "s", "x.go", "end", "END"); err != nil {
		t.Fatal(err)
	}
	var opens atomic.Int32
	ffs.SetHook(func(op testutil.Op, name string) error {
		if op == testutil.OpOpen && strings.HasSuffix(name, "x.go") {
			opens.Add(1)
		}
		return nil
	})
	if err := edit(e, "s", "x.go", "END", "end"); err != nil {
		t.Fatal(err)
	}
	// What the engine wrote is known by the file's identity: the plan takes the
	// content from there, and the conflict check goes by identity.
	if n := opens.Load(); n != 0 {
		t.Errorf("x.go was opened %d times by an edit of content this engine wrote; want 0", n)
	}
	// The next edit takes its prior content's hash from there too; the record holds
	// the right hash.
	data, id, _ := e.fs.ReadCanonicalID("x.go")
	if k, _ := e.lookup("x.go", id); k.hash != journal.Hash(data) || !bytes.Equal(k.data, data) {
		t.Errorf("known hash %q for the file on disk, want %q; content known: %v", k.hash, journal.Hash(data), k.data != nil)
	}
	var rec *journal.Record
	e.j.Flush()
	e.j.View(func(tx *journal.Tx) error { rec, _ = tx.Get(tx.Last()); return nil })
	if rec == nil || rec.Files[0].Before != journal.Hash([]byte(strings.Repeat("line\n", 1000)+"END\n")) {
		t.Fatalf("record %+v", rec)
	}
}

// A change by someone else between plan and commit is caught, in place and of the
// same size.
func TestConflictInPlaceSameSize(t *testing.T) {
	e, _, dir := diskRig(t, map[string]string{"x.txt": "aaaa\n"})
	testHookPending = func() error {
		// After the plan read it, before the commit checks it: someone rewrites x.txt
		// in place, keeping its size.
		h, _ := afero.NewOsFs().OpenFile(filepath.Join(dir, "x.txt"), 1, 0)
		h.WriteAt([]byte("cccc"), 0)
		h.Close()
		return nil
	}
	defer func() { testHookPending = nil }()
	err := edit(e, "s", "x.txt", "aaaa", "bbbb")
	testutil.WantKind(t, err, errs.Conflict)
	if got := testutil.ReadFile(t, filepath.Join(dir, "x.txt")); got != "cccc\n" {
		t.Fatalf("x.txt is %q: someone else's change was lost", got)
	}
}

// Content this engine wrote is not trusted once someone else rewrites the file in
// place, same size: the next edit plans from what is on disk.
func TestKnownContentAfterInPlaceWrite(t *testing.T) {
	e, _, dir := diskRig(t, map[string]string{"x.txt": "aaaa\n"})
	e.j.Acquire()
	defer e.j.Release()
	if err := edit(e, "s", "x.txt", "aaaa", "bbbb"); err != nil {
		t.Fatal(err)
	}
	h, err := afero.NewOsFs().OpenFile(filepath.Join(dir, "x.txt"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	h.WriteAt([]byte("cccc"), 0)
	h.Close()
	err = edit(e, "s", "x.txt", "bbbb", "dddd")
	testutil.WantKind(t, err, errs.TextNotFound)
	if err := edit(e, "s", "x.txt", "cccc", "eeee"); err != nil {
		t.Fatalf("an edit of what is on disk: %v", err)
	}
	if got := testutil.ReadFile(t, filepath.Join(dir, "x.txt")); got != "eeee\n" {
		t.Fatalf("x.txt is %q, want %q", got, "eeee\n")
	}
}

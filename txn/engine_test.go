package txn

import (
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/vfs"
)

func diskEngine(t *testing.T, files map[string]string) (*Engine, string) {
	t.Helper()
	return diskEngineWith(t, files, Options{})
}

// diskEngineWith is an engine with opts over a workspace on disk holding files.
func diskEngineWith(t *testing.T, files map[string]string, opts Options) (*Engine, string) {
	t.Helper()
	dir := testutil.Workspace(t, files)
	return diskEngineOn(t, dir, opts), dir
}

// diskEngineOn is an engine with opts over the workspace dir on disk: another process's,
// or the next open after one closed.
func diskEngineOn(t testing.TB, dir string, opts Options) *Engine {
	t.Helper()
	fs, err := vfs.Open(dir, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() }) // a folder held open cannot be removed on Windows
	e, err := Open(fs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// memEngine is an engine over fsys with its journal in a temp dir.
func memEngine(t *testing.T, fsys afero.Fs) *Engine {
	t.Helper()
	e, err := Open(vfs.New(fsys, vfs.Options{}), Options{JournalPath: t.TempDir() + "/journal.db"})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// do runs fn as one call of session and finishes it.
func do(e *Engine, session string, fn func(c *Call) error) error {
	c, err := e.Begin(session, "test", nil)
	if err != nil {
		return err
	}
	err = fn(c)
	if ferr := c.Finish(err); ferr != nil && err == nil {
		return ferr
	}
	return err
}

func edit(e *Engine, session, path, old, new string) error {
	return do(e, session, func(c *Call) error {
		_, err := e.Edit(c, path, []matcher.Edit{{OldText: old, NewText: new}}, false)
		return err
	})
}

func read(e *Engine, session, path string) error {
	return do(e, session, func(c *Call) error { _, err := e.Read(c, path); return err })
}

func write(e *Engine, session, path, content string) error {
	return do(e, session, func(c *Call) error { _, err := e.Write(c, path, []byte(content)); return err })
}

// TestParallelEditsOneFile: 32 goroutines edit distinct lines of one file at once; the
// per-file queue runs them one after another, so every edit lands.
func TestParallelEditsOneFile(t *testing.T) {
	const n = 32
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "line %02d = old\n", i)
	}
	e, dir := diskEngine(t, map[string]string{"f.txt": b.String()})
	var wg sync.WaitGroup
	errc := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			errc <- edit(e, "s", "f.txt", fmt.Sprintf("line %02d = old", i), fmt.Sprintf("line %02d = new", i))
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		if err != nil {
			t.Error(err)
		}
	}
	got := testutil.ReadFile(t, dir+"/f.txt")
	if c := strings.Count(got, "= new"); c != n {
		t.Fatalf("%d of %d edits landed:\n%s", c, n, got)
	}
	var recs []*journal.Record
	e.View(func(tx *journal.Tx) error {
		recs, _ = tx.Find(journal.Query{Path: "f.txt"})
		return nil
	})
	committed := 0
	for _, r := range recs {
		if r.State == journal.Committed && len(r.Files) == 1 && r.Files[0].After != "" {
			committed++
		}
	}
	if committed != n {
		t.Fatalf("the journal commits %d edits of f.txt, want %d", committed, n)
	}
}

func TestParallelEditsDifferentFiles(t *testing.T) {
	files := map[string]string{}
	for i := range 8 {
		files[fmt.Sprintf("f%d.txt", i)] = "a\nb\nc\n"
	}
	e, dir := diskEngine(t, files)
	var wg sync.WaitGroup
	for i := range 8 {
		for _, l := range []string{"a", "b", "c"} {
			wg.Go(func() {
				if err := edit(e, "s", fmt.Sprintf("f%d.txt", i), l+"\n", l+l+"\n"); err != nil {
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()
	for i := range 8 {
		if got := testutil.ReadFile(t, fmt.Sprintf("%s/f%d.txt", dir, i)); got != "aa\nbb\ncc\n" {
			t.Errorf("f%d: %q", i, got)
		}
	}
}

// TestConflict: a file changed on disk between the call's read and its write is
// refused, and the other writer's content stays.
func TestConflict(t *testing.T) {
	mem := afero.NewMemMapFs()
	afero.WriteFile(mem, "f.txt", []byte("a\nb\n"), 0o644)
	ffs := &testutil.FaultFs{Fs: mem}
	e := memEngine(t, ffs)
	opens := 0
	ffs.SetHook(func(op testutil.Op, name string) error {
		if op == testutil.OpOpen && name == "f.txt" {
			opens++
			if opens == 2 { // the re-read just before the write
				afero.WriteFile(mem, "f.txt", []byte("a\nB by someone else\n"), 0o644)
			}
		}
		return nil
	})
	err := edit(e, "s", "f.txt", "a", "A")
	testutil.WantKind(t, err, errs.Conflict)
	if got, _ := afero.ReadFile(mem, "f.txt"); string(got) != "a\nB by someone else\n" {
		t.Fatalf("other writer's content lost: %q", got)
	}
}

func TestWriteNeedsRead(t *testing.T) {
	e, dir := diskEngine(t, map[string]string{"f.txt": "one\n"})
	err := write(e, "s1", "f.txt", "two\n")
	testutil.WantKind(t, err, errs.NotRead)
	if err := read(e, "s1", "f.txt"); err != nil {
		t.Fatal(err)
	}
	// Another session's read does not count.
	testutil.WantKind(t, write(e, "s2", "f.txt", "two\n"), errs.NotRead)
	testutil.WriteFile(t, dir+"/f.txt", "changed outside\n")
	testutil.WantKind(t, write(e, "s1", "f.txt", "two\n"), errs.NotRead)
	if err := read(e, "s1", "f.txt"); err != nil {
		t.Fatal(err)
	}
	if err := write(e, "s1", "f.txt", "two\n"); err != nil {
		t.Fatal(err)
	}
	// The session's own write counts as seen.
	if err := write(e, "s1", "f.txt", "three\n"); err != nil {
		t.Fatal(err)
	}
	if got := testutil.ReadFile(t, dir+"/f.txt"); got != "three\n" {
		t.Fatalf("content %q", got)
	}
	testutil.WantKind(t, write(e, "s1", "missing.txt", "x"), errs.FileNotFound)
}

func TestIOErrorChangesNothing(t *testing.T) {
	for _, op := range []testutil.Op{testutil.OpWrite, testutil.OpSync, testutil.OpRename} {
		mem := afero.NewMemMapFs()
		afero.WriteFile(mem, "f.txt", []byte("a\n"), 0o644)
		ffs := &testutil.FaultFs{Fs: mem}
		e := memEngine(t, ffs)
		ffs.SetHook(func(o testutil.Op, name string) error {
			if o == op {
				return syscall.ENOSPC
			}
			return nil
		})
		testutil.WantKind(t, edit(e, "s", "f.txt", "a", "b"), errs.IOError)
		if got, _ := afero.ReadFile(mem, "f.txt"); string(got) != "a\n" {
			t.Errorf("%s fault: file is %q", op, got)
		}
		entries, _ := afero.ReadDir(mem, ".")
		if len(entries) != 1 {
			t.Errorf("%s fault: %d entries left (temp file?)", op, len(entries))
		}
	}
}

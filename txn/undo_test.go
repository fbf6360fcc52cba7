package txn

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/journal"
)

// memWorkspace is an engine over an in-memory workspace holding files.
func memWorkspace(t *testing.T, files map[string]string) (*Engine, afero.Fs) {
	t.Helper()
	mem := afero.NewMemMapFs()
	for p, c := range files {
		afero.WriteFile(mem, p, []byte(c), 0o644)
	}
	return memEngine(t, mem), mem
}

func undo(e *Engine, session string, o UndoOptions) (*UndoResult, error) {
	var res *UndoResult
	tool := "undo"
	if o.Redo {
		tool = "redo"
	}
	c, err := e.Begin(session, tool, nil)
	if err != nil {
		return nil, err
	}
	res, err = e.Undo(c, o)
	c.Finish(err)
	return res, err
}

func fileIs(t *testing.T, mem afero.Fs, path, want string) {
	t.Helper()
	got, err := afero.ReadFile(mem, path)
	if want == "<absent>" {
		if err == nil {
			t.Fatalf("%s exists: %q", path, got)
		}
		return
	}
	if err != nil || string(got) != want {
		t.Fatalf("%s is %q (%v), want %q", path, got, err, want)
	}
}

func TestUndoWalksBack(t *testing.T) {
	e, mem := memWorkspace(t, map[string]string{"a.txt": "one\ntwo\nthree\n"})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(edit(e, "s", "a.txt", "one", "ONE"))
	must(edit(e, "s", "a.txt", "three", "THREE"))
	must(do(e, "s", func(c *Call) error { _, err := e.Create(c, "b.txt", []byte("new\n")); return err }))
	must(read(e, "s", "a.txt"))
	must(write(e, "s", "a.txt", "whole\n"))

	steps := []struct{ a, b string }{
		{"ONE\ntwo\nTHREE\n", "new\n"},
		{"ONE\ntwo\nTHREE\n", "<absent>"},
		{"ONE\ntwo\nthree\n", "<absent>"},
		{"one\ntwo\nthree\n", "<absent>"},
	}
	for i, s := range steps {
		if _, err := undo(e, "s", UndoOptions{}); err != nil {
			t.Fatalf("undo %d: %v", i+1, err)
		}
		fileIs(t, mem, "a.txt", s.a)
		fileIs(t, mem, "b.txt", s.b)
	}
	_, err := undo(e, "s", UndoOptions{})
	testutil.WantKind(t, err, errs.NoChange)
	// Redo walks forward again.
	for i := len(steps) - 2; i >= 0; i-- {
		if _, err := undo(e, "s", UndoOptions{Redo: true}); err != nil {
			t.Fatalf("redo: %v", err)
		}
		fileIs(t, mem, "a.txt", steps[i].a)
		fileIs(t, mem, "b.txt", steps[i].b)
	}
	if _, err := undo(e, "s", UndoOptions{Redo: true}); err != nil {
		t.Fatal(err)
	}
	fileIs(t, mem, "a.txt", "whole\n")
}

func TestUndoEditElsewhereAndConflict(t *testing.T) {
	e, mem := memWorkspace(t, map[string]string{"f.go": "a := 1\nb := 2\nc := 3\nd := 4\n"})
	edit(e, "s", "f.go", "a := 1", "a := 10") // 1... the seq numbers: first record
	var first uint64
	e.View(func(tx *journal.Tx) error { first = tx.Last(); return nil })
	edit(e, "s", "f.go", "d := 4", "d := 40\ne := 5") // later, elsewhere
	if _, err := undo(e, "s", UndoOptions{Seq: first}); err != nil {
		t.Fatalf("undo of an edit with a later edit elsewhere: %v", err)
	}
	fileIs(t, mem, "f.go", "a := 1\nb := 2\nc := 3\nd := 40\ne := 5\n")

	// A later edit on the same lines blocks it and is named.
	edit(e, "s", "f.go", "b := 2", "b := 20")
	var second uint64
	e.View(func(tx *journal.Tx) error { second = tx.Last(); return nil })
	edit(e, "s", "f.go", "b := 20", "b := 200")
	var third uint64
	e.View(func(tx *journal.Tx) error { third = tx.Last(); return nil })
	_, err := undo(e, "s", UndoOptions{Seq: second})
	testutil.WantKind(t, err, errs.Conflict)
	if want := "Call " + itoa(third) + " changed line 2 of f.go where call " + itoa(second) + " did"; !strings.Contains(err.Error(), want) {
		t.Fatalf("message %q lacks %q", err, want)
	}
	fileIs(t, mem, "f.go", "a := 1\nb := 200\nc := 3\nd := 40\ne := 5\n")

	// A change outside vfsctl elsewhere does not block an undo; one on its lines does.
	afero.WriteFile(mem, "f.go", []byte("// header\na := 1\nb := 200\nc := 3\nd := 40\ne := 5\n"), 0o644)
	if _, err := undo(e, "s", UndoOptions{Seq: third}); err != nil {
		t.Fatalf("undo after an outside change elsewhere: %v", err)
	}
	fileIs(t, mem, "f.go", "// header\na := 1\nb := 20\nc := 3\nd := 40\ne := 5\n")
	afero.WriteFile(mem, "f.go", []byte("// header\na := 1\nb := 21\nc := 3\nd := 40\ne := 5\n"), 0o644)
	_, err = undo(e, "s", UndoOptions{Seq: second})
	testutil.WantKind(t, err, errs.Conflict)
	if !strings.Contains(err.Error(), "changed outside vfsctl") {
		t.Fatalf("message %q", err)
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// A record's Made names the folders to remove when its create is undone: only those
// above the created file count, so a damaged record cannot have others removed.
func TestMadeForNamesOnlyFoldersAbove(t *testing.T) {
	f := journal.File{Path: "a/b/c.txt", Op: journal.OpCreate,
		Made: []string{"a", "a/b", "x", "a/bc", "/a", "", "a/b/c.txt", ".", "a/b/"}}
	if got := madeFor(f); !slices.Equal(got, []string{"a", "a/b"}) {
		t.Errorf("madeFor = %q, want [a a/b]", got)
	}
}

package txn

import (
	"testing"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/testutil"
)

// licenceModes runs a scenario with the journal held between calls, as a server holds
// it, and released after each call, so that recovery settles each change.
func licenceModes(t *testing.T, fn func(t *testing.T, e *Engine, mem func(string) string)) {
	for _, held := range []bool{true, false} {
		name := "released"
		if held {
			name = "held"
		}
		t.Run(name, func(t *testing.T) {
			e, fsys := memWorkspace(t, map[string]string{"f.txt": "one\ntwo\n"})
			if held {
				e.j.Acquire()
				defer e.j.Release()
			}
			fn(t, e, func(p string) string { b, _ := afero.ReadFile(fsys, p); return string(b) })
		})
	}
}

// An edit of a file the session never read does not let it replace the file whole.
func TestEditGrantsNoLicence(t *testing.T) {
	licenceModes(t, func(t *testing.T, e *Engine, file func(string) string) {
		if err := edit(e, "s", "f.txt", "two", "TWO"); err != nil {
			t.Fatal(err)
		}
		testutil.WantKind(t, write(e, "s", "f.txt", "all new\n"), errs.NotRead)
		if got := file("f.txt"); got != "one\nTWO\n" {
			t.Fatalf("f.txt is %q", got)
		}
		// A read of part of it, then an edit: still not the whole file.
		if err := do(e, "s", func(c *Call) error {
			if _, err := e.Read(c, "f.txt"); err != nil {
				return err
			}
			c.Shown([][2]int{{1, 1}}, 2)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := edit(e, "s", "f.txt", "one", "ONE"); err != nil {
			t.Fatal(err)
		}
		testutil.WantKind(t, write(e, "s", "f.txt", "all new\n"), errs.NotRead)
	})
}

// A whole read, then edits: the session knew the content each edit started from, so
// it may still replace the file whole; so may a session that created the file.
func TestLicenceFollowsOwnEdits(t *testing.T) {
	licenceModes(t, func(t *testing.T, e *Engine, file func(string) string) {
		for _, err := range []error{
			read(e, "s", "f.txt"),
			edit(e, "s", "f.txt", "one", "ONE"),
			edit(e, "s", "f.txt", "two", "TWO"),
			write(e, "s", "f.txt", "whole\n"),
			do(e, "s", func(c *Call) error { _, err := e.Create(c, "g.txt", []byte("new\n")); return err }),
			edit(e, "s", "g.txt", "new", "NEW"),
			write(e, "s", "g.txt", "replaced\n"),
		} {
			if err != nil {
				t.Fatal(err)
			}
		}
		if file("f.txt") != "whole\n" || file("g.txt") != "replaced\n" {
			t.Fatalf("f.txt %q, g.txt %q", file("f.txt"), file("g.txt"))
		}
	})
}

// An operator's undo run for a session changes the file under the session's feet: the
// session has not seen the result, so it may not replace the file whole before it
// reads it again.
func TestOperatorUndoGrantsNoLicence(t *testing.T) {
	licenceModes(t, func(t *testing.T, e *Engine, file func(string) string) {
		if err := read(e, "s", "f.txt"); err != nil {
			t.Fatal(err)
		}
		if err := edit(e, "s", "f.txt", "two", "TWO"); err != nil {
			t.Fatal(err)
		}
		if _, err := undo(e, "s", UndoOptions{Session: "s"}); err != nil {
			t.Fatal(err)
		}
		testutil.WantKind(t, write(e, "s", "f.txt", "all new\n"), errs.NotRead)
		if got := file("f.txt"); got != "one\ntwo\n" {
			t.Fatalf("f.txt is %q", got)
		}
		if err := read(e, "s", "f.txt"); err != nil {
			t.Fatal(err)
		}
		if err := write(e, "s", "f.txt", "all new\n"); err != nil {
			t.Fatal(err)
		}
	})
}

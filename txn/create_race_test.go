package txn

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/journal"
)

// A file that appears at a create's path after the call checked it absent (here:
// once the pending record is durable) is someone else's. The call fails as a create
// of an existing file does, and that file stays as it is, even when it holds the very
// content the call would have written (the rollback must not take it for the call's).
func TestCreateRefusedWhenTheFileAppears(t *testing.T) {
	for _, dur := range []Durability{DurableFile, DurableJournal} {
		for _, theirs := range []string{"theirs\n", "mine\n"} {
			e, dir := diskEngineWith(t, map[string]string{"a.txt": "a\n"}, Options{Durability: dur})
			testHookJournaled = func(string) {
				testutil.WriteFile(t, filepath.Join(dir, "new.txt"), theirs)
			}
			err := do(e, "s", func(c *Call) error {
				_, err := e.Create(c, "new.txt", []byte("mine\n"))
				return err
			})
			testHookJournaled = nil
			if errs.KindOf(err) != errs.FileExists {
				t.Errorf("%s, theirs %q: the create gave %v, want file_exists", dur, theirs, err)
			}
			if got := testutil.ReadFile(t, filepath.Join(dir, "new.txt")); got != theirs {
				t.Errorf("%s, theirs %q: the file that appeared now holds %q", dur, theirs, got)
			}
			// The journal goes on: the next call is made and lands.
			if err := edit(e, "s", "a.txt", "a\n", "b\n"); err != nil {
				t.Errorf("%s: the next call failed: %v", dur, err)
			}
			e.Close()
		}
	}
	t.Cleanup(func() { testHookJournaled = nil })
}

// The pending record of a create, the one a kill after its acknowledgement leaves,
// already names the folders the create makes; the committed record names those it
// made, when someone else made one of them first.
func TestPendingCreateNamesItsFolders(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"a.txt": "a\n"}, Options{})
	defer e.Close()
	t.Cleanup(func() { testHookJournaled = nil })
	var pending []string
	testHookJournaled = func(what string) {
		if what != "pending" {
			return
		}
		e.j.View(func(t *journal.Tx) error {
			if r, err := t.Get(t.Last()); err == nil && r != nil && len(r.Files) == 1 {
				pending = r.Files[0].Made
			}
			return nil
		})
		testutil.WriteFile(t, filepath.Join(dir, "x/y/other.txt"), "theirs\n") // x and x/y made meanwhile
	}
	var seq uint64
	err := do(e, "s", func(c *Call) error {
		_, err := e.Create(c, "x/y/z/new.txt", []byte("mine\n"))
		seq = c.Seq()
		return err
	})
	testHookJournaled = nil
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"x", "x/y", "x/y/z"}; !slices.Equal(pending, want) {
		t.Errorf("the pending record names %q, want %q", pending, want)
	}
	var made []string
	e.View(func(t *journal.Tx) error {
		if r, _ := t.Get(seq); r != nil {
			made = r.Files[0].Made
		}
		return nil
	})
	if want := []string{"x/y/z"}; !slices.Equal(made, want) {
		t.Errorf("the committed record names %q, want %q", made, want)
	}
}

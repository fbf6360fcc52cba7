package txn

import (
	"path/filepath"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/testutil"
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

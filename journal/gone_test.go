package journal

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// A journal moved away (its folder replaced by a symlink to where it went, or not),
// removed or swapped for a copy while a lingering process holds it open is never
// written again by that process: every Acquire is refused, saying
// so, and the file it held gets nothing.
func TestGoneWhileHeld(t *testing.T) {
	for _, how := range []string{"moved", "removed", "swapped", "symlinked"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, ".vfsctl", "journal.db")
			j := New(p, Options{Root: dir, Linger: time.Hour, NoSync: true})
			defer j.Close()
			put := func() error {
				if err := j.Acquire(); err != nil {
					return err
				}
				defer j.Release()
				return j.Update(func(tx *Tx) error {
					return tx.Put(&Record{Time: time.Now(), Session: "s", Tool: "read_file", State: Committed})
				})
			}
			if err := put(); err != nil {
				t.Fatal(err)
			}
			held := p
			switch how {
			case "moved":
				held = filepath.Join(dir, "elsewhere", "journal.db")
				os.Rename(filepath.Join(dir, ".vfsctl"), filepath.Join(dir, "elsewhere"))
			case "removed":
				held = ""
				os.RemoveAll(filepath.Join(dir, ".vfsctl"))
				if _, err := os.Stat(p); err == nil && runtime.GOOS == "windows" {
					t.Skip("Windows does not remove a file another handle holds open: the journal stays, and is not gone")
				}
			case "symlinked":
				// The folder moved away, and a symlink to it in its place: the same
				// file is reached through it, but the journal's folder is not there.
				held = filepath.Join(dir, "elsewhere", "journal.db")
				os.Rename(filepath.Join(dir, ".vfsctl"), filepath.Join(dir, "elsewhere"))
				if err := os.Symlink("elsewhere", filepath.Join(dir, ".vfsctl")); err != nil {
					t.Skipf("no symlink here: %v", err)
				}
			case "swapped":
				b, _ := os.ReadFile(p)
				os.Rename(p, p+".held")
				os.WriteFile(p, b, 0o644)
				held = p + ".held"
			}
			var was []byte
			if held != "" {
				was, _ = os.ReadFile(held)
			}
			for i := range 2 {
				err := put()
				if errs.KindOf(err) != errs.IOError || !strings.Contains(err.Error(), "is gone or was replaced") {
					t.Fatalf("put %d after the journal was %s: %v, want io_error saying it is gone", i, how, err)
				}
			}
			if held != "" {
				if now, _ := os.ReadFile(held); string(now) != string(was) {
					t.Fatal("the held file was written")
				}
			}
			if how == "removed" {
				if _, err := os.Stat(filepath.Join(dir, ".vfsctl")); err == nil {
					t.Fatal("a new journal was made")
				}
			}
		})
	}
}

//go:build !windows

package txn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// A folder a command made read-only (chmod 555) and someone chmodded again since
// (chmod 500) is not removed by the undo or rewind of the command, as root or not:
// its bits are not as the command left them, and the refusal says so as a conflict,
// with the bits now, those the command left, and the chmod to run first; nothing
// changes. Before, root removed it and said it was 0555 (a redo then made it 0555,
// the 0500 lost), and a user who is not root was told to make it writable.
func TestUndoRefusesAFolderToRemoveChmoddedSince(t *testing.T) {
	folderChmoddedSince(t)
}

// The same, as nobody when the test runs as root.
func TestUndoRefusesAFolderToRemoveChmoddedSinceAsNobody(t *testing.T) {
	if rerunAsNobody(t) {
		return
	}
	folderChmoddedSince(t)
}

func folderChmoddedSince(t *testing.T) {
	for _, how := range []string{"undo", "rewind"} {
		t.Run(how, func(t *testing.T) {
			e, dir := diskEngineWith(t, map[string]string{"keep.txt": "k\n"}, Options{NoSync: true})
			writableAgain(t, dir)
			defer e.Close()
			if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
				t.Fatal(err)
			}
			before := tree(t, dir)
			look := execTurn(t, e, dir, "t1", "mkdir -p ro/s && echo x > ro/s/x && chmod 555 ro/s")
			if err := os.Chmod(filepath.Join(dir, "ro", "s"), 0o500); err != nil { // outside vfsctl
				t.Fatal(err)
			}
			want := tree(t, dir)
			run := func(dry bool) error {
				if how == "undo" {
					return do(e, "op", func(c *Call) error {
						_, err := e.Undo(c, UndoOptions{Seq: look.Seq, DryRun: dry})
						return err
					})
				}
				return rewindTo(e, "s", "t1", dry)
			}
			for _, dry := range []bool{true, false} {
				err := run(dry)
				if errs.KindOf(err) != errs.Conflict || !strings.Contains(err.Error(), "ro/s") ||
					!strings.Contains(err.Error(), "0500 now") || !strings.Contains(err.Error(), "left it 0555") ||
					!strings.Contains(err.Error(), "run `chmod 555 ro/s` first, then "+how+" again") {
					t.Fatalf("the %s (dry run %v) of a folder chmodded since: %s %v; want a conflict naming 0500, 0555 and the chmod to run", how, dry, errs.KindOf(err), err)
				}
				if got := tree(t, dir); !same(got, want) {
					t.Fatalf("the refused %s (dry run %v) changed the tree:\n got  %v\n want %v", how, dry, got, want)
				}
			}
			if err := os.Chmod(filepath.Join(dir, "ro", "s"), 0o555); err != nil {
				t.Fatal(err)
			}
			if err := run(false); err != nil {
				t.Fatalf("the %s once ro/s is as the command left it: %v", how, err)
			}
			if got := tree(t, dir); !same(got, before) {
				t.Fatalf("after the %s:\n got  %v\n want %v", how, got, before)
			}
		})
	}
}

package toolapi

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/vfsctl/vfsctl/internal/winetest"
	"github.com/vfsctl/vfsctl/txn"
	"github.com/vfsctl/vfsctl/vfs"
)

// A file that a call moves, or that an undo or redo puts back, keeps its permission
// bits: a script stays executable, a private file private. A file created new gets
// 0644. In both durability modes (each creates files its own way).
func TestMovedAndRestoredFilesKeepTheirMode(t *testing.T) {
	winetest.NeedPOSIXModes(t, "permission bits beyond read-only (a script's x bits, a private file's 0600) to keep")
	for _, dur := range []txn.Durability{txn.DurableFile, txn.DurableJournal} {
		t.Run(string(dur), func(t *testing.T) {
			dir := t.TempDir()
			for p, m := range map[string]fs.FileMode{"run.sh": 0o755, "key.txt": 0o600} {
				if err := os.WriteFile(filepath.Join(dir, p), []byte("x\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(filepath.Join(dir, p), m); err != nil {
					t.Fatal(err)
				}
			}
			vf, err := vfs.Open(dir, vfs.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { vf.Close() }) // a folder held open cannot be removed on Windows
			eng, err := txn.Open(vf, txn.Options{Durability: dur})
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			a := newDispatcher(eng)
			a.tools = toolTable
			modes := func(when string, want map[string]fs.FileMode) {
				t.Helper()
				for p, m := range want {
					fi, err := os.Stat(filepath.Join(dir, p))
					if err != nil {
						t.Errorf("%s: %s: %v", when, p, err)
					} else if fi.Mode().Perm() != m {
						t.Errorf("%s: %s has mode %v, want %v", when, p, fi.Mode().Perm(), m)
					}
				}
			}
			r := patchCall(a, "*** Begin Patch\n*** Update File: run.sh\n*** Move to: bin/run.sh\n@@\n-x\n+y\n*** Delete File: key.txt\n*** Add File: new.txt\n+n\n*** End Patch")
			if !r.OK {
				t.Fatal(r.Text)
			}
			modes("after the move", map[string]fs.FileMode{"bin/run.sh": 0o755, "new.txt": 0o644})
			e := &Engine{api: a}
			u := e.Undo(context.Background(), uint64(*r.Txn))
			if !u.OK {
				t.Fatal(u.Text)
			}
			modes("after the undo", map[string]fs.FileMode{"run.sh": 0o755, "key.txt": 0o600})
			if rd := e.Redo(context.Background(), uint64(*u.Txn)); !rd.OK {
				t.Fatal(rd.Text)
			}
			modes("after the redo", map[string]fs.FileMode{"bin/run.sh": 0o755, "new.txt": 0o644})
		})
	}
}

package txn

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/vfsctl/vfsctl/journal"
)

// A file's content that only the snapshot holds (the first look stored it; no record
// names it) survives fsck --compact: after the compaction a command's overwrite of the
// file is still undone to its original bytes, and fsck finds nothing wrong.
func TestCompactKeepsTheSnapshotsBlobs(t *testing.T) {
	orig := []byte("\x00\x01 a binary file, restored whole\n")
	e, dir := diskEngineWith(t, map[string]string{"a.bin": string(orig)}, Options{NoSync: true})
	defer e.Close()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Compact(); err != nil {
		t.Fatal(err)
	}
	look := runExec(t, e, dir, "s", "printf 'overwritten\\000' > a.bin")
	if len(look.Files) != 1 || look.Files[0].Op != journal.OpWrite || !look.Files[0].BeforeBlob {
		t.Fatalf("the exec's files: %+v, want a.bin written whole", look.Files)
	}
	if err := do(e, "op", func(c *Call) error { _, err := e.Undo(c, UndoOptions{Seq: look.Seq}); return err }); err != nil {
		t.Fatalf("undo after compact: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.bin")); !bytes.Equal(got, orig) {
		t.Errorf("a.bin after the undo: %q, want %q", got, orig)
	}
	rep, err := e.Fsck(false)
	if err != nil || len(rep.Problems) != 0 {
		t.Errorf("fsck after compact: %v %+v", err, rep)
	}
}

package toolapi

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

// An apply_patch that deletes a setuid program of another user (with a second hard
// link), moves another user's file, and then fails on a file in an immutable folder
// replies that no file was changed, and no file was: the deleted and the moved file
// are the same inodes as before, with their links, mode, owner, modification time and
// extended attributes.
func TestApplyPatchRefusedKeepsDeletedAndMovedFiles(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: chown to another user, chattr +i")
	}
	a, dir := patchAPI(t, map[string]string{"bin/tool": "#!/bin/sh\necho tool\n", "src/x.txt": "one\ntwo\n", "imm/f.txt": "alpha\n"})
	if err := os.Link(filepath.Join(dir, "bin/tool"), filepath.Join(dir, "bin/tool.link")); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2001, 2, 3, 4, 5, 6, 7, time.UTC)
	for p, mode := range map[string]os.FileMode{"bin/tool": 0o755 | os.ModeSetuid, "src/x.txt": 0o640} {
		full := filepath.Join(dir, p)
		if err := os.Lchown(full, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(full, mode); err != nil { // after the chown, which clears setuid
			t.Fatal(err)
		}
		if err := setTestXattr(full); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(full, old, old); err != nil {
			t.Fatal(err)
		}
	}
	imm := filepath.Join(dir, "imm")
	if out, err := exec.Command("chattr", "+i", imm).CombinedOutput(); err != nil {
		t.Skipf("chattr +i: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", imm).Run() })
	before := testutil.Nodes(t, dir)
	r := patchCall(a, "*** Begin Patch\n*** Delete File: bin/tool\n*** Update File: src/x.txt\n*** Move to: dst/y.txt\n@@\n one\n-two\n+TWO\n"+
		"*** Update File: imm/f.txt\n@@\n-alpha\n+ALPHA\n*** End Patch")
	if r.OK || r.Kind == nil || *r.Kind != "permission_denied" || !strings.Contains(r.Text, "no file was changed") {
		t.Fatalf("ok=%v kind=%v text %q, want permission_denied saying no file was changed", r.OK, r.Kind, r.Text)
	}
	for _, d := range testutil.SameNodes(before, testutil.Nodes(t, dir)) {
		t.Error(d)
	}
}

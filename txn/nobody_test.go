package txn

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// rerunAsNobody runs test t again, in a copy of this test binary, as user nobody when
// this process is root: root ignores permission bits, and t is about them. It
// reports whether it did (the caller then returns); false means this process is not
// root, and t runs here. The copy's temporary folders are in one nobody owns.
// Windows has no nobody, and no root: t runs there as it is.
func rerunAsNobody(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return false
	}
	const nobody = 65534
	dir, err := os.MkdirTemp("", "vfsctl-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "txn.test")
	copyFile(t, os.Args[0], bin) // the test binary's own folder is root's alone
	for _, p := range []string{dir, bin} {
		if err := os.Chown(p, nobody, nobody); err != nil {
			t.Skipf("cannot hand a folder to nobody: %v", err)
		}
	}
	cmd := exec.Command(bin, "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+dir)
	runAs(cmd, nobody)
	out, err := cmd.CombinedOutput()
	switch {
	case err != nil:
		t.Fatalf("as nobody: %v\n%s", err, out)
	case strings.Contains(string(out), "--- SKIP: "+t.Name()):
		t.Skipf("as nobody:\n%s", out)
	case !strings.Contains(string(out), "--- PASS: "+t.Name()):
		t.Fatalf("as nobody, the test did not run:\n%s", out)
	}
	t.Logf("as nobody:\n%s", out)
	return true
}

// writableAgain gives the folders under dir their owner's write and search bits
// back when t ends, so that its temporary folder can be removed by a user who is not
// root.
func writableAgain(t *testing.T, dir string) {
	t.Cleanup(func() {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				if fi, err := d.Info(); err == nil {
					os.Chmod(p, fi.Mode().Perm()|0o700)
				}
			}
			return nil
		})
	})
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

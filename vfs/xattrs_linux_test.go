package vfs

import (
	"path/filepath"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

// TestNoXattrsOneLook: a replace keeps the file's extended attributes. Where it has
// none, one listing through the folder's /proc path says so (the file is not opened,
// checked and closed for it, four system calls an edit); where it has some, they are
// read and kept as before.
func TestNoXattrsOneLook(t *testing.T) {
	f, ws, _ := setup(t)
	p := filepath.Join(ws, "a.txt")
	testutil.WriteFile(t, p, "one\n")
	var said []bool
	testHookNoXattrs = func(none bool) { said = append(said, none) }
	defer func() { testHookNoXattrs = nil }()
	if err := f.Replace("a.txt", []byte("two\n")); err != nil {
		t.Fatal(err)
	}
	if len(said) != 1 || !said[0] {
		t.Errorf("a replace of a file without extended attributes: the looks by /proc said none %v; want [true]", said)
	}
	said = nil
	if err := setTestXattr(p, "user.vfsctl-test", []byte("kept")); err != nil {
		t.Skipf("no user xattrs here: %v", err)
	}
	if err := f.Replace("a.txt", []byte("three\n")); err != nil {
		t.Fatal(err)
	}
	if len(said) != 1 || said[0] {
		t.Errorf("a replace of a file with an extended attribute: the looks by /proc said none %v; want [false]", said)
	}
	buf := make([]byte, 64)
	n, err := getXattr(p, "user.vfsctl-test", buf)
	if err != nil || string(buf[:n]) != "kept" {
		t.Errorf("xattr after replace: %q, %v", buf[:max(n, 0)], err)
	}
}

package toolapi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

// A read-only file stays as it is, and a replaced file keeps its owner and group.
func TestPermissionsKept(t *testing.T) {
	a, dir := newAPI(t, map[string]string{"ro.txt": "fixed\n", "owned.txt": "one\n"})
	ro := filepath.Join(dir, "ro.txt")
	os.Chmod(ro, 0o444)
	r := call(a, EditFile, editCall("ro.txt", "fixed", "changed"))
	if kindOf(r) != "permission_denied" || testutil.ReadFile(t, ro) != "fixed\n" {
		t.Fatalf("edit of a 0444 file: %+v", r)
	}
	if fi, _ := os.Stat(ro); fi.Mode().Perm() != 0o444 {
		t.Errorf("mode changed to %v", fi.Mode().Perm())
	}
	if os.Geteuid() != 0 {
		t.Skip("not root: cannot give a file another owner to check it is kept")
	}
	owned := filepath.Join(dir, "owned.txt")
	if err := os.Chown(owned, 1234, 5678); err != nil {
		t.Fatal(err)
	}
	os.Chmod(owned, 0o640)
	if r := call(a, EditFile, editCall("owned.txt", "one", "two")); !r.OK {
		t.Fatalf("edit: %s", r.Text)
	}
	fi, _ := os.Stat(owned)
	uid, gid := ownerOf(fi)
	if uid != 1234 || gid != 5678 || fi.Mode().Perm() != 0o640 {
		t.Errorf("after the edit: owner %d, group %d, mode %v; want 1234, 5678, 0640", uid, gid, fi.Mode().Perm())
	}
}

func TestUnicodeNameIsTheSameFile(t *testing.T) {
	nfd, nfc := "cafe\u0301.txt", "caf\u00e9.txt"
	a, dir := newAPI(t, map[string]string{nfd: "menu\n"})
	if r := call(a, ReadFile, `{"path": "`+nfc+`"}`); !r.OK || r.Text != "     1\tmenu\n" {
		t.Fatalf("read by the NFC name: %+v", r)
	}
	if r := call(a, CreateFile, `{"path": "`+nfc+`", "content": "x"}`); kindOf(r) != "file_exists" {
		t.Fatalf("create by the NFC name: %+v", r)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	if len(names) != 1 {
		t.Fatalf("the folder holds %q", names)
	}
}

package vfs

import (
	"path/filepath"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/testutil"
)

func TestAbsolutePathsCleanedFirst(t *testing.T) {
	f, ws, parent := setup(t)
	testutil.WriteFile(t, filepath.Join(ws, "t.txt"), "t\n")
	r, err := f.Resolve(filepath.Join(parent, "elsewhere", "..", "ws", "t.txt"))
	if err != nil || !r.Exists || r.Path != "t.txt" {
		t.Fatalf("an absolute path whose .. stays inside the root: %+v, %v", r, err)
	}
	_, err = f.Resolve(ws + "/../secret.txt")
	testutil.WantKind(t, err, errs.PathOutsideRoot)
}

func TestUnicodeNormalizedNames(t *testing.T) {
	f, ws, _ := setup(t)
	nfd, nfc := "cafe\u0301.txt", "caf\u00e9.txt"
	testutil.WriteFile(t, filepath.Join(ws, "docs", nfd), "menu\n")
	r, err := f.Resolve("docs/" + nfc)
	if err != nil || !r.Exists || r.Path != "docs/"+nfd {
		t.Fatalf("NFC name of an NFD file: %+v, %v", r, err)
	}
	file, err := f.Read("docs/" + nfc)
	if err != nil || string(file.Data) != "menu\n" {
		t.Fatalf("read: %v", err)
	}
}

func TestReservedAtAnyDepth(t *testing.T) {
	f, _, _ := setup(t)
	for _, p := range []string{".git/config", "vendor/lib/.git/config", ".GIT/config", "a/.Git/hooks/x", "b/.VFSCTL/journal.db"} {
		_, err := f.Resolve(p)
		testutil.WantKind(t, err, errs.PathReserved)
	}
	for _, p := range []string{".gitignore", "a/.github/workflows/ci.yml", "x.git/y"} {
		if _, err := f.Resolve(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

func TestBadNames(t *testing.T) {
	f, _, _ := setup(t)
	for _, p := range []string{"con\nfig.txt", "a\tb.txt", "dir/x\x7f.txt", "new file .txt ", " lead.txt", "dir /f.txt", "newdir/"} {
		_, err := f.Resolve(p)
		testutil.WantKind(t, err, errs.InvalidInput)
	}
	if _, err := f.Resolve("name with spaces.txt"); err != nil {
		t.Errorf("inner spaces are fine: %v", err)
	}
}

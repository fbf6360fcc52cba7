package vfs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/internal/winetest"
)

func setup(t *testing.T) (*FS, string, string) {
	t.Helper()
	parent := t.TempDir()
	ws := filepath.Join(parent, "ws")
	testutil.WriteFile(t, filepath.Join(ws, "src/a.go"), "package a\n")
	testutil.WriteFile(t, filepath.Join(ws, ".git/config"), "[core]\n")
	testutil.WriteFile(t, filepath.Join(parent, "secret.txt"), "secret\n")
	testutil.WriteFile(t, filepath.Join(parent, "ws2/b.txt"), "sibling\n")
	f, err := Open(ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, ws, parent
}

func TestPaths(t *testing.T) {
	f, ws, parent := setup(t)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(parent, "secret.txt"), filepath.Join(ws, "out.txt")))
	must(os.Symlink("../secret.txt", filepath.Join(ws, "rel-out.txt")))
	must(os.Symlink(parent, filepath.Join(ws, "outdir")))
	must(os.Symlink("src/a.go", filepath.Join(ws, "link.go")))
	must(os.Symlink("src", filepath.Join(ws, "srclink")))
	must(os.Symlink(".git/config", filepath.Join(ws, "gitcfg")))
	must(os.Symlink("missing.go", filepath.Join(ws, "dangling.go")))
	must(os.Symlink("loop2", filepath.Join(ws, "loop1")))
	must(os.Symlink("loop1", filepath.Join(ws, "loop2")))
	mkfifo(t, filepath.Join(ws, "fifo"))

	ok := map[string]string{
		"src/a.go":                    "src/a.go",
		"./src/../src/a.go":           "src/a.go",
		filepath.Join(ws, "src/a.go"): "src/a.go",
		"link.go":                     "src/a.go",
		"srclink/a.go":                "src/a.go",
	}
	for p, want := range ok {
		r, err := f.Resolve(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if r.Path != want || !r.Exists {
			t.Errorf("%s: resolved to %q exists=%v, want %q", p, r.Path, r.Exists, want)
		}
	}
	bad := map[string]errs.Kind{
		"":                                  errs.InvalidInput,
		"a\x00b":                            errs.InvalidInput,
		"../secret.txt":                     errs.PathOutsideRoot,
		"src/../../secret.txt":              errs.PathOutsideRoot,
		filepath.Join(parent, "secret.txt"): errs.PathOutsideRoot,
		filepath.Join(parent, "ws2/b.txt"):  errs.PathOutsideRoot, // sibling sharing the root's prefix
		"out.txt":                           errs.PathOutsideRoot,
		"rel-out.txt":                       errs.PathOutsideRoot,
		"outdir/secret.txt":                 errs.PathOutsideRoot,
		".git/config":                       errs.PathReserved,
		".vfsctl/journal.db":                errs.PathReserved,
		"gitcfg":                            errs.PathReserved,
		"loop1":                             errs.NotAFile,
		".":                                 errs.NotAFile,
		"src/a.go/x":                        errs.NotAFile,
	}
	for p, kind := range bad {
		_, err := f.Resolve(p)
		if got := errs.KindOf(err); got != kind {
			t.Errorf("%q: want %s, got %q (%v)", p, kind, got, err)
		}
	}
	reads := map[string]errs.Kind{
		"src":         errs.NotAFile,
		"fifo":        errs.NotAFile,
		"dangling.go": errs.FileNotFound,
		"src/b.go":    errs.FileNotFound,
	}
	for p, kind := range reads {
		_, err := f.Read(p)
		if got := errs.KindOf(err); got != kind {
			t.Errorf("read %q: want %s, got %q (%v)", p, kind, got, err)
		}
	}
}

func TestSuggest(t *testing.T) {
	f, _, _ := setup(t)
	for p, want := range map[string]string{"src/a.og": "src/a.go", "a.go": "src/a.go", "lib/a.go": "src/a.go"} {
		_, err := f.Read(p)
		testutil.WantKind(t, err, errs.FileNotFound)
		if !strings.Contains(err.Error(), "Did you mean "+want+"?") {
			t.Errorf("%s: %v", p, err)
		}
	}
	_, err := f.Read("zzzzzzzzzzzz/qqqq.rs")
	if strings.Contains(err.Error(), "Did you mean") {
		t.Errorf("suggested for an unrelated path: %v", err)
	}
}

func TestReplace(t *testing.T) {
	winetest.NeedSymlinks(t)
	winetest.NeedPOSIXModes(t, "permission bits other than read-only (the test keeps 0751 through a replace)")
	f, ws, _ := setup(t)
	p := filepath.Join(ws, "run.sh")
	testutil.WriteFile(t, p, "echo a\n")
	os.Chmod(p, 0o751)
	os.Symlink("run.sh", filepath.Join(ws, "run-link.sh"))
	r, err := f.Resolve("run-link.sh")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Replace(r.Path, []byte("echo b\n")); err != nil {
		t.Fatal(err)
	}
	if got := testutil.ReadFile(t, p); got != "echo b\n" {
		t.Errorf("content %q", got)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o751 {
		t.Errorf("mode %v, want 0751", fi.Mode().Perm())
	}
	if li, _ := os.Lstat(filepath.Join(ws, "run-link.sh")); li.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced by a file")
	}
	entries, _ := os.ReadDir(ws)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), TempPrefix) {
			t.Errorf("temp file left behind: %s", e.Name())
		}
	}
}

func TestHardLinkRefused(t *testing.T) {
	f, ws, _ := setup(t)
	os.Link(filepath.Join(ws, "src/a.go"), filepath.Join(ws, "hard.go"))
	err := f.Replace("src/a.go", []byte("x"))
	testutil.WantKind(t, err, errs.NotAFile)
	if !strings.Contains(err.Error(), "2 hard links") {
		t.Errorf("message: %v", err)
	}
	if got := testutil.ReadFile(t, filepath.Join(ws, "hard.go")); got != "package a\n" {
		t.Errorf("linked file changed: %q", got)
	}
}

func TestCreate(t *testing.T) {
	winetest.NeedSymlinks(t)
	f, ws, _ := setup(t)
	os.Symlink("nowhere", filepath.Join(ws, "dangling"))
	if err := f.Create("new/deep/x.txt", []byte("hi\n")); err != nil {
		t.Fatal(err)
	}
	if got := testutil.ReadFile(t, filepath.Join(ws, "new/deep/x.txt")); got != "hi\n" {
		t.Errorf("content %q", got)
	}
	for _, p := range []string{"src/a.go", "src", "dangling"} {
		testutil.WantKind(t, f.Create(p, []byte("x")), errs.FileExists)
	}
	testutil.WantKind(t, f.Create("src/a.go/x", []byte("x")), errs.NotAFile)
}

func TestMemFS(t *testing.T) {
	f := New(afero.NewMemMapFs(), Options{})
	if err := f.Create("a/b.txt", []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := f.Replace("a/b.txt", []byte("two")); err != nil {
		t.Fatal(err)
	}
	file, err := f.Read("/a/b.txt")
	if err != nil || string(file.Data) != "two" {
		t.Fatalf("read %q, %v", file.Data, err)
	}
	small := New(afero.NewMemMapFs(), Options{MaxFileSize: 2})
	small.Create("big", []byte("abc"))
	_, err = small.Read("big")
	testutil.WantKind(t, err, errs.TooLarge)
}

func TestSymlinkThroughMissingDirUp(t *testing.T) {
	winetest.NeedSymlinks(t)
	f, ws, _ := setup(t)
	os.Symlink("missing/../../../secret.txt", filepath.Join(ws, "sneaky"))
	_, err := f.Resolve("sneaky")
	testutil.WantKind(t, err, errs.PathOutsideRoot)
}

func TestSameContent(t *testing.T) {
	f := New(afero.NewMemMapFs(), Options{})
	big := []byte(strings.Repeat("0123456789", 20000))
	f.Create("f", big)
	for _, c := range []struct {
		want []byte
		same bool
	}{
		{big, true},
		{big[:len(big)-1], false},
		{append(append([]byte(nil), big...), 'x'), false},
		{append(append([]byte(nil), big[:100000]...), append([]byte("X"), big[100001:]...)...), false},
		{nil, false},
	} {
		if got, err := f.SameContent("f", c.want); err != nil || got != c.same {
			t.Errorf("len %d: got %v, %v; want %v", len(c.want), got, err, c.same)
		}
	}
}

// TestCommitNoSyncSwaps: unsynced staged content takes the file's place (by an
// exchange of the two entries where the file system has one) and no temp file is
// left; a folder swapped in where the file was, between staging and commit, stays as
// it is, and the commit fails, as a rename over it would.
func TestCommitNoSyncSwaps(t *testing.T) {
	f, ws, _ := setup(t)
	st, err := f.StageReplaceNoSync("src/a.go", []byte("package b\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := testutil.ReadFile(t, filepath.Join(ws, "src/a.go")); got != "package b\n" {
		t.Fatalf("a.go holds %q", got)
	}
	entries, _ := os.ReadDir(filepath.Join(ws, "src"))
	if len(entries) != 1 {
		t.Fatalf("src holds %d entries after the commit, want a.go alone", len(entries))
	}

	st, err = f.StageReplaceNoSync("src/a.go", []byte("package c\n"))
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(ws, "src/a.go"))
	os.Mkdir(filepath.Join(ws, "src/a.go"), 0o755)
	testutil.WriteFile(t, filepath.Join(ws, "src/a.go/inside.txt"), "kept\n")
	if _, err := st.Commit(); err == nil {
		t.Fatal("the commit over a folder succeeded")
	}
	if got := testutil.ReadFile(t, filepath.Join(ws, "src/a.go/inside.txt")); got != "kept\n" {
		t.Fatalf("the folder's file holds %q", got)
	}
	entries, _ = os.ReadDir(filepath.Join(ws, "src"))
	if len(entries) != 1 || !entries[0].IsDir() {
		t.Fatalf("src holds %v after the failed commit, want the folder a.go alone", entries)
	}
}

// TestCreateNoSync: a file created without fsync (the journal-durable mode) has
// nothing to exchange with and is renamed into place, in the root and in new folders.
func TestCreateNoSync(t *testing.T) {
	f, ws, _ := setup(t)
	for _, p := range []string{"c1.go", "src/c2.go", "new/deep/c3.go"} {
		if _, _, err := f.CreateDirsNoSync(p, []byte("package c\n"), 0); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if got := testutil.ReadFile(t, filepath.Join(ws, p)); got != "package c\n" {
			t.Fatalf("%s holds %q", p, got)
		}
	}
}

// A file whose name is one letter is made, replaced and moved like any other: on
// Windows each of these renames a file by handle, which the system refused for a
// name that short when the rename's buffer was given as shorter than its header.
func TestOneLetterNames(t *testing.T) {
	f, ws, _ := setup(t)
	if err := f.Create("x", []byte("one\n")); err != nil {
		t.Fatal(err)
	}
	if err := f.Replace("x", []byte("two\n")); err != nil {
		t.Fatal(err)
	}
	if err := f.Create("d/y", []byte("three\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.MoveFile("x", "e/z", false); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{"e/z": "two\n", "d/y": "three\n"} {
		if got := testutil.ReadFile(t, filepath.Join(ws, p)); got != want {
			t.Errorf("%s holds %q, want %q", p, got, want)
		}
	}
	if _, err := os.Lstat(filepath.Join(ws, "x")); !os.IsNotExist(err) {
		t.Errorf("x is still there after its move: %v", err)
	}
}

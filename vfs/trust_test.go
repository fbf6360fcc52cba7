package vfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/internal/winetest"
)

// tempFiles lists the temp files left anywhere under dir.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), TempPrefix) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// A folder of a resolved path swapped for a symlink into .git before the write: the
// write is refused, .git is untouched, and no temp file is left.
func TestSymlinkSwappedAfterResolve(t *testing.T) {
	winetest.NeedSymlinks(t)
	f, ws, _ := setup(t)
	testutil.WriteFile(t, filepath.Join(ws, "a/f.txt"), "mine\n")
	testutil.WriteFile(t, filepath.Join(ws, ".git/f.txt"), "git's\n")
	r, err := f.Resolve("a/f.txt")
	if err != nil || r.Path != "a/f.txt" {
		t.Fatalf("resolve: %+v %v", r, err)
	}
	if err := os.Rename(filepath.Join(ws, "a"), filepath.Join(ws, "a.real")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".git", filepath.Join(ws, "a")); err != nil {
		t.Fatal(err)
	}
	err = f.Replace(r.Path, []byte("written\n"))
	testutil.WantKind(t, err, errs.Conflict)
	if _, err := f.Read("a/f.txt"); errs.KindOf(err) != errs.PathReserved {
		t.Errorf("a read through the swapped folder: %v, want path_reserved", err)
	}
	if _, err := f.ReadCanonical(r.Path); err == nil {
		t.Error("a read of the resolved path went through the symlink")
	}
	_, _, err = f.CreateDirs("a/new.txt", []byte("x\n"), 0)
	if err == nil {
		t.Error("a create through the swapped folder succeeded")
	}
	if got := testutil.ReadFile(t, filepath.Join(ws, ".git/f.txt")); got != "git's\n" {
		t.Errorf(".git/f.txt is %q", got)
	}
	if _, err := os.Lstat(filepath.Join(ws, ".git/new.txt")); err == nil {
		t.Error("a file was created in .git")
	}
	if got := testutil.ReadFile(t, filepath.Join(ws, "a.real/f.txt")); got != "mine\n" {
		t.Errorf("a.real/f.txt is %q", got)
	}
	if left := tempFiles(t, ws); len(left) > 0 {
		t.Errorf("temp files left: %v", left)
	}
}

// Content staged in a folder is renamed in that folder, even when the folder is
// exchanged with a symlink to .git between staging and the rename: the file checked is
// the file written.
func TestStagedFolderHeldAcrossSwap(t *testing.T) {
	winetest.NeedSymlinks(t)
	f, ws, _ := setup(t)
	testutil.WriteFile(t, filepath.Join(ws, "a/f.txt"), "mine\n")
	testutil.WriteFile(t, filepath.Join(ws, ".git/f.txt"), "git's\n")
	if err := os.Symlink(".git", filepath.Join(ws, "s")); err != nil {
		t.Fatal(err)
	}
	st, err := f.StageReplace("a/f.txt", []byte("written\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := exchangePaths(filepath.Join(ws, "a"), filepath.Join(ws, "s")); err != nil {
		t.Skipf("RENAME_EXCHANGE: %v", err)
	}
	if _, err := st.Commit(); err != nil {
		t.Fatalf("commit: %v", err)
	}
	if got := testutil.ReadFile(t, filepath.Join(ws, "s/f.txt")); got != "written\n" {
		t.Errorf("the staged folder's file (now at s/) is %q", got)
	}
	if got := testutil.ReadFile(t, filepath.Join(ws, ".git/f.txt")); got != "git's\n" {
		t.Errorf(".git/f.txt is %q", got)
	}
	if left := tempFiles(t, ws); len(left) > 0 {
		t.Errorf("temp files left: %v", left)
	}
}

// The filesystem layer itself refuses reserved folders and "..", whatever its caller
// passes: a crafted temps list or journal record cannot reach .git through it.
func TestFilesystemRefusesReservedAndDotDot(t *testing.T) {
	f, ws, _ := setup(t)
	testutil.WriteFile(t, filepath.Join(ws, ".git/hooks/"+TempPrefix+"x"), "hook\n")
	afs := f.Afero()
	if h, err := afs.OpenFile(".git/config", os.O_WRONLY, 0); err == nil {
		h.Close()
		t.Error(".git/config opened for writing")
	}
	if err := afs.Remove(".git/hooks/" + TempPrefix + "x"); err == nil {
		t.Error("a file in .git/hooks was removed")
	}
	if err := afs.Rename("src/a.go", ".git/a.go"); err == nil {
		t.Error("a file was renamed into .git")
	}
	if _, err := afs.Open("../secret.txt"); err == nil {
		t.Error("../secret.txt opened")
	}
	if err := f.Replace(".GIT/config", []byte("x")); err == nil {
		t.Error(".GIT/config replaced")
	}
	if got := testutil.ReadFile(t, filepath.Join(ws, ".git/config")); got != "[core]\n" {
		t.Errorf(".git/config is %q", got)
	}
}

// A FIFO is refused at once, never opened for reading (that open would block).
func TestFIFONeverOpened(t *testing.T) {
	f, ws, _ := setup(t)
	if err := syscallMkfifo(filepath.Join(ws, "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		h, err := f.Afero().Open("pipe")
		if err == nil {
			h.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("open of a FIFO: %v, want %v", err, ErrNotRegular)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("opening a FIFO blocked")
	}
	_, err := f.Read("pipe")
	testutil.WantKind(t, err, errs.NotAFile)
}

// A replace keeps setuid, setgid and sticky bits (after restoring the owner, which
// clears them) and extended attributes.
func TestReplaceKeepsSpecialBitsAndXattrs(t *testing.T) {
	winetest.NeedPOSIXModes(t, "setuid, setgid or sticky bits, nor user extended attributes")
	f, ws, _ := setup(t)
	p := filepath.Join(ws, "bin/tool")
	testutil.WriteFile(t, p, "#!/bin/sh\n")
	mode := fs.FileMode(0o755) | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky
	if os.Geteuid() == 0 {
		if err := os.Chown(p, 1234, 5678); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	xattrs := true
	if err := setTestXattr(p, "user.vfsctl-test", []byte("kept")); err != nil {
		xattrs = false
		t.Logf("no user xattrs here: %v", err)
	}
	if err := f.Replace("bin/tool", []byte("#!/bin/sh\necho\n")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky); got != mode {
		t.Errorf("mode after replace: %v, want %v", got, mode)
	}
	if uid, gid := testOwner(fi); os.Geteuid() == 0 && (uid != 1234 || gid != 5678) {
		t.Errorf("owner after replace: %d:%d", uid, gid)
	}
	if xattrs {
		buf := make([]byte, 64)
		n, err := getXattr(p, "user.vfsctl-test", buf)
		if err != nil || string(buf[:n]) != "kept" {
			t.Errorf("xattr after replace: %q, %v", buf[:max(n, 0)], err)
		}
	}
}

// A create that fails after making its folders removes them; one that succeeds syncs
// each new folder's entry in the folder above it.
// memPath is the slash path of a name MemMapFs reports (in Windows's separator there).
func memPath(name string) string { return path.Clean(strings.TrimPrefix(filepath.ToSlash(name), "/")) }

func TestCreateFolders(t *testing.T) {
	mem := afero.NewMemMapFs()
	ffs := &testutil.FaultFs{Fs: mem}
	f := New(ffs, Options{})
	ffs.SetHook(func(op testutil.Op, name string) error {
		if op == testutil.OpOpen && strings.HasPrefix(path.Base(name), TempPrefix) {
			return syscall.ENOSPC
		}
		return nil
	})
	if _, _, err := f.CreateDirs("n1/n2/f.txt", []byte("x"), 0); err == nil {
		t.Fatal("the create did not fail")
	}
	if _, err := mem.Stat("n1"); err == nil {
		t.Error("the failed create left its folder n1 behind")
	}

	var synced []string
	ffs.SetHook(func(op testutil.Op, name string) error {
		if op == testutil.OpSync {
			synced = append(synced, memPath(name))
		}
		return nil
	})
	mem.MkdirAll("top", 0o755)
	_, made, err := f.CreateDirs("top/n1/n2/f.txt", []byte("x"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(made, ",") != "top/n1,top/n1/n2" {
		t.Errorf("made %v", made)
	}
	for _, want := range []string{"top", "top/n1", "top/n1/n2"} {
		found := false
		for _, s := range synced {
			found = found || s == want
		}
		if !found {
			t.Errorf("folder %s not synced (synced: %v)", want, synced)
		}
	}
	f.Remove("top/n1/n2/f.txt")
	f.RemoveDirs(made)
	if _, err := mem.Stat("top/n1"); err == nil {
		t.Error("RemoveDirs left top/n1")
	}
	if _, err := mem.Stat("top"); err != nil {
		t.Error("RemoveDirs removed top, which it did not make")
	}

	// The file's folder fails its sync after the rename, with ENOENT, the error that
	// sends a create to try again: the file is in place, so it is not tried again
	// (which would say it exists), and the folders it made are named for the rollback.
	ffs.SetHook(func(op testutil.Op, name string) error {
		if op == testutil.OpSync && memPath(name) == "s1/s2" {
			return syscall.ENOENT
		}
		return nil
	})
	_, made, err = f.CreateDirs("s1/s2/f.txt", []byte("x"), 0)
	ffs.SetHook(nil)
	if err == nil || errs.KindOf(err) == errs.FileExists || strings.Join(made, ",") != "s1,s1/s2" {
		t.Errorf("a create whose folder's sync failed: made %v, error %v (kind %s)", made, err, errs.KindOf(err))
	}
	if got, _ := afero.ReadFile(mem, "s1/s2/f.txt"); string(got) != "x" {
		t.Errorf("the file holds %q", got)
	}
}

func TestNameLimitsAndRootSlash(t *testing.T) {
	f, _, _ := setup(t)
	_, err := f.Clean("dir/" + strings.Repeat("n", 256) + ".txt")
	testutil.WantKind(t, err, errs.InvalidInput)
	if err != nil && !strings.Contains(err.Error(), "255") {
		t.Errorf("message does not name the limit: %v", err)
	}
	if _, err := f.Clean(strings.Repeat("n", 255)); err != nil {
		t.Errorf("a 255-byte name: %v", err)
	}
	for _, p := range []string{"/", "/etc/"} {
		_, err := f.Clean(p)
		testutil.WantKind(t, err, errs.PathOutsideRoot)
	}
}

// A file that appears at a create's path while the create runs (after the check that
// it is absent, before the rename) is someone else's: the create fails as if it had
// been there, and leaves that file, and no temp file, behind. In both modes: the
// journal-durable one used to exchange entries with whatever was there.
func TestCreateNeverReplacesAFileThatAppeared(t *testing.T) {
	for _, sync := range []bool{true, false} {
		f, ws, _ := setup(t)
		name := fmt.Sprintf("new-%v.txt", sync)
		f.OnTemp(func(string) { testutil.WriteFile(t, filepath.Join(ws, name), "theirs\n") })
		create := f.CreateDirsNoSync
		if sync {
			create = f.CreateDirs
		}
		_, _, err := create(name, []byte("mine\n"), 0)
		if errs.KindOf(err) != errs.FileExists {
			t.Errorf("sync=%v: a create over a file that appeared meanwhile gave %v, want file_exists", sync, err)
		}
		if got := testutil.ReadFile(t, filepath.Join(ws, name)); got != "theirs\n" {
			t.Errorf("sync=%v: the file that appeared now holds %q", sync, got)
		}
		if left := tempFiles(t, ws); len(left) > 0 {
			t.Errorf("sync=%v: temp files left: %v", sync, left)
		}
		// With nothing in the way, the create goes through.
		f.OnTemp(nil)
		if _, _, err := create("other-"+name, []byte("mine\n"), 0); err != nil {
			t.Fatal(err)
		}
		if got := testutil.ReadFile(t, filepath.Join(ws, "other-"+name)); got != "mine\n" {
			t.Errorf("sync=%v: created file holds %q", sync, got)
		}
	}
}

// RemoveDir removes an empty folder and nothing else: not a symlink put in its place
// (to an empty folder), not a file, not a folder something was put in.
func TestRemoveDirOnlyAnEmptyFolder(t *testing.T) {
	winetest.NeedSymlinks(t)
	f, ws, _ := setup(t)
	for _, d := range []string{"empty", "target", "full"} {
		if err := os.Mkdir(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	testutil.WriteFile(t, filepath.Join(ws, "full/x.txt"), "x\n")
	testutil.WriteFile(t, filepath.Join(ws, "file"), "f\n")
	if err := os.Symlink("target", filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"link", "file", "full", "missing"} {
		if err := f.RemoveDir(d); err == nil {
			t.Errorf("RemoveDir(%s) succeeded", d)
		}
	}
	if err := f.RemoveDir("empty"); err != nil {
		t.Errorf("RemoveDir(empty): %v", err)
	}
	for d, want := range map[string]bool{"empty": false, "link": true, "target": true, "file": true, "full/x.txt": true} {
		if _, err := os.Lstat(filepath.Join(ws, d)); (err == nil) != want {
			t.Errorf("%s there: %v, want %v", d, err == nil, want)
		}
	}
}

// A create whose new folder is removed just before its file is written there (an
// undo removing the empty folders its own create had made) makes the folders again
// and succeeds, rather than fail with "no such file or directory".
func TestCreateRemakesAFolderRemovedMeanwhile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("on Windows a folder vfs holds open cannot be removed (its deletion waits for the handle), so the race this test makes cannot happen there")
	}
	f, ws, _ := setup(t)
	removed := false
	f.OnTemp(func(string) {
		if !removed {
			removed = true
			for _, d := range []string{"new/deep", "new"} {
				if err := os.Remove(filepath.Join(ws, d)); err != nil {
					t.Error(err)
				}
			}
		}
	})
	_, made, err := f.CreateDirs("new/deep/x.txt", []byte("x\n"), 0)
	if err != nil || !removed || !slices.Equal(made, []string{"new", "new/deep"}) {
		t.Fatalf("create: made %q, error %v (folders removed: %v)", made, err, removed)
	}
	if got := testutil.ReadFile(t, filepath.Join(ws, "new/deep/x.txt")); got != "x\n" {
		t.Errorf("the file holds %q", got)
	}
}

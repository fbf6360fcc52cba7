package winfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// A replace renames over a file that another call holds open for reading, as
// rename(2) does. Windows with POSIX renames does it at once; the older rename (FAT,
// Wine 8) is refused with access denied while the file is open, and is tried again
// until the reader, here 50 ms later, lets go.
func TestRenameOverAFileHeldOpen(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"a.txt": "old\n", "b.txt": "new\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer Close(root)
	held, err := OpenAt(root, "a.txt", windows.GENERIC_READ, windows.FILE_OPEN, windows.FILE_NON_DIRECTORY_FILE, 0)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(50 * time.Millisecond)
		Close(held)
	}()
	defer func() { <-done }()
	if err := RenameAt(root, "b.txt", "a.txt", true); err != nil {
		t.Fatalf("rename over a.txt, held open: %v", err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "new\n" {
		t.Errorf("a.txt holds %q (%v), want the renamed file", got, err)
	}
}

// A folder asked for where a file stands is "not a directory", as on Unix, never a
// missing file: Go's syscall.ENOTDIR is ERROR_PATH_NOT_FOUND on Windows, which
// errors.Is takes for fs.ErrNotExist, and vfsctl would then create what it was told
// was missing, or undo past a file put where a folder was.
func TestFileWhereAFolderIsWanted(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "d"), []byte("a file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer Close(root)
	_, err = OpenAt(root, "d", ReadDir, windows.FILE_OPEN, windows.FILE_DIRECTORY_FILE, 0)
	if !errors.Is(err, syscall.ENOTDIR) || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("opening the file d as a folder: %v (not a directory: %v, missing: %v), want not a directory and not missing",
			err, errors.Is(err, syscall.ENOTDIR), errors.Is(err, fs.ErrNotExist))
	}
	if _, err := OpenRoot(filepath.Join(dir, "d")); !errors.Is(err, syscall.ENOTDIR) || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the file d as a root: %v, want not a directory and not missing", err)
	}
	_, err = OpenAt(root, "nothing", ReadDir, windows.FILE_OPEN, windows.FILE_DIRECTORY_FILE, 0)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing folder: %v, want a missing file", err)
	}
}

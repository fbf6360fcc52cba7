package vfs

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

// walkedAll lists what WalkAll reaches, folders with a trailing slash.
func walkedAll(w *Walker, root string) []string {
	var out []string
	w.WalkAll(root, func(p string, fi fs.FileInfo) {
		if fi.IsDir() {
			p += "/"
		}
		out = append(out, p)
	})
	return out
}

// WalkAll, which lists folders on several goroutines, reaches what the one-by-one
// walk reaches, in the same order, and notes the same skips: on a small tree against
// the expected list, and on one of many folders, .gitignore files at every level
// (negated, folder-only, one too large, one a FIFO) against Walk, run many times so
// that folders are listed in every interleaving.
func TestWalkAllIsWalk(t *testing.T) {
	f, ws, _ := setup(t)
	for p, c := range map[string]string{
		".gitignore":                       "*.log\nbuild/\n",
		"app.log":                          "x",
		"build/out.bin":                    "x",
		"src/.gitignore":                   "!keep.log\n",
		"src/keep.log":                     "x",
		"src/deep/x.log":                   "x",
		"src/.vfsctl-tmp-0123456789abcdef": "x",
		"vendor/lib/a.go":                  "x",
	} {
		testutil.WriteFile(t, filepath.Join(ws, p), c)
	}
	want := []string{".gitignore", "src/", "src/.gitignore", "src/a.go", "src/deep/", "src/keep.log", "vendor/", "vendor/lib/", "vendor/lib/a.go"}
	if got := walkedAll(f.Walker(), "."); !slices.Equal(got, want) {
		t.Errorf("WalkAll:\n got %q\nwant %q", got, want)
	}

	testutil.WriteFile(t, filepath.Join(ws, "t0/.gitignore"), "*.bak\n")
	for i := range 8 {
		for j := range 6 {
			dir := fmt.Sprintf("t%d/u%d", i, j)
			testutil.WriteFile(t, filepath.Join(ws, dir, "a.go"), "x")
			testutil.WriteFile(t, filepath.Join(ws, dir, "b.log"), "x")
			testutil.WriteFile(t, filepath.Join(ws, dir, "gen/c.go"), "x")
			testutil.WriteFile(t, filepath.Join(ws, dir, "gen/keep.log"), "x")
			switch j {
			case 0:
				// The third level of rules, under which folders beside each other
				// bring rules of their own: each must see its own.
				testutil.WriteFile(t, filepath.Join(ws, dir, ".gitignore"), "*.tmp\n")
				for k := range 6 {
					sub := fmt.Sprintf("%s/v%d", dir, k)
					testutil.WriteFile(t, filepath.Join(ws, sub, ".gitignore"), fmt.Sprintf("f%d.go\n", k))
					for m := range 6 {
						testutil.WriteFile(t, filepath.Join(ws, sub, fmt.Sprintf("w/f%d.go", m)), "x")
					}
				}
			case 1:
				testutil.WriteFile(t, filepath.Join(ws, dir, ".gitignore"), "gen/\n")
			case 2:
				testutil.WriteFile(t, filepath.Join(ws, dir, ".gitignore"), "!*.log\n")
			case 3:
				testutil.WriteFile(t, filepath.Join(ws, dir, "gen/.gitignore"), "*\n!keep.log\n")
			case 4:
				testutil.WriteFile(t, filepath.Join(ws, dir, ".gitignore"), strings.Repeat("#\n", MaxIgnoreBytes))
			case 5:
				if err := syscallMkfifo(filepath.Join(ws, dir, ".gitignore"), 0o644); err != nil {
					if runtime.GOOS == "windows" {
						break // no FIFOs there: the folder keeps no .gitignore
					}
					t.Fatal(err)
				}
			}
		}
	}
	os.Symlink("t1", filepath.Join(ws, "t1link"))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, ignored := range []bool{false, true} {
		w := f.Walker()
		w.IncludeIgnored = ignored
		want := walked(w, ".")
		wantNote := w.Skipped.Note()
		if !ignored && runtime.GOOS != "windows" && !strings.Contains(wantNote, "(8 .gitignore files not used (not a regular file)") {
			t.Fatalf("the tree does not make Walk note the FIFOs: %s", wantNote)
		}
		for range 20 {
			w := f.Walker()
			w.IncludeIgnored = ignored
			if got := walkedAll(w, "."); !slices.Equal(got, want) {
				i := 0
				for i < min(len(got), len(want)) && got[i] == want[i] {
					i++
				}
				t.Fatalf("ignored included %v: WalkAll reached %d entries, Walk %d; from entry %d WalkAll has %q, Walk %q", ignored, len(got), len(want), i, got[i:min(i+3, len(got))], want[i:min(i+3, len(want))])
			}
			if note := w.Skipped.Note(); note != wantNote {
				t.Fatalf("ignored included %v: WalkAll noted %q, Walk %q", ignored, note, wantNote)
			}
		}
	}
}

// A folder swapped for a symlink after its parent was listed and before WalkAll
// opens it is not entered, as with Walk.
func TestWalkAllDoesNotEnterAFolderSwappedForASymlink(t *testing.T) {
	for _, target := range []string{"../../ws2", "../.git"} {
		t.Run(target, func(t *testing.T) {
			f, ws, parent := setup(t)
			testutil.WriteFile(t, filepath.Join(ws, "src/sub/c.go"), "package c\n")
			testHookListed = func(dir string) {
				if dir != "src" {
					return
				}
				if err := os.Rename(filepath.Join(ws, "src/sub"), filepath.Join(parent, "moved")); err != nil {
					t.Error(err)
				}
				if err := os.Symlink(target, filepath.Join(ws, "src/sub")); err != nil {
					t.Error(err)
				}
			}
			defer func() { testHookListed = nil }()
			got := walkedAll(f.Walker(), ".")
			for _, p := range got {
				if strings.HasPrefix(p, "src/sub/") && p != "src/sub/" {
					t.Errorf("WalkAll entered the symlink swapped in for src/sub: %q", got)
				}
			}
			if !slices.Contains(got, "src/a.go") {
				t.Errorf("the walk stopped: %q", got)
			}
		})
	}
}

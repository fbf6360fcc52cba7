package vfs

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/internal/winetest"
)

// walked lists what a walk of ws reaches, folders with a trailing slash.
func walked(w *Walker, root string) []string {
	var out []string
	w.Walk(root, func(p string, fi fs.FileInfo) bool {
		if fi.IsDir() {
			p += "/"
		}
		out = append(out, p)
		return true
	})
	return out
}

// The walk shows the workspace as a model may see it: reserved folders, temporary
// files and what .gitignore files ignore (the nearest rule last) left out, symlinks
// not followed, folders past the depth noted.
func TestWalk(t *testing.T) {
	winetest.NeedSymlinks(t)
	f, ws, _ := setup(t)
	for p, c := range map[string]string{
		".gitignore":                       "*.log\nbuild/\n",
		"app.log":                          "x",
		"build/out.bin":                    "x",
		"src/.gitignore":                   "!keep.log\n",
		"src/keep.log":                     "x",
		"src/deep/er/est/x.go":             "x",
		"src/.vfsctl-tmp-0123456789abcdef": "x",
		"vendor/lib/.git/config":           "x",
	} {
		testutil.WriteFile(t, filepath.Join(ws, p), c)
	}
	if err := os.Symlink("src", filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	w := f.Walker()
	w.Depth, w.NoteDeep = 3, true
	want := []string{".gitignore", "link", "src/", "src/.gitignore", "src/a.go", "src/deep/", "src/deep/er/", "src/keep.log", "vendor/", "vendor/lib/"}
	if got := walked(w, "."); !slices.Equal(got, want) {
		t.Errorf("walk:\n got %q\nwant %q", got, want)
	}
	if note := w.Skipped.Note(); note != "\n(1 folder deeper than 3 levels not searched: src/deep/er)" {
		t.Errorf("note %q", note)
	}
	w = f.Walker()
	w.IncludeIgnored = true
	if got := walked(w, "src/deep"); !slices.Equal(got, []string{"src/deep/er/", "src/deep/er/est/", "src/deep/er/est/x.go"}) {
		t.Errorf("walk of a folder, ignored files included: %q", got)
	}
	w = f.Walker()
	w.Limit = 2
	if got := walked(w, "."); len(got) != 2 {
		t.Errorf("a walk bounded to 2 entries reached %q", got)
	}
}

// A .gitignore that cannot be used is said so, and a file is read only if regular.
func TestWalkSkips(t *testing.T) {
	winetest.NeedSymlinks(t)
	f, ws, _ := setup(t)
	testutil.WriteFile(t, filepath.Join(ws, "big/.gitignore"), strings.Repeat("#\n", MaxIgnoreBytes))
	testutil.WriteFile(t, filepath.Join(ws, "target.txt"), "twelve bytes")
	os.Symlink("target.txt", filepath.Join(ws, "sym.txt"))
	w := f.Walker()
	var skipped []string
	w.Walk(".", func(p string, fi fs.FileInfo) bool {
		if fi.IsDir() {
			return true
		}
		data, why := f.ReadRegular(p, fi, 8)
		if why != NotSkipped {
			w.Skipped.Add(why, p)
			skipped = append(skipped, p)
		} else if len(data) > 8 {
			t.Errorf("%s: read %d bytes past the limit", p, len(data))
		}
		return true
	})
	w.Skipped.LargeOver = 8 << 20
	note := w.Skipped.Note()
	for _, s := range []string{"(1 .gitignore file not used (over 256 KB): big/.gitignore)", "(1 symlink not followed: sym.txt)", "(3 files over 8 MB not searched: big/.gitignore, src/a.go, target.txt)"} {
		if !strings.Contains(note, s) {
			t.Errorf("note lacks %q:\n%s", s, note)
		}
	}
}

// A folder swapped for a symlink after its parent was listed and before the walk
// enters it is not entered: the walk opens it in the folder it holds, without
// following a symlink, so neither the folder outside the root nor .git is listed.
func TestWalkDoesNotEnterAFolderSwappedForASymlink(t *testing.T) {
	for _, target := range []string{"../../ws2", "../.git"} {
		t.Run(target, func(t *testing.T) {
			f, ws, parent := setup(t)
			testutil.WriteFile(t, filepath.Join(ws, "src/sub/c.go"), "package c\n")
			var got []string
			f.Walker().Walk(".", func(p string, fi fs.FileInfo) bool {
				got = append(got, p)
				if p == "src/sub" {
					if err := os.Rename(filepath.Join(ws, "src/sub"), filepath.Join(parent, "moved")); err != nil {
						t.Fatal(err)
					}
					if err := os.Symlink(target, filepath.Join(ws, "src/sub")); err != nil {
						t.Fatal(err)
					}
				}
				return true
			})
			for _, p := range got {
				if strings.HasPrefix(p, "src/sub/") {
					t.Errorf("the walk entered the symlink swapped in for src/sub: %q", got)
				}
			}
			if !slices.Contains(got, "src/a.go") {
				t.Errorf("the walk stopped: %q", got)
			}
		})
	}
}

package vfs

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/testutil"
)

// BenchmarkResolveDeep measures what a call does with a path in a folder d deep before
// it writes: Resolve of a file there, and of a new name there with CheckNewName. Each
// level's lookup once walked from the root, so a call cost d² lookups.
func BenchmarkResolveDeep(b *testing.B) {
	for _, d := range []int{64, 257} {
		b.Run(fmt.Sprintf("depth-%d", d), func(b *testing.B) {
			ws := b.TempDir()
			dir := strings.TrimSuffix(strings.Repeat("u/", d), "/")
			if err := os.MkdirAll(filepath.Join(ws, filepath.FromSlash(dir)), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(ws, filepath.FromSlash(dir), "f.txt"), []byte("f\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			f, err := Open(ws, Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			for b.Loop() {
				if r, err := f.Resolve(dir + "/f.txt"); err != nil || !r.Exists {
					b.Fatalf("%+v %v", r, err)
				}
				r, err := f.Resolve(dir + "/new.txt")
				if err != nil || r.Exists {
					b.Fatalf("%+v %v", r, err)
				}
				if err := f.CheckNewName(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Resolve, which looks each name up in the folder it holds and walks from the root
// again after a "..", names the file the system itself reaches: relative symlinks
// that climb and descend, absolute ones, dangling ones, links into .git, in a tree
// with a chain 30 folders deep, checked against filepath.EvalSymlinks.
func TestResolveAgreesWithTheSystem(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Resolve follows no reparse point on Windows")
	}
	f, ws, _ := setup(t)
	real, err := filepath.EvalSymlinks(ws)
	if err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	host := func(p string) string { return filepath.Join(ws, filepath.FromSlash(p)) }
	folders := []string{""}
	for i := 1; i <= 30; i++ {
		folders = append(folders, strings.TrimSuffix(strings.Repeat("d/", i), "/"))
	}
	for range 40 {
		above := folders[rnd.IntN(len(folders))]
		folders = append(folders, path.Join(above, []string{"a", "b", "c"}[rnd.IntN(3)]))
	}
	for _, d := range folders {
		if err := os.MkdirAll(host(d), 0o755); err != nil {
			t.Fatal(err)
		}
		if rnd.IntN(2) == 0 {
			testutil.WriteFile(t, host(path.Join(d, "f.txt")), d+"\n")
		}
	}
	// Links, each in a folder, leading up some folders, then down to a folder there
	// is, then maybe a name more: a file, .git, a name not there, or another link of
	// that folder, to be followed on from there.
	linkAt := make([]string, 80)
	for i := range linkAt {
		linkAt[i] = folders[rnd.IntN(len(folders))]
	}
	for i, at := range linkAt {
		depth := len(strings.Split(at, "/"))
		if at == "" {
			depth = 0
		}
		ups := rnd.IntN(depth + 1)
		base := strings.Join(strings.Split(at, "/")[:depth-ups], "/")
		below := slices.DeleteFunc(slices.Clone(folders), func(d string) bool {
			return base != "" && d != base && !strings.HasPrefix(d, base+"/")
		})
		down := strings.TrimPrefix(strings.TrimPrefix(below[rnd.IntN(len(below))], base), "/")
		last := []string{"", "", "f.txt", ".git", "missing", "link", "link", "link"}[rnd.IntN(8)]
		if last == "link" {
			last = ""
			for j := range linkAt {
				if linkAt[j] == path.Join(base, down) && j != i {
					last = fmt.Sprintf("l%d", j)
				}
			}
		}
		target := path.Join(strings.Repeat("../", ups), down, last)
		switch rnd.IntN(20) {
		case 0, 1, 2, 3:
			target = host(path.Join(base, down, last)) // absolute
		case 4:
			target = path.Join(strings.Repeat("../", depth), []string{".", ".git", ".git/config"}[rnd.IntN(3)]) // the root, or into .git
		}
		if target == "" {
			target = "." // its own folder
		}
		if err := os.Symlink(target, host(path.Join(at, fmt.Sprintf("l%d", i)))); err != nil {
			t.Fatal(err)
		}
	}
	// where is the system's answer for host path p: the path it leads to, whether
	// something is there; ok false where p cannot be made (a folder of it is a file,
	// or is not there).
	var where func(p string, hops int) (to string, exists, ok bool)
	where = func(p string, hops int) (string, bool, bool) {
		if to, err := filepath.EvalSymlinks(p); err == nil {
			return to, true, true
		}
		dir, err := filepath.EvalSymlinks(filepath.Dir(p))
		if fi, serr := os.Stat(dir); err != nil || serr != nil || !fi.IsDir() {
			return "", false, false
		}
		target, err := os.Readlink(p)
		if err != nil {
			return filepath.Join(dir, filepath.Base(p)), false, true // nothing there
		}
		if hops > 8 {
			return "", false, false
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target) // dir has no link in it: its ".." is the folder above
		}
		return where(target, hops+1) // a dangling link: what it leads to is to be made
	}
	var checked, through int
	for range 300 {
		// A path down the tree as the system walks it, each name one of the folder's,
		// half the time a link where there is one; .git only through a link.
		var p []string
		for range 1 + rnd.IntN(10) {
			dir, err := filepath.EvalSymlinks(host(strings.Join(p, "/")))
			if err != nil {
				break
			}
			entries, err := os.ReadDir(dir)
			entries = slices.DeleteFunc(entries, func(e os.DirEntry) bool { return e.Name() == ".git" })
			if err != nil || len(entries) == 0 {
				break
			}
			e := entries[rnd.IntN(len(entries))]
			if links := slices.DeleteFunc(entries, func(e os.DirEntry) bool { return e.Type()&os.ModeSymlink == 0 }); len(links) > 0 && rnd.IntN(2) == 0 {
				e = links[rnd.IntN(len(links))]
			}
			p = append(p, e.Name())
		}
		if len(p) == 0 {
			continue
		}
		if rnd.IntN(4) == 0 {
			p = append(p, "new.txt")
		}
		name := strings.Join(p, "/")
		r, err := f.Resolve(name)
		to, exists, ok := where(host(name), 0)
		if !ok {
			if err == nil && r.Exists {
				t.Errorf("%s: resolved to %s, which exists; the system cannot reach it", name, r.Path)
			}
			continue
		}
		rel, rerr := filepath.Rel(real, to)
		if rerr != nil {
			t.Fatal(rerr)
		}
		rel = filepath.ToSlash(rel)
		checked++
		switch {
		case rel == ".":
			if errs.KindOf(err) != errs.NotAFile {
				t.Errorf("%s leads to the root: %+v %v", name, r, err)
			}
		case slices.ContainsFunc(strings.Split(rel, "/"), f.Reserved):
			if errs.KindOf(err) != errs.PathReserved {
				t.Errorf("%s leads into .git (%s): %+v %v", name, rel, r, err)
			}
		case err != nil:
			t.Errorf("%s: %v; the system finds %s", name, err, rel)
		case r.Path != rel || r.Exists != exists:
			t.Errorf("%s: resolved to %s (exists %v); the system finds %s (exists %v)", name, r.Path, r.Exists, rel, exists)
		case r.Link:
			through++
		}
	}
	if checked < 200 || through < 50 {
		t.Errorf("only %d paths were checked, %d through a link", checked, through)
	}
}

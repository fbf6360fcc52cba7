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

	"github.com/vfsctl/vfsctl/internal/testutil"
)

// BenchmarkFoldersDeep measures, for a chain of folders d deep, what once walked from
// the root for each folder of it, d² looks: a create that makes all d folders (and
// syncs each one's entry), MissingFolders of a path whose lower half is missing,
// and a look at each folder of the chain, shallowest first (an undo's checks).
func BenchmarkFoldersDeep(b *testing.B) {
	for _, d := range []int{50, 200, 400} {
		chain := strings.TrimSuffix(strings.Repeat("u/", d), "/")
		b.Run(fmt.Sprintf("create/depth-%d", d), func(b *testing.B) {
			f, ws := benchFS(b)
			for i := 0; i < b.N; i++ {
				if _, made, err := f.CreateDirs(chain+"/f.txt", []byte("f\n"), 0); err != nil || len(made) != d {
					b.Fatal(len(made), err)
				}
				b.StopTimer()
				if err := os.RemoveAll(filepath.Join(ws, "u")); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
		b.Run(fmt.Sprintf("missing/depth-%d", d), func(b *testing.B) {
			f, ws := benchFS(b)
			half := strings.TrimSuffix(strings.Repeat("u/", d/2), "/")
			if err := os.MkdirAll(filepath.Join(ws, filepath.FromSlash(half)), 0o755); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if m := f.MissingFolders(chain + "/f.txt"); len(m) != d-d/2 {
					b.Fatal(len(m))
				}
			}
		})
		b.Run(fmt.Sprintf("look/depth-%d", d), func(b *testing.B) {
			f, ws := benchFS(b)
			if err := os.MkdirAll(filepath.Join(ws, filepath.FromSlash(chain)), 0o755); err != nil {
				b.Fatal(err)
			}
			var dirs []string
			for p := chain; p != "."; p = path.Dir(p) {
				dirs = append([]string{p}, dirs...)
			}
			for b.Loop() {
				if n := lookChain(f, dirs); n != d {
					b.Fatal(n)
				}
			}
		})
	}
}

func benchFS(b *testing.B) (*FS, string) {
	ws := b.TempDir()
	f, err := Open(ws, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	return f, ws
}

// A Looker, holding the folder it looked in last, and MissingFolders, walking down
// once, see what an lstat of each name from the root sees: a symlink or a file on
// the way is an error (never followed), a reserved name at any depth too, a missing
// folder on the way means nothing there; the looks come in an order that goes down,
// up and across, and after each kind of failure.
func TestLookerAgreesWithLstat(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no symlinks made here on Windows")
	}
	f, ws, _ := setup(t)
	host := func(p string) string { return filepath.Join(ws, filepath.FromSlash(p)) }
	chain := strings.TrimSuffix(strings.Repeat("d/", 12), "/")
	if err := os.MkdirAll(host(chain), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"d/f.txt", "d/d/d/f.txt", chain + "/f.txt", "d/d/sub/.git/config"} {
		testutil.WriteFile(t, host(p), p+"\n")
	}
	for link, target := range map[string]string{"d/d/l": "../d", "d/out": "../..", "d/d/d/abs": host("d"), "d/dangling": "none"} {
		if err := os.Symlink(target, host(link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(host("d/d/d/d"), 0o751); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for p := chain; p != "."; p = path.Dir(p) {
		paths = append(paths, p)
	}
	paths = append(paths, "d/f.txt", "d/f.txt/x", "d/d/l", "d/d/l/d", "d/d/l/f.txt", "d/out", "d/out/secret.txt",
		"d/d/d/abs", "d/d/d/abs/d", "d/dangling", "d/dangling/x", "d/none", "d/none/x/y", ".git", ".git/config",
		"d/d/sub/.git", "d/d/sub/.git/config", "d/d/sub", chain+"/f.txt", chain+"/none")

	// oracle is what stands at p by lstat from the root, each folder on the way
	// checked to be a folder, not a symlink, and no name reserved.
	oracle := func(p string) (kind, target string, bits uint32, bad bool) {
		comps := strings.Split(p, "/")
		for i, c := range comps {
			if c == ".git" {
				return "", "", 0, true
			}
			fi, err := os.Lstat(host(strings.Join(comps[:i+1], "/")))
			if os.IsNotExist(err) {
				return "", "", 0, false
			}
			if err != nil {
				t.Fatal(err)
			}
			if i < len(comps)-1 {
				if !fi.IsDir() {
					return "", "", 0, true // a file or a symlink on the way
				}
				continue
			}
			switch {
			case fi.IsDir():
				kind = KindDir
			case fi.Mode()&os.ModeSymlink != 0:
				kind = KindSymlink
				target, _ = os.Readlink(host(p))
			default:
				kind = "file"
			}
			return kind, target, uint32(fi.Mode().Perm()), false
		}
		return
	}
	rnd := rand.New(rand.NewPCG(3, 4))
	l := f.Looker()
	defer l.Close()
	for range 400 {
		p := paths[rnd.IntN(len(paths))]
		kind, target, bits, err := l.EntryAt(p)
		wkind, wtarget, wbits, bad := oracle(p)
		switch {
		case bad:
			if err == nil {
				t.Errorf("%s: %q %q %o, want an error", p, kind, target, bits)
			}
		case err != nil:
			t.Errorf("%s: %v, want %q %q %o", p, err, wkind, wtarget, wbits)
		case wkind == "file":
			if kind == "" || kind == KindDir || kind == KindSymlink || bits != wbits {
				t.Errorf("%s: %q %o, want a file %o", p, kind, bits, wbits)
			}
		case kind != wkind || target != wtarget || (kind != "" && bits != wbits):
			t.Errorf("%s: %q %q %o, want %q %q %o", p, kind, target, bits, wkind, wtarget, wbits)
		}
	}
	// MissingFolders: below the deepest folder above p that the oracle finds, no
	// folder of which is a symlink or reserved.
	for _, p := range paths {
		var want []string
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if kind, _, _, bad := oracle(d); kind != "" && !bad {
				break
			}
			want = append([]string{d}, want...)
		}
		if got := f.MissingFolders(p); !slices.Equal(got, want) {
			t.Errorf("MissingFolders(%s) = %q, want %q", p, got, want)
		}
	}
}

// lookChain looks at each of dirs with one Looker, and counts the folders found.
func lookChain(f *FS, dirs []string) int {
	l := f.Looker()
	defer l.Close()
	n := 0
	for _, d := range dirs {
		if kind, _, _, err := l.EntryAt(d); err == nil && kind == KindDir {
			n++
		}
	}
	return n
}

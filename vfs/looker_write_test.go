package vfs

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

// A Looker's MakeDir, RemoveDir and SetBits, going up and down a chain deeper than
// the folders it holds, do what an lstat of each folder from the root says they may:
// each succeeds exactly where every folder on the way is a real folder (no symlink,
// no file, no reserved name) and the entry is as the change needs, and then the disk
// holds the change; a refused one leaves the entry as it was.
func TestLookerWritesAgreeWithLstat(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no symlinks made here on Windows")
	}
	f, ws, _ := setup(t)
	host := func(p string) string { return filepath.Join(ws, filepath.FromSlash(p)) }
	const deep = 150 // over maxLooked: going up past the folders held walks down again
	var chain []string
	for p := "w"; len(chain) < deep; p += "/w" {
		chain = append(chain, p)
	}
	if err := os.MkdirAll(host(chain[deep/2]), 0o755); err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, host(chain[10]+"/f"), "f\n")
	for link, target := range map[string]string{chain[20] + "/l": "..", chain[40] + "/out": "../../../.."} {
		if err := os.Symlink(target, host(link)); err != nil {
			t.Fatal(err)
		}
	}
	var paths []string
	for i, c := range chain {
		paths = append(paths, c)
		if i%10 == 0 {
			paths = append(paths, c+"/x")
		}
	}
	paths = append(paths, chain[10]+"/f", chain[10]+"/f/x", chain[20]+"/l", chain[20]+"/l/w", chain[20]+"/l/x",
		chain[40]+"/out", chain[40]+"/out/w", chain[30]+"/.git", chain[30]+"/.git/x")

	// way says whether every folder above p is a real folder, no name reserved.
	way := func(p string) bool {
		comps := strings.Split(p, "/")
		for i, c := range comps {
			if c == ".git" {
				return false
			}
			if i == len(comps)-1 {
				return true
			}
			fi, err := os.Lstat(host(strings.Join(comps[:i+1], "/")))
			if err != nil || !fi.IsDir() {
				return false
			}
		}
		return true
	}
	bitsOf := []uint32{0o700, 0o755, 0o711, 0o750}
	rnd := rand.New(rand.NewPCG(5, 6))
	l := f.Looker()
	defer l.Close()
	at, dir := 0, 1
	done := map[string]int{}
	for range 1200 {
		// Down the chain and back up, again and again, at times a step back; a wild
		// change (any of the three) is followed by the one the entry allows.
		wild := rnd.IntN(4) == 0
		switch r := rnd.IntN(20); {
		case wild:
		case r < 4:
			at -= dir
		default:
			at += dir
		}
		if at <= 0 || at >= len(paths)-1 {
			at, dir = min(max(at, 0), len(paths)-1), -dir
		}
		p := paths[at]
		before, beforeErr := os.Lstat(host(p))
		ok := way(p)
		names, rerr := os.ReadDir(host(p))
		empty := rerr == nil && len(names) == 0
		bits := bitsOf[rnd.IntN(len(bitsOf))]
		var err error
		var op string
		// Mostly the change the entry allows (folders removed on the way up), at times any.
		kind := 2
		switch {
		case wild:
			kind = rnd.IntN(3)
		case beforeErr != nil:
			kind = 0
		case empty && dir < 0:
			kind = 1
		}
		switch kind {
		case 0:
			op, err = "MakeDir", l.MakeDir(p, bits)
			ok = ok && beforeErr != nil
		case 1:
			op, err = "RemoveDir", l.RemoveDir(p)
			ok = ok && beforeErr == nil && before.IsDir() && empty
		default:
			op, err = "SetBits", l.SetBits(p, bits)
			ok = ok && beforeErr == nil && before.Mode()&fs.ModeSymlink == 0
		}
		after, afterErr := os.Lstat(host(p))
		if ok {
			done[op]++
		}
		switch {
		case ok && err != nil:
			t.Fatalf("%s(%s): %v, want it done", op, p, err)
		case !ok && err == nil:
			t.Fatalf("%s(%s) done, want it refused", op, p)
		case !ok:
			if (beforeErr == nil) != (afterErr == nil) || (afterErr == nil && after.Mode() != before.Mode()) {
				t.Fatalf("%s(%s) refused, yet it changed: %v %v, now %v %v", op, p, before, beforeErr, after, afterErr)
			}
		case op == "RemoveDir":
			if !errors.Is(afterErr, fs.ErrNotExist) {
				t.Fatalf("%s(%s): still there (%v)", op, p, afterErr)
			}
		default:
			if afterErr != nil || (op == "MakeDir" && !after.IsDir()) || uint32(after.Mode().Perm()) != bits {
				t.Fatalf("%s(%s, %04o): now %v %v", op, p, bits, after, afterErr)
			}
		}
	}
	if done["MakeDir"] < 20 || done["RemoveDir"] < 20 || done["SetBits"] < 20 {
		t.Errorf("too few changes done to tell: %v", done)
	}
	t.Log(done)
}

// A folder swapped for a symlink is never gone through: not by a Looker that walks
// to it afresh (refused, the symlink's target untouched), and not by one that held a
// folder below it before the swap (refused: neither the target nor the folder held,
// moved within the root, changes). FS.RemoveDirs stops at the symlink.
func TestLookerWritesRefuseASwappedFolder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no symlinks made here on Windows")
	}
	f, ws, _ := setup(t)
	host := func(p string) string { return filepath.Join(ws, filepath.FromSlash(p)) }
	outside := t.TempDir()
	chain := strings.TrimSuffix(strings.Repeat("s/", 80), "/")
	if err := os.MkdirAll(host(chain), 0o755); err != nil {
		t.Fatal(err)
	}
	// The outside tree mirrors the chain below the swapped folder, so that a walk
	// through the symlink would find every folder it looks for.
	below := strings.TrimSuffix(strings.Repeat("s/", 50), "/") // from the swapped folder, depth 30
	if err := os.MkdirAll(filepath.Join(outside, filepath.FromSlash(below)), 0o755); err != nil {
		t.Fatal(err)
	}
	swapped := strings.TrimSuffix(strings.Repeat("s/", 30), "/")
	held := f.Looker()
	defer held.Close()
	if err := held.MakeDir(chain+"/h", 0o755); err != nil { // holds the chain's deepest folders
		t.Fatal(err)
	}
	if err := os.Rename(host(swapped), host(swapped+"-real")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, host(swapped)); err != nil {
		t.Fatal(err)
	}
	outsideOf := func(p string) string {
		return filepath.Join(outside, filepath.FromSlash(strings.TrimPrefix(p, swapped+"/")))
	}
	fresh := f.Looker()
	defer fresh.Close()
	for _, p := range []string{chain + "/n", swapped + "/s/n", swapped + "/n"} {
		if err := fresh.MakeDir(p, 0o755); err == nil {
			t.Errorf("MakeDir(%s) through the swapped folder was done", p)
		}
		if _, err := os.Lstat(outsideOf(p)); err == nil {
			t.Errorf("MakeDir(%s) made %s outside the root", p, outsideOf(p))
		}
	}
	mid := swapped + "/s/s"
	if err := fresh.SetBits(mid, 0o700); err == nil {
		t.Errorf("SetBits(%s) through the swapped folder was done", mid)
	}
	if err := fresh.SetBits(swapped, 0o700); err == nil {
		t.Errorf("SetBits(%s), a symlink now, was done", swapped)
	}
	if fi, _ := os.Stat(outside); fi.Mode().Perm() == 0o700 {
		t.Errorf("SetBits(%s) changed the symlink's target", swapped)
	}
	if err := fresh.RemoveDir(swapped); err == nil {
		t.Errorf("RemoveDir(%s), a symlink now, was done", swapped)
	}
	if fi, err := os.Lstat(host(swapped)); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the symlink %s is gone: %v", swapped, err)
	}
	// The held folders are the real ones, moved within the root: the path leads
	// through the symlink now, so the change is refused, neither made there nor in them.
	if err := held.MakeDir(chain+"/h2", 0o755); err == nil {
		t.Errorf("MakeDir(%s/h2) by the Looker that held the chain was done", chain)
	}
	if _, err := os.Lstat(outsideOf(chain + "/h2")); err == nil {
		t.Errorf("the Looker that held the chain made h2 outside the root")
	}
	real := swapped + "-real" + strings.TrimPrefix(chain, swapped)
	if _, err := os.Lstat(host(real + "/h2")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("h2 was made in the folder held, %s, its path no longer: %v", real, err)
	}
	// RemoveDirs of the chain's folders through the symlink: the outside copies stay.
	var made []string
	for p := swapped + "/s"; p != chain+"/s"; p += "/s" {
		made = append(made, p)
	}
	f.RemoveDirs(made)
	if _, err := os.Lstat(filepath.Join(outside, filepath.FromSlash(below))); err != nil {
		t.Errorf("RemoveDirs removed folders outside the root: %v", err)
	}
}

// Looker.ReadDir, going down a chain and back up, names what os.ReadDir names in
// each folder, with the kind and bits os.Lstat gives, a reserved name included.
func TestLookerReadDirAgreesWithLstat(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no symlinks made here on Windows")
	}
	f, ws, _ := setup(t)
	host := func(p string) string { return filepath.Join(ws, filepath.FromSlash(p)) }
	var chain []string
	for p := "r"; len(chain) < 90; p += "/r" {
		chain = append(chain, p)
	}
	if err := os.MkdirAll(host(chain[len(chain)-1]), 0o755); err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, host(chain[5]+"/f.txt"), "f\n")
	testutil.WriteFile(t, host(chain[70]+"/.git/config"), "c\n")
	if err := os.Symlink("..", host(chain[30]+"/up")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(host(chain[50]), 0o751); err != nil {
		t.Fatal(err)
	}
	l := f.Looker()
	defer l.Close()
	order := append(append([]string{}, chain...), chain...)
	for i := range chain {
		order[len(chain)+i] = chain[len(chain)-1-i] // and back up
	}
	for _, d := range order {
		got, err := l.ReadDir(d)
		if err != nil {
			t.Fatalf("ReadDir(%s): %v", d, err)
		}
		want, err := os.ReadDir(host(d))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("ReadDir(%s): %d entries, want %d", d, len(got), len(want))
		}
		for i, w := range want {
			fi, err := os.Lstat(host(d + "/" + w.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if got[i].Name() != w.Name() || got[i].Mode() != fi.Mode() {
				t.Errorf("ReadDir(%s)[%d] = %s %v, want %s %v", d, i, got[i].Name(), got[i].Mode(), w.Name(), fi.Mode())
			}
		}
	}
}

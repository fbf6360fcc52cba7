package toolapi

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/vfs"
)

// A name more folders deep than vfs.MaxNewDepth is refused before anything is made:
// each folder a call makes is reached through every folder above it, so that one
// create_file of 2,000 folders held the workspace for half a minute. At the bound,
// the call works.
func TestNewNamesAreBoundedInDepth(t *testing.T) {
	a, dir := patchAPI(t, map[string]string{"x.txt": "x\n"})
	deep := func(n int, leaf string) string { return strings.Repeat("d/", n) + leaf }
	over := vfs.MaxNewDepth + 1
	for _, c := range []struct{ tool, args string }{
		{"create_file", args("path", deep(over, "f.txt"), "content", "x\n")},
		{"create_directory", args("path", deep(over, "e"))},
		{"move_file", args("source", "x.txt", "destination", deep(over, "x.txt"))},
	} {
		r := call(a, c.tool, c.args)
		if r.OK || kindOf(r) != "too_large" || !strings.Contains(r.Text, "folders deep") {
			t.Errorf("%s %d folders deep: %s: %s", c.tool, over, kindOf(r), r.Text)
		}
		if _, err := os.Lstat(filepath.Join(dir, "d")); !os.IsNotExist(err) {
			t.Fatalf("%s was refused but made a folder: %v", c.tool, err)
		}
	}
	r := call(a, "create_file", args("path", deep(vfs.MaxNewDepth, "f.txt"), "content", "x\n"))
	if !r.OK {
		t.Fatalf("%d folders deep: %s: %s", vfs.MaxNewDepth, kindOf(r), r.Text)
	}
	if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(deep(vfs.MaxNewDepth, "f.txt")))); err != nil || string(b) != "x\n" {
		t.Fatalf("the file at the bound: %q %v", b, err)
	}
}

// The bound is on what a call makes: in a folder the user made deeper than it, a file
// can be made, written and moved into, but no folder is made, and the refusal says
// where the folders that are there end and what to send.
func TestDeepFoldersThereStayWritable(t *testing.T) {
	a, dir := patchAPI(t, map[string]string{"x.txt": "x\n"})
	over := vfs.MaxNewDepth + 1
	there := strings.TrimSuffix(strings.Repeat("u/", over), "/") // made by the user
	if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(there)), 0o755); err != nil {
		t.Fatal(err)
	}
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			return "none"
		}
		return string(b)
	}
	for _, c := range []struct{ tool, args, path, want string }{
		{"create_file", args("path", there+"/f.txt", "content", "f\n"), there + "/f.txt", "f\n"},
		{"move_file", args("source", "x.txt", "destination", there+"/x.txt"), there + "/x.txt", "x\n"},
	} {
		if r := call(a, c.tool, c.args); !r.OK {
			t.Errorf("%s in a folder %d deep that is there: %s: %s", c.tool, over, kindOf(r), r.Text)
		}
		if got := read(c.path); got != c.want {
			t.Errorf("after %s: %s holds %q, want %q", c.tool, c.path, got, c.want)
		}
	}
	for _, c := range []struct {
		tool, args string
		depth      int
	}{
		{"create_file", args("path", there+"/new/f.txt", "content", "x\n"), over + 1},
		{"create_directory", args("path", there+"/new"), over},
	} {
		r := call(a, c.tool, c.args)
		if r.OK || kindOf(r) != "too_large" || !strings.Contains(r.Text, "Send a path at most") ||
			!strings.Contains(r.Text, fmt.Sprintf("%d folders deep", c.depth)) {
			t.Errorf("%s of a new folder in a folder %d deep: %s: %s", c.tool, over, kindOf(r), r.Text)
		}
		if c.tool == "create_file" && !strings.Contains(r.Text, "the folders that are there end at "+there+")") {
			t.Errorf("%s: the refusal says not where the folders that are there end: %s", c.tool, r.Text)
		}
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(there), "new")); !os.IsNotExist(err) {
			t.Fatalf("%s was refused but made a folder: %v", c.tool, err)
		}
	}
}

// A move makes every name it moves anew: a folder holding a tree moved under a deep
// folder would make names deeper than the bound, and is refused before anything moves
// (its walk reads no folder past the bound); at the bound it moves. A file apply_patch
// moves under its own name is bounded as move_file is.
func TestMovesAreBoundedInDepth(t *testing.T) {
	a, dir := patchAPI(t, map[string]string{"x.txt": "x\n", "m/" + strings.Repeat("i/", 15) + "f.txt": "f\n"})
	d := func(n int) string { return strings.TrimSuffix(strings.Repeat("d/", n), "/") }
	if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(d(241))), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ what, tool, args, stays, made string }{
		// 241 + 1 (m) + 15 folders above f.txt.
		{"m under a deep folder", "move_file", args("source", "m", "destination", d(241)+"/m"), "m/" + strings.Repeat("i/", 15) + "f.txt", d(241) + "/m"},
		{"a file under its own name", "apply_patch", args("input", "*** Begin Patch\n*** Update File: x.txt\n*** Move to: "+d(vfs.MaxNewDepth+1)+"/x.txt\n*** End Patch"), "x.txt", d(242)},
	} {
		r := call(a, c.tool, c.args)
		if r.OK || kindOf(r) != "too_large" || !strings.Contains(r.Text, "folders deep") {
			t.Errorf("%s: %s: %s", c.what, kindOf(r), r.Text)
		}
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(c.stays))); err != nil {
			t.Errorf("%s was refused but moved: %v", c.what, err)
		}
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(c.made))); !os.IsNotExist(err) {
			t.Errorf("%s was refused but made %s: %v", c.what, c.made, err)
		}
	}
	// At the bound the same folder moves: 240 + 1 + 15.
	if r := call(a, "move_file", args("source", "m", "destination", d(240)+"/m")); !r.OK {
		t.Fatalf("move of m to %s/m: %s: %s", d(240), kindOf(r), r.Text)
	}
	if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(d(240)+"/m/"+strings.Repeat("i/", 15)+"f.txt"))); err != nil || string(b) != "f\n" {
		t.Errorf("the moved file: %q %v", b, err)
	}
}

package toolapi

import (
	"encoding/json"
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
	args := func(kv ...string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
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

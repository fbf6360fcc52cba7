package toolapi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The prefixes of vfsctl's own staging names (temp files, deleted files set aside)
// are refused as path_reserved wherever a tool would make or move to one: the walker
// hides such names, so a model's file under one would vanish from listings and from
// exec records.
func TestStagingNamesAreReserved(t *testing.T) {
	e, dir := openWorkspace(t, map[string]string{"a.txt": "a\n"})
	for _, c := range []struct{ tool, args string }{
		{"create_file", `{"path": "sub/.vfsctl-tmp-x", "content": "mine\n"}`},
		{"create_file", `{"path": ".vfsctl-aside-0123456789abcdef", "content": "mine\n"}`},
		{"move_file", `{"source": "a.txt", "destination": "d/.vfsctl-tmp-a"}`},
		{"create_directory", `{"path": ".vfsctl-tmp-d/"}`},
	} {
		r := call(e.api, c.tool, c.args)
		if r.OK || kindOf(r) != "path_reserved" || !strings.Contains(r.Text, "prefix vfsctl keeps") {
			t.Errorf("%s %s: %s %s", c.tool, c.args, kindOf(r), r.Text)
		}
	}
	got := workFiles(t, dir)
	if _, ok := got["a.txt"]; len(got) != 1 || !ok {
		t.Errorf("the workspace after the refusals: %v", got)
	}
	for _, p := range []string{"sub", "d", ".vfsctl-tmp-d"} {
		if _, err := os.Lstat(filepath.Join(dir, p)); !os.IsNotExist(err) {
			t.Errorf("%s was made", p)
		}
	}
}

package toolapi

import (
	"context"
	"github.com/vfsctl/vfsctl/internal/winetest"
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

// A file someone else named with a staging prefix (.vfsctl-tmp-notes: not of the
// shape vfsctl stages under) is theirs: listed, and a command's removal of it is
// recorded, so undo brings it back.
func TestOthersStagingLikeNamesAreTracked(t *testing.T) {
	e, dir := openWorkspace(t, map[string]string{"sub/.vfsctl-tmp-notes": "mine\n", "a.txt": "a\n"})
	if r := mustCall(t, e, "list_files", `{"path": "sub"}`); !strings.Contains(r, "sub/.vfsctl-tmp-notes") {
		t.Errorf("list_files sub: %s", r)
	}
	winetest.NeedPOSIXShell(t)
	res, err := e.Exec(context.Background(), "s", []string{"sh", "-c", "rm sub/.vfsctl-tmp-notes"}, ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 1 || res.Files[0].Path != "sub/.vfsctl-tmp-notes" {
		t.Fatalf("the exec recorded %+v, want the removal of sub/.vfsctl-tmp-notes", res.Files)
	}
	if r := e.Undo(context.Background(), res.Seq); !r.OK {
		t.Fatalf("undo: %s", r.Text)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "sub/.vfsctl-tmp-notes")); err != nil || string(b) != "mine\n" {
		t.Errorf("after the undo: %q, %v", b, err)
	}
}

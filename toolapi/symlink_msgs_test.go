//go:build !windows

package toolapi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Messages about symlinks name the link the model sent and say what the tools do:
// a symlink itself is never deleted or moved (the file it leads to would be), a
// symlinked folder on the way is named as the symlink, and every tool gives a
// dangling link the same advice. Nothing is changed by any of these calls.
func TestSymlinkMessages(t *testing.T) {
	e, dir := openWorkspace(t, map[string]string{"a.txt": "a\n", "real/q.txt": "q\n"})
	for link, target := range map[string]string{"inlink": "a.txt", "od": "real", "dang": "nowhere"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		tool, args, kind string
		want             []string
		not              string
	}{
		{"delete_file", `{"path": "inlink"}`, "not_a_file",
			[]string{"inlink is a symlink to a.txt", "act on files, not on links", "would remove a.txt, not the link", "nothing was changed"}, "leave the link dangling"},
		{"move_file", `{"source": "a.txt", "destination": "od/a.txt"}`, "file_exists",
			[]string{"od/a.txt goes through od, a symlink", "real/a.txt"}, "od/a.txt is a symlink"},
		{"delete_file", `{"path": "od/q.txt"}`, "not_a_file",
			[]string{"od/q.txt goes through od, a symlink", "Send the file's own path, real/q.txt"}, "od/q.txt is a symlink"},
		{"create_file", `{"path": "od/n.txt", "content": "x"}`, "file_exists",
			[]string{"od/n.txt goes through od, a symlink", "real/n.txt"}, "already exists"},
	}
	dangling := "dang is a dangling symlink: it leads to nowhere, which does not exist. The file tools do not write over or remove a link: create_file nowhere gives the link a file"
	for _, c := range []struct{ tool, args, kind string }{
		{"file_info", `{"path": "dang"}`, "file_not_found"},
		{"create_file", `{"path": "dang", "content": "z"}`, "file_exists"},
		{"write_file", `{"path": "dang", "content": "z"}`, "file_not_found"},
		{"edit_file", `{"path": "dang", "edits": [{"oldText": "a", "newText": "b"}]}`, "file_not_found"},
		{"delete_file", `{"path": "dang"}`, "not_a_file"},
	} {
		cases = append(cases, struct {
			tool, args, kind string
			want             []string
			not              string
		}{c.tool, c.args, c.kind, []string{dangling}, "Use edit_file"})
	}
	for _, c := range cases {
		text := refused(t, e, c.tool, c.args, c.kind)
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s %s: %q lacks %q", c.tool, c.args, text, w)
			}
		}
		if strings.Contains(text, c.not) {
			t.Errorf("%s %s: %q says %q", c.tool, c.args, text, c.not)
		}
	}
	fileIs(t, filepath.Join(dir, "a.txt"), "a\n", 0o644)
	gone(t, filepath.Join(dir, "real", "a.txt"))
	gone(t, filepath.Join(dir, "real", "n.txt"))
	gone(t, filepath.Join(dir, "nowhere"))
	if target, err := os.Readlink(filepath.Join(dir, "dang")); err != nil || target != "nowhere" {
		t.Errorf("dang is now %q (%v)", target, err)
	}
	if text := mustCall(t, e, "file_info", `{"path": "od/q.txt"}`); !strings.Contains(text, "through the symlink od: real/q.txt\n") {
		t.Errorf("file_info od/q.txt:\n%s", text)
	}
}

// list_files shows a symlink as one, with where it leads (a folder with its slash, a
// dangling one said so), never as a file the size of its link text.
func TestListFilesSymlinks(t *testing.T) {
	e, dir := openWorkspace(t, map[string]string{"d/x": "x\n", "a.txt": "a\n"})
	for link, target := range map[string]string{"dl": "d", "al": "a.txt", "dang": "nowhere", "out": "../../outside"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	text := mustCall(t, e, "list_files", `{"sizes": true}`)
	for _, want := range []string{"\ndl -> d/\n", "\nal -> a.txt\n", "\ndang -> nowhere (dangling: nothing is there)\n", "\nout -> (a symlink the file tools do not follow"} {
		if !strings.Contains("\n"+text+"\n", want) {
			t.Errorf("list_files lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "dl (") || strings.Contains(text, "dang (") {
		t.Errorf("a symlink is shown with a size:\n%s", text)
	}
	if text := mustCall(t, e, "list_files", `{"format": "tree"}`); !strings.Contains(text, "\ndl -> d/\n") {
		t.Errorf("tree:\n%s", text)
	}
	text = mustCall(t, e, "list_files", `{"format": "json", "sizes": true}`)
	for _, want := range []string{`"name": "dl",
    "type": "symlink",
    "target": "d/"`, `"name": "dang",
    "type": "symlink",
    "target": "nowhere",
    "dangling": true`} {
		if !strings.Contains(text, want) {
			t.Errorf("json lacks %s:\n%s", want, text)
		}
	}
}

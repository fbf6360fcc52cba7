//go:build !windows

package toolapi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A symlink whose target climbs with ".." out of a folder that does not exist leads
// nowhere. Every file tool refuses it for what it is: outside the workspace, inside
// .git, or not there, naming the missing folder; none claims a race that did not run,
// and nothing is written anywhere. list_files shows such a link as dangling.
func TestLinkThroughMissingFolder(t *testing.T) {
	e, dir := openWorkspace(t, map[string]string{"real.txt": "real\n", ".git/config": "[core]\n"})
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"absout":     outside,
		"gitl":       ".git",
		"t_miss":     "missing/../absout/secret.txt",
		"t_miss_git": "missing/../gitl/config.x",
		"t_real":     "missing/../real.txt",
	}
	for link, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	kinds := map[string]string{"t_miss": "path_outside_root", "t_miss_git": "path_reserved", "t_real": "file_not_found"}
	for link, kind := range kinds {
		for _, c := range []struct{ tool, args string }{
			{"read_file", `{"path": "L"}`},
			{"create_file", `{"path": "L", "content": "x\n"}`},
			{"write_file", `{"path": "L", "content": "x\n"}`},
			{"edit_file", `{"path": "L", "edits": [{"oldText": "real", "newText": "fake"}]}`},
			{"move_file", `{"source": "L", "destination": "moved.txt"}`},
			{"move_file", `{"source": "real.txt", "destination": "L"}`},
		} {
			text := refused(t, e, c.tool, strings.ReplaceAll(c.args, "L", link), kind)
			if strings.Contains(text, "while this call ran") || strings.Contains(text, "replaced") {
				t.Errorf("%s %s: %q claims a race", c.tool, link, text)
			}
			if kind == "file_not_found" && !strings.Contains(text, "missing, a folder that does not exist") {
				t.Errorf("%s %s: %q does not name the missing folder", c.tool, link, text)
			}
		}
	}
	// list_files says where each leads: nowhere, or not followed.
	text := mustCall(t, e, "list_files", `{}`)
	for _, want := range []string{
		"\nt_real -> (dangling: its target climbs out of a folder that does not exist)\n",
		"\nt_miss -> (a symlink the file tools do not follow",
		"\nt_miss_git -> (a symlink the file tools do not follow",
	} {
		if !strings.Contains("\n"+text+"\n", want) {
			t.Errorf("list_files lacks %q:\n%s", want, text)
		}
	}
	fileIs(t, secret, "secret\n", 0o644)
	fileIs(t, filepath.Join(dir, "real.txt"), "real\n", 0o644)
	gone(t, filepath.Join(dir, "missing"))
	gone(t, filepath.Join(dir, "moved.txt"))
	gone(t, filepath.Join(dir, ".git", "config.x"))
	for link, target := range links {
		if got, err := os.Readlink(filepath.Join(dir, link)); err != nil || got != target {
			t.Errorf("%s is now %q (%v)", link, got, err)
		}
	}
}

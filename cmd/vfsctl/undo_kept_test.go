package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/winetest"
)

// modeOf is the mode of folder d of dir as the replies write it.
func modeOf(t *testing.T, dir, d string) string {
	t.Helper()
	fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(d)))
	if err != nil || !fi.IsDir() {
		t.Fatalf("%s/ is said to stay, but on disk: %v", d, err)
	}
	return fmt.Sprintf("%04o", fi.Mode().Perm())
}

// vfsctl undo of a create whose folders hold a file the user put there since says, in
// its text and its --json, that those folders stay and why. Before, it said only that
// the file was removed.
func TestUndoSaysMadeFoldersStayCLI(t *testing.T) {
	for _, asJSON := range []bool{false, true} {
		t.Run(fmt.Sprint("json=", asJSON), func(t *testing.T) {
			dir := t.TempDir()
			call := `{"tool":"create_file","args":{"path":"a/b/f","content":"x\n"}}` + "\n"
			if code, out, errb := cliIn(t, dir, call, "call", "--root", dir, "--session", "s"); code != 0 {
				t.Fatalf("create_file: %s%s", out, errb)
			}
			if err := os.WriteFile(filepath.Join(dir, "a", "b", "mine"), []byte("u\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"undo", "1", "--root", dir}
			if asJSON {
				args = append(args, "--json")
			}
			code, out, errb := cliIn(t, dir, "", args...)
			if code != 0 {
				t.Fatalf("undo: %s%s", out, errb)
			}
			if _, err := os.Lstat(filepath.Join(dir, "a", "b", "f")); !os.IsNotExist(err) {
				t.Fatalf("a/b/f: %v, want it gone", err)
			}
			want := []string{
				"a/b/ stays (mode " + modeOf(t, dir, "a/b") + "): something the call did not make is in it",
				"a/ stays (mode " + modeOf(t, dir, "a") + "): something the call did not make is in it",
			}
			if !asJSON {
				for _, w := range want {
					if !strings.Contains(out, w+".\n") {
						t.Fatalf("the reply does not say %q:\n%s", w, out)
					}
				}
				return
			}
			var rep struct {
				Text string   `json:"text"`
				Kept []string `json:"kept"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if strings.Join(rep.Kept, "\n") != strings.Join(want, "\n") {
				t.Fatalf("kept %q, want %q", rep.Kept, want)
			}
			for _, w := range want {
				if !strings.Contains(rep.Text, w) {
					t.Fatalf("the text does not say %q:\n%s", w, rep.Text)
				}
			}
		})
	}
}

// vfsctl rewind --dry-run names each folder a command made once, as the run does:
// before, each was also said to "go too, if nothing else is in it then". The dry run
// changes nothing.
func TestRewindDryRunNamesFoldersOnce(t *testing.T) {
	winetest.NeedPOSIXShell(t)
	dir := t.TempDir()
	if code, out, errb := cliIn(t, dir, "", "exec", "--root", dir, "--session", "s", "--turn", "t1", "--", "sh", "-c", "mkdir -p a/b/c && echo x > a/b/c/f"); code != 0 {
		t.Fatalf("exec: %s%s", out, errb)
	}
	before := listTree(t, dir)
	code, out, errb := cliIn(t, dir, "", "rewind", "--root", dir, "--session", "s", "--turn", "t1", "--dry-run")
	if code != 0 {
		t.Fatalf("rewind --dry-run: %s%s", out, errb)
	}
	for _, d := range []string{"a/", "a/b/", "a/b/c/"} {
		n := 0
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, d+" ") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("the dry run names %s %d times:\n%s", d, n, out)
		}
	}
	if !strings.Contains(out, "a/b/c/ would be removed (") {
		t.Errorf("the dry run does not say a/b/c/ would be removed:\n%s", out)
	}
	if after := listTree(t, dir); after != before {
		t.Fatalf("the dry run changed the tree:\n%s\nwas\n%s", after, before)
	}
}

// listTree lists dir's files and folders, with their modes and content, but for the
// journal's folder.
func listTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".vfsctl" {
			return filepath.SkipDir
		}
		fi, _ := d.Info()
		rel, _ := filepath.Rel(dir, p)
		data := ""
		if fi.Mode().IsRegular() {
			raw, _ := os.ReadFile(p)
			data = string(raw)
		}
		fmt.Fprintf(&b, "%s %v %q\n", rel, fi.Mode(), data)
		return nil
	})
	return b.String()
}

package txn

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/winetest"
	"github.com/vfsctl/vfsctl/vfs"
)

// A .git/info/exclude that stands there but cannot be used (a folder, a symlink out of
// the root, over 256 KB, unreadable) leaves out nothing: what it lists is recorded as
// any file. The exec's record and reply say why, as they say that a .gitignore could
// not be read, and so does a checkpoint that records an outside change; an exclude
// that is used, or none, is not spoken of.
func TestExcludeUnusedIsSaid(t *testing.T) {
	winetest.NeedPOSIXShell(t)
	cases := []struct {
		name  string
		setup func(t *testing.T, ws string)
		note  string // "": none
	}{
		{"used", func(t *testing.T, ws string) { writeFile(t, ws, ".git/info/exclude", "*.log\n") }, ""},
		{"no .git", func(t *testing.T, ws string) {}, ""},
		{"folder", func(t *testing.T, ws string) { writeFile(t, ws, ".git/info/exclude/x", "*.log\n") },
			".git/info/exclude is a folder"},
		{"symlink out of the root", func(t *testing.T, ws string) {
			out := filepath.Join(t.TempDir(), "exclude")
			writeFile(t, filepath.Dir(out), "exclude", "*.log\n")
			writeFile(t, ws, ".git/info/other", "")
			if err := os.Symlink(out, filepath.Join(ws, ".git", "info", "exclude")); err != nil {
				t.Skipf("no symlink here: %v", err)
			}
		}, ".git/info/exclude is a symlink, which is not followed"},
		{"too large", func(t *testing.T, ws string) {
			writeFile(t, ws, ".git/info/exclude", strings.Repeat("#\n", vfs.MaxIgnoreBytes/2)+"*.log\n")
		}, ".git/info/exclude is over 256 KB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, dir := diskEngineWith(t, map[string]string{"a.txt": "a\n"}, Options{NoSync: true})
			defer e.Close()
			c.setup(t, dir)
			look := runExec(t, e, dir, "s", "echo x > run.log && echo b >> a.txt")
			want := []string{"a.txt:edit", "run.log:create"}
			if c.name == "used" {
				want = want[:1]
			}
			if got := recordPaths(t, e, look.Seq); !slices.Equal(got, want) {
				t.Errorf("the exec's record: %v, want %v", got, want)
			}
			writeFile(t, dir, "outside.log", "o\n")
			cp, err := e.CheckpointOutside(LookOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if c.name != "used" && cp.Seq == 0 {
				t.Fatal("the checkpoint recorded nothing")
			}
			for what, notes := range map[string][]string{"exec reply": look.Notes, "checkpoint reply": cp.Notes} {
				checkExcludeNote(t, what, notes, c.note)
			}
			for _, seq := range []uint64{look.Seq, cp.Seq} {
				if seq != 0 {
					checkExcludeNote(t, fmt.Sprintf("record %d", seq), recordOf(t, e, seq).Notes, c.note)
				}
			}
		})
	}
	t.Run("unreadable", func(t *testing.T) {
		winetest.NeedPOSIXModes(t, "chmod 000 to make the exclude file unreadable")
		want := "ok: f.txt,run.log; .git/info/exclude could not be read" + excludeNoteEnd
		checkAsNobody(t, execExcludeUnreadableRun, want)
	})
}

// excludeNoteEnd is how the note of an unused exclude file goes on after why.
const excludeNoteEnd = "; its rules were not applied, so what it lists is not left out"

// checkExcludeNote checks that notes say of the exclude file note (and the rest of the
// sentence) and nothing else of it; none for note "".
func checkExcludeNote(t *testing.T, what string, notes []string, note string) {
	t.Helper()
	var said []string
	for _, n := range notes {
		if strings.Contains(n, "exclude") {
			said = append(said, n)
		}
	}
	if note == "" && len(said) > 0 || note != "" && !slices.Equal(said, []string{note + excludeNoteEnd}) {
		t.Errorf("%s says of the exclude file %q, want %q (notes %q)", what, said, note, notes)
	}
}

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func execExcludeUnreadableRun(ws string) string {
	p := filepath.Join(ws, ".git", "info", "exclude")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err.Error()
	}
	if err := os.WriteFile(p, []byte("*.log\n"), 0o000); err != nil {
		return err.Error()
	}
	e, look, failed := execScript(ws, "echo x > run.log && echo two > f.txt")
	if failed != "" {
		return failed
	}
	defer e.Close()
	return fmt.Sprintf("ok: %s; %s", strings.Join(journalPaths(look.Files), ","), strings.Join(look.Notes, "; "))
}

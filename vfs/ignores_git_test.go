package vfs

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The trailing whitespace of a .gitignore line, against git itself: an escaped
// trailing space (`tr.txt\ `) matches "tr.txt " and was dropped here, so the file git
// hides was listed; unescaped trailing spaces go, tabs stay, a CR before the line end
// goes. The walk leaves out what `git ls-files --others --exclude-standard` leaves out.
func TestIgnoreTrailingSpacesAsGit(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	ws := t.TempDir()
	rules := "tr.txt\\ \nsp.txt   \ntab.txt\t\ncr.txt\r\nboth\\  \n"
	names := []string{"tr.txt ", "tr.txt", "sp.txt", "sp.txt ", "tab.txt", "tab.txt\t", "cr.txt", "cr.txt\r", "both ", "both  ", "both", "plain.txt"}
	if err := os.WriteFile(filepath.Join(ws, ".gitignore"), []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(ws, n), []byte("x"), 0o644); err != nil {
			t.Skipf("this filesystem takes no name %q: %v", n, err)
		}
	}
	git := exec.Command(gitBin, "-c", "core.quotePath=false", "init", "-q")
	git.Dir = ws
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	git = exec.Command(gitBin, "ls-files", "-z", "--others", "--exclude-standard")
	git.Dir = ws
	out, err := git.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	want := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	slices.Sort(want)
	f, err := Open(ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := walked(f.Walker(), ".")
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("the walk lists %q\ngit lists      %q", got, want)
	}
	if hidden := len(names) + 1 - len(want); hidden < 5 {
		t.Errorf("git hides only %d of the names: the rules do not test much", hidden)
	}
}

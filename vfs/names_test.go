package vfs

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/internal/winetest"
)

// The names of issue 34 and of git's own tests for core.protectHFS and
// core.protectNTFS (t1014-read-tree-confusing), each at the end of a path, as a folder
// in it, and nested: all path_reserved.
var gitRefuses = []string{
	".g\u200cit", ".git.", "GIT~1", "git~1", "\uff0egit", // the issue's
	".git", ".GIT", "\u200c.Git", ".gI\u200cT", ".GiT\u200c", ".git. ", `.\.GIT\foobar`, `.git\foobar`,
	".git...:alternate-stream", ".git::$INDEX_ALLOCATION", ".git:$DATA", ".git ", ".git..",
	".\u200dgit", ".g\u200eit", ".gi\u200ft", ".g\u202ait", ".gi\u206at", "\ufeff.git", ".G\u206fIT",
	"git~1.", "GIT~1 .", "git~1::$DATA", `x\.git`,
	"．ｇｉｔ", ".gıt", // full-width letters; a dotless i, which NTFS upcases to I
}

func TestNamesGitRefusesAreReserved(t *testing.T) {
	f, _, _ := setup(t)
	for _, n := range gitRefuses {
		for _, p := range []string{n, n + "/config", "sub/" + n + "/hooks/pre-commit"} {
			_, err := f.Resolve(p)
			if errs.KindOf(err) != errs.PathReserved {
				t.Errorf("%q: %v, want path_reserved", p, err)
				continue
			}
			// On Windows a backslash parts a path: .git\foobar is .git/ itself there.
			literal := n == ".git" || n == ".GIT" || runtime.GOOS == "windows" && strings.Contains(n, `\`)
			if !literal && !strings.Contains(err.Error(), "which stands for .git/ (on macOS or Windows") {
				t.Errorf("%q: the message does not say what the name stands for: %v", p, err)
			}
		}
	}
}

// Every reserved name of the list, not only .git: the journal's folder and a name an
// operator adds.
func TestNamesFoldedForEveryReservedName(t *testing.T) {
	ws := t.TempDir()
	f, err := Open(ws, Options{Reserved: []string{".vfsctl", ".git", "node_modules", "secrets"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	for _, p := range []string{
		".vfs\u200cctl/journal.db", ".vfsctl./journal.db", ".vfsctl::$DATA", "VFSCTL~1/journal.db", "vfsctl~3", "\uff0evfsctl/holder",
		"NODE_M~1/x.js", "node_modules./x.js", "sec\ufeffrets/key", "SECRETS:stream", "a/secrets ./k",
	} {
		_, err := f.Resolve(p)
		testutil.WantKind(t, err, errs.PathReserved)
	}
	for _, p := range []string{"vfsctl/x", ".vfsctl2/x", "VFSCTL~5", "node_modules2/x", "secrets.txt", "secret/x", "SECRET~1"} {
		if _, err := f.Resolve(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// The filesystem layer refuses a folded name at any step, so a folder made on disk
// under such a name is neither opened nor walked into.
func TestNamesFoldedRefusedOnDisk(t *testing.T) {
	f, ws, _ := setup(t)
	testutil.WriteFile(t, filepath.Join(ws, "GIT~1/config"), "[core]\n")
	testutil.WriteFile(t, filepath.Join(ws, "sub/.g\u200cit/hooks/x"), "#!/bin/sh\n")
	for _, p := range []string{"GIT~1/config", "sub/.g\u200cit/hooks/x"} {
		if _, err := f.Afero().Open(p); err == nil {
			t.Errorf("%s opened through the root", p)
		}
		if err := f.Create(filepath.Dir(p)+"/new", []byte("x")); err == nil {
			t.Errorf("created a file in %s", filepath.Dir(p))
		}
	}
	var seen []string
	f.Walker().Walk("", func(p string, _ os.FileInfo) bool {
		seen = append(seen, p)
		return true
	})
	if len(seen) == 0 {
		t.Fatal("the walk saw nothing")
	}
	for _, p := range seen {
		if strings.Contains(p, "GIT~1") || strings.Contains(p, "\u200c") {
			t.Errorf("the walk went into %s", p)
		}
	}
}

// Names no one confuses with .git stay writable: git's own dotfiles, GitHub's folder,
// a short name git does not take for .git, and invisible joiners where a script needs
// them.
func TestNamesOrdinaryStayWritable(t *testing.T) {
	f, ws, _ := setup(t)
	for _, p := range []string{
		".github/workflows/ci.yml", ".gitignore", ".gitattributes", ".gitmodules", ".gitkeep", ".git-blame-ignore-revs",
		"git~2.txt", "git~1.txt", "GIT~5/x", "docs/.git x/y", "git/config", "x.git/config", "a.git.b",
		"fa/\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645.txt", // Persian: a zero-width non-joiner inside a word
	} {
		if err := f.Create(p, []byte("x\n")); err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if b, err := os.ReadFile(filepath.Join(ws, p)); err != nil || string(b) != "x\n" {
			t.Errorf("%s: not on disk: %q %v", p, b, err)
		}
	}
}

// The bidirectional controls are refused in any name, naming the code point.
func TestNamesBidiControls(t *testing.T) {
	f, ws, _ := setup(t)
	for _, r := range []rune{0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069} {
		for _, p := range []string{"x" + string(r) + "txt.exe", "dir" + string(r) + "/a.go"} {
			_, err := f.Resolve(p)
			testutil.WantKind(t, err, errs.InvalidInput)
			if err != nil && !strings.Contains(err.Error(), fmt.Sprintf("%U", r)) {
				t.Errorf("%q: the message does not name the code point: %v", p, err)
			}
		}
	}
	// Through a symlink to a name that holds one, a new file is refused the same.
	winetest.NeedSymlinks(t)
	os.Symlink("real\u202efdp.exe", filepath.Join(ws, "link"))
	_, err := f.Resolve("link/new.txt")
	testutil.WantKind(t, err, errs.InvalidInput)
	entries, _ := os.ReadDir(ws)
	for _, e := range entries {
		if strings.ContainsAny(e.Name(), "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069") && e.Name() != "real\u202efdp.exe" {
			t.Errorf("created %q", e.Name())
		}
	}
}

// git itself is the oracle: every name git's path check refuses with core.protectHFS
// and core.protectNTFS on is path_reserved here, and every name it accepts is not,
// but for the few this package refuses on purpose beyond git (stricter).
func TestNamesAgainstGit(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	// beyondGit are refused here and accepted by git: git checks only GIT~1 for .git,
	// while a long name that shares the prefix takes GIT~2 to GIT~4 (this package
	// checks those, as git does for its other dotfiles), and git does not fold a
	// full-width dot or letters (NFKC) or upcase a dotless i as NTFS does.
	beyondGit := func(n string) bool {
		return strings.ContainsAny(n, "\uff0e\uff47\uff49\uff54\u0131") ||
			strings.Contains(strings.ToUpper(n), "GIT~2") || strings.Contains(strings.ToUpper(n), "GIT~3") || strings.Contains(strings.ToUpper(n), "GIT~4")
	}
	var names []string
	bases := []string{".git", ".GiT", "git~1", "GIT~1", "git~2", "git~5", "gIt~1", ".gitignore", ".github", ".gitmodules", "git", ".gi", ".gitx", "x.git", "\uff0egit", ".g\u0131t"}
	suffixes := []string{"", ".", "..", ". .", ":", ":$DATA", "::$INDEX_ALLOCATION", "...:alternate-stream", "x", ".txt", " x", `\x`, "~1", "-"}
	for _, b := range bases {
		for _, s := range suffixes {
			for _, pre := range []string{"", `x\`, `.\`, "y"} {
				names = append(names, pre+b+s)
			}
		}
		for _, z := range []rune{0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202e, 0x206a, 0x206f, 0xfeff, 0x200b, 0x00ad} {
			for i := 0; i <= len(b); i++ {
				names = append(names, b[:i]+string(z)+b[i:])
			}
		}
	}
	names = append(names, gitRefuses...)

	repo := t.TempDir()
	run := func(stdin string, args ...string) []byte {
		cmd := exec.Command(gitBin, append([]string{"-C", repo, "-c", "core.protectHFS=true", "-c", "core.protectNTFS=true"}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+repo)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return out
	}
	run("", "init", "-q")
	blob := strings.TrimSpace(string(run("x\n", "hash-object", "-w", "--stdin")))
	var info strings.Builder
	for _, n := range names {
		info.WriteString("100644 " + blob + "\t" + n + "\n")
	}
	run(info.String(), "update-index", "--add", "--index-info") // refused paths are left out
	accepted := map[string]bool{}
	for _, n := range bytes.Split(run("", "ls-files", "-z"), []byte{0}) {
		accepted[string(n)] = true
	}

	f, _, _ := setup(t)
	refused := 0
	for _, n := range names {
		_, err := f.Resolve(n + "/f")
		reserved := errs.KindOf(err) == errs.PathReserved
		switch {
		case !accepted[n] && !reserved:
			t.Errorf("git refuses %q, here: %v", n, err)
		case accepted[n] && reserved && !beyondGit(n):
			t.Errorf("git accepts %q, here it is reserved: %v", n, err)
		}
		if !accepted[n] {
			refused++
		}
	}
	if refused < 100 || len(accepted) < 100 {
		t.Fatalf("git refused %d and accepted %d of %d names: the oracle did not run as meant", refused, len(accepted), len(names))
	}
	t.Logf("%d names: git refused %d, accepted %d", len(names), refused, len(accepted))
}

package vfs

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// gitRepo makes a repository at ws with git, its own configuration only (no user's
// core.excludesFile), and returns a runner of git in it; it skips when git is not
// installed.
func gitRepo(t *testing.T, ws string) func(args ...string) string {
	t.Helper()
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	home := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		git := exec.Command(gitBin, args...)
		git.Dir = ws
		git.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+filepath.Join(home, "none"))
		out, err := git.Output()
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return string(out)
	}
	run("init", "-q")
	return run
}

// writeTree writes files (path: content) below ws.
func writeTree(t *testing.T, ws string, files map[string]string) {
	t.Helper()
	for p, data := range files {
		full := filepath.Join(ws, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// gitFiles are the files git shows below prefix ("" for all): untracked and not
// ignored, sorted.
func gitFiles(run func(args ...string) string, prefix string) []string {
	var out []string
	for _, p := range strings.Split(run("ls-files", "-z", "--others", "--exclude-standard"), "\x00") {
		if p != "" && strings.HasPrefix(p, prefix) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// filesOf are the files of a walk's list (folders end in a slash), sorted.
func filesOf(list []string) []string {
	out := slices.DeleteFunc(slices.Clone(list), func(p string) bool { return strings.HasSuffix(p, "/") })
	slices.Sort(out)
	return out
}

// .git/info/exclude, against git itself: the walk, one by one and on several
// goroutines, leaves out the files that `git ls-files --others --exclude-standard`
// leaves out, with the precedence git gives it: under every .gitignore, so that a
// .gitignore's negation shows what exclude hides (neg.txt, sub/x.txt, dist/) and
// exclude's negation does not show what a .gitignore hides (gi.txt, tmp/). Before exclude was read,
// every file it alone hides was listed.
func TestExcludeAsGit(t *testing.T) {
	ws := t.TempDir()
	run := gitRepo(t, ws)
	tree := map[string]string{
		".git/info/exclude": "# as git writes it\n*.log\n!keep.log\nx.txt\nbuild/\nneg.txt\nsub/deep.txt\n!gi.txt\ndist/\n!tmp/\n",
		".gitignore":        "!neg.txt\ngi.txt\n!dist/\ntmp/\n",
		"dist/a.txt":        "x", "tmp/a.txt": "x",
		"sub/.gitignore": "!x.txt\n",
		"a.log":          "x", "keep.log": "x", "x.txt": "x", "neg.txt": "x", "gi.txt": "x", "plain.txt": "x",
		"build/out.bin": "x", "sub/x.txt": "x", "sub/deep.txt": "x", "sub/plain.log": "x", "sub/plain.txt": "x",
	}
	writeTree(t, ws, tree)
	want := gitFiles(run, "")
	for _, hidden := range []string{"a.log", "x.txt", "build/out.bin", "sub/deep.txt", "sub/plain.log", "gi.txt", "tmp/a.txt"} {
		if slices.Contains(want, hidden) {
			t.Fatalf("git shows %s: the rules do not test what they should (git lists %q)", hidden, want)
		}
	}
	for _, shown := range []string{"neg.txt", "sub/x.txt", "keep.log", "dist/a.txt"} {
		if !slices.Contains(want, shown) {
			t.Fatalf("git hides %s: the rules do not test what they should (git lists %q)", shown, want)
		}
	}
	f, err := Open(ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := filesOf(walked(f.Walker(), ".")); !slices.Equal(got, want) {
		t.Errorf("the walk lists %q\ngit lists      %q", got, want)
	}
	w := f.Walker()
	if got := filesOf(walkedAll(w, ".")); !slices.Equal(got, want) {
		t.Errorf("WalkAll lists %q\ngit lists    %q", got, want)
	}
	if !slices.Contains(w.Ignored, "build/") || !slices.Contains(w.Ignored, "a.log") {
		t.Errorf("what exclude left out is not in Ignored (a file a call writes there is followed by it): %q", w.Ignored)
	}
	// The rules a look judges by (those the snapshot keeps) hide what git hides.
	ig := NewIgnores(map[string][]byte{".": []byte(tree[".gitignore"]), "sub": []byte(tree["sub/.gitignore"])}, []byte(tree[".git/info/exclude"]))
	for p := range tree {
		if strings.HasPrefix(p, ".git/") {
			continue
		}
		if hid := ig.Hid(p, false); hid == slices.Contains(want, p) {
			t.Errorf("Ignores.Hid(%s) is %v, git shows it: %v", p, hid, !hid)
		}
	}
	// A walk of a subfolder (list_files of sub) applies it too: its patterns are
	// from the root.
	if got, want := filesOf(walked(f.Walker(), "sub")), gitFiles(run, "sub/"); !slices.Equal(got, want) {
		t.Errorf("the walk of sub lists %q\ngit lists          %q", got, want)
	}
	// includeIgnored shows all.
	w = f.Walker()
	w.IncludeIgnored = true
	if got := walked(w, "."); !slices.Contains(got, "a.log") || !slices.Contains(got, "build/out.bin") {
		t.Errorf("a walk with IncludeIgnored left out what exclude names: %q", got)
	}
}

// Only a .git folder at the root is read, and only a regular exclude file of at most
// MaxIgnoreBytes in it, opened without following a symlink: a gitfile or a symlink
// naming a repository elsewhere (whose exclude git does apply), a .git/info or an
// exclude that is a symlink out of the root, a FIFO (which would block the walk), an
// exclude too large: each is not used, and the walk ends and lists x.txt. A hostile
// content is read without harm, its usable lines used.
func TestExcludeNotReadPastTheRoot(t *testing.T) {
	elsewhere := t.TempDir()
	writeTree(t, elsewhere, map[string]string{"info/exclude": "x.txt\n", "exclude": "x.txt\n"})
	cases := map[string]func(t *testing.T, ws string){
		"gitfile": func(t *testing.T, ws string) {
			// git itself hides x.txt here: the repository's exclude applies.
			sep := filepath.Join(t.TempDir(), "repo.git")
			run := gitRepo(t, ws)
			if err := os.RemoveAll(filepath.Join(ws, ".git")); err != nil {
				t.Fatal(err)
			}
			run("init", "-q", "--separate-git-dir="+sep)
			writeTree(t, sep, map[string]string{"info/exclude": "x.txt\n"})
			if slices.Contains(gitFiles(run, ""), "x.txt") {
				t.Fatal("git shows x.txt: the case tests nothing")
			}
		},
		"symlink .git": func(t *testing.T, ws string) {
			symlink(t, elsewhere, filepath.Join(ws, ".git"))
		},
		"symlink info": func(t *testing.T, ws string) {
			writeTree(t, ws, map[string]string{".git/HEAD": "ref: refs/heads/main\n"})
			symlink(t, filepath.Join(elsewhere, "info"), filepath.Join(ws, ".git", "info"))
		},
		"symlink exclude": func(t *testing.T, ws string) {
			writeTree(t, ws, map[string]string{".git/info/other": ""})
			symlink(t, filepath.Join(elsewhere, "exclude"), filepath.Join(ws, ".git", "info", "exclude"))
		},
		"fifo": func(t *testing.T, ws string) {
			writeTree(t, ws, map[string]string{".git/info/other": ""})
			mkfifo(t, filepath.Join(ws, ".git", "info", "exclude"))
		},
		"too large": func(t *testing.T, ws string) {
			writeTree(t, ws, map[string]string{".git/info/exclude": strings.Repeat("#\n", MaxIgnoreBytes/2) + "x.txt\n"})
		},
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			ws := t.TempDir()
			writeTree(t, ws, map[string]string{"x.txt": "x", "y.txt": "y"})
			setup(t, ws)
			if got := walkedSoon(t, ws); !slices.Contains(got, "x.txt") || !slices.Contains(got, "y.txt") {
				t.Errorf("the walk lists %q: an exclude file it should not read was used", got)
			}
		})
	}
	t.Run("hostile content", func(t *testing.T) {
		ws := t.TempDir()
		bad := "[\n\\\n\x00\n/\n!\n\xff\xfe\n" + strings.Repeat("*", 10000) + "a\n" + strings.Repeat("*a", 200) + "\nx.txt\n"
		writeTree(t, ws, map[string]string{".git/info/exclude": bad, "x.txt": "x", "y.txt": "y"})
		if got := walkedSoon(t, ws); slices.Contains(got, "x.txt") || !slices.Contains(got, "y.txt") {
			t.Errorf("the walk lists %q: x.txt left out, y.txt listed expected", got)
		}
	})
}

// symlink makes link point at target, or skips where the system makes none.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symlink here: %v", err)
	}
}

// walkedSoon walks ws as WalkAll does, failing if the walk does not end in time.
func walkedSoon(t *testing.T, ws string) []string {
	t.Helper()
	f, err := Open(ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	done := make(chan []string, 1)
	go func() { done <- walkedAll(f.Walker(), ".") }()
	select {
	case got := <-done:
		return got
	case <-time.After(10 * time.Second):
		t.Fatal("the walk did not end")
		return nil
	}
}

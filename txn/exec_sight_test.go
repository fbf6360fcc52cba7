package txn

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/winetest"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/vfs"
)

// recordOf is record seq as the journal holds it.
func recordOf(t *testing.T, e *Engine, seq uint64) *journal.Record {
	t.Helper()
	var r *journal.Record
	e.View(func(tx *journal.Tx) error { r, _ = tx.Get(seq); return nil })
	if r == nil {
		t.Fatalf("no record %d", seq)
	}
	return r
}

func undoSeq(e *Engine, seq uint64) error {
	_, err := undoRedo(e, seq, false)
	return err
}

// undoRedo undoes call seq, or redoes it (seq an undo), and returns its own call.
func undoRedo(e *Engine, seq uint64, redo bool) (uint64, error) {
	var self uint64
	err := do(e, "op", func(c *Call) error {
		self = c.Seq()
		_, err := e.Undo(c, UndoOptions{Seq: seq, Redo: redo})
		return err
	})
	return self, err
}

// An exec that changes .gitignore: a file it stops ignoring was the user's, not made
// by the command, and one it starts ignoring is still there, not deleted (its change,
// if the command changed it too, is the command's). The undo of the exec takes back
// only what the command did and is not refused; the user's files are as they were
// (one it removed comes back, one it changed is changed back), whether the exec ended, vfsctl stopped while it ran (recovery records it),
// or the .gitignore was changed by hand (an outside record).
func TestExecThatChangesGitignore(t *testing.T) {
	files := map[string]string{
		".gitignore":      "secret.txt\nbuild/\n",
		"secret.txt":      "the user's, ignored\n",
		"build/out.o":     "the user's build\n",
		"notes.txt":       "the user's notes\n",
		"sub/.gitignore":  "",
		"sub/private.txt": "the user's, seen\n",
		"sub/kept.txt":    "the user's, seen too\n",
	}
	// secret.txt and build/out.o come into sight, sub/private.txt and sub/kept.txt go
	// out of it, private.txt changed on the way (an edit); notes.txt goes out of sight
	// removed, a delete.
	script := "echo notes.txt > .gitignore && rm notes.txt && echo made > made.txt && printf 'private.txt\nkept.txt\n' > sub/.gitignore && echo more >> sub/private.txt"
	// The same changes, made by the test itself where no command runs them.
	change := func(t *testing.T, dir string) {
		writeAs(t, dir, ".gitignore", "notes.txt\n")
		if err := os.Remove(filepath.Join(dir, "notes.txt")); err != nil {
			t.Fatal(err)
		}
		writeAs(t, dir, "made.txt", "made\n")
		writeAs(t, dir, "sub/.gitignore", "private.txt\nkept.txt\n")
		writeAs(t, dir, "sub/private.txt", files["sub/private.txt"]+"more\n")
	}
	// The oracle: the user's files as the test wrote them, and what the command made.
	check := func(t *testing.T, e *Engine, dir string, seq uint64) {
		t.Helper()
		r := recordOf(t, e, seq)
		var paths []string
		for _, f := range r.Files {
			paths = append(paths, f.Path+":"+string(f.Op))
		}
		slices.Sort(paths)
		want := []string{".gitignore:edit", "made.txt:create", "notes.txt:delete", "sub/.gitignore:edit", "sub/private.txt:edit"}
		if !slices.Equal(paths, want) {
			t.Errorf("the record's files: %v, want %v", paths, want)
		}
		if rep, err := e.Fsck(false); err != nil || !rep.OK() {
			t.Errorf("fsck after the exec: %+v %v", rep, err)
		}
		if err := undoSeq(e, seq); err != nil {
			t.Fatalf("undo of the exec: %v", err)
		}
		for p, want := range files {
			if got, err := os.ReadFile(filepath.Join(dir, p)); err != nil || string(got) != want {
				t.Errorf("%s after the undo: %q, %v; want %q", p, got, err, want)
			}
		}
		if _, err := os.Lstat(filepath.Join(dir, "made.txt")); !os.IsNotExist(err) {
			t.Errorf("made.txt after the undo: %v, want it removed", err)
		}
		// The next look after the undo (the rules are back) records nothing.
		look, err := e.CheckpointOutside(LookOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if look.Seq != 0 {
			t.Errorf("the look after the undo journaled %+v", look.Files)
		}
	}
	t.Run("ended", func(t *testing.T) {
		winetest.NeedPOSIXShell(t)
		e, dir := diskEngineWith(t, files, Options{NoSync: true})
		defer e.Close()
		look := runExec(t, e, dir, "s", script)
		check(t, e, dir, look.Seq)
	})
	t.Run("stopped", func(t *testing.T) {
		e, dir := diskEngineWith(t, files, Options{NoSync: true})
		x, err := e.BeginExec("s", "t1", ExecArgs{Argv: []string{"sh", "-c", script}, Cwd: "."}, LookOptions{})
		if err != nil {
			t.Fatal(err)
		}
		change(t, dir)
		e.Close()
		e2 := diskEngineOn(t, dir, Options{NoSync: true})
		defer e2.Close()
		check(t, e2, dir, x.Seq())
	})
	t.Run("outside", func(t *testing.T) {
		e, dir := diskEngineWith(t, files, Options{NoSync: true})
		defer e.Close()
		if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
			t.Fatal(err)
		}
		change(t, dir)
		look, err := e.CheckpointOutside(LookOptions{})
		if err != nil {
			t.Fatal(err)
		}
		check(t, e, dir, look.Seq)
	})
}

// writeAs writes name in dir as a command such as sed -i does: a new file renamed
// over the old one.
func writeAs(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p+".new", []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(p+".new", p); err != nil {
		t.Fatal(err)
	}
}

// An exec beside a call on the same file keeps what its record refers to: the
// command's change runs from the call's result (or to the call's prior content),
// contents the call's record may hold only as lines. fsck finds every blob the
// record says it kept, and the exec's undo and redo still go by lines, keeping the
// call's.
func TestExecBesideACallKeepsWhatItRefersTo(t *testing.T) {
	for _, cmdFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("command first %v", cmdFirst), func(t *testing.T) {
			e, dir := diskEngineWith(t, map[string]string{"f.txt": "one\ntwo\nthree\nfour\nfive\n"}, Options{NoSync: true})
			defer e.Close()
			x, err := e.BeginExec("s", "", ExecArgs{Argv: []string{"sed"}}, LookOptions{})
			if err != nil {
				t.Fatal(err)
			}
			sed := func() { // sed -i s/four/FOUR/ f.txt
				b, err := os.ReadFile(filepath.Join(dir, "f.txt"))
				if err != nil {
					t.Fatal(err)
				}
				writeAs(t, dir, "f.txt", strings.Replace(string(b), "four", "FOUR", 1))
			}
			if cmdFirst {
				sed()
			}
			if err := edit(e, "other", "f.txt", "one\n", "ONE\n"); err != nil {
				t.Fatal(err)
			}
			if !cmdFirst {
				sed()
			}
			look, err := x.End("exit 0")
			if err != nil {
				t.Fatal(err)
			}
			rep, err := e.Fsck(false)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.OK() {
				t.Errorf("fsck after the exec: %+v", rep.Problems)
			}
			read := func() string {
				b, _ := os.ReadFile(filepath.Join(dir, "f.txt"))
				return string(b)
			}
			undo, err := undoRedo(e, look.Seq, false)
			if err != nil {
				t.Fatal(err)
			}
			if got := read(); got != "ONE\ntwo\nthree\nfour\nfive\n" {
				t.Errorf("after undoing the exec: %q, want the call's line 1 kept", got)
			}
			if _, err := undoRedo(e, undo, true); err != nil {
				t.Fatal(err)
			}
			if got := read(); got != "ONE\ntwo\nthree\nFOUR\nfive\n" {
				t.Errorf("after the redo: %q", got)
			}
			if rep, err := e.Fsck(false); err != nil || !rep.OK() {
				t.Errorf("fsck at the end: %+v %v", rep, err)
			}
		})
	}
}

// The rules a look applies to the last snapshot are those the walk used: a .gitignore
// over what a walk reads is not used, so a file made where its lines would match is
// the command's, even when the snapshot holds it by hash only; one held by hash only
// that the walk did read (under a small size limit) is of unknown rules, which hide
// everything below its folder: the careful answer.
func TestLookAppliesTheGitignoresTheWalkUsed(t *testing.T) {
	big := "made.txt\n" + strings.Repeat("# filler\n", vfs.MaxIgnoreBytes/9+1)
	for _, c := range []struct {
		name   string
		ignore string
		o      LookOptions
		made   bool
	}{
		{"over the walk's limit", big, LookOptions{MaxFile: 4}, true},
		{"held by hash only", "other.txt\n", LookOptions{MaxFile: 4}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, dir := diskEngineWith(t, map[string]string{"sub/.gitignore": c.ignore}, Options{NoSync: true})
			defer e.Close()
			x, err := e.BeginExec("s", "", ExecArgs{Argv: []string{"gen"}}, c.o)
			if err != nil {
				t.Fatal(err)
			}
			// echo made > sub/made.txt && echo '' >> sub/.gitignore
			writeAs(t, dir, "sub/made.txt", "made\n")
			writeAs(t, dir, "sub/.gitignore", c.ignore+"\n")
			look, err := x.End("exit 0")
			if err != nil {
				t.Fatal(err)
			}
			got := slices.ContainsFunc(look.Files, func(f journal.File) bool { return f.Path == "sub/made.txt" && f.Op == journal.OpCreate })
			if got != c.made {
				t.Errorf("sub/made.txt recorded as made: %v, want %v (files %v, notes %q)", got, c.made, journalPaths(look.Files), look.Notes)
			}
		})
	}
}

// Random commands rewrite .gitignore (ignoring and unignoring the user's files and a
// folder of them), make a new file, and change a file they can see; each exec is
// undone at once. The oracle is the whole tree read from the disk before the
// command, ignored files included: the undo must give it back exactly, never
// removing a file the command did not make, never refused.
func TestUndoOfExecsThatToggleGitignoreGivesBackTheTree(t *testing.T) {
	seeds := 2
	if testing.Short() {
		seeds = 1
	}
	names := []string{"u0.txt", "u1.txt", "u2.txt", "dir/", "dir/u3.txt"}
	for seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(seed), 36))
			e, dir := diskEngineWith(t, map[string]string{
				".gitignore": "u1.txt\n", "u0.txt": "u0\n", "u1.txt": "u1\n", "u2.txt": "u2\n",
				"dir/u3.txt": "u3\n", "dir/u4.txt": "u4\n",
			}, Options{NoSync: true})
			defer e.Close()
			if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
				t.Fatal(err)
			}
			ignored := map[string]bool{"u1.txt": true}
			hidden := func(p string) bool { return ignored[p] || ignored["dir/"] && strings.HasPrefix(p, "dir/") }
			rules := func() (string, map[string]bool) {
				var lines []string
				set := map[string]bool{}
				for _, n := range names {
					if rng.IntN(2) == 0 {
						lines, set[n] = append(lines, n), true
					}
				}
				return fmt.Sprintf("printf '%s' > .gitignore", strings.Join(append(lines, ""), "\\n")), set
			}
			for round := range 10 {
				if rng.IntN(2) == 0 {
					// Rules that stay: the next command starts from them.
					var set string
					set, ignored = rules()
					runExec(t, e, dir, "s", set)
				}
				before := tree(t, dir)
				var script []string
				// A change of a file the command sees before it rewrites the rules.
				if u := []string{"u0.txt", "u1.txt", "u2.txt", "dir/u3.txt", "dir/u4.txt"}[rng.IntN(5)]; !hidden(u) {
					script = append(script, []string{"echo more >> " + u, "chmod 0600 " + u}[rng.IntN(2)])
				}
				set, _ := rules()
				script = append(script, set)
				if rng.IntN(2) == 0 {
					script = append(script, fmt.Sprintf("echo made > n%d.txt", round))
				}
				look := runExec(t, e, dir, "s", strings.Join(script, " && "))
				if err := undoSeq(e, look.Seq); err != nil {
					t.Fatalf("round %d (%s): undo: %v", round, strings.Join(script, " && "), err)
				}
				if got := tree(t, dir); !same(got, before) {
					t.Fatalf("round %d (%s): after the undo:\n got  %v\n want %v", round, strings.Join(script, " && "), got, before)
				}
				if rep, err := e.Fsck(false); err != nil || !rep.OK() {
					t.Fatalf("round %d: fsck: %+v %v", round, rep, err)
				}
			}
		})
	}
}

// A file a call made where .gitignore hides it (build/gen.txt, .env), then changed by
// a command of the same turn: the command's change is the command's, in its record,
// and the turn's rewind takes back both, where it was refused as "a change made
// outside vfsctl". A file the command made there that no call wrote (build/other.txt)
// stays out of sight: not recorded, left by the rewind. The same when vfsctl stopped
// while the command ran and recovery records it.
func TestFileACallWroteWhereGitignoreHidesItIsFollowed(t *testing.T) {
	files := map[string]string{".gitignore": "build/\n.env\n", "notes.txt": "the user's\n"}
	script := "echo two >> build/gen.txt && echo B=2 >> .env && echo x > build/other.txt"
	check := func(t *testing.T, e *Engine, dir string, seq uint64) {
		t.Helper()
		var paths []string
		for _, f := range recordOf(t, e, seq).Files {
			paths = append(paths, f.Path+":"+string(f.Op))
		}
		slices.Sort(paths)
		if want := []string{".env:edit", "build/gen.txt:edit"}; !slices.Equal(paths, want) {
			t.Errorf("the exec's files: %v, want %v", paths, want)
		}
		if err := rewindTo(e, "s", "t1", false); err != nil {
			t.Fatalf("rewind of the turn: %v", err)
		}
		// The oracle: the tree as the test wrote it, and the file no call wrote.
		want := map[string]string{".gitignore": files[".gitignore"], "notes.txt": files["notes.txt"], "build/other.txt": "x\n"}
		got := map[string]string{}
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			rel, _ := filepath.Rel(dir, p)
			if d.IsDir() && rel == ".vfsctl" {
				return filepath.SkipDir
			}
			if !d.IsDir() {
				b, _ := os.ReadFile(p)
				got[filepath.ToSlash(rel)] = string(b)
			}
			return nil
		})
		if !maps.Equal(got, want) {
			t.Errorf("the tree after the rewind: %q, want %q", got, want)
		}
		look, err := e.CheckpointOutside(LookOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if look.Seq != 0 {
			t.Errorf("the look after the rewind journaled %+v %v", look.Files, look.Notes)
		}
	}
	setup := func(t *testing.T) (*Engine, string) {
		e, dir := diskEngineWith(t, files, Options{NoSync: true})
		if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
			t.Fatal(err)
		}
		must(t, turnCreate(e, "s", "t1", "build/gen.txt", "one\n"))
		must(t, turnCreate(e, "s", "t1", ".env", "A=1\n"))
		return e, dir
	}
	t.Run("ended", func(t *testing.T) {
		e, dir := setup(t)
		defer e.Close()
		look := runExec(t, e, dir, "s", script)
		check(t, e, dir, look.Seq)
	})
	t.Run("stopped", func(t *testing.T) {
		winetest.NeedPOSIXShell(t)
		e, dir := setup(t)
		x, err := e.BeginExec("s", "t1", ExecArgs{Argv: []string{"sh", "-c", script}, Cwd: "."}, LookOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("sh", "-c", script)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		e.Close()
		e2 := diskEngineOn(t, dir, Options{NoSync: true})
		defer e2.Close()
		check(t, e2, dir, x.Seq())
	})
}

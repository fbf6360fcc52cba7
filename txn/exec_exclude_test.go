package txn

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// recordPaths are a record's files as path:op, sorted.
func recordPaths(t *testing.T, e *Engine, seq uint64) []string {
	t.Helper()
	var paths []string
	for _, f := range recordOf(t, e, seq).Files {
		paths = append(paths, f.Path+":"+string(f.Op))
	}
	slices.Sort(paths)
	return paths
}

// What .git/info/exclude names is left out of an exec's look as what a .gitignore
// names is: a command's log and build output are not recorded (they were, as made),
// and a change of the exclude file between two looks is told as one of a .gitignore:
// a file that comes into sight was not made (its undo would remove the user's file),
// one that goes out of sight was not removed; and a look that finds no entry changed
// still keeps the new rules, so that the next look does not judge by the old.
func TestExecLeavesOutWhatGitInfoExcludeNames(t *testing.T) {
	t.Run("left out", func(t *testing.T) {
		e, dir := diskEngineWith(t, map[string]string{".git/info/exclude": "*.log\nbuild/\n", "a.txt": "a\n"}, Options{NoSync: true})
		defer e.Close()
		look := runExec(t, e, dir, "s", "echo x > run.log && mkdir build && echo o > build/out.o && echo b >> a.txt")
		if got, want := recordPaths(t, e, look.Seq), []string{"a.txt:edit"}; !slices.Equal(got, want) {
			t.Errorf("the record's files: %v, want %v", got, want)
		}
	})
	t.Run("changed by the command", func(t *testing.T) {
		files := map[string]string{".git/info/exclude": "secret.txt\n", "secret.txt": "the user's\n", "notes.txt": "the user's notes\n"}
		e, dir := diskEngineWith(t, files, Options{NoSync: true})
		defer e.Close()
		look := runExec(t, e, dir, "s", "echo notes.txt > .git/info/exclude && echo made > made.txt")
		if got, want := recordPaths(t, e, look.Seq), []string{"made.txt:create"}; !slices.Equal(got, want) {
			t.Errorf("the record's files: %v, want %v (notes %q)", got, want, recordOf(t, e, look.Seq).Notes)
		}
		if err := undoSeq(e, look.Seq); err != nil {
			t.Fatalf("undo of the exec: %v", err)
		}
		for _, p := range []string{"secret.txt", "notes.txt"} {
			if got, err := os.ReadFile(filepath.Join(dir, p)); err != nil || string(got) != files[p] {
				t.Errorf("%s after the undo: %q, %v; want %q", p, got, err, files[p])
			}
		}
		if _, err := os.Lstat(filepath.Join(dir, "made.txt")); !os.IsNotExist(err) {
			t.Errorf("made.txt after the undo: %v, want it removed", err)
		}
		// No undo writes into .git: the exclude file stays as the command left it.
		if got, err := os.ReadFile(filepath.Join(dir, ".git", "info", "exclude")); err != nil || string(got) != "notes.txt\n" {
			t.Errorf(".git/info/exclude after the undo: %q, %v; want the command's", got, err)
		}
		if look, err := e.CheckpointOutside(LookOptions{}); err != nil || look.Seq != 0 {
			t.Errorf("the look after the undo journaled %+v, %v", look, err)
		}
	})
	t.Run("changed with nothing else", func(t *testing.T) {
		e, dir := diskEngineWith(t, map[string]string{".git/info/exclude": "gen.txt\n", "a.txt": "a\n"}, Options{NoSync: true})
		defer e.Close()
		if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
			t.Fatal(err)
		}
		writeAs(t, dir, ".git/info/exclude", "# none\n")
		if look, err := e.CheckpointOutside(LookOptions{}); err != nil || look.Seq != 0 {
			t.Fatalf("a look that found only the exclude changed journaled %+v, %v", look, err)
		}
		look := runExec(t, e, dir, "s", "echo g > gen.txt")
		if got, want := recordPaths(t, e, look.Seq), []string{"gen.txt:create"}; !slices.Equal(got, want) {
			t.Errorf("the record's files: %v, want %v (notes %q)", got, want, recordOf(t, e, look.Seq).Notes)
		}
	})
}

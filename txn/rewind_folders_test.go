package txn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
)

// turnCall runs fn as one call of session s labelled with turn.
func turnCall(e *Engine, s, turn string, fn func(c *Call) error) error {
	return do(e, s, func(c *Call) error { c.SetTurn(turn); return fn(c) })
}

func turnCreate(e *Engine, s, turn, p, content string) error {
	return turnCall(e, s, turn, func(c *Call) error { _, err := e.Create(c, p, []byte(content)); return err })
}

func turnDelete(e *Engine, s, turn, p string) error {
	return turnCall(e, s, turn, func(c *Call) error {
		if e.fs.IsFolder(p) {
			return e.RemoveFolder(c, p)
		}
		_, err := e.Apply(c, []Spec{{Path: p, Op: journal.OpDelete}}, false)
		return err
	})
}

func turnMkdir(e *Engine, s, turn, p string) error {
	return turnCall(e, s, turn, func(c *Call) error { _, err := e.MakeFolders(c, p); return err })
}

// rewindTo rewinds session s to before turn, as a call of the operator.
func rewindTo(e *Engine, s, turn string, dry bool) error {
	return do(e, "op", func(c *Call) error {
		_, err := e.Rewind(c, RewindOptions{Session: s, Turn: turn, DryRun: dry})
		return err
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A rewind takes out what the turns put in a folder they made before the folder, as
// undoing the calls one by one, newest first, would: the folders a create made for
// its file go with the folders a create_directory made, whichever holds the other.
// Something the turns did not make inside refuses it, naming that, and nothing
// changes.
func TestRewindEmptiesTheTurnsFoldersFirst(t *testing.T) {
	t.Run("created file in a made folder", func(t *testing.T) {
		e, dir := diskEngineWith(t, map[string]string{"keep.txt": "k\n"}, Options{NoSync: true})
		defer e.Close()
		before := tree(t, dir)
		must(t, turnMkdir(e, "s", "t1", "d"))
		must(t, turnCreate(e, "s", "t2", "d/sub/f.txt", "x\n"))
		must(t, turnCreate(e, "s", "t2", "d/g.txt", "y\n"))
		must(t, rewindTo(e, "s", "t1", true))
		must(t, rewindTo(e, "s", "t1", false))
		if got := tree(t, dir); !same(got, before) {
			t.Fatalf("after the rewind:\n got  %v\n want %v", got, before)
		}
	})
	t.Run("made folder in a created file's folder", func(t *testing.T) {
		e, dir := diskEngineWith(t, map[string]string{"keep.txt": "k\n"}, Options{NoSync: true})
		defer e.Close()
		before := tree(t, dir)
		must(t, turnCreate(e, "s", "t1", "a/f.txt", "x\n"))
		must(t, turnMkdir(e, "s", "t2", "a/b/c"))
		must(t, turnCreate(e, "s", "t2", "a/b/c/d/g.txt", "y\n"))
		must(t, rewindTo(e, "s", "t1", false))
		if got := tree(t, dir); !same(got, before) {
			t.Fatalf("after the rewind:\n got  %v\n want %v", got, before)
		}
	})
	t.Run("someone else's file inside refuses it", func(t *testing.T) {
		e, dir := diskEngineWith(t, map[string]string{"keep.txt": "k\n"}, Options{NoSync: true})
		defer e.Close()
		must(t, turnMkdir(e, "s", "t1", "d"))
		must(t, turnCreate(e, "s", "t2", "d/sub/f.txt", "x\n"))
		os.WriteFile(filepath.Join(dir, "d/sub/mine.txt"), []byte("mine\n"), 0o644)
		now := tree(t, dir)
		for _, dry := range []bool{true, false} {
			err := rewindTo(e, "s", "t1", dry)
			if errs.KindOf(err) != errs.Conflict || !strings.Contains(err.Error(), "d/sub/mine.txt") {
				t.Fatalf("dry run %v: %v, want a conflict naming d/sub/mine.txt", dry, err)
			}
			if got := tree(t, dir); !same(got, now) {
				t.Fatalf("a refused rewind changed the tree:\n got  %v\n want %v", got, now)
			}
		}
	})
}

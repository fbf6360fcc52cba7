package txn

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
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

// An undo whose path's folder has been replaced by a file is a conflict that names
// the path and what stands in the way, and writes nothing; so is a rewind.
func TestUndoUnderAFolderReplacedByAFile(t *testing.T) {
	cases := []struct {
		name string
		do   func(e *Engine) error // the call undone; d/ is then replaced by a file
		path string
	}{
		{"deleted file", func(e *Engine) error {
			must(t, turnCreate(e, "s", "t0", "d/f.txt", "hi\n"))
			return turnDelete(e, "s", "t1", "d/f.txt")
		}, "d/f.txt"},
		{"edited file", func(e *Engine) error {
			must(t, turnCreate(e, "s", "t0", "d/f.txt", "one\n"))
			return turnCall(e, "s", "t1", func(c *Call) error {
				_, err := e.Write(c, "d/f.txt", []byte("two\n"))
				return err
			})
		}, "d/f.txt"},
		{"removed folder", func(e *Engine) error {
			must(t, turnMkdir(e, "s", "t0", "d/sub"))
			return turnDelete(e, "s", "t1", "d/sub")
		}, "d/sub"},
		{"created file two folders down", func(e *Engine) error {
			must(t, turnMkdir(e, "s", "t0", "d"))
			return turnCreate(e, "s", "t1", "d/sub/f.txt", "x\n")
		}, "d/sub/f.txt"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, dir := diskEngineWith(t, map[string]string{"keep.txt": "k\n"}, Options{NoSync: true})
			defer e.Close()
			must(t, read(e, "s", "keep.txt"))
			must(t, tc.do(e))
			var last uint64
			e.View(func(tx *journal.Tx) error { last = tx.Last(); return nil })
			must(t, os.RemoveAll(filepath.Join(dir, "d")))
			must(t, os.WriteFile(filepath.Join(dir, "d"), []byte("a file\n"), 0o644))
			now := tree(t, dir)
			for _, how := range []string{"undo", "dry rewind", "rewind"} {
				err := do(e, "op", func(c *Call) error {
					if how == "undo" {
						_, err := e.Undo(c, UndoOptions{Seq: last})
						return err
					}
					_, err := e.Rewind(c, RewindOptions{Session: "s", Turn: "t1", DryRun: how == "dry rewind"})
					return err
				})
				if k := errs.KindOf(err); k != errs.Conflict || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), "d is a file") {
					t.Errorf("%s: %v (%s), want a conflict naming %s and saying d is a file", how, err, k, tc.path)
				}
				if got := tree(t, dir); !same(got, now) {
					t.Fatalf("%s: a refused call changed the tree:\n got  %v\n want %v", how, got, now)
				}
			}
		})
	}
}

// A rewind's conflict names the calls whose changes meet the lines in conflict, and
// only those: the command it advises to run first is one that clears the way.
func TestRewindConflictNamesTheCallInTheWay(t *testing.T) {
	var lines strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&lines, "line %d\n", i)
	}
	seqOf := func(e *Engine) (last uint64) {
		e.View(func(tx *journal.Tx) error { last = tx.Last(); return nil })
		return last
	}
	t.Run("another session's calls", func(t *testing.T) {
		e, _ := diskEngineWith(t, map[string]string{"f.txt": lines.String()}, Options{NoSync: true})
		defer e.Close()
		must(t, read(e, "s", "f.txt"))
		must(t, turnCall(e, "s", "t1", func(c *Call) error {
			_, err := e.Edit(c, "f.txt", []matcher.Edit{{OldText: "line 2\n", NewText: "line two\n"}}, false)
			return err
		}))
		must(t, edit(e, "o", "f.txt", "line 1\n", "zero\nline 1\n")) // shifts the lines, meets none
		top := seqOf(e)
		must(t, edit(e, "o", "f.txt", "line 15\n", "line fifteen\n"))
		fifteen := seqOf(e)
		must(t, edit(e, "o", "f.txt", "line two\n", "line TWO\n"))
		two := seqOf(e)
		must(t, edit(e, "o", "f.txt", "line 18\n", "line eighteen\n"))
		eighteen := seqOf(e)
		err := rewindTo(e, "s", "t1", false)
		var x *errs.Error
		if !errors.As(err, &x) || x.Kind != errs.Conflict || x.Blocker != two {
			t.Fatalf("%v, want a conflict blocked by call %d", err, two)
		}
		if !strings.Contains(err.Error(), fmt.Sprintf("Call %d (session o) touched f.txt", two)) {
			t.Errorf("%v: want call %d named", err, two)
		}
		for _, s := range []uint64{top, fifteen, eighteen} {
			if strings.Contains(err.Error(), fmt.Sprintf(" %d ", s)) || strings.Contains(err.Error(), fmt.Sprintf("%d (session", s)) {
				t.Errorf("%v: names call %d, which changed other lines", err, s)
			}
		}
	})
	t.Run("a change outside vfsctl", func(t *testing.T) {
		e, dir := diskEngineWith(t, map[string]string{"f.txt": lines.String()}, Options{NoSync: true})
		defer e.Close()
		must(t, read(e, "s", "f.txt"))
		must(t, turnCall(e, "s", "t1", func(c *Call) error {
			_, err := e.Edit(c, "f.txt", []matcher.Edit{{OldText: "line 2\n", NewText: "line two\n"}}, false)
			return err
		}))
		must(t, edit(e, "o", "f.txt", "line 15\n", "line fifteen\n"))
		fifteen := seqOf(e)
		data, _ := os.ReadFile(filepath.Join(dir, "f.txt"))
		os.WriteFile(filepath.Join(dir, "f.txt"), []byte(strings.Replace(string(data), "line two\n", "line 2 by hand\n", 1)), 0o644)
		err := rewindTo(e, "s", "t1", false)
		var x *errs.Error
		if !errors.As(err, &x) || x.Kind != errs.Conflict || x.Blocker != 0 || !strings.Contains(err.Error(), "outside vfsctl") {
			t.Fatalf("%v, want a conflict with a change made outside vfsctl", err)
		}
		if strings.Contains(err.Error(), fmt.Sprintf("%d (session", fifteen)) {
			t.Errorf("%v: names call %d, which changed other lines", err, fifteen)
		}
	})
}

// A rewind where a folder and a file trade places removes what goes before it puts
// back what comes, as undoing the calls one by one would: a file comes back where a
// folder the turns made stands, a folder where a file the turns made stands. Its dry
// run gives the same verdict as the real run on the same tree, and the undo of the
// rewind brings the turns back.
func TestRewindSwapsAFolderAndAFile(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, e *Engine, dir string)
		turns func(t *testing.T, e *Engine)
		after func(t *testing.T, dir string) // someone's change after the turns
		want  errs.Kind                      // "": the rewind passes
	}{
		{name: "file back where a made folder stands", setup: func(t *testing.T, e *Engine, dir string) {
			must(t, turnCreate(e, "setup", "", "x", "old\n"))
		}, turns: func(t *testing.T, e *Engine) {
			must(t, turnDelete(e, "s", "t1", "x"))
			must(t, turnCreate(e, "s", "t1", "x/in/f.txt", "in\n"))
		}},
		{name: "file back where a created folder stands", setup: func(t *testing.T, e *Engine, dir string) {
			must(t, turnCreate(e, "setup", "", "x", "old\n"))
		}, turns: func(t *testing.T, e *Engine) {
			must(t, turnDelete(e, "s", "t1", "x"))
			must(t, turnMkdir(e, "s", "t1", "x/in"))
			must(t, turnCreate(e, "s", "t2", "x/in/f.txt", "in\n"))
			must(t, turnMkdir(e, "s", "t2", "x/empty"))
		}},
		{name: "empty folder back where a created file stands", setup: func(t *testing.T, e *Engine, dir string) {
			must(t, turnMkdir(e, "setup", "", "d"))
		}, turns: func(t *testing.T, e *Engine) {
			must(t, turnDelete(e, "s", "t1", "d"))
			must(t, turnCreate(e, "s", "t1", "d", "a file\n"))
		}},
		{name: "folder back where a created file stands", setup: func(t *testing.T, e *Engine, dir string) {
			must(t, turnMkdir(e, "setup", "", "d"))
			must(t, turnCreate(e, "setup", "", "d/k.txt", "k\n"))
			must(t, os.Chmod(filepath.Join(dir, "d"), 0o750))
			must(t, turnCreate(e, "setup", "", "e/sub/j.txt", "j\n"))
		}, turns: func(t *testing.T, e *Engine) {
			must(t, turnDelete(e, "s", "t1", "d/k.txt"))
			must(t, turnDelete(e, "s", "t1", "d"))
			must(t, turnCreate(e, "s", "t1", "d", "a file\n"))
			must(t, turnDelete(e, "s", "t2", "e/sub/j.txt"))
			must(t, turnDelete(e, "s", "t2", "e/sub"))
			must(t, turnCreate(e, "s", "t2", "e/sub", "a file\n"))
		}},
		{name: "someone else's file in the folder", setup: func(t *testing.T, e *Engine, dir string) {
			must(t, turnCreate(e, "setup", "", "x", "old\n"))
		}, turns: func(t *testing.T, e *Engine) {
			must(t, turnDelete(e, "s", "t1", "x"))
			must(t, turnCreate(e, "s", "t1", "x/in/f.txt", "in\n"))
		}, after: func(t *testing.T, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, "x/in/mine.txt"), []byte("mine\n"), 0o644))
		}, want: errs.Conflict},
		{name: "someone else's file in the created folder", setup: func(t *testing.T, e *Engine, dir string) {
			must(t, turnCreate(e, "setup", "", "x", "old\n"))
		}, turns: func(t *testing.T, e *Engine) {
			must(t, turnDelete(e, "s", "t1", "x"))
			must(t, turnMkdir(e, "s", "t1", "x"))
		}, after: func(t *testing.T, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, "x/mine.txt"), []byte("mine\n"), 0o644))
		}, want: errs.Conflict},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, dir := diskEngineWith(t, map[string]string{"keep.txt": "k\n"}, Options{NoSync: true})
			defer e.Close()
			tc.setup(t, e, dir)
			before := tree(t, dir)
			tc.turns(t, e)
			if tc.after != nil {
				tc.after(t, dir)
			}
			now := tree(t, dir)
			dry := rewindTo(e, "s", "t1", true)
			if got := tree(t, dir); !same(got, now) {
				t.Fatalf("the dry run changed the tree:\n got  %v\n want %v", got, now)
			}
			err := rewindTo(e, "s", "t1", false)
			if errs.KindOf(dry) != errs.KindOf(err) {
				t.Fatalf("the dry run said %v, the rewind %v", dry, err)
			}
			if tc.want != "" {
				if errs.KindOf(err) != tc.want {
					t.Fatalf("%v, want %s", err, tc.want)
				}
				if got := tree(t, dir); !same(got, now) {
					t.Fatalf("a refused rewind changed the tree:\n got  %v\n want %v", got, now)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := tree(t, dir); !same(got, before) {
				t.Fatalf("after the rewind:\n got  %v\n want %v", got, before)
			}
			var seq uint64
			e.View(func(tx *journal.Tx) error { seq = tx.Last(); return nil })
			must(t, do(e, "op", func(c *Call) error { _, err := e.Undo(c, UndoOptions{Seq: seq}); return err }))
			if got := tree(t, dir); !same(got, now) {
				t.Fatalf("after the undo of the rewind:\n got  %v\n want %v", got, now)
			}
		})
	}
}

// The folders a create made, left empty by the turns and removed by the rewind, are
// journaled with it: the undo of the rewind makes them again with their bits, its
// redo removes them again, and a rewind whose files end as they were still removes
// them. The same holds for the undo of a create and its redo.
func TestUndoOfARewindMakesItsEmptyFoldersAgain(t *testing.T) {
	undo := func(e *Engine, redo bool) error {
		return do(e, "op", func(c *Call) error { _, err := e.Undo(c, UndoOptions{Redo: redo}); return err })
	}
	t.Run("rewind", func(t *testing.T) {
		e, dir := diskEngineWith(t, map[string]string{"keep.txt": "k\n"}, Options{NoSync: true})
		defer e.Close()
		before := tree(t, dir)
		must(t, turnCreate(e, "s", "t1", "a/b/f.txt", "x\n"))
		must(t, turnDelete(e, "s", "t1", "a/b/f.txt"))
		must(t, os.Chmod(filepath.Join(dir, "a", "b"), 0o700))
		turned := tree(t, dir)
		must(t, rewindTo(e, "s", "t1", false))
		if got := tree(t, dir); !same(got, before) {
			t.Fatalf("after the rewind:\n got  %v\n want %v", got, before)
		}
		must(t, undo(e, false))
		if got := tree(t, dir); !same(got, turned) {
			t.Fatalf("after the undo of the rewind:\n got  %v\n want %v", got, turned)
		}
		must(t, undo(e, true))
		if got := tree(t, dir); !same(got, before) {
			t.Fatalf("after the redo:\n got  %v\n want %v", got, before)
		}
	})
	t.Run("undo of a create", func(t *testing.T) {
		e, dir := diskEngineWith(t, map[string]string{"keep.txt": "k\n"}, Options{NoSync: true})
		defer e.Close()
		before := tree(t, dir)
		must(t, turnCreate(e, "s", "t1", "a/b/f.txt", "x\n"))
		must(t, os.Chmod(filepath.Join(dir, "a"), 0o711))
		made := tree(t, dir)
		must(t, undo(e, false))
		if got := tree(t, dir); !same(got, before) {
			t.Fatalf("after the undo:\n got  %v\n want %v", got, before)
		}
		must(t, undo(e, true)) // the redo makes a/ again with its bits
		if got := tree(t, dir); !same(got, made) {
			t.Fatalf("after the redo:\n got  %v\n want %v", got, made)
		}
	})
}

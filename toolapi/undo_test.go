package toolapi

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fileEngine opens an engine over a fresh workspace holding f.txt with content.
func fileEngine(t *testing.T, content string) (*Engine, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, dir
}

// Undo, Redo and Revert are one path: what one does, the others see, and a dry run
// writes nothing.
func TestUndoRedoRevert(t *testing.T) {
	e, dir := fileEngine(t, "one\ntwo\n")
	file := filepath.Join(dir, "f.txt")
	ctx := context.Background()
	content := func() string { b, _ := os.ReadFile(file); return string(b) }
	edit := func(old, new string) {
		t.Helper()
		args, _ := json.Marshal(map[string]any{"path": "f.txt", "edits": []map[string]string{{"oldText": old, "newText": new}}})
		if res := e.Call(ctx, "s", EditFile, args); !res.OK {
			t.Fatalf("edit %q: %s", old, res.Text)
		}
	}
	edit("one", "ONE") // call 1
	edit("two", "TWO") // call 2

	dry := e.Revert(ctx, UndoRequest{Seq: 1, DryRun: true})
	if !dry.OK || !strings.HasPrefix(dry.Text, "Dry run, nothing written") || len(dry.Files) != 1 || content() != "ONE\nTWO\n" {
		t.Fatalf("dry run: %+v; file %q", dry, content())
	}
	undo := e.Undo(ctx, 1) // call 4 (the dry run was call 3)
	if !undo.OK || content() != "one\nTWO\n" {
		t.Fatalf("undo: %s; file %q", undo.Text, content())
	}
	redo := e.Redo(ctx, uint64(*undo.Txn))
	if !redo.OK || redo.Tool != "redo" || content() != "ONE\nTWO\n" {
		t.Fatalf("redo: %s; file %q", redo.Text, content())
	}
	// Bare undo picks the newest change not yet undone: the redo.
	rep := e.Revert(ctx, UndoRequest{Path: "f.txt"})
	if !rep.OK || content() != "one\nTWO\n" {
		t.Fatalf("bare undo: %+v; file %q", rep, content())
	}
}

// A conflict with a later change names the call to undo first, in the caller's words
// when it gives them.
func TestUndoConflictAdvice(t *testing.T) {
	e, _ := fileEngine(t, "one\n")
	ctx := context.Background()
	for _, c := range [][2]string{{"one", "two"}, {"two", "three"}} {
		args, _ := json.Marshal(map[string]any{"path": "f.txt", "edits": []map[string]string{{"oldText": c[0], "newText": c[1]}}})
		if res := e.Call(ctx, "s", EditFile, args); !res.OK {
			t.Fatal(res.Text)
		}
	}
	if res := e.Undo(ctx, 1); res.OK || *res.Kind != string(Conflict) || !strings.Contains(res.Text, "call 2") {
		t.Fatalf("undo under a later change: %+v", res)
	}
	rep := e.Revert(ctx, UndoRequest{Seq: 1, FirstAdvice: func(first uint64) string { return "Take back the other one." }})
	if rep.OK || rep.Kind != string(Conflict) || !strings.HasSuffix(rep.Text, "Take back the other one.") {
		t.Fatalf("with advice: %+v", rep)
	}
}

// Undoing a create removes the folders that create made, once they are empty, and
// says so; folders that were there before, or that hold another file now, stay. The
// tree is checked on disk after each step.
func TestUndoOfCreateRemovesTheFoldersItMade(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "old", "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	e, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	create := func(p string) {
		t.Helper()
		args, _ := json.Marshal(map[string]string{"path": p, "content": "x\n"})
		if res := e.Call(ctx, "s", CreateFile, args); !res.OK {
			t.Fatalf("create %s: %s", p, res.Text)
		}
	}
	tree := func() string {
		var out []string
		filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
			rel, _ := filepath.Rel(dir, p)
			if rel == ".vfsctl" {
				return filepath.SkipDir
			}
			if rel != "." {
				out = append(out, filepath.ToSlash(rel))
			}
			return nil
		})
		return strings.Join(out, " ")
	}
	create("new/deep/er/a.txt") // call 1 makes new, new/deep, new/deep/er
	create("new/b.txt")         // call 2 makes none
	create("old/sub/c.txt")     // call 3 makes old/sub
	create("link/d.txt")        // call 4 makes link
	create("old/empty/x/e.txt") // call 5 makes old/empty/x

	// A dry run names the folders that would go, and removes nothing.
	before := tree()
	if d := e.Revert(ctx, UndoRequest{Seq: 1, DryRun: true}); !d.OK || !slices.Equal(d.Folders, []string{"new/deep/er", "new/deep", "new"}) ||
		!strings.Contains(d.Text, "new/deep/ would go too, if nothing else is in it then") || tree() != before {
		t.Fatalf("dry run of undo 1: %+v; tree %s", d, tree())
	}
	u := e.Revert(ctx, UndoRequest{Seq: 1})
	if !u.OK || !slices.Equal(u.Folders, []string{"new/deep/er", "new/deep"}) || !strings.Contains(u.Text, "new/deep/er/ removed (empty; the call had made it).") {
		t.Fatalf("undo of call 1: %+v", u)
	}
	if got, want := tree(), "link link/d.txt new new/b.txt old old/empty old/empty/x old/empty/x/e.txt old/sub old/sub/c.txt"; got != want {
		t.Errorf("after undoing call 1 the tree is\n%s\nwant\n%s", got, want)
	}
	// A redo makes them again (the undo journaled their removal), and its undo
	// removes them again.
	if r := e.Revert(ctx, UndoRequest{Seq: u.Txn, Redo: true}); !r.OK || !strings.Contains(tree(), "new/deep/er/a.txt") || len(r.Entries) != 2 {
		t.Fatalf("redo: %+v", r)
	}
	if r := e.Revert(ctx, UndoRequest{}); !r.OK || len(r.Entries) != 2 || strings.Contains(tree(), "new/deep") {
		t.Fatalf("undo of the redo: %+v; tree %s", r, tree())
	}
	// A folder a later create still uses stays; a folder that was there before stays.
	if r := e.Revert(ctx, UndoRequest{Seq: 5}); !r.OK || !slices.Equal(r.Folders, []string{"old/empty/x"}) {
		t.Fatalf("undo of call 5: %+v", r)
	}
	if got, want := tree(), "link link/d.txt new new/b.txt old old/empty old/sub old/sub/c.txt"; got != want {
		t.Errorf("at the end the tree is\n%s\nwant\n%s", got, want)
	}
}

// Undoing a call that changed no file says why it changed none: refused, a dry run,
// or a call that changes nothing, such as a read.
func TestUndoOfACallThatChangedNothingSaysWhy(t *testing.T) {
	e, dir := fileEngine(t, "a\n")
	ctx := context.Background()
	for _, args := range []string{
		`{"path": "f.txt", "edits": [{"oldText": "zzz", "newText": "b"}]}`,
		`{"path": "f.txt", "edits": [{"oldText": "a", "newText": "b"}], "dryRun": true}`,
	} {
		e.Call(ctx, "s", EditFile, json.RawMessage(args))
	}
	e.Call(ctx, "s", ReadFile, json.RawMessage(`{"path": "f.txt"}`))
	for seq, want := range map[uint64]string{
		1: "Call 1 (edit_file) was refused, so it changed nothing: there is nothing to undo.",
		2: "Call 2 (edit_file) was a dry run, so it changed nothing: there is nothing to undo.",
		3: "Call 3 (read_file) changed no file: there is nothing to undo.",
	} {
		if r := e.Revert(ctx, UndoRequest{Seq: seq}); r.OK || r.Kind != "invalid_input" || r.Text != want {
			t.Errorf("undo %d: %+v, want %q", seq, r, want)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(got) != "a\n" {
		t.Errorf("f.txt holds %q", got)
	}
}

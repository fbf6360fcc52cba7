package toolapi

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Undo, Redo and Revert are one path: what one does, the others see, and a dry run
// writes nothing.
func TestUndoRedoRevert(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(file, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
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
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
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

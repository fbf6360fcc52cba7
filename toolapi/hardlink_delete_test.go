//go:build !windows

package toolapi

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Deleting one name of a hard-linked file, then undoing it, cannot join the names
// again: the undo writes the content anew. Both replies say so, and what they say is
// checked against the disk: after the undo a.txt and b.txt are two inodes. A move
// renames the inode, so its undo keeps the link, and says nothing of it.
func TestDeleteHardLinkedThenUndoSaysSo(t *testing.T) {
	e, dir := openWorkspace(t, map[string]string{"a.txt": "orig\n", "c.txt": "c\n"})
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	if err := os.Link(a, b); err != nil {
		t.Skip("no hard links here:", err)
	}
	text := mustCall(t, e, "delete_file", `{"path": "a.txt"}`)
	if !strings.Contains(text, "It had 2 hard links: the file stays under its other names. undo_edit a.txt puts back a copy, a file of its own, not linked to them again.") {
		t.Errorf("delete reply: %q", text)
	}
	dry := e.Revert(context.Background(), UndoRequest{Seq: 1, DryRun: true})
	if !strings.Contains(dry.Text, "a.txt would be put back (5 bytes) as a file of its own: it had 2 hard links when it was deleted") {
		t.Errorf("dry-run undo reply: %q", dry.Text)
	}
	text = mustCall(t, e, "undo_edit", `{"path": "a.txt"}`)
	if !strings.Contains(text, "a.txt put back (5 bytes) as a file of its own: it had 2 hard links when it was deleted, and its other names are not linked to it again.") {
		t.Errorf("undo reply: %q", text)
	}
	fileIs(t, a, "orig\n", 0o644)
	if sameInode(t, a, b) {
		t.Error("the reply says a copy, but a.txt and b.txt share an inode")
	}

	// A move keeps the inode, and its undo too: no note.
	c, d := filepath.Join(dir, "c.txt"), filepath.Join(dir, "d.txt")
	os.Link(c, d)
	if text := mustCall(t, e, "move_file", `{"source": "c.txt", "destination": "e.txt"}`); strings.Contains(text, "hard links") {
		t.Errorf("move reply: %q", text)
	}
	if text := mustCall(t, e, "undo_edit", `{"path": "e.txt"}`); strings.Contains(text, "hard links") || strings.Contains(text, "of its own") {
		t.Errorf("undo of the move: %q", text)
	}
	if !sameInode(t, c, d) {
		t.Error("the undo of a move split the link")
	}
	// A file with one link says nothing of links.
	if text := mustCall(t, e, "delete_file", `{"path": "b.txt"}`); strings.Contains(text, "hard links") {
		t.Errorf("delete of a single file: %q", text)
	}
}

func sameInode(t *testing.T, x, y string) bool {
	t.Helper()
	a, err1 := os.Stat(x)
	b, err2 := os.Stat(y)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	return a.Sys().(*syscall.Stat_t).Ino == b.Sys().(*syscall.Stat_t).Ino
}

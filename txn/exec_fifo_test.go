//go:build !windows

package txn

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/vfsctl/vfsctl/journal"
)

// regular reads the regular file at p (never opening a FIFO, which would block).
func regular(p string) (string, error) {
	if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
		return "", os.ErrNotExist
	}
	b, err := os.ReadFile(p)
	return string(b), err
}

// fifoIno is the inode of the FIFO at p, or 0 when none stands there.
func fifoIno(t *testing.T, p string) uint64 {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return 0
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// A command's FIFOs are entries of its record, with their identity, and its undo
// removes them (one in a folder it made too, before the folder goes), naming them;
// the redo does not make them again, and says so.
func TestUndoOfExecRemovesTheFIFOsItMade(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"a.txt": "a\n"}, Options{NoSync: true})
	defer e.Close()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	look := runExec(t, e, dir, "s", "mkfifo p && mkdir d && mkfifo d/q")
	ino := fifoIno(t, filepath.Join(dir, "p"))
	var fifo *journal.Entry
	for i, en := range look.Entries {
		if en.Path == "p" {
			fifo = &look.Entries[i]
		}
	}
	if fifo == nil || fifo.After != journal.KindFIFO || fifo.Ino != ino || fifo.Ctime == 0 {
		t.Fatalf("the exec's entries %+v, want p a fifo of inode %d with its change time", look.Entries, ino)
	}
	var res *UndoResult
	var undo uint64
	if err := do(e, "op", func(c *Call) (err error) {
		res, err = e.Undo(c, UndoOptions{Seq: look.Seq})
		undo = c.Seq()
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"p", "d/q", "d"} {
		if _, err := os.Lstat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s stands after the undo of the command that made it", p)
		}
	}
	named := map[string]bool{}
	for _, en := range res.Entries {
		named[en.Path] = en.Before == journal.KindFIFO && en.After == ""
	}
	if !named["p"] || !named["d/q"] {
		t.Errorf("the undo's entries %+v do not name p and d/q as FIFOs removed", res.Entries)
	}
	if next, err := e.CheckpointOutside(LookOptions{}); err != nil || next.Seq != 0 {
		t.Errorf("the look after the undo recorded %+v (%v): the undo's removal is no outside change", next, err)
	}
	if err := do(e, "op", func(c *Call) (err error) {
		res, err = e.Undo(c, UndoOptions{Seq: undo, Redo: true})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "d")); err != nil || !fi.IsDir() {
		t.Errorf("d after the redo: %v, want the folder made again", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "p")); err == nil {
		t.Errorf("the redo made a FIFO at p")
	}
	if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, "p: the fifo the command made is not made again") {
		t.Errorf("the redo does not say p is not made again: %q", res.Notes)
	}
}

// A FIFO made at the path since the command made its own (a new inode: another
// process's, perhaps in use) is kept: the undo is refused, naming it, and nothing is
// written; once it is moved aside, the undo goes through.
func TestUndoOfExecKeepsAFIFOMadeSince(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"f.txt": "f\n"}, Options{NoSync: true})
	defer e.Close()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	look := runExec(t, e, dir, "s", "mkfifo p && rm f.txt && mkfifo f.txt")
	for _, p := range []string{"p", "f.txt"} {
		// Made while the command's stands, so never the same inode.
		other := filepath.Join(dir, p+".theirs")
		if err := mkfifo(other); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(other, filepath.Join(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	theirs := fifoIno(t, filepath.Join(dir, "p"))
	err := do(e, "op", func(c *Call) error { _, err := e.Undo(c, UndoOptions{Seq: look.Seq}); return err })
	if err == nil || !strings.Contains(err.Error(), "is a fifo, but not the one the command made there") || !strings.Contains(err.Error(), "kept") {
		t.Fatalf("the undo with other FIFOs at p and f.txt: %v, want a conflict naming one and saying it is kept", err)
	}
	if fifoIno(t, filepath.Join(dir, "p")) != theirs || fifoIno(t, filepath.Join(dir, "f.txt")) == 0 {
		t.Fatalf("the refused undo changed p or f.txt")
	}
	os.Remove(filepath.Join(dir, "p"))
	os.Remove(filepath.Join(dir, "f.txt"))
	if err := do(e, "op", func(c *Call) error { _, err := e.Undo(c, UndoOptions{Seq: look.Seq}); return err }); err != nil {
		t.Fatal(err)
	}
	if got, err := regular(filepath.Join(dir, "f.txt")); err != nil || got != "f\n" {
		t.Errorf("f.txt after the undo: %q %v", got, err)
	}
}

// The command's FIFO in a file's place, still the one it made: the undo removes it
// and puts the file back.
func TestUndoOfExecPutsTheFileBackWhereItsFIFOStands(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"f.txt": "f\n"}, Options{NoSync: true})
	defer e.Close()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	look := runExec(t, e, dir, "s", "rm f.txt && mkfifo f.txt")
	if err := do(e, "op", func(c *Call) error { _, err := e.Undo(c, UndoOptions{Seq: look.Seq}); return err }); err != nil {
		t.Fatal(err)
	}
	if got, err := regular(filepath.Join(dir, "f.txt")); err != nil || got != "f\n" {
		t.Errorf("f.txt after the undo: %q %v", got, err)
	}
}

// A rewind of the turn whose command made a FIFO removes it with the rest.
func TestRewindRemovesTheFIFOATurnsCommandMade(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"a.txt": "a\n"}, Options{NoSync: true})
	defer e.Close()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	runExec(t, e, dir, "s", "mkfifo p && echo A > a.txt")
	var res *RewindResult
	if err := do(e, "op", func(c *Call) (err error) {
		res, err = e.Rewind(c, RewindOptions{Session: "s", Turn: "t1"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "p")); err == nil {
		t.Errorf("p stands after the rewind of the turn that made it")
	}
	if got, _ := regular(filepath.Join(dir, "a.txt")); got != "a\n" {
		t.Errorf("a.txt after the rewind: %q", got)
	}
	if len(res.Entries) != 1 || res.Entries[0].Path != "p" || res.Entries[0].Before != journal.KindFIFO {
		t.Errorf("the rewind's entries %+v, want p's FIFO removed", res.Entries)
	}
}

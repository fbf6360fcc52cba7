package toolapi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/internal/winetest"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/txn"
	"github.com/vfsctl/vfsctl/vfs"
)

// folders is every folder below dir with its permission bits, as the disk has it.
func folders(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() || p == dir {
			return err
		}
		if d.Name() == ".vfsctl" {
			return filepath.SkipDir
		}
		fi, _ := d.Info()
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = fi.Mode().Perm().String()
		return nil
	})
	return out
}

// workFiles is tree without the journal's own folder.
func workFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := tree(t, dir)
	for p := range out {
		if strings.HasPrefix(p, ".vfsctl/") {
			delete(out, p)
		}
	}
	return out
}

// Every folder create_directory makes, and every folder delete_file or a move of a
// folder removes, reaches the disk only while the journal holds a pending record
// naming it: the workspace is
// reached through a FaultFs whose hook looks at the journal at each mkdir and rmdir.
func TestFolderStepsAreJournaledFirst(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFile(t, filepath.Join(dir, "src/x.txt"), "x\n")
	testutil.WriteFile(t, filepath.Join(dir, "src/sub/y.txt"), "y\n")
	ffs := &testutil.FaultFs{Fs: afero.NewBasePathFs(afero.NewOsFs(), dir)}
	eng, err := txn.Open(vfs.New(ffs, vfs.Options{}), txn.Options{JournalPath: filepath.Join(t.TempDir(), "journal.db")})
	if err != nil {
		t.Fatal(err)
	}
	a := newDispatcher(eng)
	defer eng.Close()
	want := []string{"p", "p/q", "p/q/r", "src", "src/sub"}
	var stepped, unjournaled []string
	ffs.SetHook(func(op testutil.Op, name string) error {
		name = strings.TrimPrefix(filepath.ToSlash(name), "/")
		if (op != testutil.OpMkdir && op != testutil.OpRemove) || !slices.Contains(want, name) {
			return nil
		}
		stepped = append(stepped, fmt.Sprintf("%s %s", op, name))
		named := false
		eng.View(func(t *journal.Tx) error {
			for _, seq := range t.Pending() {
				if r, _ := t.Get(seq); r != nil {
					for _, en := range r.Entries {
						named = named || en.Path == name
					}
				}
			}
			return nil
		})
		if !named {
			unjournaled = append(unjournaled, fmt.Sprintf("%s %s", op, name))
		}
		return nil
	})
	if r := call(a, "create_directory", `{"path": "p/q/r"}`); !r.OK {
		t.Fatalf("create_directory: %s", r.Text)
	}
	if r := call(a, "delete_file", `{"path": "p/q/r"}`); !r.OK {
		t.Fatalf("delete_file: %s", r.Text)
	}
	if r := call(a, "move_file", `{"source": "src", "destination": "dst"}`); !r.OK {
		t.Fatalf("move_file: %s", r.Text)
	}
	ffs.SetHook(nil)
	if len(stepped) != 6 {
		t.Fatalf("the hook saw %v; want three mkdirs and three removals", stepped)
	}
	if len(unjournaled) > 0 {
		t.Errorf("reached the disk with no pending record naming the folder: %v", unjournaled)
	}
}

// undo_edit of create_directory removes the folders it made, parents included; of a
// folder's removal, makes it again with its bits; a redo does the call again. A
// folder that holds something now is not removed: the undo is a conflict naming it
// and what is in it, and nothing changes.
func TestUndoOfFolderCalls(t *testing.T) {
	e, dir := openWorkspace(t, map[string]string{"keep.txt": "k\n"})
	ctx := context.Background()
	empty := folders(t, dir)

	mustCall(t, e, "create_directory", `{"path": "a/b/c"}`)
	text := mustCall(t, e, "undo_edit", `{"path": "a/b/c"}`)
	if got := folders(t, dir); fmt.Sprint(got) != fmt.Sprint(empty) {
		t.Errorf("after the undo of create_directory the folders are %v, want %v; reply %q", got, empty, text)
	}
	if !strings.Contains(text, "a/b/c/ removed") {
		t.Errorf("the undo's reply does not say what it removed: %q", text)
	}

	// Something put in a folder the call made: the undo refuses, naming it.
	mustCall(t, e, "create_directory", `{"path": "a/b/c"}`)
	testutil.WriteFile(t, filepath.Join(dir, "a/b/note.txt"), "mine\n")
	before, files := folders(t, dir), workFiles(t, dir)
	msg := refused(t, e, "undo_edit", `{"path": "a/b/c"}`, "conflict")
	if !strings.Contains(msg, "a/b/") || !strings.Contains(msg, "a/b/note.txt") {
		t.Errorf("the conflict does not name the folder and what is in it: %q", msg)
	}
	if got := folders(t, dir); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Errorf("a refused undo changed the folders: %v, want %v", got, before)
	}
	if got := workFiles(t, dir); fmt.Sprint(got) != fmt.Sprint(files) {
		t.Errorf("a refused undo changed the files: %v, want %v", got, files)
	}
	os.Remove(filepath.Join(dir, "a/b/note.txt"))

	// A folder's removal: undo makes it again with its bits; redo removes it again.
	os.Mkdir(filepath.Join(dir, "private"), 0o700)
	os.Chmod(filepath.Join(dir, "private"), 0o700)
	mustCall(t, e, "delete_file", `{"path": "private"}`)
	gone(t, filepath.Join(dir, "private"))
	res := e.Call(ctx, "s", "undo_edit", []byte(`{"path": "private"}`))
	if !res.OK {
		t.Fatalf("undo of the folder's removal: %s", res.Text)
	}
	want := os.FileMode(0o700)
	if runtime.GOOS == "windows" {
		want = 0o777 // a folder's bits are not kept there: Go reports 0777
	}
	if fi, err := os.Stat(filepath.Join(dir, "private")); err != nil || !fi.IsDir() || fi.Mode().Perm() != want {
		t.Fatalf("private/ after the undo: %v (%v), want a folder with 0700", fi, err)
	}
	if r := e.Redo(ctx, uint64(*res.Txn)); !r.OK {
		t.Fatalf("redo: %s", r.Text)
	}
	gone(t, filepath.Join(dir, "private"))
}

// A rewind takes a session's folder calls back with its files: the folders a turn
// made go, a folder it removed comes back, and the tree is as before the turn.
func TestRewindOfFolderCalls(t *testing.T) {
	e, dir := openWorkspace(t, map[string]string{"a.txt": "a\n"})
	os.Mkdir(filepath.Join(dir, "old"), 0o750)
	os.Chmod(filepath.Join(dir, "old"), 0o750)
	before, files := folders(t, dir), workFiles(t, dir)
	ctx := WithTurn(context.Background(), "t1")
	for _, c := range []struct{ tool, args string }{
		{"create_directory", `{"path": "src/gen"}`},
		{"create_file", `{"path": "src/gen/x.txt", "content": "x\n"}`},
		{"delete_file", `{"path": "old"}`},
	} {
		if r := e.Call(ctx, "s", c.tool, []byte(c.args)); !r.OK {
			t.Fatalf("%s: %s", c.tool, r.Text)
		}
	}
	if r := e.Rewind(context.Background(), "s", "t1"); !r.OK {
		t.Fatalf("rewind: %s", r.Text)
	}
	if got := folders(t, dir); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Errorf("folders after the rewind: %v, want %v", got, before)
	}
	if got := workFiles(t, dir); fmt.Sprint(got) != fmt.Sprint(files) {
		t.Errorf("files after the rewind: %v, want %v", got, files)
	}
}

// A move of a folder removes the source's folders in its own transaction, journaled
// with their bits: its undo makes them again as they were, and the destination's
// folders go.
func TestUndoOfAFolderMoveKeepsItsFolders(t *testing.T) {
	e, dir := openWorkspace(t, map[string]string{"pkg/a.txt": "a\n", "pkg/sub/b.txt": "b\n"})
	os.Chmod(filepath.Join(dir, "pkg"), 0o750)
	os.Chmod(filepath.Join(dir, "pkg/sub"), 0o700)
	before, files := folders(t, dir), workFiles(t, dir)
	mustCall(t, e, "move_file", `{"source": "pkg", "destination": "lib/pkg"}`)
	gone(t, filepath.Join(dir, "pkg"))
	mustCall(t, e, "undo_edit", `{"path": "lib/pkg/a.txt"}`)
	if got := folders(t, dir); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Errorf("folders after the undo of the move: %v, want %v", got, before)
	}
	if got := workFiles(t, dir); fmt.Sprint(got) != fmt.Sprint(files) {
		t.Errorf("files after the undo of the move: %v, want %v", got, files)
	}
}

// A create_directory that fails part-way is refused and changes nothing: the folders
// it made before the failure go again, and its record says failed.
func TestFailedCreateDirectoryChangesNothing(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFile(t, filepath.Join(dir, "a.txt"), "a\n")
	ffs := &testutil.FaultFs{Fs: afero.NewBasePathFs(afero.NewOsFs(), dir)}
	eng, err := txn.Open(vfs.New(ffs, vfs.Options{}), txn.Options{JournalPath: filepath.Join(t.TempDir(), "journal.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	a := newDispatcher(eng)
	before := folders(t, dir)
	ffs.SetHook(func(op testutil.Op, name string) error {
		if op == testutil.OpMkdir && strings.TrimPrefix(filepath.ToSlash(name), "/") == "p/q" {
			return syscall.EIO
		}
		return nil
	})
	r := call(a, "create_directory", `{"path": "p/q/r"}`)
	ffs.SetHook(nil)
	if r.OK || kindOf(r) != "io_error" || !strings.Contains(r.Text, "Nothing was made") {
		t.Fatalf("want io_error saying nothing was made, got ok=%v %s: %s", r.OK, kindOf(r), r.Text)
	}
	if got := folders(t, dir); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Errorf("a refused create_directory left folders: %v, want %v", got, before)
	}
	eng.View(func(tx *journal.Tx) error {
		rec, _ := tx.Get(uint64(*r.Txn))
		if rec == nil || rec.State != journal.Failed {
			t.Errorf("the record: %+v, want failed", rec)
		}
		return nil
	})
}

// A folder the undo of a move would make again that someone made meanwhile is left as
// it is, with its own bits: the reply and the record do not say it was made, and the
// redo of that undo leaves it too (it removed it, and a second undo made it 0755).
func TestUndoLeavesAFolderStandingAsItIs(t *testing.T) {
	winetest.NeedPOSIXModes(t, "permission bits on folders, by which the test tells the user's folder from one an undo made")
	e, dir := openWorkspace(t, map[string]string{"src/in/a.txt": "a\n"})
	os.Chmod(filepath.Join(dir, "src/in"), 0o750)
	mustCall(t, e, "move_file", `{"source": "src", "destination": "dst"}`)
	if err := os.Mkdir(filepath.Join(dir, "src"), 0o700); err != nil { // the user's
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(dir, "src"), 0o700)
	text := mustCall(t, e, "undo_edit", `{"path": "dst/in/a.txt"}`)
	if strings.Contains(text, "src/ made") {
		t.Errorf("the undo says it made src/, which stood there already:\n%s", text)
	}
	want := map[string]string{"src": "-rwx------", "src/in": "-rwxr-x---"}
	if got := folders(t, dir); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("folders after the undo: %v, want %v", got, want)
	}
	rec, _, err := e.Show(2)
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range rec.Entries {
		if en.Path == "src" {
			t.Errorf("the undo's record names src: %+v", en)
		}
	}
	if res := e.Redo(context.Background(), 2); !res.OK {
		t.Fatalf("redo: %s", res.Text)
	}
	if got := folders(t, dir); fmt.Sprint(got["src"]) != "-rwx------" {
		t.Errorf("after the redo, src is %q, want the user's folder as it was (-rwx------); folders %v", got["src"], got)
	}
}

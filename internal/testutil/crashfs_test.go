package testutil_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/toolapi"
	"github.com/vfsctl/vfsctl/txn"
	"github.com/vfsctl/vfsctl/vfs"
)

// show writes a state as "path=content" pairs and "dir/" folders, sorted, so that an
// oracle is a short list of strings.
func show(s testutil.State) string {
	var parts []string
	for _, d := range s.Dirs {
		parts = append(parts, d+"/")
	}
	for p, data := range s.Files {
		parts = append(parts, p+"="+string(data))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

func shown(states []testutil.State) []string {
	var out []string
	for _, s := range states {
		out = append(out, show(s))
	}
	sort.Strings(out)
	return out
}

func wantStates(t *testing.T, what string, got []testutil.State, want ...string) {
	t.Helper()
	sort.Strings(want)
	if g := shown(got); !slices.Equal(g, want) {
		var why []string
		for _, s := range got {
			why = append(why, "\t"+show(s)+"\t("+s.Why+")")
		}
		t.Fatalf("%s: crash states\n%s\nwant\n\t%s", what, strings.Join(why, "\n"), strings.Join(want, "\n\t"))
	}
}

func newCrashFs(t *testing.T, files map[string]string) *testutil.CrashFs {
	t.Helper()
	base := afero.NewMemMapFs()
	for p, c := range files {
		if strings.HasSuffix(p, "/") {
			base.MkdirAll(p, 0o755)
			continue
		}
		if err := afero.WriteFile(base, p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fs, err := testutil.NewCrashFs(base)
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// writeFile creates name, writes each chunk, and syncs it when sync is set.
func writeFile(t *testing.T, fs afero.Fs, name string, sync bool, chunks ...string) {
	t.Helper()
	h, err := fs.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	must(t, err)
	for _, c := range chunks {
		_, err := h.Write([]byte(c))
		must(t, err)
	}
	if sync {
		must(t, h.Sync())
	}
	must(t, h.Close())
}

func syncDir(t *testing.T, fs afero.Fs, dir string) {
	t.Helper()
	h, err := fs.Open(dir)
	must(t, err)
	must(t, h.Sync())
	must(t, h.Close())
}

// A durable replace that skips the folder sync: the rename may be undone, and the
// temp file's creation with it, but the data it names is whole.
func TestCrashRenameWithoutFolderSync(t *testing.T) {
	fs := newCrashFs(t, map[string]string{"f": "old"})
	writeFile(t, fs, "tmp", true, "new")
	must(t, fs.Rename("tmp", "f"))
	wantStates(t, "no folder sync", fs.Rec.CrashStates(fs.Rec.Len()),
		"f=old", "f=old tmp=new", "f=new")
	syncDir(t, fs, ".")
	wantStates(t, "folder synced", fs.Rec.CrashStates(fs.Rec.Len()), "f=new")
	wantStates(t, "before any step", fs.Rec.CrashStates(0), "f=old")
}

// Data written and never synced: the file can be found empty, torn or whole, and
// without the folder sync not at all.
func TestCrashWriteWithoutSync(t *testing.T) {
	fs := newCrashFs(t, nil)
	writeFile(t, fs, "f", false, "hello ", "world")
	// The halves of the two writes: "hel" of "hello ", "wo" of "world".
	wantStates(t, "no sync at all", fs.Rec.CrashStates(fs.Rec.Len()),
		"", "f=", "f=hel", "f=hello ", "f=hello wo", "f=hello world")
	syncDir(t, fs, ".")
	wantStates(t, "folder synced, file not", fs.Rec.CrashStates(fs.Rec.Len()),
		"f=", "f=hel", "f=hello ", "f=hello wo", "f=hello world")
	h, err := fs.OpenFile("f", os.O_WRONLY, 0)
	must(t, err)
	must(t, h.Sync())
	h.Close()
	wantStates(t, "both synced", fs.Rec.CrashStates(fs.Rec.Len()), "f=hello world")
}

// Rewriting a file in place (O_TRUNC) without a sync can lose the old content and
// the new: the crash finds the old, nothing, or a part of the new.
func TestCrashRewriteInPlace(t *testing.T) {
	fs := newCrashFs(t, map[string]string{"f": "old content"})
	writeFile(t, fs, "f", false, "new")
	wantStates(t, "rewrite", fs.Rec.CrashStates(fs.Rec.Len()),
		"f=old content", "f=", "f=n", "f=new")
}

// An overwrite in the middle of a synced file keeps the rest: the torn states differ
// only in the range written.
func TestCrashWriteAt(t *testing.T) {
	fs := newCrashFs(t, map[string]string{"f": "abcdefgh"})
	h, err := fs.OpenFile("f", os.O_WRONLY, 0)
	must(t, err)
	_, err = h.WriteAt([]byte("XXXX"), 2)
	must(t, err)
	h.Close()
	wantStates(t, "write at", fs.Rec.CrashStates(fs.Rec.Len()), "f=abcdefgh", "f=abXXefgh", "f=abXXXXgh")
}

// A new folder's name lives in its parent: syncing the folder and its file is not
// enough while the parent is not synced.
func TestCrashNewFolder(t *testing.T) {
	fs := newCrashFs(t, nil)
	must(t, fs.MkdirAll("a/b", 0o755))
	writeFile(t, fs, "a/b/f", true, "data")
	syncDir(t, fs, "a/b")
	syncDir(t, fs, "a")
	wantStates(t, "root not synced", fs.Rec.CrashStates(fs.Rec.Len()), "", "a/ a/b/ a/b/f=data")
	syncDir(t, fs, ".")
	wantStates(t, "all synced", fs.Rec.CrashStates(fs.Rec.Len()), "a/ a/b/ a/b/f=data")
	// Before a/b was synced the file's name could be lost while the folders stay.
	wantStates(t, "after the file's sync", fs.Rec.CrashStates(5),
		"", "a/", "a/ a/b/", "a/ a/b/ a/b/f=data")
}

// A removal without a folder sync can be undone.
func TestCrashRemove(t *testing.T) {
	fs := newCrashFs(t, map[string]string{"f": "x", "g": "y"})
	must(t, fs.Remove("f"))
	wantStates(t, "remove", fs.Rec.CrashStates(fs.Rec.Len()), "f=x g=y", "g=y")
	syncDir(t, fs, ".")
	wantStates(t, "remove synced", fs.Rec.CrashStates(fs.Rec.Len()), "g=y")
}

// Folders are independent: two folders with unsynced changes give every combination.
func TestCrashFoldersIndependent(t *testing.T) {
	fs := newCrashFs(t, map[string]string{"a/": "", "b/": ""})
	writeFile(t, fs, "a/f", true, "1")
	writeFile(t, fs, "b/g", true, "2")
	wantStates(t, "two folders", fs.Rec.CrashStates(fs.Rec.Len()),
		"a/ b/", "a/ a/f=1 b/", "a/ b/ b/g=2", "a/ a/f=1 b/ b/g=2")
}

// A handle keeps writing to its file after the file is renamed.
func TestCrashWriteAfterRename(t *testing.T) {
	fs := newCrashFs(t, nil)
	h, err := fs.Create("tmp")
	must(t, err)
	must(t, fs.Rename("tmp", "f"))
	_, err = h.Write([]byte("ab"))
	must(t, err)
	must(t, h.Sync())
	h.Close()
	syncDir(t, fs, ".")
	wantStates(t, "renamed, then written", fs.Rec.CrashStates(fs.Rec.Len()), "f=ab")
}

// Marks name crash points.
func TestCrashMark(t *testing.T) {
	fs := newCrashFs(t, map[string]string{"f": "old"})
	writeFile(t, fs, "f", true, "new")
	fs.Rec.Mark("written")
	must(t, fs.Remove("f"))
	p := fs.Rec.Point("written")
	if p != fs.Rec.Len()-1 {
		t.Fatalf("Point(written) = %d, want %d", p, fs.Rec.Len()-1)
	}
	wantStates(t, "at the mark", fs.Rec.CrashStates(p), "f=new")
	if fs.Rec.Point("missing") != -1 {
		t.Fatal("a missing mark has a point")
	}
}

// The recorder alone, as a layer that writes through raw descriptors would call it.
func TestRecorderByPath(t *testing.T) {
	r := testutil.NewRecorder()
	r.Seed("dir/f", []byte("old"))
	r.Create("dir/.tmp")
	r.Write("dir/.tmp", 0, []byte("new"))
	r.Sync("dir/.tmp")
	r.Rename("dir/.tmp", "dir/f")
	r.Sync("dir")
	for p := range r.Len() + 1 {
		for _, s := range r.CrashStates(p) {
			if f := string(s.Files["dir/f"]); f != "old" && f != "new" {
				t.Errorf("point %d: dir/f is %q (%s)", p, f, s.Why)
			}
		}
	}
	wantStates(t, "the end", r.CrashStates(r.Len()), "dir/ dir/f=new")
	if got := r.Steps()[3].String(); got != "rename dir/.tmp -> dir/f" {
		t.Errorf("step 3 is %q", got)
	}
}

// vfs's durable replace, recorded through the afero layer: at every crash point the
// file is its old content or its new one, never empty or torn, and once Replace has
// returned only the new one.
func TestCrashVfsReplace(t *testing.T) {
	fs := newCrashFs(t, map[string]string{"src/main.go": "package main // old\n"})
	v := vfs.New(fs, vfs.Options{})
	newData := "package main // new\n"
	must(t, v.Replace("src/main.go", []byte(newData)))
	n := fs.Rec.Len()
	if n == 0 {
		t.Fatal("nothing recorded")
	}
	for p := range n + 1 {
		for _, s := range fs.Rec.CrashStates(p) {
			if f := string(s.Files["src/main.go"]); f != "package main // old\n" && f != newData {
				t.Fatalf("point %d (after %v): src/main.go is %q (%s)", p, fs.Rec.Steps()[:p], f, s.Why)
			}
		}
	}
	final := fs.Rec.CrashStates(n)
	if len(final) != 1 || string(final[0].Files["src/main.go"]) != newData {
		t.Fatalf("after Replace returned: %v", shown(final))
	}
	// The model agrees with the filesystem it recorded.
	got, err := afero.ReadFile(fs, "src/main.go")
	must(t, err)
	if string(got) != newData {
		t.Fatalf("base holds %q", got)
	}
}

// A state written into a folder reads back as itself.
func TestCrashMaterialize(t *testing.T) {
	fs := newCrashFs(t, map[string]string{"keep/": "", "a/b.txt": "b"})
	writeFile(t, fs, "a/c.txt", false, "cc")
	for _, s := range fs.Rec.CrashStates(fs.Rec.Len()) {
		dir := t.TempDir()
		must(t, s.Materialize(dir))
		var back []string
		filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
			rel, _ := filepath.Rel(dir, p)
			switch {
			case rel == ".":
			case fi.IsDir():
				back = append(back, filepath.ToSlash(rel)+"/")
			default:
				data, _ := os.ReadFile(p)
				back = append(back, filepath.ToSlash(rel)+"="+string(data))
			}
			return nil
		})
		sort.Strings(back)
		if got := strings.Join(back, " "); got != show(s) {
			t.Errorf("materialized %q, want %q", got, show(s))
		}
	}
}

// vfs's create in new folders syncs each new folder's parent: once Create has
// returned the file survives, and before that it is whole wherever it appears.
func TestCrashVfsCreate(t *testing.T) {
	fs := newCrashFs(t, nil)
	v := vfs.New(fs, vfs.Options{})
	must(t, v.Create("new/dir/a.go", []byte("package a\n")))
	var ops []string
	for _, s := range fs.Rec.Steps() {
		ops = append(ops, string(s.Op))
	}
	want := "mkdir mkdir create write sync rename sync sync sync"
	if got := strings.Join(ops, " "); got != want {
		t.Fatalf("recorded %s, want %s", got, want)
	}
	for p := range fs.Rec.Len() + 1 {
		for _, s := range fs.Rec.CrashStates(p) {
			if f, ok := s.Files["new/dir/a.go"]; ok && string(f) != "package a\n" {
				t.Fatalf("point %d: a.go is %q (%s)", p, f, s.Why)
			}
		}
	}
	wantStates(t, "after Create", fs.Rec.CrashStates(fs.Rec.Len()), "new/ new/dir/ new/dir/a.go=package a\n")
}

// The classic bug is caught: renaming a temp file that was never synced can leave the
// name pointing at an empty or torn file, even with the folder synced.
func TestCrashRenameBeforeSync(t *testing.T) {
	fs := newCrashFs(t, map[string]string{"f": "old"})
	writeFile(t, fs, "tmp", false, "new data")
	must(t, fs.Rename("tmp", "f"))
	syncDir(t, fs, ".")
	wantStates(t, "rename before sync", fs.Rec.CrashStates(fs.Rec.Len()), "f=", "f=new ", "f=new data")
}

// A whole engine over CrashFs: an edit_file call is recorded step by step, and at
// every crash point the file is its old content or its new one.
func TestCrashEngineEdit(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the crash model needs the folder's fsync after the rename, which a folder opened through os cannot do on Windows (NTFS logs folder changes itself)")
	}
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644))
	fs, err := testutil.NewCrashFs(afero.NewBasePathFs(afero.NewOsFs(), dir))
	must(t, err)
	eng, err := txn.Open(vfs.New(fs, vfs.Options{}), txn.Options{JournalPath: filepath.Join(t.TempDir(), "journal.db")})
	must(t, err)
	res := overTxn(t, eng).Call(context.Background(), "s", "edit_file", json.RawMessage(`{"path": "a.txt", "edits": [{"oldText": "two", "newText": "2"}]}`))
	if !res.OK {
		t.Fatal(res.Text)
	}
	var ops []string
	for _, s := range fs.Rec.Steps() {
		ops = append(ops, s.String())
	}
	if len(ops) < 5 {
		t.Fatalf("recorded only %v", ops)
	}
	for p := range fs.Rec.Len() + 1 {
		for _, s := range fs.Rec.CrashStates(p) {
			if f := string(s.Files["a.txt"]); f != "one\ntwo\nthree\n" && f != "one\n2\nthree\n" {
				t.Fatalf("point %d (%v): a.txt is %q (%s)", p, ops[:p], f, s.Why)
			}
		}
	}
	wantStates(t, "after the call", fs.Rec.CrashStates(fs.Rec.Len()), "a.txt=one\n2\nthree\n")
}

// overTxn is the tool layer over eng.
func overTxn(tb testing.TB, eng *txn.Engine) *toolapi.Engine {
	tb.Helper()
	e, err := toolapi.OpenTxn(eng, toolapi.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// A fork at a point holds every write made by then, as a killed process leaves them,
// and its crash states still know what was never synced: after the fork syncs the
// file but not its folder, the power loss can still undo the rename, never tear f.
func TestCrashFork(t *testing.T) {
	fs := newCrashFs(t, map[string]string{"f": "old"})
	writeFile(t, fs, "tmp", false, "new")
	must(t, fs.Rename("tmp", "f"))
	point := fs.Rec.Len()
	writeFile(t, fs, "later", true, "not in the fork")

	fork := fs.Rec.Fork(point)
	got, err := afero.ReadFile(fork, "f")
	if err != nil || string(got) != "new" {
		t.Fatalf("the fork's f = %q (%v), want the unsynced write", got, err)
	}
	if _, err := fork.Stat("later"); err == nil {
		t.Fatal("the fork holds a file made after its point")
	}
	wantStates(t, "at the fork", fork.Rec.CrashStates(fork.Rec.Len()),
		"f=old", "f=old tmp=", "f=old tmp=n", "f=old tmp=new", "f=", "f=n", "f=new")
	h, err := fork.OpenFile("f", os.O_RDONLY, 0)
	must(t, err)
	must(t, h.Sync())
	h.Close()
	wantStates(t, "the fork's file synced", fork.Rec.CrashStates(fork.Rec.Len()),
		"f=old", "f=old tmp=new", "f=new")
	syncDir(t, fork, ".")
	wantStates(t, "and its folder", fork.Rec.CrashStates(fork.Rec.Len()), "f=new")
	// The original goes on unchanged by the fork's steps.
	wantStates(t, "the original", fs.Rec.CrashStates(point),
		"f=old", "f=old tmp=", "f=old tmp=n", "f=old tmp=new", "f=", "f=n", "f=new")
}

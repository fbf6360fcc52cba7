package toolapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/guard"
	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/internal/winetest"
)

// openWorkspace opens an Engine, as an embedder does, over a folder holding files.
func openWorkspace(t *testing.T, files map[string]string) (*Engine, string) {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		testutil.WriteFile(t, filepath.Join(dir, p), c)
	}
	e, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, dir
}

// mustCall runs a call that must succeed and returns its text.
func mustCall(t *testing.T, e *Engine, tool, args string) string {
	t.Helper()
	r := e.Call(context.Background(), "s", tool, json.RawMessage(args))
	if !r.OK {
		t.Fatalf("%s %s: refused %s: %s", tool, args, kindOf(r), r.Text)
	}
	return r.Text
}

func refused(t *testing.T, e *Engine, tool, args, kind string) string {
	t.Helper()
	r := e.Call(context.Background(), "s", tool, json.RawMessage(args))
	if r.OK || kindOf(r) != kind {
		t.Fatalf("%s %s: want %s, got ok=%v kind=%q: %s", tool, args, kind, r.OK, kindOf(r), r.Text)
	}
	return r.Text
}

func fileIs(t *testing.T, p, want string, mode os.FileMode) {
	t.Helper()
	got, err := os.ReadFile(p)
	if err != nil || string(got) != want {
		t.Fatalf("%s is %q (%v), want %q", p, got, err, want)
	}
	if runtime.GOOS == "windows" { // a file is read-only or not, and Go reports 0444 or 0666
		mode = map[bool]os.FileMode{true: 0o666, false: 0o444}[mode&0o200 != 0]
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != mode {
		t.Errorf("%s has mode %v, want %v", p, fi.Mode().Perm(), mode)
	}
}

func gone(t *testing.T, p string) {
	t.Helper()
	if _, err := os.Lstat(p); !os.IsNotExist(err) {
		t.Fatalf("%s is still there (%v)", p, err)
	}
}

// A moved file keeps its bytes and permissions at its new path, new folders included,
// and undo on either path puts it back where it was, bits and all.
func TestMoveFileAndUndo(t *testing.T) {
	content := "\ufeffline one\r\nline two\r\nno final break"
	e, dir := openWorkspace(t, map[string]string{"src/old.txt": content})
	os.Chmod(filepath.Join(dir, "src/old.txt"), 0o640)
	text := mustCall(t, e, "move_file", `{"source": "src/old.txt", "destination": "lib/deep/new.txt"}`)
	if !strings.Contains(text, "Moved src/old.txt to lib/deep/new.txt") {
		t.Errorf("reply: %q", text)
	}
	gone(t, filepath.Join(dir, "src/old.txt"))
	fileIs(t, filepath.Join(dir, "lib/deep/new.txt"), content, 0o640)

	mustCall(t, e, "undo_edit", `{"path": "lib/deep/new.txt"}`)
	fileIs(t, filepath.Join(dir, "src/old.txt"), content, 0o640)
	gone(t, filepath.Join(dir, "lib")) // the folders the move made went with it
}

// A deleted file needs no read; the journal keeps it, and undo puts it back with its
// bits. An empty folder is removed; a folder with entries is refused, naming them.
func TestDeleteFileAndUndo(t *testing.T) {
	content := "a\r\nb\x80c\n"
	e, dir := openWorkspace(t, map[string]string{"keep/x.sh": content, "full/one": "1", "full/two": "2"})
	os.Chmod(filepath.Join(dir, "keep/x.sh"), 0o751)
	os.Mkdir(filepath.Join(dir, "empty"), 0o755)

	text := mustCall(t, e, "delete_file", `{"path": "keep/x.sh"}`)
	if !strings.Contains(text, "Deleted keep/x.sh (2 lines, 7 bytes)") {
		t.Errorf("reply: %q", text)
	}
	gone(t, filepath.Join(dir, "keep/x.sh"))
	mustCall(t, e, "undo_edit", `{"path": "keep/x.sh"}`)
	fileIs(t, filepath.Join(dir, "keep/x.sh"), content, 0o751)

	mustCall(t, e, "delete_file", `{"path": "empty"}`)
	gone(t, filepath.Join(dir, "empty"))
	msg := refused(t, e, "delete_file", `{"path": "full"}`, "not_a_file")
	if !strings.Contains(msg, "holds 2 entries") {
		t.Errorf("refusal does not count the entries: %q", msg)
	}
	fileIs(t, filepath.Join(dir, "full/one"), "1", 0o644)
}

// create_directory makes the parents; an existing folder is a success that says so; an
// existing file is file_exists.
func TestCreateDirectory(t *testing.T) {
	e, dir := openWorkspace(t, map[string]string{"f.txt": "x"})
	text := mustCall(t, e, "create_directory", `{"path": "a/b/c"}`)
	if fi, err := os.Stat(filepath.Join(dir, "a/b/c")); err != nil || !fi.IsDir() {
		t.Fatalf("a/b/c was not made: %v", err)
	}
	if !strings.Contains(text, "parents a, a/b") {
		t.Errorf("reply: %q", text)
	}
	if text := mustCall(t, e, "create_directory", `{"path": "a/b"}`); !strings.Contains(text, "already exists as a folder") {
		t.Errorf("existing folder: %q", text)
	}
	refused(t, e, "create_directory", `{"path": "f.txt"}`, "file_exists")
	refused(t, e, "create_directory", `{"path": "f.txt/sub"}`, "not_a_file")
}

// read_files shows each file as read_file does and licenses each for write_file; a
// missing file says why without spoiling the others.
func TestReadFilesCountAsReads(t *testing.T) {
	e, dir := openWorkspace(t, map[string]string{"a.txt": "alpha\nbeta\n", "b.txt": "one\ntwo\nthree\n", "c.txt": "c\n"})
	text := mustCall(t, e, "read_files", `{"paths": ["a.txt", "missing.txt", "b.txt"]}`)
	for _, want := range []string{"==> a.txt <==\n     1\talpha\n     2\tbeta\n", "==> missing.txt <==\n(not read: file_not_found)", "==> b.txt <==\n     1\tone\n     2\ttwo\n     3\tthree"} {
		if !strings.Contains(text, want) {
			t.Errorf("reply lacks %q:\n%s", want, text)
		}
	}
	mustCall(t, e, "write_file", `{"path": "a.txt", "content": "new a\n"}`)
	mustCall(t, e, "write_file", `{"path": "b.txt", "content": "new b\n"}`)
	fileIs(t, filepath.Join(dir, "b.txt"), "new b\n", 0o644)
	refused(t, e, "write_file", `{"path": "c.txt", "content": "x"}`, "not_read")

	// The last line only: a part of the file, not a licence to replace it.
	mustCall(t, e, "read_files", `{"paths": ["c.txt"], "offset": 2}`)
	refused(t, e, "write_file", `{"path": "c.txt", "content": "x"}`, "not_read")
}

// A negative offset reads the last lines, as tail -n does; the lines are numbered as
// the file numbers them.
func TestReadFileTail(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "row %d\n", i)
	}
	e, _ := openWorkspace(t, map[string]string{"log.txt": b.String(), "short.txt": "x\ny\n"})
	text := mustCall(t, e, "read_file", `{"path": "log.txt", "offset": -3}`)
	if want := "    28\trow 28\n    29\trow 29\n    30\trow 30\n(lines 28-30 of 30)\n"; text != want {
		t.Errorf("offset -3:\n%q\nwant\n%q", text, want)
	}
	if text := mustCall(t, e, "read_file", `{"path": "short.txt", "offset": -20}`); text != "     1\tx\n     2\ty\n" {
		t.Errorf("offset -20 of a 2-line file: %q", text)
	}
	// The tail alone is part of the file: write_file still wants the rest read.
	refused(t, e, "write_file", `{"path": "log.txt", "content": "x"}`, "not_read")
	mustCall(t, e, "read_file", `{"path": "log.txt", "offset": -30}`)
	mustCall(t, e, "write_file", `{"path": "log.txt", "content": "x"}`)
}

// file_info states what the file's bytes are, and is no read for write_file.
func TestFileInfo(t *testing.T) {
	e, dir := openWorkspace(t, map[string]string{
		"win.go":  "\ufeffpackage a\r\n\r\nfunc f() {}\r\n",
		"mix.txt": "a\nb\r\nc",
		"bad.txt": "caf\xe9\n",
		"d/1":     "", "d/2": "", "d/3/x": "",
	})
	os.Chmod(filepath.Join(dir, "mix.txt"), 0o600)
	text := mustCall(t, e, "file_info", `{"path": "win.go"}`)
	for _, want := range []string{"kind: file\n", "size: 29 bytes\n", "lines: 3\n", "line ending: CRLF\n", "bom: yes\n", "encoding: UTF-8\n", "language: go (its syntax is guarded)"} {
		if !strings.Contains(text, want) {
			t.Errorf("win.go lacks %q:\n%s", want, text)
		}
	}
	text = mustCall(t, e, "file_info", `{"path": "mix.txt"}`)
	wants := []string{"line ending: mixed (1 LF, 1 CRLF)", "bom: no", "lines: 3"}
	if runtime.GOOS != "windows" { // Windows keeps no 0600: only whether a file is read-only
		wants = append(wants, "permissions: 0600")
	}
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("mix.txt lacks %q:\n%s", want, text)
		}
	}
	// A file over the guard's size is not guarded, and file_info says so.
	os.WriteFile(filepath.Join(dir, "big.py"), bytes.Repeat([]byte("x = 1\n"), guard.MaxSize/6+10), 0o644)
	if text := mustCall(t, e, "file_info", `{"path": "big.py"}`); !strings.Contains(text, "language: python (its syntax is not guarded: the file is") {
		t.Errorf("big.py:\n%s", text)
	}
	if text := mustCall(t, e, "file_info", `{"path": "bad.txt"}`); !strings.Contains(text, "encoding: not UTF-8, an 8-bit encoding") {
		t.Errorf("bad.txt:\n%s", text)
	}
	if text := mustCall(t, e, "file_info", `{"path": "d"}`); !strings.Contains(text, "kind: folder\nentries: 3\n") {
		t.Errorf("d:\n%s", text)
	}
	refused(t, e, "write_file", `{"path": "mix.txt", "content": "x"}`, "not_read")
}

// tree is every file below dir with its bytes and permission bits, as the disk has it.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, _ := os.ReadFile(p)
		fi, _ := d.Info()
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = fmt.Sprintf("%v %q", fi.Mode().Perm(), data)
		return nil
	})
	return out
}

// A folder moves with every file in it as one change, and one undo moves them all
// back: the tree below the old path is as it was, bits included, and the new path is
// gone. What the journal could not move back is refused, naming it.
func TestMoveFolderAndUndo(t *testing.T) {
	e, dir := openWorkspace(t, map[string]string{"pkg/a.go": "package pkg\n", "pkg/sub/b.txt": "b\r\nno break", "other/c.txt": "c\n"})
	os.Chmod(filepath.Join(dir, "pkg/sub/b.txt"), 0o600)
	// A hard link outside the folder: each file is renamed, not copied, so the link
	// still shares its inode after the move and after the undo.
	if err := os.Link(filepath.Join(dir, "pkg/sub/b.txt"), filepath.Join(dir, "other/b.link")); err != nil {
		t.Fatal(err)
	}
	ino := testutil.Nodes(t, dir)["pkg/sub/b.txt"].Ino
	linked := func(p, when string) {
		t.Helper()
		nodes := testutil.Nodes(t, dir)
		if n := nodes[p]; n.Ino != ino || n.Links != 2 || nodes["other/b.link"].Ino != ino {
			t.Errorf("%s: %s is %v, want inode %d shared with other/b.link", when, p, n, ino)
		}
	}
	before := tree(t, filepath.Join(dir, "pkg"))
	text := mustCall(t, e, "move_file", `{"source": "pkg", "destination": "lib/pkg2"}`)
	if !strings.Contains(text, "Moved the folder pkg/ to lib/pkg2/ (2 files)") {
		t.Errorf("reply: %q", text)
	}
	gone(t, filepath.Join(dir, "pkg"))
	if got := tree(t, filepath.Join(dir, "lib/pkg2")); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Errorf("moved tree:\n%v\nwant\n%v", got, before)
	}
	linked("lib/pkg2/sub/b.txt", "after the move")
	mustCall(t, e, "undo_edit", `{"path": "lib/pkg2/sub/b.txt"}`)
	if got := tree(t, filepath.Join(dir, "pkg")); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Errorf("after undo:\n%v\nwant\n%v", got, before)
	}
	linked("pkg/sub/b.txt", "after the undo")
	gone(t, filepath.Join(dir, "lib"))

	refused(t, e, "move_file", `{"source": "pkg", "destination": "pkg/sub/x"}`, "invalid_input")
	refused(t, e, "move_file", `{"source": "pkg", "destination": "other"}`, "file_exists")
	os.Mkdir(filepath.Join(dir, "pkg/empty"), 0o755)
	if msg := refused(t, e, "move_file", `{"source": "pkg", "destination": "x"}`, "not_a_file"); !strings.Contains(msg, "pkg/empty is an empty folder") {
		t.Errorf("empty subfolder: %q", msg)
	}
	os.Remove(filepath.Join(dir, "pkg/empty"))
	t.Run("symlink inside", func(t *testing.T) {
		winetest.NeedSymlinks(t)
		if err := os.Symlink("a.go", filepath.Join(dir, "pkg/link")); err != nil {
			t.Fatal(err)
		}
		if msg := refused(t, e, "move_file", `{"source": "pkg", "destination": "x"}`, "not_a_file"); !strings.Contains(msg, "pkg/link is a symlink") {
			t.Errorf("symlink inside: %q", msg)
		}
		gone(t, filepath.Join(dir, "x"))
	})
}

// list_files' json form nests every entry under its folder with the size the disk
// reports; read back, it names the same files as a walk of the folder does.
func TestListFilesJSON(t *testing.T) {
	e, dir := openWorkspace(t, map[string]string{"a/b/c.txt": "ccc", "a/d.txt": "d", "e.txt": "eeeee"})
	text := mustCall(t, e, "list_files", `{"format": "json", "sizes": true}`)
	type node struct {
		Name     string
		Type     string
		Size     *int64
		Children []node
	}
	var nodes []node
	if err := json.Unmarshal([]byte(text), &nodes); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, text)
	}
	got := map[string]int64{}
	var visit func(prefix string, l []node)
	visit = func(prefix string, l []node) {
		for _, n := range l {
			p := prefix + n.Name
			if n.Type == "directory" {
				visit(p+"/", n.Children)
			} else if n.Size != nil {
				got[p] = *n.Size
			}
		}
	}
	visit("", nodes)
	want := map[string]int64{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if d.IsDir() && d.Name() == ".vfsctl" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			fi, _ := d.Info()
			rel, _ := filepath.Rel(dir, p)
			want[filepath.ToSlash(rel)] = fi.Size()
		}
		return nil
	})
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("json form names %v, the disk %v", got, want)
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/internal/winetest"
	"github.com/vfsctl/vfsctl/journal"
)

// hangLimit bounds a command that must answer: past it, the test fails as a hang.
const hangLimit = 30 * time.Second

// runBounded runs the CLI in a process of its own (a panic or a mapping bbolt leaves
// behind ends with it) and fails the test if it does not answer within hangLimit.
func runBounded(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), "VFSCTL_TEST_RUN=1")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("vfsctl %v did not answer within %s", args, hangLimit)
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	if strings.Contains(errb.String(), "panic:") || strings.Contains(errb.String(), "fatal error:") {
		t.Fatalf("vfsctl %v crashed: %s", args, errb.String())
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

const editA = `{"tool": "edit_file", "args": {"path": "a.txt", "edits": [{"oldText": "one", "newText": "ONE"}]}}`

// history makes a workspace with a journal of a few calls.
func history(t *testing.T) string {
	dir := testutil.Workspace(t, map[string]string{"a.txt": "one\ntwo\n", "b.txt": "bee\n"})
	calls := editA + "\n" +
		`{"tool": "create_file", "args": {"path": "c.txt", "content": "sea\n"}}` + "\n" +
		`{"tool": "edit_file", "args": {"path": "b.txt", "edits": [{"oldText": "bee", "newText": "BEE"}]}}` + "\n" +
		`{"tool": "edit_file", "args": {"path": "b.txt", "edits": [{"oldText": "nope", "newText": "x"}]}}` + "\n"
	if code, out, errb := runBounded(t, calls, "call", "--root", dir); code != exitRefused {
		t.Fatalf("building history: exit %d\n%s%s", code, out, errb)
	}
	return dir
}

// snapshotDir is every entry under dir, .vfsctl included.
func snapshotDir(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case fi.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			out[rel] = string(b)
		case fi.Mode()&os.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			out[rel] = "-> " + l
		default:
			out[rel] = fi.Mode().Type().String()
		}
		return nil
	})
	return out
}

// TestJournalFilesNotFollowed: each of the journal's own files replaced by a symlink
// pointing outside the workspace, a FIFO, or the other kind of entry (a file for a
// folder, a folder for a file), is refused with a message naming it;
// nothing is written outside, the working files stay, and nothing hangs.
func TestJournalFilesNotFollowed(t *testing.T) {
	for _, name := range []string{".vfsctl", "journal.db", "holder", "marks", "temps", "lock", ".gitignore", "turns", "wal"} {
		// And the other kind of entry: a file where a folder belongs, a folder where a
		// file does (the message once called a file "not a regular file").
		other := "folder"
		if name == ".vfsctl" || name == "turns" {
			other = "file"
		}
		for _, kind := range []string{"symlink", "FIFO", other} {
			t.Run(name+"/"+kind, func(t *testing.T) {
				dir := history(t)
				outside := t.TempDir()
				os.WriteFile(filepath.Join(outside, "keep"), []byte("outside\n"), 0o644)
				p := filepath.Join(dir, ".vfsctl", name)
				if name == ".vfsctl" {
					p = filepath.Join(dir, ".vfsctl")
				}
				if err := os.RemoveAll(p); err != nil {
					t.Fatal(err)
				}
				if kind == "symlink" {
					winetest.NeedSymlinks(t)
					target := filepath.Join(outside, "keep")
					if name == ".vfsctl" || name == "turns" {
						target = outside
					}
					if err := os.Symlink(target, p); err != nil {
						t.Fatal(err)
					}
				} else if kind == "file" {
					testutil.WriteFile(t, p, "not a folder\n")
				} else if kind == "folder" {
					if err := os.Mkdir(p, 0o755); err != nil {
						t.Fatal(err)
					}
				} else {
					makeFIFO(t, p)
				}
				before, outBefore := testutil.Snapshot(t, dir), snapshotDir(t, outside)
				shown := ".vfsctl/" + name
				if name == ".vfsctl" {
					shown = ".vfsctl"
				}
				code, out, _ := runBounded(t, editA+"\n", "call", "--root", dir, "--wait", "2s")
				if code != exitRefused || !strings.Contains(out, `"kind":"io_error"`) || !strings.Contains(out, shown+" is a "+kind) || !strings.Contains(out, "Remove "+shown) {
					t.Errorf("call: exit %d, %s", code, out)
				}
				code, _, errb := runBounded(t, "", "log", "--root", dir, "--wait", "2s")
				if code != exitRefused || !strings.Contains(errb, shown+" is a "+kind) {
					t.Errorf("log: exit %d, %s", code, errb)
				}
				testutil.SameSnapshot(t, before, testutil.Snapshot(t, dir))
				testutil.SameSnapshot(t, outBefore, snapshotDir(t, outside))
			})
		}
	}
}

// TestDamagedJournal: a journal truncated at several points or with a page of noise
// makes no command panic or hang; each answers, a failure names the journal, the
// working files stay byte for byte, and fsck reports a journal it cannot read.
func TestDamagedJournal(t *testing.T) {
	dir := history(t)
	// Enough history for several pages of records, blobs and indexes.
	var calls strings.Builder
	for i := range 40 {
		fmt.Fprintf(&calls, `{"tool": "create_file", "args": {"path": "f%d.txt", "content": "%s"}}`+"\n", i, strings.Repeat(fmt.Sprintf("line %d\\n", i), 200))
	}
	if code, out, errb := runBounded(t, calls.String(), "call", "--root", dir); code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errb)
	}
	db := filepath.Join(dir, ".vfsctl", "journal.db")
	good, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	// The pages in use, from the meta pages: bbolt grows the file ahead of them, so a
	// cut in the file's second half may take only pages not yet used.
	pages := 0
	for _, m := range [][]byte{good[:page], good[page : 2*page]} {
		pages = max(pages, int(binary.LittleEndian.Uint64(m[56:64])))
	}
	type damage struct {
		name string
		data []byte
		sure bool // bbolt cannot miss it: fsck must fail
	}
	noise := func(n int) []byte {
		b := append([]byte(nil), good...)
		for i := n * page; i < (n+1)*page; i++ {
			b[i] = byte(i*7919>>3) ^ 0x5a
		}
		return b
	}
	cases := []damage{
		{"empty", nil, true},
		{"mid-first-page", good[:page/2], true},
		{"mid-page", good[:len(good)/2+1000], true},
		{"page-boundary", good[:(pages/2)*page], true},
		{"last-page-cut", good[:len(good)-100], true},
	}
	for n := 2; n < pages; n += max(1, pages/5) {
		cases = append(cases, damage{fmt.Sprintf("noise-page-%d", n), noise(n), false})
	}
	orig := testutil.Snapshot(t, dir)
	cmds := [][]string{{"log"}, {"show", "1"}, {"undo"}, {"stats"}, {"export"}, {"replay", "--failed"}, {"fsck"}, {"call"}}
	named := 0
	for _, c := range cases {
		if err := os.WriteFile(db, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range cmds {
			stdin := ""
			if args[0] == "call" {
				stdin = `{"tool": "edit_file", "args": {"path": "a.txt", "edits": [{"oldText": "two", "newText": "TWO"}]}}` + "\n"
			}
			files := testutil.Snapshot(t, dir)
			code, out, errb := runBounded(t, stdin, append(args, "--root", dir, "--wait", "2s")...)
			if code != exitOK && strings.Contains(out+errb, ".vfsctl/journal.db is damaged") {
				named++
				if !strings.Contains(out+errb, "vfsctl fsck") || strings.Contains(out+errb, dir) {
					t.Errorf("%s: %v: the message does not say what to do, or shows a host path: %s%s", c.name, args, out, errb)
				}
			}
			if args[0] == "fsck" && c.sure && code != exitRefused {
				t.Errorf("%s: fsck exit %d, want 1: %s%s", c.name, code, out, errb)
			}
			if code != exitOK && !maps.Equal(files, testutil.Snapshot(t, dir)) {
				t.Errorf("%s: %v failed (%s%s) and changed working files", c.name, args, out, errb)
				testutil.SameSnapshot(t, files, testutil.Snapshot(t, dir))
			}
		}
		restore(t, dir, orig) // where the damage left bbolt a usable file, undo and call ran
	}
	if named == 0 {
		t.Errorf("no command named the damaged journal")
	}
}

// restore puts the working files of a snapshot back.
func restore(t *testing.T, dir string, snap map[string]string) {
	now := testutil.Snapshot(t, dir)
	for p := range now {
		if _, ok := snap[p]; !ok {
			os.RemoveAll(filepath.Join(dir, p))
		}
	}
	for p, v := range snap {
		if content, _, ok := strings.Cut(v, "\x00"); ok && now[p] != v {
			os.WriteFile(filepath.Join(dir, p), []byte(content), 0o644)
		}
	}
}

// TestForeignJournal: a journal copied (cp -a) from another workspace, with a call
// left pending whose recovery would write a file, is refused by every command and
// nothing in the workspace changes, the journal included; once adopted it is used,
// and the pending call is marked unknown without writing any file.
func TestForeignJournal(t *testing.T) {
	a := testutil.Workspace(t, map[string]string{"f1.txt": "one\n", "f2.txt": "two\n"})
	both := `{"tool": "apply_changes", "args": {"changes": [{"path": "f1.txt", "edits": [{"oldText": "one", "newText": "ONE"}]}, {"path": "f2.txt", "edits": [{"oldText": "two", "newText": "TWO"}]}]}}`
	if code, out, errb := runBounded(t, both+"\n", "call", "--root", a); code != exitOK {
		t.Fatalf("exit %d: %s%s", code, out, errb)
	}
	// Leave the call pending, as a crash between its two files would.
	j := journal.New(filepath.Join(a, ".vfsctl", "journal.db"), journal.Options{Root: a})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	err := j.Update(func(tx *journal.Tx) error {
		r, err := tx.Get(1)
		if err != nil {
			return err
		}
		r.State = journal.Pending
		return tx.Put(r)
	})
	j.Release()
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(a, "f2.txt"), []byte("two\n"), 0o644)

	b := t.TempDir()
	if err := os.CopyFS(b, os.DirFS(a)); err != nil { // as cp -a, a checkout or a restore
		t.Fatalf("copy the workspace: %v", err)
	}
	before := snapshotDir(t, b)
	for _, args := range [][]string{{"log"}, {"show", "1"}, {"undo"}, {"redo"}, {"fsck"}, {"stats"}, {"export"}, {"replay", "1"}, {"call"}} {
		stdin := ""
		if args[0] == "call" {
			stdin = `{"tool": "read_file", "args": {"path": "f1.txt"}}` + "\n"
		}
		code, out, errb := runBounded(t, stdin, append(args, "--root", b, "--wait", "2s")...)
		if code == exitOK || !strings.Contains(out+errb, "journal .vfsctl/journal.db was made in another folder") || !strings.Contains(out+errb, "vfsctl adopt") {
			t.Errorf("%v: exit %d, %s%s", args, code, out, errb)
		}
		if !maps.Equal(before, snapshotDir(t, b)) {
			t.Fatalf("%v changed the workspace or its journal", args)
		}
	}
	code, out, errb := runBounded(t, "", "adopt", "--root", b)
	if code != exitOK || !strings.Contains(out, "1 pending") {
		t.Fatalf("adopt: exit %d, %s%s", code, out, errb)
	}
	if code, out, errb := runBounded(t, "", "log", "--root", b); code != exitOK || !strings.Contains(out, "unknown") {
		t.Errorf("log after adopt: exit %d, %s%s", code, out, errb)
	}
	// Adopting never writes a working file: the pending call is marked unknown, and
	// its half-applied state is left for the operator to see.
	if got := testutil.ReadFile(t, filepath.Join(b, "f1.txt")); got != "ONE\n" {
		t.Errorf("after adopt, f1.txt is %q; a journal made elsewhere must not write it", got)
	}
	if code, out, errb := runBounded(t, "", "show", "1", "--root", b); code != exitOK || !strings.Contains(out, "no file was written for it") {
		t.Errorf("show after adopt: exit %d, %s%s", code, out, errb)
	}
	if got := testutil.ReadFile(t, filepath.Join(a, "f1.txt")); got != "ONE\n" {
		t.Errorf("the original workspace changed: f1.txt %q", got)
	}
}

// TestUnidentifiedJournal: a journal that records no identity (an older vfsctl made
// it, or it was crafted without one) is refused until adopted.
func TestUnidentifiedJournal(t *testing.T) {
	dir := history(t)
	j := journal.New(filepath.Join(dir, ".vfsctl", "journal.db"), journal.Options{Root: dir})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	err := j.Update(func(tx *journal.Tx) error { return tx.ForgetIdentity() })
	j.Release()
	if err != nil {
		t.Fatal(err)
	}
	code, _, errb := runBounded(t, "", "log", "--root", dir)
	if code == exitOK || !strings.Contains(errb, "does not say which workspace made it") {
		t.Fatalf("log: exit %d, %s", code, errb)
	}
	if code, out, errb := runBounded(t, "", "adopt", "--root", dir); code != exitOK {
		t.Fatalf("adopt: exit %d, %s%s", code, out, errb)
	}
	if code, out, errb := runBounded(t, "", "log", "--root", dir); code != exitOK || !strings.Contains(out, "create_file") {
		t.Fatalf("log after adopt: exit %d, %s%s", code, out, errb)
	}
}

// Lines added to .vfsctl/temps by anyone but vfsctl remove nothing: the next command
// used to delete every file they named whose name began as vfsctl's temp files do, a
// call's own file and the user's alike, even a read-only command's open.
func TestForgedTempsRemoveNothing(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"call", "--root", dir}, strings.NewReader(`{"tool":"create_file","args":{"path":"docs/plan.md","content":"plan\n"}}`+"\n"), &out, &errb); code != exitOK {
		t.Fatalf("create: %d %s%s", code, out.String(), errb.String())
	}
	// (The tools refuse these names: path_reserved. Someone else can make them.)
	precious := filepath.Join(dir, ".vfsctl-tmp-notes.txt")
	for _, p := range []string{precious, filepath.Join(dir, "docs", ".vfsctl-tmp-plan.md")} {
		if err := os.WriteFile(p, []byte("precious\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.OpenFile(filepath.Join(dir, ".vfsctl", "temps"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("docs/.vfsctl-tmp-plan.md\n.vfsctl-tmp-notes.txt\n")
	f.Close()
	if code := run([]string{"show", "--root", dir, "1"}, nil, &out, &errb); code != exitOK {
		t.Fatalf("show: %d %s", code, errb.String())
	}
	for _, p := range []string{filepath.Join(dir, "docs", ".vfsctl-tmp-plan.md"), precious} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s is gone: %v", filepath.Base(p), err)
		}
	}
}

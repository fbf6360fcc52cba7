package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

const editTwo = `{"tool": "edit_file", "args": {"path": "a.txt", "edits": [{"oldText": "two", "newText": "TWO"}]}}` + "\n"

// fileState is a file's bytes (hashed) and modification time.
func fileState(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	return fmt.Sprintf("%x %d bytes, modified %v", sha256.Sum256(b), len(b), fi.ModTime().UnixNano())
}

// TestJournalFilesNotLinked: each of the journal's own files replaced by a hard link
// to a file outside the root (rm .vfsctl/holder; ln ../victim .vfsctl/holder) leaves
// that file's bytes and time as they were. Every file vfsctl writes is refused, by a
// call and by log, with an io_error naming it and saying what to do; .gitignore,
// which vfsctl never writes once it exists, is left as it is and the call goes on.
// The next call once truncated the victim to 0 bytes through the holder file.
func TestJournalFilesNotLinked(t *testing.T) {
	for _, name := range []string{"holder", "marks", "temps", "lock", "wal", "journal.db", ".gitignore"} {
		t.Run(name, func(t *testing.T) {
			dir := history(t)
			outside := filepath.Join(t.TempDir(), "victim")
			testutil.WriteFile(t, outside, "the victim's own bytes\n")
			past := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
			os.Chtimes(outside, past, past)
			p := filepath.Join(dir, ".vfsctl", name)
			os.Remove(p)
			if err := os.Link(outside, p); err != nil {
				t.Fatal(err)
			}
			victimWas, files := fileState(t, outside), testutil.Snapshot(t, dir)
			shown := ".vfsctl/" + name
			code, out, errb := runBounded(t, editTwo, "call", "--root", dir, "--wait", "2s")
			if now := fileState(t, outside); now != victimWas {
				t.Errorf("the file outside the root, linked as %s: was %s, now %s", shown, victimWas, now)
			}
			if name == ".gitignore" {
				if code != exitOK {
					t.Errorf("call: exit %d, %s%s", code, out, errb)
				}
			} else {
				if code != exitRefused || !strings.Contains(out, `"kind":"io_error"`) || !strings.Contains(out, shown+" is a hard link to another file (2 links)") {
					t.Errorf("call: exit %d, %s%s", code, out, errb)
				}
				if !strings.Contains(out, "Remove "+shown) && !strings.Contains(out, "replace it by a copy of its own") {
					t.Errorf("call: the refusal does not say what to do: %s", out)
				}
				testutil.SameSnapshot(t, files, testutil.Snapshot(t, dir))
				code, _, errb := runBounded(t, "", "log", "--root", dir, "--wait", "2s")
				if code != exitRefused || !strings.Contains(errb, shown+" is a hard link") {
					t.Errorf("log: exit %d, %s", code, errb)
				}
			}
		})
	}
}

// TestJournalFilesOfAnotherUser: a file that vfsctl writes in .vfsctl/ and that
// belongs to another user is refused, naming it, and left as it is; a journal.db of
// another user's is refused until adopted, and adopting reads it without writing it.
func TestJournalFilesOfAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: cannot give a file another owner")
	}
	for _, name := range []string{"holder", "marks", "temps", "lock", "wal"} {
		t.Run(name, func(t *testing.T) {
			dir := history(t)
			p := filepath.Join(dir, ".vfsctl", name)
			os.Remove(p)
			testutil.WriteFile(t, p, "someone else's\n")
			if err := os.Chown(p, 1234, 1234); err != nil {
				t.Fatal(err)
			}
			was, files := fileState(t, p), testutil.Snapshot(t, dir)
			code, out, errb := runBounded(t, editTwo, "call", "--root", dir, "--wait", "2s")
			if now := fileState(t, p); now != was {
				t.Errorf("another user's %s: was %s, now %s", name, was, now)
			}
			if code != exitRefused || !strings.Contains(out, `"kind":"io_error"`) || !strings.Contains(out, ".vfsctl/"+name+" belongs to another user (uid 1234)") {
				t.Errorf("call: exit %d, %s%s", code, out, errb)
			}
			testutil.SameSnapshot(t, files, testutil.Snapshot(t, dir))
		})
	}
	t.Run("journal.db", func(t *testing.T) {
		dir := history(t)
		p := filepath.Join(dir, ".vfsctl", "journal.db")
		if err := os.Chown(p, 1234, 1234); err != nil {
			t.Fatal(err)
		}
		was := fileState(t, p)
		code, _, errb := runBounded(t, "", "log", "--root", dir, "--wait", "2s")
		if code != exitRefused || !strings.Contains(errb, "belongs to another user (uid 1234)") || !strings.Contains(errb, "vfsctl adopt") {
			t.Errorf("log: exit %d, %s", code, errb)
		}
		if now := fileState(t, p); now != was {
			t.Errorf("another user's journal: was %s, now %s", was, now)
		}
		if code, out, errb := runBounded(t, "", "adopt", "--root", dir); code != exitOK || !strings.Contains(out, "4 calls recorded") {
			t.Fatalf("adopt: exit %d, %s%s", code, out, errb)
		}
		if code, out, errb := runBounded(t, "", "log", "--root", dir); code != exitOK || !strings.Contains(out, "create_file") {
			t.Errorf("log after adopt: exit %d, %s%s", code, out, errb)
		}
	})
}

package journal

import (
	"encoding/hex"
	"path/filepath"
	"strings"
	"testing"
)

// Verify finds a blob whose content no longer hashes to its key, a record claiming a
// blob that is not stored, and a pending record.
func TestVerifyFindsDamage(t *testing.T) {
	j := New(filepath.Join(t.TempDir(), "journal.db"), Options{NoSync: true})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	defer j.Release()
	good, bad := []byte("good content\n"), []byte("tampered\n")
	err := j.Commit(func(tx *Tx) error {
		h, _ := tx.PutBlob(good)
		key, _ := hex.DecodeString(h)
		tx.b(bBlobs).Put(key, pack(bad)) // the bytes under the key change
		r := &Record{Tool: "write_file", State: Pending, Files: []File{
			{Path: "a.txt", Op: OpWrite, Before: h, BeforeBlob: true, After: Hash([]byte("x")), AfterBlob: true}}}
		return tx.Put(r)
	})
	if err != nil {
		t.Fatal(err)
	}
	_, got := verifyProblems(j)
	for _, want := range []string{"blob: blob", "holds content with another hash", "reference: call 1: the new content of a.txt", "pending: call 1 is still pending"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
}

// A snapshot entry whose content is not stored is a problem: a command's later change
// of that file could not be undone.
func TestVerifyFindsASnapshotBlobMissing(t *testing.T) {
	j := New(filepath.Join(t.TempDir(), "journal.db"), Options{NoSync: true})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	defer j.Release()
	err := j.Commit(func(tx *Tx) error {
		h, _ := tx.PutBlob([]byte("kept\n"))
		return tx.UpdateSnapshot(nil, map[string]SnapEntry{
			"kept.txt": {Kind: "file", Hash: h},
			"lost.txt": {Kind: "file", Hash: Hash([]byte("never stored\n"))},
			"big.bin":  {Kind: "file", Hash: Hash([]byte("over the limit\n")), Large: true},
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	var problems []Problem
	j.View(func(tx *Tx) error { problems, _, _ = tx.Verify(); return nil })
	if len(problems) != 1 || !strings.Contains(problems[0].Text, "snapshot: the content of lost.txt") {
		t.Errorf("problems: %+v, want lost.txt's missing content only", problems)
	}
}

// A record's folder or symlink entry that undo and recovery could not act on as
// recorded (an unknown kind, a path outside the workspace, a symlink without its
// target, a FIFO without its identity) is a problem; a folder made or removed, or a
// FIFO made with its identity, is none.
func TestVerifyChecksEntries(t *testing.T) {
	j := New(filepath.Join(t.TempDir(), "journal.db"), Options{NoSync: true})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	defer j.Release()
	err := j.Commit(func(tx *Tx) error {
		return tx.Put(&Record{Tool: "create_directory", State: Committed, Entries: []Entry{
			{Path: "ok", After: KindDir, AfterMode: 0o755},
			{Path: "gone", Before: KindDir, BeforeMode: 0o700},
			{Path: "odd", After: "door"},
			{Path: "pipe", After: KindFIFO},
			{Path: "made", After: KindFIFO, Dev: 1, Ino: 7, Ctime: 9},
			{Path: "../up", After: KindDir},
			{Path: "link", After: KindSymlink},
		}})
	})
	if err != nil {
		t.Fatal(err)
	}
	problems, got := verifyProblems(j)
	for _, want := range []string{`"odd" names the unknown kind "door"`, `"pipe" names a FIFO or socket without its identity`, `"../up" is not a path inside the workspace`, `"link" names a symlink without its target`} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
	if len(problems) != 4 {
		t.Errorf("want 4 problems (the folder made and removed and the FIFO made are sound), got:\n%s", got)
	}
}

// verifyProblems is what Verify finds in j, and the same a line each: what, then the
// text.
func verifyProblems(j *Journal) ([]Problem, string) {
	var problems []Problem
	j.View(func(tx *Tx) error { problems, _, _ = tx.Verify(); return nil })
	var all []string
	for _, p := range problems {
		all = append(all, p.What+": "+p.Text)
	}
	return problems, strings.Join(all, "\n")
}

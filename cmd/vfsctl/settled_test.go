package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/journal"
)

// The first command after a kill settles the call it left pending and says so on
// stderr, naming the call and what became of it; the next command says nothing more.
func TestSettledOnOpenIsSaid(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
	var out, errb bytes.Buffer
	run([]string{"call", "--root", dir, "--session", "s"}, strings.NewReader(`{"tool": "read_file", "args": {"path": "a.txt"}}`), &out, &errb)
	// A call killed before it wrote: its record pending, the file at its prior content.
	j := journal.New(filepath.Join(dir, ".vfsctl", "journal.db"), journal.Options{Root: dir})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	r := &journal.Record{Time: time.Now().UTC(), Session: "s", Tool: "edit_file", Origin: journal.OriginModel, State: journal.Pending,
		Files: []journal.File{{Path: "a.txt", Op: journal.OpEdit, Before: journal.Hash([]byte("one\n")), After: journal.Hash([]byte("two\n"))}}}
	if err := j.Commit(func(tx *journal.Tx) error { return tx.Put(r) }); err != nil {
		t.Fatal(err)
	}
	j.Release()
	errb.Reset()
	if code := run([]string{"log", "--root", dir}, nil, &out, &errb); code != exitOK {
		t.Fatalf("log: exit %d: %s", code, errb.String())
	}
	if got := errb.String(); !strings.Contains(got, "recovery settled call 2 (edit_file)") || !strings.Contains(got, "now rolled_back") {
		t.Errorf("stderr of the first command after the kill: %q", got)
	}
	errb.Reset()
	run([]string{"log", "--root", dir}, nil, &out, &errb)
	if errb.Len() != 0 {
		t.Errorf("the second command says %q", errb.String())
	}
}

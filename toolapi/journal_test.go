package toolapi

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/txn"
	"github.com/vfsctl/vfsctl/vfs"
)

// viewJournal opens the journal of the workspace dir and runs fn in a read of it.
func viewJournal(t *testing.T, dir string, fn func(*journal.Tx) error) {
	t.Helper()
	fs, err := vfs.Open(dir, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	e, err := txn.Open(fs, txn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.View(fn); err != nil {
		t.Fatal(err)
	}
}

func records(t *testing.T, dir string) []*journal.Record {
	t.Helper()
	var recs []*journal.Record
	viewJournal(t, dir, func(tx *journal.Tx) error {
		var err error
		recs, err = tx.Find(journal.Query{})
		tx.Diffs(recs...)
		return err
	})
	// Oldest first reads better in tests.
	for i, j := 0, len(recs)-1; i < j; i, j = i+1, j-1 {
		recs[i], recs[j] = recs[j], recs[i]
	}
	return recs
}

// TestEveryCallJournaled: successes, refusals, reads, unknown tools and undecodable
// arguments each leave one record with the outcome, and the seq is returned as txn.
func TestEveryCallJournaled(t *testing.T) {
	a, dir := newAPI(t, map[string]string{"f.txt": "one\ntwo\n"})
	calls := []struct{ tool, args, state, kind string }{
		{"read_file", `{"path": "f.txt"}`, "committed", ""},
		{"edit_file", `{"path": "f.txt", "edits": [{"oldText": "one", "newText": "1"}]}`, "committed", ""},
		{"edit_file", `{"path": "f.txt", "edits": [{"oldText": "zzz", "newText": "1"}]}`, "failed", "text_not_found"},
		{"edit_file", `{"path": "f.txt", "edits": [{"oldText": "two", "newText": "2"}], "dryRun": true}`, "committed", ""},
		{"shred_file", `{"path": "f.txt"}`, "failed", "unknown_tool"},
		{"edit_file", `{not json`, "failed", "invalid_input"},
	}
	for i, c := range calls {
		r := a.Call("s1", c.tool, json.RawMessage(c.args))
		if r.Txn == nil || *r.Txn != int64(i+1) {
			t.Errorf("call %d: txn %v, want %d", i+1, r.Txn, i+1)
		}
	}
	recs := records(t, dir)
	if len(recs) != len(calls) {
		t.Fatalf("%d records for %d calls", len(recs), len(calls))
	}
	for i, c := range calls {
		r := recs[i]
		if r.Tool != c.tool || string(r.State) != c.state || r.Kind != c.kind || r.Session != "s1" {
			t.Errorf("record %d: %s %s %q session %s; want %s %s %q", r.Seq, r.Tool, r.State, r.Kind, r.Session, c.tool, c.state, c.kind)
		}
		if r.Args != c.args {
			t.Errorf("record %d keeps args %s, want them as received", r.Seq, r.Args)
		}
	}
	edit := recs[1].Files[0]
	if edit.Path != "f.txt" || edit.Op != journal.OpEdit || len(edit.Splices) != 1 || string(edit.Splices[0].New) != "1" ||
		len(edit.Edits) != 1 || edit.Edits[0].Tier != "exact" || !strings.Contains(edit.Diff, "+1") {
		t.Errorf("edit record: %+v", edit)
	}
	if !edit.BeforeBlob {
		t.Errorf("first edit of a file the journal never saw must keep its prior content")
	}
	if recs[2].Message == "" || !strings.Contains(recs[2].Message, "not found") {
		t.Errorf("failure message not kept: %q", recs[2].Message)
	}
	if dry := recs[3].Files[0]; dry.Op != journal.OpDryRun || testutil.ReadFile(t, filepath.Join(dir, "f.txt")) != "1\ntwo\n" {
		t.Errorf("dry run: %+v", dry)
	}
	if recs[5].ArgsBlob != "" || recs[5].ArgsSize != len(`{not json`) {
		t.Errorf("undecodable args: %+v", recs[5])
	}
}

func TestLargeArgsByBlob(t *testing.T) {
	a, dir := newAPI(t, nil)
	content := strings.Repeat("x", journal.MaxInlineArgs*2)
	args, _ := json.Marshal(map[string]string{"path": "big.txt", "content": content})
	if r := a.Call("s", "create_file", args); !r.OK {
		t.Fatal(r.Text)
	}
	rec := records(t, dir)[0]
	if rec.Args != "" || rec.ArgsBlob == "" || rec.ArgsSize != len(args) {
		t.Errorf("large args kept inline: blob %q size %d", rec.ArgsBlob, rec.ArgsSize)
	}
}

// TestWriteAcrossProcesses: a read by session S in one engine (process) lets a later
// engine write the file for S, and only for S.
func TestWriteAcrossProcesses(t *testing.T) {
	a1, dir := newAPI(t, map[string]string{"f.txt": "old\n"})
	if r := call(a1, "read_file", `{"path": "f.txt"}`); !r.OK {
		t.Fatal(r.Text)
	}
	fs, _ := vfs.Open(dir, vfs.Options{})
	defer fs.Close()
	e2, _ := txn.Open(fs, txn.Options{})
	defer e2.Close()
	a2 := newDispatcher(e2)
	if r := a2.Call("other", "write_file", json.RawMessage(`{"path": "f.txt", "content": "x\n"}`)); r.OK || kindOf(r) != "not_read" {
		t.Fatalf("another session wrote: %+v", r)
	}
	if r := a2.Call("test", "write_file", json.RawMessage(`{"path": "f.txt", "content": "new\n"}`)); !r.OK {
		t.Fatalf("same session, new process: %s", r.Text)
	}
}

func TestApplyChanges(t *testing.T) {
	a, dir := newAPI(t, map[string]string{"a.go": "package a\n\nvar x = 1\n", "b.go": "package b\n", "c.md": "# C\n"})
	call(a, "read_file", `{"path": "c.md"}`)
	r := call(a, "apply_changes", `{"changes": [
		{"path": "a.go", "edits": [{"oldText": "var x = 1", "newText": "var x = 2"}]},
		{"path": "new/n.go", "create": "package n\n"},
		{"path": "c.md", "write": "# C, rewritten\n"}]}`)
	if !r.OK {
		t.Fatal(r.Text)
	}
	for _, s := range []string{"Applied 3 changes", "Edited a.go", "Created new/n.go", "Replaced c.md whole"} {
		if !strings.Contains(r.Text, s) {
			t.Errorf("text lacks %q:\n%s", s, r.Text)
		}
	}
	before := testutil.Snapshot(t, dir)
	bad := []struct{ args, kind, says string }{
		{`{"changes": [{"path": "a.go", "edits": [{"oldText": "var x = 2", "newText": "var x = 3"}]}, {"path": "b.go", "edits": [{"oldText": "nope", "newText": "x"}]}]}`,
			"text_not_found", "changes[1] (b.go): edits[0]: oldText was not found"},
		{`{"changes": [{"path": "a.go", "edits": [{"oldText": "var x = 2", "newText": "var x = 3"}]}, {"path": "a.go", "create": "x"}]}`,
			"invalid_input", "name the same file"},
		{`{"changes": [{"path": "b.go", "edits": [{"oldText": "package b", "newText": "package bb"}]}, {"path": "new/n.go", "create": "again"}]}`,
			"file_exists", "changes[1] (new/n.go)"},
		{`{"changes": [{"path": "b.go", "write": "x"}]}`, "not_read", "has not been read"},
		{`{"changes": [{"path": "b.go"}]}`, "invalid_input", "exactly one of edits, create, write or delete"},
		{`{"changes": [{"path": "b.go", "edits": [{"oldText": "a"}]}]}`, "invalid_input", "changes[0].edits[0] is missing newText"},
		{`{"changes": []}`, "invalid_input", "between 1 and 100"},
		{`{"changes": {"path": "b.go"}}`, "invalid_input", "must be an array"},
		{`{"change": []}`, "invalid_input", `unknown field "change"`},
	}
	for _, c := range bad {
		r := call(a, "apply_changes", c.args)
		if r.OK || kindOf(r) != c.kind || !strings.Contains(r.Text, c.says) {
			t.Errorf("%s\n  want %s %q, got ok=%v %s: %s", c.args, c.kind, c.says, r.OK, kindOf(r), r.Text)
		}
	}
	testutil.SameSnapshot(t, before, testutil.Snapshot(t, dir))
}

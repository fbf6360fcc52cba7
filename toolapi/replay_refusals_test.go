package toolapi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
)

// Refusals about what stood at a path (file_exists, not_a_file) replay from what the
// record says stood there, and come out as recorded; a call whose files the journal
// cannot rebuild is reported as not replayable, with why, and the others go on.
func TestReplayRefusalsFromTheirStructure(t *testing.T) {
	a, dir := newAPI(t, map[string]string{"a.txt": "alpha\n", "d/in.txt": "in\n", "bin.dat": "a\x00b"})
	makeFIFO(t, filepath.Join(dir, "pipe"))
	same := map[string]string{
		"create over a file":        `create_file {"path": "a.txt", "content": "x"}`,
		"create over a folder":      `create_file {"path": "d", "content": "x"}`,
		"second change exists":      `apply_changes {"changes": [{"path": "new.txt", "create": "n"}, {"path": "a.txt", "create": "x"}]}`,
		"read a folder":             `read_file {"path": "d"}`,
		"edit a folder":             `edit_file {"path": "d", "edits": [{"oldText": "a", "newText": "b"}]}`,
		"list a file":               `list_files {"path": "a.txt"}`,
		"create below a file":       `create_file {"path": "a.txt/x", "content": "x"}`,
		"nothing stood there":       `read_file {"path": "nope.txt"}`,
		"edit not found in a file":  `edit_file {"path": "a.txt", "edits": [{"oldText": "beta", "newText": "b"}]}`,
		"create, all new, refused?": `create_file {"path": "../out.txt", "content": "x"}`,
		"a create, then not found":  `apply_changes {"changes": [{"path": "n2.txt", "create": "n"}, {"path": "a.txt", "edits": [{"oldText": "beta", "newText": "b"}]}]}`,
	}
	not := map[string]string{
		"read a FIFO":     `read_file {"path": "pipe"}`,
		"read binary":     `read_file {"path": "bin.dat"}`,
		"edit below FIFO": `edit_file {"path": "pipe", "edits": [{"oldText": "a", "newText": "b"}]}`,
		// The record keeps the content of the refused change's file only.
		"an edit, then exists":    `apply_changes {"changes": [{"path": "a.txt", "edits": [{"oldText": "alpha", "newText": "b"}]}, {"path": "d/in.txt", "create": "x"}]}`,
		"an edit, then not found": `apply_changes {"changes": [{"path": "a.txt", "edits": [{"oldText": "alpha", "newText": "b"}]}, {"path": "d/in.txt", "edits": [{"oldText": "zz", "newText": "y"}]}]}`,
	}
	seqs := map[string]uint64{}
	for what, c := range merge(same, not) {
		tool, args, _ := strings.Cut(c, " ")
		r := call(a, tool, args)
		if r.OK || r.Txn == nil {
			t.Fatalf("%s: the call was meant to be refused: %+v", what, r)
		}
		seqs[what] = uint64(*r.Txn)
	}
	rp, err := NewReplayer(a.eng)
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	for what := range same {
		res, err := rp.Replay(seqs[what])
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if !res.Replayable || !res.Same {
			t.Errorf("%s: recorded %s, today %v %s (%s): %+v", what, res.RecordedKind, res.NowOK, res.NowKind, res.NowText, res)
		}
	}
	for what := range not {
		res, err := rp.Replay(seqs[what])
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if res.Replayable || res.Why == "" {
			t.Errorf("%s: not reported as not replayable: %+v", what, res)
		}
		if strings.Contains(res.Why, dir) {
			t.Errorf("%s: why names a host path: %s", what, res.Why)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); err == nil {
		t.Error("a replay wrote to the disk")
	}
}

func merge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// What stood at a refused path is read from the record's structure; a record written
// before the structure was kept is read from its message, as it was then.
func TestStandInFromStructureThenMessage(t *testing.T) {
	failed := func(kind, msg string, d *journal.Refusal) *journal.Record {
		return &journal.Record{State: journal.Failed, Kind: kind, Message: msg, Refusal: d,
			Files: []journal.File{{Path: "d/x", Op: journal.OpCreate}}}
	}
	cases := []struct {
		name string
		rec  *journal.Record
		want standIn
		not  bool // not replayable
	}{
		{"a folder, said in structure only", failed("file_exists", "refused.", &journal.Refusal{Found: errs.FoundDir}), standIn{path: "d/x", dir: true}, false},
		{"a file on the way", failed("not_a_file", "refused.", &journal.Refusal{Found: errs.FoundFile, At: "d"}), standIn{path: "d"}, false},
		{"a FIFO", failed("not_a_file", "refused.", &journal.Refusal{Found: "a FIFO"}), standIn{}, true},
		{"an older record's message", failed("file_exists", "d/x already exists (a directory). Use edit_file.", nil), standIn{path: "d/x", dir: true}, false},
		{"an older record that says nothing", failed("not_a_file", "refused.", nil), standIn{}, true},
	}
	for _, c := range cases {
		got, why := standInFor(c.rec)
		if got != c.want || (why != "") != c.not {
			t.Errorf("%s: got %+v %q, want %+v (not replayable: %v)", c.name, got, why, c.want, c.not)
		}
	}
}

package toolapi

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/journal"
)

// The diff that show and log give of a call is the diff its reply showed, byte for
// byte, over calls of every kind: edits exact and fuzzy, in CRLF and BOM files, with
// a gutter, several at once, at a file's last line without a line break; creates,
// writes, deletes, moves, the dialects, undo and redo. The journal keeps most of
// these diffs as splices only and renders them again when read; the replies, made
// before anything was stored, are the oracle.
func TestShownDiffIsTheReplys(t *testing.T) {
	dir := t.TempDir()
	lines := func(n int, eol string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "line %d of the file%s", i+1, eol)
		}
		return b.String()
	}
	files := map[string]string{
		"a.go":      "package a\n\nfunc f() {\n\treturn\n}\n" + lines(40, "\n"),
		"crlf.txt":  lines(12, "\r\n"),
		"bom.txt":   "\ufeff" + lines(6, "\n"),
		"q.py":      "print(\"a\")\nprint(\"b\")\n",
		"noeol.txt": "one\ntwo\nthree",
		"mixed.txt": "a\r\nb\nc\rd\n",
		"old.txt":   "bye\n",
		"mv.txt":    "move me\nand me\n",
		"sr.js":     "function add(a, b) {\n  return a + b;\n}\n",
		"te.py":     "x = 1\ny = 2\nz = 3\n",
		"empty.txt": "",
	}
	for p, c := range files {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.api.tools = toolTable // every dialect
	ctx := context.Background()
	replies := map[int64]string{} // call -> what its reply showed of its diffs
	do := func(tool string, args any) {
		t.Helper()
		b, _ := json.Marshal(args)
		r := e.Call(ctx, "s", tool, b)
		if !r.OK || r.Txn == nil {
			t.Fatalf("%s %s: %s", tool, b, r.Text)
		}
		replies[*r.Txn] = r.Text
	}
	edit := func(path string, pairs ...string) {
		t.Helper()
		var edits []map[string]string
		for i := 0; i < len(pairs); i += 2 {
			edits = append(edits, map[string]string{"oldText": pairs[i], "newText": pairs[i+1]})
		}
		do(EditFile, map[string]any{"path": path, "edits": edits})
	}
	revert := func(req UndoRequest) {
		t.Helper()
		rep := e.Revert(ctx, req)
		if !rep.OK {
			t.Fatalf("%+v: %s", req, rep.Text)
		}
		var d string
		for _, f := range rep.Files {
			d += f.Diff
		}
		replies[int64(rep.Txn)] = d
	}

	edit("a.go", "\treturn\n", "\treturn 1\n")
	edit("a.go", "line 3 of", "line three of", "line 30 of", "line thirty of")
	edit("a.go", "line 5 of the file\nline 6 of", "line 5 of the file\nline six of") // context padding
	edit("./a.go", "line 7 of", "line seven of")                                     // the path in another spelling
	edit("crlf.txt", "line 2 of the file\nline 3 of the file\n", "line 2 of the file\nadded\nline 3 of the file\n")
	edit("crlf.txt", "line 12 of the file", "the last line")
	edit("bom.txt", "line 1 of", "first line of")
	edit("q.py", "print(“a”)", "print(“A”)")                        // typography
	edit("a.go", "  line 9 of the file", "  line nine of the file") // indentation
	edit("a.go", "    11\tline 11 of the file", "    11\tline eleven of the file")
	edit("noeol.txt", "three", "three\nfour")
	edit("noeol.txt", "two\n", "")
	edit("mixed.txt", "c", "C")
	// An empty file's first line: the empty content is a version too.
	do(ApplyPatch, map[string]string{"input": "*** Begin Patch\n*** Update File: empty.txt\n+hello\n*** End Patch"})
	edit("empty.txt", "hello", "hello again")
	do(CreateFile, map[string]any{"path": "sub/new.txt", "content": "new\nfile\n"})
	do(ReadFile, map[string]any{"path": "q.py"})
	do(WriteFile, map[string]any{"path": "q.py", "content": "print(\"whole\")\n"})
	do(ApplyChanges, map[string]any{"changes": []map[string]any{
		{"path": "a.go", "edits": []map[string]string{{"oldText": "line 20 of", "newText": "line twenty of"}}},
		{"path": "bom.txt", "edits": []map[string]string{{"oldText": "line 6 of the file\n", "newText": ""}}},
		{"path": "c.txt", "create": "c\n"},
	}})
	do(ApplyPatch, map[string]string{"input": "*** Begin Patch\n*** Update File: a.go\n@@\n line 24 of the file\n-line 25 of the file\n+line 25, patched\n" +
		"*** Add File: added.txt\n+added\n*** Delete File: old.txt\n*** Update File: mv.txt\n*** Move to: moved.txt\n@@\n-and me\n+and me too\n*** End Patch"})
	do("replace_in_file", map[string]string{"path": "sr.js", "diff": "------- SEARCH\n  return a + b;\n=======\n  return b + a;\n+++++++ REPLACE\n"})
	do("str_replace_based_edit_tool", map[string]string{"command": "str_replace", "path": "te.py", "old_str": "y = 2", "new_str": "y = 20"})
	do("str_replace_based_edit_tool", map[string]any{"command": "insert", "path": "te.py", "insert_line": 1, "new_str": "w = 0"})
	do(UndoEdit, map[string]string{"path": "te.py"})
	revert(UndoRequest{Seq: 1})
	undo := e.Revert(ctx, UndoRequest{Path: "crlf.txt"})
	if !undo.OK {
		t.Fatal(undo.Text)
	}
	replies[int64(undo.Txn)] = undo.Files[0].Diff
	revert(UndoRequest{Seq: undo.Txn, Redo: true})
	edit("a.go", "line 40 of", "line forty of")
	// The undo of a call that created a file deletes it; a diff longer than MaxDiff
	// is kept cut.
	revert(UndoRequest{Path: "c.txt"})
	if _, err := os.Stat(filepath.Join(dir, "c.txt")); err == nil {
		t.Fatal("the undo of c.txt's create left it")
	}
	revert(UndoRequest{Path: "empty.txt"})
	revert(UndoRequest{Path: "empty.txt"})
	if b, err := os.ReadFile(filepath.Join(dir, "empty.txt")); err != nil || len(b) != 0 {
		t.Errorf("empty.txt after undoing both edits: %q (%v)", b, err)
	}
	long := strings.Repeat("a line long enough to make the diff of this change longer than the journal keeps\n", 800)
	do(CreateFile, map[string]any{"path": "long.txt", "content": long})
	edit("long.txt", long, strings.ToUpper(long))
	var longSeq int64
	for seq := range replies {
		longSeq = max(longSeq, seq)
	}

	// What the journal keeps: most diffs as splices only, so that the check below
	// tests their rendering.
	var omitted, kept int
	e.api.eng.View(func(t *journal.Tx) error {
		for seq := range replies {
			r, _ := t.Get(uint64(seq))
			for _, f := range r.Files {
				switch {
				case f.DiffOmitted():
					omitted++
				case f.Diff != "":
					kept++
				}
			}
		}
		return nil
	})
	if omitted < 15 || kept < 4 {
		t.Errorf("%d diffs kept as splices only and %d kept whole; want most as splices, creates, writes and moves whole", omitted, kept)
	}

	logged, err := e.Log(Query{})
	if err != nil {
		t.Fatal(err)
	}
	bySeq := map[uint64]*Record{}
	for _, r := range logged {
		bySeq[r.Seq] = r
	}
	// Calls lists the same calls, without rendering diffs.
	if calls, err := e.Calls(Query{}); err != nil || len(calls) != len(logged) || calls[0].Seq != logged[0].Seq {
		t.Errorf("Calls gives %d records, Log %d (%v)", len(calls), len(logged), err)
	}
	for seq, reply := range replies {
		rec, _, err := e.Show(uint64(seq))
		if err != nil || rec == nil {
			t.Fatalf("show %d: %v", seq, err)
		}
		for i, f := range rec.Files {
			if f.Diff != bySeq[rec.Seq].Files[i].Diff {
				t.Errorf("call %d, %s: show and log differ:\n%s\n%s", seq, f.Path, f.Diff, bySeq[rec.Seq].Files[i].Diff)
			}
			if f.Op == journal.OpCreate || f.Op == journal.OpDelete || f.Op == journal.OpWrite || f.Op == journal.OpRead {
				continue // their replies tell the content's size, not its diff
			}
			if seq == longSeq {
				cut, ok := strings.CutSuffix(f.Diff, "\n(diff truncated)\n")
				if !ok || len(cut) != journal.MaxDiff || !strings.Contains(reply, cut) {
					t.Errorf("the long edit shows a diff of %d bytes ending %q", len(f.Diff), f.Diff[max(len(f.Diff)-40, 0):])
				}
				continue
			}
			if f.Diff == "" || !strings.Contains(reply+"\n", f.Diff) {
				t.Errorf("call %d (%s), %s: show gives the diff\n%s\nthe reply showed\n%s", seq, rec.Tool, f.Path, f.Diff, reply)
			}
		}
	}
}

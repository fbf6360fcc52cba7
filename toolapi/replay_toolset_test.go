package toolapi_test

import (
	"path/filepath"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/toolapi"
)

// A call replays under the tool set it was made under, and a call refused before it
// read its file is not met by a file the rebuild left out: each comes out as recorded,
// as the same call sent live today does.
func TestReplayUnderTheRecordedToolSet(t *testing.T) {
	ws := testutil.Workspace(t, map[string]string{"a.txt": "alpha\nbeta\n"})
	eng, err := toolapi.Open(ws, toolapi.Options{Tools: "codex"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	twice := "*** Begin Patch\n*** Update File: a.txt\n@@\n-alpha\n+one\n*** Update File: a.txt\n@@\n-beta\n+two\n*** End Patch\n"
	calls := []struct {
		tool, kind string
		args       any
	}{
		{"edit_file", "unknown_tool", edit("a.txt", "alpha", "one")},
		{"apply_patch", "invalid_input", map[string]any{"input": twice}},
	}
	var seqs []uint64
	for _, c := range calls {
		r := call(t, eng, c.tool, c.args)
		if r.OK || r.Kind == nil || *r.Kind != c.kind || r.Txn == nil {
			t.Fatalf("%s: want refused %s, got %+v", c.tool, c.kind, r)
		}
		seqs = append(seqs, uint64(*r.Txn))
	}
	rp, err := eng.Replayer()
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	for i, seq := range seqs {
		res, err := rp.Replay(seq)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Replayable || !res.Same || res.NowKind != calls[i].kind {
			t.Errorf("%s: replay says replayable %v, same %v, today %q (%s), want %s as recorded: %s",
				calls[i].tool, res.Replayable, res.Same, res.NowKind, res.NowText, calls[i].kind, res.Why)
		}
	}
}

// A call that names its file by an absolute path inside the workspace, as Gemini CLI
// sends every path, replays as recorded: the rebuild answers to the workspace's own
// spellings of its root, not to "/".
func TestReplayOfAbsolutePaths(t *testing.T) {
	ws := testutil.Workspace(t, map[string]string{"app.py": "a = 'x'\n"})
	eng, err := toolapi.Open(ws, toolapi.Options{Tools: "gemini,edit_file"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	abs := filepath.Join(ws, "app.py")
	calls := []struct {
		tool string
		args any
		ok   bool
	}{
		{"replace", map[string]any{"file_path": abs, "old_string": "'x'", "new_string": "'y'"}, true},
		{"edit_file", edit(abs, "'y'", "'z'"), true},
		{"replace", map[string]any{"file_path": abs, "old_string": "'nowhere'", "new_string": "'y'"}, false},
		{"replace", map[string]any{"file_path": filepath.Join(filepath.Dir(ws), "outside.py"), "old_string": "a", "new_string": "b"}, false},
	}
	var seqs []uint64
	for _, c := range calls {
		r := call(t, eng, c.tool, c.args)
		if r.OK != c.ok || r.Txn == nil {
			t.Fatalf("%s: %+v", c.tool, r)
		}
		seqs = append(seqs, uint64(*r.Txn))
	}
	rp, err := eng.Replayer()
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	for i, seq := range seqs {
		res, err := rp.Replay(seq)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Replayable || !res.Same {
			t.Errorf("call %d (%s): replay says replayable %v, same %v, today %v %q: %s", i+1, calls[i].tool, res.Replayable, res.Same, res.NowOK, res.NowText, res.Why)
		}
	}
}

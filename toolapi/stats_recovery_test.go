package toolapi_test

import (
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/toolapi"
)

// A refusal followed by a success on the same file counts as recovered whatever tool
// set the calls came from: a refused str_replace then a good one, a placeholder
// refusal then an apply_patch that lands. Reads never count.
func TestStatsRecoveryInEveryToolSet(t *testing.T) {
	ws := testutil.Workspace(t, map[string]string{"a.txt": "alpha\nbeta\n", "b.go": "package b\n\nfunc F() int {\n\treturn 1\n}\n"})
	eng, err := toolapi.Open(ws, toolapi.Options{Tools: "all"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	steps := []struct {
		tool string
		args any
		ok   bool
	}{
		{"str_replace_based_edit_tool", map[string]any{"command": "str_replace", "path": "a.txt", "old_str": "gamma", "new_str": "g"}, false},
		{"str_replace_based_edit_tool", map[string]any{"command": "str_replace", "path": "a.txt", "old_str": "beta", "new_str": "b"}, true},
		{"edit_file", edit("b.go", "\treturn 1\n", "\t// ... existing code ...\n"), false},
		{"apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: b.go\n@@\n func F() int {\n-\treturn 1\n+\treturn 2\n }\n*** End Patch\n"}, true},
		{"read_file", map[string]any{"path": "nope.txt"}, false},
	}
	for i, s := range steps {
		if r := call(t, eng, s.tool, s.args); r.OK != s.ok {
			t.Fatalf("step %d (%s): ok %v, want %v: %s", i, s.tool, r.OK, s.ok, r.Text)
		}
	}
	st, err := eng.Stats(toolapi.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if rec := st.Recovery; rec.Refused != 2 || rec.Recovered != 2 || len(rec.NeverByKind) != 0 {
		t.Errorf("recovery: %d refused, %d recovered, never %v; want 2, 2, none", rec.Refused, rec.Recovered, rec.NeverByKind)
	}
}

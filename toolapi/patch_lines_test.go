package toolapi_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/toolapi"
)

// Every tool records the file's lines of each edit: an apply_patch chunk that
// replaces lines 5-8 says [5,8], as edit_file and replace_in_file do, not [1,4]
// counted from the chunk.
func TestEditLinesAreFileLines(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	ws := testutil.Workspace(t, map[string]string{"p.txt": b.String(), "e.txt": b.String(), "s.txt": b.String()})
	eng, err := toolapi.Open(ws, toolapi.Options{Tools: "all"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	five8 := "line 5\nline 6\nline 7\nline 8\n"
	calls := []struct {
		tool string
		args any
	}{
		{"apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: p.txt\n@@\n-line 5\n-line 6\n-line 7\n-line 8\n+five to eight\n*** End Patch\n"}},
		{"edit_file", edit("e.txt", five8, "five to eight\n")},
		{"replace_in_file", map[string]any{"path": "s.txt", "diff": "<<<<<<< SEARCH\n" + five8 + "=======\nfive to eight\n>>>>>>> REPLACE\n"}},
	}
	for _, c := range calls {
		r := call(t, eng, c.tool, c.args)
		if !r.OK {
			t.Fatalf("%s: %s", c.tool, r.Text)
		}
		rec, _, err := eng.Show(uint64(*r.Txn))
		if err != nil {
			t.Fatal(err)
		}
		if got := rec.Files[0].Edits; len(got) != 1 || !reflect.DeepEqual(got[0].Lines, [][2]int{{5, 8}}) {
			t.Errorf("%s recorded edits %+v, want lines [[5 8]]", c.tool, got)
		}
	}
}

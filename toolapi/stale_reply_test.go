package toolapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/toolapi"
)

// After a session read lines 1-3 of a file and edited it, a failed edit and a refused
// write_file say what really happened since the read: only the session's own edit
// changed the file, and lines 1-3 of its 351 were seen, with what to read next.
func TestRepliesSayWhatChangedSinceTheRead(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 351; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	ws := testutil.Workspace(t, map[string]string{"big.txt": b.String()})
	eng, err := toolapi.Open(ws, toolapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	must := func(r toolapi.Result, ok bool) toolapi.Result {
		t.Helper()
		if r.OK != ok {
			t.Fatalf("ok %v, want %v: %s", r.OK, ok, r.Text)
		}
		return r
	}
	must(call(t, eng, "read_file", map[string]any{"path": "big.txt", "offset": 1, "limit": 3}), true)
	must(call(t, eng, "edit_file", edit("big.txt", "line 2\n", "second\n")), true)
	r := must(call(t, eng, "edit_file", edit("big.txt", "no such line\n", "x\n")), false)
	if strings.Contains(r.Text, "has changed since you last read it") || !strings.Contains(r.Text, "your own edit") {
		t.Errorf("failed edit after the session's own edit: %s", r.Text)
	}
	r = must(call(t, eng, "write_file", map[string]any{"path": "big.txt", "content": "new\n"}), false)
	if strings.Contains(r.Text, "has changed since this session last read it") || !strings.Contains(r.Text, "lines 1-3 of 351") || !strings.Contains(r.Text, "4-351") {
		t.Errorf("write_file after a read of 3 of 351 lines: %s", r.Text)
	}
}

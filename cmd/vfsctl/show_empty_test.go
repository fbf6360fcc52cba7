package main

import (
	"strings"
	"testing"
)

// show of an empty file made printed a hunk "@@ -0,0 +0,0 @@" that does not exist;
// git prints none.
func TestShowEmptyCreatedFileHasNoHunk(t *testing.T) {
	dir := t.TempDir()
	cliIn(t, dir, `{"tool":"create_file","args":{"path":"e.txt","content":""}}`+"\n", "call", "--root", dir)
	code, out, errb := cliIn(t, dir, "", "show", "--root", dir, "1")
	if code != exitOK || !strings.Contains(out, "+++ b/e.txt\n") || strings.Contains(out, "@@") {
		t.Errorf("show of an empty file made: exit %d\n%s%s", code, out, errb)
	}
}

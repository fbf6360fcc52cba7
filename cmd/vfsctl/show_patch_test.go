package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/toolapi"
)

// show prints an apply_patch call's patch line by line, in each shape it arrives in.
func TestShowPrintsThePatch(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{`{"input": "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch"}`,
			"input    |*** Begin Patch\n         |*** Delete File: a.txt\n         |*** End Patch\n"},
		{`"*** Begin Patch\n*** Delete File: a.txt\n*** End Patch"`,
			"input    |*** Begin Patch\n         |*** Delete File: a.txt\n         |*** End Patch\n"},
		{`{"operation": {"type": "update_file", "path": "a.txt", "diff": "@@\n-a\n+b\n"}}`,
			"operation.diff |@@\n         |-a\n         |+b\n"},
	} {
		var b bytes.Buffer
		writeRecord(&b, &toolapi.Record{Seq: 1, Tool: toolapi.ApplyPatch, Args: c.args})
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("%s: show printed\n%s\nwant it to contain\n%s", c.args, b.String(), c.want)
		}
	}
	var b bytes.Buffer
	writeRecord(&b, &toolapi.Record{Seq: 1, Tool: toolapi.EditFile, Args: `{"path": "a", "edits": "x\ny"}`})
	if strings.Contains(b.String(), "|") {
		t.Errorf("an edit_file call's arguments were printed line by line:\n%s", b.String())
	}
}

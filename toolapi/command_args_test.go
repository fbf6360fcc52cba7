package toolapi_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/internal/winetest"
	"github.com/vfsctl/vfsctl/toolapi"
)

// run_command with a blank command ran the shell on nothing and replied that it
// exited 0; with cwd a symlink to a folder outside the workspace, it was told to "Edit
// files inside it", though nothing is edited. Each is refused, runs nothing, and says
// what to send.
func TestRunCommandRefusesBlankCommandAndCwdOutside(t *testing.T) {
	winetest.NeedPOSIXShell(t)
	root := testutil.Workspace(t, map[string]string{"a.txt": "a\n"})
	if err := os.Symlink(t.TempDir(), filepath.Join(root, "out")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	eng, err := toolapi.Open(root, toolapi.Options{Tools: "native,shell"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	for _, c := range []struct{ args, kind, says string }{
		{`{"command": "   "}`, "invalid_input", "Send the command line"},
		{`{"command": "\t\n"}`, "invalid_input", "Send the command line"},
		{`{"command": "echo x > made.txt", "cwd": "out"}`, "path_outside_root", "Send cwd as a folder of the workspace"},
	} {
		r := eng.Call(context.Background(), "s", toolapi.RunCommand, json.RawMessage(c.args))
		kind := ""
		if r.Kind != nil {
			kind = *r.Kind
		}
		if r.OK || kind != c.kind || !strings.Contains(r.Text, c.says) || strings.Contains(r.Text, "Edit files") {
			t.Errorf("run_command %s: ok %v, kind %q: %s; want %s saying %q", c.args, r.OK, kind, r.Text, c.kind, c.says)
		}
	}
	recs, err := eng.Log(toolapi.Query{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Tool == toolapi.RunCommand && r.Exit != "" {
			t.Errorf("call %d ran a command (%s)", r.Seq, r.Exit)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(root, "out")); len(entries) > 0 {
		t.Errorf("the command ran in the folder outside: %d entries there", len(entries))
	}
}

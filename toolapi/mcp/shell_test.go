package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vfsctl/vfsctl/internal/winetest"
	"github.com/vfsctl/vfsctl/toolapi"
)

// A server opened with the shell set serves run_command, annotated as destructive and
// reaching beyond the workspace; a call runs the command in the workspace and its
// reply gives the exit status, the output and what it changed.
func TestServesRunCommand(t *testing.T) {
	winetest.NeedPOSIXShell(t) // toolapi's TestRunCommandRunsCmdExe runs cmd.exe on Windows
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	eng, err := toolapi.Open(dir, toolapi.Options{Tools: "native,shell"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	cs := serve(t, eng)
	ctx := context.Background()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tl := range res.Tools {
		if tl.Name != toolapi.RunCommand {
			continue
		}
		found = true
		a := tl.Annotations
		if a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint || a.IdempotentHint || a.OpenWorldHint == nil || !*a.OpenWorldHint {
			t.Errorf("run_command's annotations: %+v", a)
		}
	}
	if !found {
		t.Fatal("run_command is not served")
	}
	r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: toolapi.RunCommand, Arguments: map[string]any{"command": "echo b >> a.txt; echo done"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.IsError || !strings.Contains(text(r), "Exit status 0") || !strings.Contains(text(r), "stdout:\ndone\n") || !strings.Contains(text(r), "a.txt | +1 -0") {
		t.Fatalf("run_command: error %v: %s", r.IsError, text(r))
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "a\nb\n" {
		t.Errorf("a.txt %q", got)
	}
}

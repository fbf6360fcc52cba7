//go:build !windows

package toolapi_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/toolapi"
)

// A command the shell could not be started for was replied to as "The command ended:
// not started: ...", as if it had run and ended. The kernel refuses to start
// /bin/sh with an argument over its bounds (E2BIG: 128 KiB for one argument on Linux,
// 1 MiB for all on macOS), a limit run_command does not know of: the reply says the command did not start, why, that
// nothing was run, and the exit status 126, as env gives a program it found and
// could not run.
func TestRunCommandNotStartedSaysSo(t *testing.T) {
	root := testutil.Workspace(t, map[string]string{"a.txt": "a\n"})
	eng, err := toolapi.Open(root, toolapi.Options{Tools: "native,shell"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	command := "echo x > made.txt # " + strings.Repeat("x", 4<<20)
	args, _ := json.Marshal(map[string]string{"command": command})
	r := eng.Call(context.Background(), "s", toolapi.RunCommand, args)
	if !r.OK {
		t.Fatalf("run_command: refused: %s", r.Text)
	}
	first, _, _ := strings.Cut(r.Text, "\n")
	if !strings.HasPrefix(first, "The command did not start: ") || !strings.Contains(first, "argument list too long") ||
		!strings.Contains(first, "nothing was run") || !strings.Contains(first, "exit status 126") || strings.Contains(r.Text, "ended") {
		t.Errorf("reply: %s\nwant its first line to say the command did not start, why (argument list too long), that nothing was run, exit status 126", r.Text)
	}
	if strings.Contains(r.Text, "stdout:") {
		t.Errorf("reply shows the output of a command that never ran: %s", r.Text)
	}
	if _, err := os.Stat(filepath.Join(root, "made.txt")); err == nil {
		t.Errorf("made.txt exists: the command ran")
	}
}

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

// run_command runs the system's cmd.exe /c on Windows: the command's output and exit
// status come back, a file it writes is recorded as its change, and quotes reach
// the command as the model wrote them (Go quotes argv in a way cmd.exe does not read).
func TestRunCommandRunsCmdExe(t *testing.T) {
	root := testutil.Workspace(t, map[string]string{"a file.txt": "spaced name\n"})
	eng, err := toolapi.Open(root, toolapi.Options{Tools: "native,shell"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	run := func(command string) toolapi.Result {
		t.Helper()
		args, _ := json.Marshal(map[string]string{"command": command})
		r := eng.Call(context.Background(), "s", toolapi.RunCommand, args)
		if !r.OK {
			t.Fatalf("%s: %s", command, r.Text)
		}
		return r
	}
	if r := run(`type "a file.txt"`); !strings.Contains(r.Text, "Exit status 0") || !strings.Contains(r.Text, "spaced name") {
		t.Errorf(`type "a file.txt": %s`, r.Text)
	}
	r := run(`echo made>out.txt`)
	if got, _ := os.ReadFile(filepath.Join(root, "out.txt")); string(got) != "made\r\n" {
		t.Errorf("out.txt holds %q, want %q", got, "made\r\n")
	}
	if !strings.Contains(r.Text, "It changed 1 file") || !strings.Contains(r.Text, "out.txt") {
		t.Errorf("the reply does not list out.txt as changed: %s", r.Text)
	}
	if r := run(`exit /b 3`); !strings.Contains(r.Text, "Exit status 3") {
		t.Errorf("exit /b 3: %s", r.Text)
	}
}

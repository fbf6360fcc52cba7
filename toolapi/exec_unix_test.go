//go:build !windows

package toolapi_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/toolapi"
)

// A command that leaves a process behind holding its output open (`cmd &`, a daemon
// in a session of its own) ends when the command does, or at its timeout: the
// output is cut after a short grace and the result says a process kept it open.
func TestEngineExecOutputHeldOpen(t *testing.T) {
	root := testutil.Workspace(t, map[string]string{"a.txt": "a\n"})
	eng, err := toolapi.Open(root, toolapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	cases := []struct {
		name, script string
		timeout      time.Duration
		exit         string
	}{
		// sh exits at once; before, Exec waited for the sleep.
		{"background", "echo hi; sleep 20 & echo $! > bg.pid", 0, "exit 0"},
		// sh is killed at its timeout; the sleep in a session of its own is not.
		{"own session", "echo hi; setsid sh -c 'echo $$ > bg.pid; exec sleep 20' & sleep 20", 300 * time.Millisecond, "killed after the timeout of 300ms"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if strings.Contains(c.script, "setsid") {
				if _, err := exec.LookPath("setsid"); err != nil {
					t.Skip("no setsid here")
				}
			}
			var out bytes.Buffer
			res, err := eng.Exec(context.Background(), "conv", []string{"sh", "-c", c.script}, toolapi.ExecOptions{Stdout: &out, Timeout: c.timeout})
			if b, rerr := os.ReadFile(filepath.Join(root, "bg.pid")); rerr == nil {
				if pid, _ := strconv.Atoi(strings.TrimSpace(string(b))); pid > 0 {
					syscall.Kill(pid, syscall.SIGKILL)
				}
				os.Remove(filepath.Join(root, "bg.pid"))
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Exit != c.exit || out.String() != "hi\n" {
				t.Fatalf("ended %q with stdout %q, want %q and hi", res.Exit, out.String(), c.exit)
			}
			if len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "kept its output open") {
				t.Fatalf("notes %q: none says a process kept the output open", res.Notes)
			}
		})
	}
}

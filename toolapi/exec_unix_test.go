//go:build !windows

package toolapi_test

import (
	"bytes"
	"context"
	"encoding/json"
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

// A command's line in listings is its argv as a shell reads it back: sh, the oracle,
// gives back each argument as it ran, however it is spelled (spaces, quotes, an
// empty argument, redirections, a newline, bytes that are not UTF-8 aside). It once
// joined them by spaces, so that `printf '%s\n' 'sp ace' ”` could not be told from
// `printf %s\n sp ace`.
func TestCommandLineIsWhatAShellReads(t *testing.T) {
	for _, argv := range [][]string{
		{"gofmt", "-w", "."},
		{"printf", `%s\n`, "sp ace", ""},
		{"sh", "-c", "echo y >> x.txt; echo 'it''s' \"$HOME\""},
		{"a'b", `c\d`, "e\nf", "*", "$(id)", "~", "#x", "--flag=a b"},
	} {
		args, _ := json.Marshal(toolapi.ExecArgs{Argv: argv, Cwd: "."})
		line := toolapi.CommandLine(&toolapi.Record{Tool: "exec", Args: string(args)})
		got, err := exec.Command("sh", "-c", "set -- "+line+`; for a in "$@"; do printf '%s\0' "$a"; done`).Output()
		if err != nil {
			t.Fatalf("%q: sh: %v", line, err)
		}
		if want := strings.Join(argv, "\x00") + "\x00"; string(got) != want {
			t.Errorf("line %q reads back as %q; want %q", line, got, want)
		}
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/winetest"
)

// A usage error of vfsctl exec exited 2, the status of a command that ran and exited
// 2, and printed nothing on stdout with --json. Every way the command is not run
// exits 125 now, with the {ok: false} line when --json is among exec's own
// arguments; a command's own 2 is still 2.
func TestExecUsageErrorsExit125(t *testing.T) {
	winetest.NeedPOSIXShell(t)
	dir := t.TempDir()
	ran := []string{"--", "sh", "-c", "echo ran > ran.txt"}
	for _, c := range []struct {
		args   []string
		asJSON bool
	}{
		{append([]string{"--timeout", "30"}, ran...), false}, // no unit
		{append([]string{"--json", "--bogus"}, ran...), true},
		{[]string{"--json"}, true}, // no command
		{nil, false},
		{append([]string{"--timeout", "-1s", "--json"}, ran...), true},
		{append([]string{"--json=true", "--session", ""}, ran...), true},
		{append([]string{"--json=false", "--bogus"}, ran...), false},
		{[]string{"--bogus", "--", "sh", "-c", "echo --json > ran.txt"}, false},          // the command's --json
		{[]string{"--timeout", "30", "sh", "-c", "echo ran > ran.txt", "--json"}, false}, // after the command's name, without --
		{[]string{"--bogus", "sh", "-c", "echo ran > ran.txt", "--json"}, false},         // an unknown flag takes no value: sh is the command's name
		{append([]string{"--bogus", "--json"}, ran...), true},
		{append([]string{"--session", "--json", "--timeout", "30"}, ran...), false}, // --json is the session's name
		{append([]string{"---json", "--bogus"}, ran...), false},                     // ---json is the bad flag, not --json
		{[]string{"--session", "--json", "sh", "-c", "echo ran > ran.txt"}, false},  // --session's value left out: not a session named --json
		{append([]string{"--json", "--turn", "--timeout=2m"}, ran...), true},
		{append([]string{"--json", "--session", "--"}, ran...), true},
	} {
		args := append([]string{"exec", "--root", dir}, c.args...)
		code, out, errb := cliIn(t, dir, "", args...)
		if code != exitVfsctl {
			t.Errorf("%q: exit %d, want %d (vfsctl failed, the command was not run): %s", args, code, exitVfsctl, errb)
		}
		if _, err := os.Stat(filepath.Join(dir, "ran.txt")); err == nil {
			t.Fatalf("%q: the command ran", args)
		}
		if !c.asJSON {
			if out != "" || !strings.Contains(errb, "the command was not run") {
				t.Errorf("%q: stdout %q, stderr %q: want the reason on stderr only, saying the command was not run", args, out, errb)
			}
			continue
		}
		var got struct {
			OK   *bool  `json:"ok"`
			Kind string `json:"kind"`
			Text string `json:"text"`
		}
		if strings.Count(out, "\n") != 1 || json.Unmarshal([]byte(out), &got) != nil || got.OK == nil || *got.OK || got.Kind != "invalid_input" || !strings.Contains(got.Text, "the command was not run") {
			t.Errorf("%q: stdout %q: want one line {\"ok\": false, \"kind\": \"invalid_input\", \"text\": \"... the command was not run\"}", args, out)
		}
	}
	// A session name that starts with "-" but is no flag of exec's is a name.
	if code, _, errb := cliIn(t, dir, "", "exec", "--root", dir, "--session", "-agent", "--", "sh", "-c", "exit 3"); code != 3 {
		t.Errorf("--session -agent: exit %d, want the command's 3: %s", code, errb)
	}
	if code, _, errb := cliIn(t, dir, "", "exec", "--root", dir, "--", "sh", "-c", "exit 2"); code != 2 {
		t.Errorf("a command exiting 2: exit %d, want 2: %s", code, errb)
	}
}

// A command that could not be started exited 127 whatever the reason, its text
// "call N: not started: ...". As env and timeout: 127 for a program not found, 126
// for one found that cannot be run; the text says it did not start; the run is
// journaled, so ok is true as for a command that exits 1.
func TestExecNotStartedStatus(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes and folders as programs are POSIX's")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notexec.sh"), []byte("echo hi\n"), 0o644)
	os.Mkdir(filepath.Join(dir, "folder"), 0o755)
	for _, c := range []struct {
		prog string
		want int
	}{
		{filepath.Join(dir, "nonexistent"), 127},
		{"vfsctl-no-such-program", 127},
		{"./notexec.sh", 126},
		{"./folder", 126},
	} {
		code, out, errb := cliIn(t, dir, "", "exec", "--root", dir, "--json", "--", c.prog)
		if code != c.want {
			t.Errorf("exec %s: exit %d, want %d: %s%s", c.prog, code, c.want, out, errb)
		}
		var got struct {
			OK   bool   `json:"ok"`
			Text string `json:"text"`
			Exit string `json:"exit"`
			Code int    `json:"code"`
			Txn  uint64 `json:"txn"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("exec %s: stdout %q: %v", c.prog, out, err)
		}
		if !got.OK || got.Code != c.want || got.Txn == 0 || !strings.HasPrefix(got.Exit, "not started: ") || !strings.Contains(got.Text, "the command did not start") {
			t.Errorf("exec %s: %s: want ok true, code %d, a txn, exit \"not started: ...\", text saying the command did not start", c.prog, out, c.want)
		}
	}
}

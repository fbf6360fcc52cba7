package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// `vfsctl exec --wait 0s` while another exec runs does not wait for it: it is refused
// at once, naming it, and its command is not run. Before, 0 was taken for the default
// wait (10 s): the first command, let go here after 5 s, ended meanwhile, and the
// second ran.
func TestExecWaitZeroDoesNotWait(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the command is a POSIX shell script")
	}
	dir, marks := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	script := "touch " + filepath.Join(marks, "started") + "; while [ ! -e " + filepath.Join(marks, "go") + " ]; do sleep 0.01; done"
	first := exec.Command(os.Args[0], "exec", "--root", dir, "--session", "s", "--", "sh", "-c", script)
	first.Dir = dir
	first.Env = append(os.Environ(), "VFSCTL_TEST_RUN=1")
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { first.Wait(); close(exited) }()
	letGo := func() { os.WriteFile(filepath.Join(marks, "go"), nil, 0o644) }
	defer func() { letGo(); <-exited }()
	waitFor(filepath.Join(marks, "started"), exited)
	// Far under the default wait, far over what a refusal takes.
	timer := time.AfterFunc(5*time.Second, letGo)
	defer timer.Stop()

	second := exec.Command(os.Args[0], "exec", "--root", dir, "--wait", "0s", "--json", "--session", "u", "--", "sh", "-c", "echo second > second.txt")
	second.Dir = dir
	second.Env = append(os.Environ(), "VFSCTL_TEST_RUN=1")
	var stdout, stderr strings.Builder
	second.Stdout, second.Stderr = &stdout, &stderr
	second.Run()
	code, out, errb := second.ProcessState.ExitCode(), stdout.String(), stderr.String()
	var got struct {
		OK   bool   `json:"ok"`
		Kind string `json:"kind"`
		Text string `json:"text"`
	}
	if code != exitVfsctl || json.Unmarshal([]byte(out), &got) != nil || got.OK || got.Kind != "conflict" || !strings.Contains(got.Text, "exec 1 of session s") || !strings.Contains(got.Text, "Nothing was run.") {
		t.Errorf("exec --wait 0s while exec 1 runs: exit %d, %q %q; want it refused at once as a conflict naming exec 1", code, out, errb)
	}
	if _, err := os.Stat(filepath.Join(dir, "second.txt")); err == nil {
		t.Error("the second exec's command ran")
	}
}

// A command given without "--" runs, as env and timeout run theirs: vfsctl's flags
// end at its name, and what follows, a "--" included, is the command's. Before, it
// was refused as an "unexpected argument", and a "--" after the command's name was
// taken for vfsctl's and dropped.
func TestExecCommandWithoutDashDash(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the command is a POSIX shell script")
	}
	dir := t.TempDir()
	code, out, errb := cliIn(t, dir, "", "exec", "--root", dir, "--json", "sh", "-c", `printf '%s\n' "$@" > ran.txt`, "sh", "--json", "--", "x")
	if code != 0 || !strings.Contains(out, `"ok":true`) {
		t.Fatalf("exec without --: exit %d, %q %q; want the command run", code, out, errb)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "ran.txt")); string(b) != "--json\n--\nx\n" {
		t.Errorf("the command's arguments: %q, want --json, -- and x as given", b)
	}
}

// An exec whose workspace cannot be opened says, as every other failure that leaves
// the command not run, that it was not run. Before, it did not.
// notRunAtEnd is how a refusal ends that says the command was not run: after a cause
// that ends in a full stop (Windows's "File not found."), as a sentence of its own.
var notRunAtEnd = regexp.MustCompile(`(; the|\. The) command was not run\.?$`)

func TestExecOpenFailureSaysNotRun(t *testing.T) {
	dir := t.TempDir()
	code, out, errb := cliIn(t, dir, "", "exec", "--root", filepath.Join(dir, "nonexistent"), "--json", "--", "true")
	var got struct {
		OK   bool   `json:"ok"`
		Kind string `json:"kind"`
		Text string `json:"text"`
	}
	if code != exitVfsctl || json.Unmarshal([]byte(out), &got) != nil || got.OK || got.Kind != "file_not_found" || !notRunAtEnd.MatchString(got.Text) {
		t.Errorf("exec in a root that does not exist: exit %d, %q %q; want file_not_found, saying the command was not run", code, out, errb)
	}
}

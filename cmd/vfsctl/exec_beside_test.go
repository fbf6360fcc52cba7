package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// While `vfsctl exec` runs a command (a process of its own), another process's
// `vfsctl checkpoint` journals nothing and says that the exec runs, and another
// `vfsctl exec` waits for it as long as --wait, then is refused naming it, its command
// not run. The exec then records its command's changes, no outside record holds them,
// and a rewind of its turn takes them back. Before, the checkpoint journaled them as
// outside, the exec recorded "0 files changed", and the rewind did nothing.
func TestCheckpointAndExecWhileAnExecRuns(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the command is a POSIX shell script")
	}
	dir, marks := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	if code, _, errb := runBounded(t, "", "checkpoint", "--root", dir); code != exitOK {
		t.Fatalf("checkpoint: %s", errb)
	}
	script := "echo cmd > a.txt; echo n > n.txt; touch " + filepath.Join(marks, "started") + "; while [ ! -e " + filepath.Join(marks, "go") + " ]; do sleep 0.01; done"
	first := exec.Command(os.Args[0], "exec", "--root", dir, "--session", "s", "--turn", "t1", "--", "sh", "-c", script)
	first.Dir = dir
	first.Env = append(os.Environ(), "VFSCTL_TEST_RUN=1")
	var firstErr strings.Builder
	first.Stderr = &firstErr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { first.Wait(); close(exited) }()
	defer func() {
		os.WriteFile(filepath.Join(marks, "go"), nil, 0o644)
		<-exited
	}()
	waitFor(filepath.Join(marks, "started"), exited)

	code, out, errb := runBounded(t, "", "checkpoint", "--root", dir)
	if code != exitOK || !strings.Contains(out, "Exec 1 of session s (sh -c echo cmd > a.txt;") || !strings.Contains(out, "nothing was journaled as outside") {
		t.Errorf("checkpoint while exec 1 runs: exit %d, %q %q; want nothing journaled, naming exec 1", code, out, errb)
	}
	// With --json: one JSON line, what the text says in it, and the exec running.
	code, out, errb = runBounded(t, "", "checkpoint", "--root", dir, "--json")
	var got struct {
		OK      bool     `json:"ok"`
		Text    string   `json:"text"`
		Txn     uint64   `json:"txn"`
		Running []uint64 `json:"running"`
	}
	if code != exitOK || strings.Count(out, "\n") != 1 || json.Unmarshal([]byte(out), &got) != nil ||
		!got.OK || got.Txn != 0 || !slices.Equal(got.Running, []uint64{1}) || !strings.Contains(got.Text, "nothing was journaled as outside") {
		t.Errorf("checkpoint --json while exec 1 runs: exit %d, %q %q; want one JSON line with running [1]", code, out, errb)
	}
	second := exec.Command(os.Args[0], "exec", "--root", dir, "--wait", "200ms", "--session", "u", "--", "sh", "-c", "echo second > second.txt")
	second.Dir = dir
	second.Env = append(os.Environ(), "VFSCTL_TEST_RUN=1")
	var secondErr strings.Builder
	second.Stderr = &secondErr
	second.Run()
	code, errb = second.ProcessState.ExitCode(), secondErr.String()
	if code != exitVfsctl || !strings.Contains(errb, "exec 1 of session s (sh -c echo cmd > a.txt;") || !strings.Contains(errb, "Nothing was run.") {
		t.Errorf("a second exec while exec 1 runs: exit %d, %q; want it refused, naming exec 1", code, errb)
	}
	if _, err := os.Stat(filepath.Join(dir, "second.txt")); err == nil {
		t.Error("the second exec's command ran")
	}
	os.WriteFile(filepath.Join(marks, "go"), nil, 0o644)
	<-exited
	if !strings.Contains(firstErr.String(), "call 1: exit 0, 2 files changed") {
		t.Errorf("exec 1 said %q, want 2 files changed", firstErr.String())
	}
	_, out, _ = runBounded(t, "", "export", "--root", dir)
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct {
			Seq   uint64 `json:"seq"`
			Tool  string `json:"tool"`
			Files []struct {
				Path string `json:"path"`
			} `json:"files"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("export: %v: %s", err, line)
		}
		if r.Tool == "outside" && len(r.Files) > 0 {
			t.Errorf("call %d journaled %v as outside", r.Seq, r.Files)
		}
	}
	if code, out, errb := runBounded(t, "", "rewind", "--root", dir, "--session", "s", "--turn", "t1"); code != exitOK {
		t.Fatalf("rewind: %d %s %s", code, out, errb)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "a\n" {
		t.Errorf("a.txt after the rewind of t1: %q, want a", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "n.txt")); err == nil {
		t.Error("n.txt is still there after the rewind of t1")
	}
}

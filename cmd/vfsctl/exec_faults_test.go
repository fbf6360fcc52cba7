package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// testCommand is a command for vfsctl exec that needs no shell, so that the tests
// run where there is no sh (Windows): this test binary, run with
// VFSCTL_TEST_COMMAND=1 (selfCommand), does its arguments in turn: write=PATH:TEXT
// writes a file, rm=PATH removes a folder and all it holds (trying for 15 s),
// print=TEXT prints a line, and sleeper=DURATION starts this binary again to sleep
// that long and waits for it, as a shell waits for its sleep.
func testCommand(args []string) int {
	for _, a := range args {
		op, arg, _ := strings.Cut(a, "=")
		var err error
		switch op {
		case "write":
			i := strings.LastIndexByte(arg, ':') // a Windows path holds one too
			err = os.WriteFile(arg[:i], []byte(arg[i+1:]+"\n"), 0o644)
		case "rm":
			// Windows deletes no file that is mapped, as bbolt maps the journal, and
			// vfsctl keeps the journal open a while after a call (toolapi.DefaultLinger):
			// tried again until it lets go.
			for try := 0; ; try++ {
				if err = os.RemoveAll(arg); err == nil || try == 150 {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
		case "print":
			fmt.Println(arg)
		case "sleep":
			var d time.Duration
			if d, err = time.ParseDuration(arg); err == nil {
				time.Sleep(d)
			}
		case "sleeper":
			self, serr := os.Executable()
			if serr != nil {
				err = serr
				break
			}
			child := exec.Command(self, "sleep="+arg)
			child.Stdout, child.Stderr = os.Stdout, os.Stderr
			err = child.Run()
		default:
			err = fmt.Errorf("unknown step %q", a)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

// selfCommand is the argv of a testCommand doing steps, for vfsctl exec; it sets
// VFSCTL_TEST_COMMAND for t, which the command inherits.
func selfCommand(t *testing.T, steps ...string) []string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("VFSCTL_TEST_COMMAND", "1")
	return append([]string{self}, steps...)
}

// vfsctl exec's exit status says how things went: 124 with the record written when
// --timeout killed a command that never ends (its whole process group), 125 when the
// command removed the journal, which is then not made anew.
func TestExecTimeoutAndJournalGone(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	t.Chdir(dir) // exec runs its command in the current folder, which must be in the workspace
	vfsctl := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := run(args, strings.NewReader(""), &out, &errb)
		return code, out.String() + errb.String()
	}
	if code, out := vfsctl("checkpoint", "--root", dir); code != exitOK {
		t.Fatalf("checkpoint: %d %s", code, out)
	}
	// The command's child sleeps on: only a kill of the group (a job on Windows)
	// ends it.
	// The timeout leaves the command time to write s.txt first: the command is this
	// test binary, which a loaded machine takes a second to start, and Wine more.
	timeout := "3s"
	if runtime.GOOS == "windows" {
		timeout = "10s"
	}
	slow := selfCommand(t, "write="+filepath.Join(dir, "s.txt")+":started", "sleeper=60s", "print=late")
	code, out := vfsctl(append([]string{"exec", "--root", dir, "--timeout", timeout, "--"}, slow...)...)
	if code != 124 || !strings.Contains(out, "call 1: killed after the timeout of "+timeout+", 1 file changed") {
		t.Fatalf("exec past its timeout: exit %d, %s", code, out)
	}
	if code, out := vfsctl("log", "--root", dir); code != exitOK || !strings.Contains(out, "(killed after the timeout of "+timeout+"): s.txt") {
		t.Errorf("log: %d %s", code, out)
	}
	gone := selfCommand(t, "rm="+filepath.Join(dir, ".vfsctl"), "write="+filepath.Join(dir, "b.txt")+":b")
	code, out = vfsctl(append([]string{"exec", "--root", dir, "--"}, gone...)...)
	if code != exitVfsctl || !strings.Contains(out, "The journal .vfsctl/journal.db is gone") {
		t.Fatalf("exec that removed the journal: exit %d, %s", code, out)
	}
	if _, err := os.Lstat(filepath.Join(dir, ".vfsctl")); err == nil {
		t.Errorf("a journal was made anew after the command removed it")
	}
}

//go:build !windows

package txn

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/journal"
)

// A command that outlives its vfsctl (kill -9 of vfsctl while it runs) goes on
// writing. Recovery records what it changed by then as its exec's; while its process
// group lives no other exec starts (its writes would be recorded as that exec's, and
// a rewind of that turn would take them back), and what it writes is journaled by
// the next look as outside.
func TestExecLeftRunningIsNotCreditedToTheNextExec(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"a.txt": "a\n"}, Options{NoSync: true})
	if e.boot == "" {
		t.Skip("no boot id on this system")
	}
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	x, err := e.BeginExec("s", "t1", ExecArgs{Argv: []string{"sh", "-c", "..."}, Cwd: "."}, LookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The command: it writes one.txt, then orphan.txt when the test says so.
	cmd, release := startBlocked(t, dir, `echo 1 > one.txt; read x < "$1"; echo orphan > orphan.txt`)
	if err := x.Started(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		// Its content, not the file alone: the shell makes it empty, then writes.
		if b, _ := os.ReadFile(filepath.Join(dir, "one.txt")); string(b) == "1\n" {
			break
		}
		if i == 5000 {
			t.Fatal("the command did not write one.txt")
		}
		time.Sleep(time.Millisecond)
	}
	e.Close() // vfsctl killed while the command runs

	e2 := diskEngineOn(t, dir, Options{NoSync: true})
	defer e2.Close()
	var rec *journal.Record
	e2.View(func(tx *journal.Tx) error { rec, _ = tx.Get(x.Seq()); return nil })
	if rec == nil || rec.State != journal.Unknown || !slices.ContainsFunc(rec.Files, func(f journal.File) bool { return f.Path == "one.txt" }) {
		t.Fatalf("the stopped exec's record: %+v, want it unknown with one.txt", rec)
	}
	group := fmt.Sprintf("process group %d", cmd.Process.Pid)
	if !slices.ContainsFunc(rec.Notes, func(n string) bool { return strings.Contains(n, "the command still runs, in "+group) }) {
		t.Errorf("the stopped exec's notes do not say its command still runs: %q", rec.Notes)
	}
	x2, err := e2.BeginExec("s", "t2", ExecArgs{Argv: []string{"true"}, Cwd: "."}, LookOptions{})
	if err == nil {
		release() // the orphan writes while the next exec runs
		look, err := x2.End("exit 0")
		var paths []string
		if look != nil {
			for _, f := range look.Files {
				paths = append(paths, f.Path)
			}
		}
		t.Fatalf("an exec started while the command of exec %d ran on (its record holds %v, %v)", x.Seq(), paths, err)
	}
	if want := fmt.Sprintf("The command of exec %d (sh -c ...) still runs, in %s", x.Seq(), group); !strings.Contains(err.Error(), want) || !errors.Is(err, ErrNotRun) {
		t.Fatalf("the exec while the command ran on: %v, want a refusal saying %q, and that nothing was run", err, want)
	}
	// Its writes are outside changes, told as maybe its while it runs.
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("by hand\n"), 0o644)
	look, err := e2.CheckpointOutside(LookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(look.Notes, func(n string) bool {
		return strings.Contains(n, fmt.Sprintf("the command of exec %d still ran, in %s", x.Seq(), group))
	}) {
		t.Errorf("the look while the command ran on does not name it: %q", look.Notes)
	}
	release()
	x2, err = e2.BeginExec("s", "t2", ExecArgs{Argv: []string{"true"}, Cwd: "."}, LookOptions{})
	if err != nil {
		t.Fatalf("an exec once the command ended: %v", err)
	}
	if x2.Outside == nil || len(x2.Outside.Files) != 1 || x2.Outside.Files[0].Path != "orphan.txt" {
		t.Fatalf("the look before the next exec: %+v, want orphan.txt as outside", x2.Outside)
	}
	look, err = x2.End("exit 0")
	if err != nil || len(look.Files) != 0 {
		t.Fatalf("the next exec's record: %v %+v, want no file", err, look)
	}
	e2.View(func(tx *journal.Tx) error {
		if left := tx.LeftRunning(); len(left) != 0 {
			t.Errorf("exec %v still listed as left running after its group ended", left)
		}
		return nil
	})
}

// startBlocked starts script with sh in dir, in a process group of its own, with $1
// a FIFO that it reads to wait until the test says go. release says go and waits for
// the command's end; it does so once, and at the test's end if not called before.
func startBlocked(t *testing.T, dir, script string) (cmd *exec.Cmd, release func()) {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "go")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command("sh", "-c", script, "sh", fifo)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	released := false
	release = func() {
		if !released {
			released = true
			os.WriteFile(fifo, []byte("go\n"), 0o600)
			cmd.Wait()
		}
	}
	t.Cleanup(release)
	return cmd, release
}

package txn

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
)

// A rewind of a session's turn while a later-turn exec of the same session runs is
// refused, dry run included, and writes nothing: the command's changes would be
// recorded after the rewind, and stay. Once the command ended, the rewind takes
// back both turns.
func TestRewindRefusesWhileAnExecOfTheSessionRuns(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"f.txt": "1\n2\n3\n", "k.txt": "k\n"}, Options{NoSync: true})
	defer e.Close()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	runExec(t, e, dir, "s", "echo 7 >> f.txt; rm k.txt") // turn t1
	x, err := e.BeginExec("s", "t2", ExecArgs{Argv: []string{"sed", "-i", "s/^1$/ONE/", "f.txt"}, Cwd: "."}, LookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("ONE\n2\n3\n7\n"), 0o644) // the command, running
	now := tree(t, dir)
	want := fmt.Sprintf("exec %d of session s is still running (sed -i s/^1$/ONE/ f.txt; its vfsctl is process %d)", x.Seq(), os.Getpid())
	for _, dry := range []bool{true, false} {
		err := do(e, "op", func(c *Call) error {
			_, err := e.Rewind(c, RewindOptions{Session: "s", Turn: "t1", DryRun: dry})
			return err
		})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("rewind (dry run %v) while the exec runs: %v, want a refusal saying %q", dry, err, want)
		}
		if got := tree(t, dir); !same(got, now) {
			t.Fatalf("the refused rewind changed the tree:\n got  %v\n want %v", got, now)
		}
	}
	if _, err := x.End("exit 0"); err != nil {
		t.Fatal(err)
	}
	if err := do(e, "op", func(c *Call) error {
		_, err := e.Rewind(c, RewindOptions{Session: "s", Turn: "t1"})
		return err
	}); err != nil {
		t.Fatalf("rewind once the exec ended: %v", err)
	}
	if got := tree(t, dir); !same(got, before) {
		t.Fatalf("after the rewind:\n got  %v\n want %v (as before turn t1)", got, before)
	}
}

// A pending exec run by another process is running while that process lives, and
// only while the process under its number is the one that started it: a number the
// system gives again after the runner ended names another process.
func TestExecRunningChecksTheRunnersStart(t *testing.T) {
	e, _ := diskEngineWith(t, map[string]string{"f.txt": "f\n"}, Options{NoSync: true})
	defer e.Close()
	if procStart(os.Getpid()) == "" {
		t.Skip("no process start time on this system")
	}
	// A process that lives until its input closes: this test binary.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "VFSCTL_CHILD=wait")
	in, _ := cmd.StdinPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); cmd.Wait() }()
	pid := cmd.Process.Pid
	r := &journal.Record{Seq: 99, Tool: ToolExec, Session: "s", State: journal.Pending,
		Runner: &journal.Runner{PID: pid, Boot: e.boot, Start: procStart(pid)}}
	if !e.execRunning(r) {
		t.Fatalf("an exec run by live process %d is not running", pid)
	}
	r.Runner.Start = "1" // the runner started at another time: the number was reused
	if e.execRunning(r) {
		t.Fatalf("process %d, started after the runner, was taken for it", pid)
	}
}

// An undo or redo, dry run included, refuses while an exec of the workspace runs, of
// any session: the command may be writing the files it would change, and its record,
// written when it ends, would take the undo's change for the command's. The refusal
// names the exec and its command, and writes nothing; once the exec has ended, the
// undo goes through.
func TestUndoRefusesWhileAnExecRuns(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"f.txt": "1\n2\n3\n"}, Options{NoSync: true})
	defer e.Close()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	first := runExec(t, e, dir, "s", "echo 4 >> f.txt").Seq
	undone := 0
	if err := do(e, "op", func(c *Call) error {
		_, err := e.Undo(c, UndoOptions{Seq: first})
		undone = int(c.Seq())
		return err
	}); err != nil {
		t.Fatal(err)
	}
	second := runExec(t, e, dir, "s", "echo g > g.txt").Seq
	x, err := e.BeginExec("other", "t9", ExecArgs{Argv: []string{"sed", "-i", "s/^1$/ONE/", "f.txt"}, Cwd: "."}, LookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("ONE\n2\n3\n"), 0o644) // the command, running
	now := tree(t, dir)
	for _, o := range []UndoOptions{{Seq: second, DryRun: true}, {}, {Seq: uint64(undone), Redo: true}, {Redo: true, DryRun: true}} {
		want := fmt.Sprintf("exec %d of session other is still running (sed -i s/^1$/ONE/ f.txt; its vfsctl is process %d): its changes would be recorded after the %s", x.Seq(), os.Getpid(), verb(o))
		err := do(e, "op", func(c *Call) error { _, err := e.Undo(c, o); return err })
		if err == nil || errs.KindOf(err) != errs.Conflict || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s %+v while the exec runs: %v, want a conflict saying %q", verb(o), o, err, want)
		}
		if got := tree(t, dir); !same(got, now) {
			t.Fatalf("the refused %s changed the tree:\n got  %v\n want %v", verb(o), got, now)
		}
	}
	if _, err := x.End("exit 0"); err != nil {
		t.Fatal(err)
	}
	if err := do(e, "op", func(c *Call) error { _, err := e.Undo(c, UndoOptions{Seq: uint64(undone), Redo: true}); return err }); err != nil {
		t.Fatalf("redo once the exec ended: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(got) != "ONE\n2\n3\n4\n" {
		t.Fatalf("after the redo f.txt is %q", got)
	}
}

//go:build !windows

package txn

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/journal"
)

// Where the boot cannot be read (a container that hides boot_id; Wine has none), a
// command that outlives its vfsctl is still seen running, by its process group's
// number and start time, as the runner of a pending exec is: recovery says it still
// runs, no exec starts while it does, and one starts once it ends. Before, a group
// with no boot known was taken for ended: the next exec started, and was credited
// with what the group wrote while it ran.
func TestExecLeftRunningWithoutABootID(t *testing.T) {
	was := bootID
	bootID = func() string { return "" }
	t.Cleanup(func() { bootID = was })
	e, dir := diskEngineWith(t, map[string]string{"a.txt": "a\n"}, Options{NoSync: true})
	if e.boot != "" {
		t.Fatalf("the engine knows boot %q", e.boot)
	}
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	x, err := e.BeginExec("s", "t1", ExecArgs{Argv: []string{"sh", "-c", "..."}, Cwd: "."}, LookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The command, in a group of its own, waits until the test says go.
	cmd, release := startBlocked(t, dir, `read x < "$1"`)
	if err := x.Started(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	e.Close() // vfsctl killed while the command runs

	e2 := diskEngineOn(t, dir, Options{NoSync: true})
	defer e2.Close()
	var rec *journal.Record
	e2.View(func(tx *journal.Tx) error { rec, _ = tx.Get(x.Seq()); return nil })
	group := fmt.Sprintf("process group %d", cmd.Process.Pid)
	if rec == nil || !slices.ContainsFunc(rec.Notes, func(n string) bool { return strings.Contains(n, "the command still runs, in "+group) }) {
		t.Fatalf("the stopped exec's record does not say its command still runs, in %s: %+v", group, rec)
	}
	_, err = e2.BeginExec("s", "t2", ExecArgs{Argv: []string{"true"}, Cwd: "."}, LookOptions{})
	if want := fmt.Sprintf("still runs, in %s", group); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("an exec while the command of exec %d ran on: %v, want a refusal saying %q", x.Seq(), err, want)
	}
	release()
	x2, err := e2.BeginExec("s", "t2", ExecArgs{Argv: []string{"true"}, Cwd: "."}, LookOptions{})
	if err != nil {
		t.Fatalf("an exec once the command ended: %v", err)
	}
	if _, err := x2.End("exit 0"); err != nil {
		t.Fatal(err)
	}
}

package txn

import (
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/journal"
)

// The record of a command's process group is written even when the exec was not to
// wait (--wait 0) and another process holds the journal as the command starts: the
// command runs already, and a record given up would leave a vfsctl killed then with
// no trace of the group, and the next exec running beside it.
func TestStartedWaitsForTheJournal(t *testing.T) {
	e, _ := diskEngineWith(t, map[string]string{"a.txt": "a\n"}, Options{NoSync: true, Wait: -1})
	defer e.Close()
	x, err := e.BeginExec("s", "", ExecArgs{Argv: []string{"cmd"}}, LookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	other := journal.New(e.j.Path(), journal.Options{NoSync: true, Holder: "another vfsctl"})
	defer other.Close()
	if err := other.Acquire(); err != nil {
		t.Fatal(err)
	}
	// The other process's call ends well after the 0.1 s an exec not to wait waits.
	go func() {
		time.Sleep(500 * time.Millisecond)
		other.Release()
	}()
	group := 4242
	if err := x.Started(group); err != nil {
		t.Errorf("Started while another process held the journal: %v", err)
	}
	var rec *journal.Record
	e.View(func(tx *journal.Tx) error { rec, _ = tx.Get(x.Seq()); return nil })
	if rec == nil || rec.Runner == nil || rec.Runner.Group != group {
		t.Errorf("the exec's record after Started: %+v, want its runner's group %d", rec, group)
	}
	if _, err := x.End("exit 0"); err != nil {
		t.Fatal(err)
	}
}

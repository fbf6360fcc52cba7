package txn

import (
	"fmt"
	"slices"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
)

// Commands still running. A pending exec record names the process that runs its
// command (Runner: its number, its start time, the machine's boot): while that
// process lives the command may still change files, and its record is written when
// it ends. A rewind of the exec's session waits for none of that, so it refuses
// while one runs: the command's changes would commit after the rewind, and the
// session would not be as it was before the turn. An undo or redo refuses while any
// exec of the workspace runs: it may change the files the command is writing, and
// the command's record, written at its end, would take the undo's change for the
// command's.

// refuseWhileRunning refuses call what (a rewind of session's turns; with session
// "", an undo or redo) while an exec of session (any, with "") runs: its changes
// are not recorded yet, and would land after the call.
func (e *Engine) refuseWhileRunning(t *journal.Tx, session, what string) error {
	for _, r := range e.execsRunning(t, 0) {
		if session != "" && r.Session != session {
			continue
		}
		run, _ := runnerOf(r)
		return errs.New(errs.Conflict, "", "exec %d of session %s is still running (%s; its vfsctl is process %d): its changes would be recorded after the %s. Wait for it to end or stop it, then %s again. Nothing was written.", r.Seq, r.Session, argvOf(r), run.PID, what, what)
	}
	return nil
}

// A command can outlive the vfsctl that ran it: kill -9 of vfsctl leaves its
// process group running (only Windows's job object ends with it). Recovery records
// what the command changed by then as its exec's, and lists the exec as left running
// (journal.Tx.SetLeftRunning) while the group lives. What the group writes after
// that cannot be told from what another command writes at the same time, so no exec
// starts while it lives (it would be credited with those writes, and a rewind of its
// turn would take them back); a look journals them as outside, naming the group.

// Started records in the exec's pending record the process group its command runs
// in, numbered pid, its first process's: should this vfsctl stop while the command
// runs on, recovery knows which group goes on writing. Best effort: a record that
// could not be written leaves the group unknown, as before the command started.
// It waits for the journal as the exec's end does (hold), whatever the caller's
// wait: the command runs already, and giving up would lose the only trace of its
// group.
func (x *Exec) Started(pid int) error {
	e := x.e
	if err := x.journalInPlace(); err != nil {
		return err
	}
	if err := x.hold(); err != nil {
		return err
	}
	defer e.j.Release()
	if err := x.journalInPlace(); err != nil {
		return err
	}
	run := journal.Runner{}
	if x.rec.Runner != nil {
		run = *x.rec.Runner
	}
	run.Group, run.GroupStart = pid, procStart(pid)
	r := x.rec
	r.Runner = &run
	if err := e.j.Commit(func(t *journal.Tx) error { return t.Put(&r) }); err != nil {
		return err
	}
	x.rec.Runner = &run
	return nil
}

// leftAlive reports whether run's command's process group still runs, in this boot.
// Where the boot cannot be read (a container may hide it; Wine has none), the group
// is known by its number and its first process's start time, as execRunning knows
// the runner of a pending exec: taking it for ended would let the next exec start
// and be credited with what the group writes. Without the start time too, a group
// of an earlier boot could not be told from a later one under the same number (the
// refusal would have the user stop that one): it is taken for ended.
func (e *Engine) leftAlive(run journal.Runner) bool {
	if e.boot == "" && run.GroupStart == "" {
		return false
	}
	return run.Boot == e.boot && groupAlive(run)
}

// refuseWhileLeftRunning refuses to start a command while a command left running by
// a vfsctl that stopped still runs.
func (e *Engine) refuseWhileLeftRunning() error {
	var refusal error
	err := e.View(func(t *journal.Tx) error {
		for seq, run := range t.LeftRunning() {
			if !e.leftAlive(run) {
				continue
			}
			what := "a command"
			if r, err := t.Get(seq); err == nil && r != nil {
				what = argvOf(r)
			}
			refusal = errs.Wrap(errs.Conflict, "", ErrNotRun, "The command of exec %d (%s) still runs, in process group %d, though the vfsctl that ran it was stopped: what it writes now could not be told from what this command writes. Stop it (kill -- -%d) or wait for it to end, then run the command again. Nothing was run.", seq, what, run.Group, run.Group)
			return nil
		}
		return nil
	})
	if err != nil {
		return err
	}
	return refusal
}

// leftNotes name the commands left running whose groups still run (a look's
// changes may be theirs), and take off the list, in t, those whose groups ended.
func (e *Engine) leftNotes(t *journal.Tx) ([]string, error) {
	var notes []string
	for seq, run := range t.LeftRunning() {
		if e.leftAlive(run) {
			notes = append(notes, fmt.Sprintf("the command of exec %d still ran, in process group %d, its vfsctl stopped: some of these changes may be its", seq, run.Group))
			continue
		}
		if err := t.ClearLeftRunning(seq); err != nil {
			return nil, err
		}
	}
	slices.Sort(notes)
	return notes, nil
}

package toolapi

import (
	"context"

	"github.com/vfsctl/vfsctl/txn"
)

// LookOptions bound a look at the workspace (txn.LookOptions).
type LookOptions = txn.LookOptions

// Look is what a look at the workspace journaled (txn.Look).
type Look = txn.Look

// ExecArgs are what an exec record keeps of its command: argv and folder.
type ExecArgs = txn.ExecArgs

// Checkpoint journals, as one record of tool "outside", what changed in the
// workspace since its last look that no call made (an editor, a formatter on save),
// and brings the journal's snapshot up to date. A runtime calls it when a turn starts.
func (e *Engine) Checkpoint(o LookOptions) (*Look, error) {
	return e.api.eng.CheckpointOutside(o)
}

// ExecStart journals outside changes, then writes a pending record of tool "exec"
// for a command about to run; End records what the command changed.
func (e *Engine) ExecStart(session, turn string, args ExecArgs, o LookOptions) (*txn.Exec, error) {
	return e.api.eng.BeginExec(session, turn, args, o)
}

// Observe runs fn, a runtime's own way of running a command, between two looks at the
// workspace: outside changes first as their own record, then what changed while fn
// ran as one record of tool exec with argv [label], in the turn WithTurn gave ctx.
// fn's error is recorded as how it ended and returned.
func (e *Engine) Observe(ctx context.Context, session, label string, fn func() error) (*Look, error) {
	x, err := e.api.eng.BeginExec(session, TurnOf(ctx), ExecArgs{Argv: []string{label}, Cwd: "."}, LookOptions{})
	if err != nil {
		return nil, err
	}
	ferr := fn()
	how := "exit 0"
	if ferr != nil {
		how = "error: " + ferr.Error()
	}
	look, err := x.End(how)
	if err != nil {
		return nil, err
	}
	return look, ferr
}

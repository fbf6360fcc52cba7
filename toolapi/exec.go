package toolapi

import (
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

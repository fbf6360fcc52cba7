package txn

import (
	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
)

// Commands still running. A pending exec record names the process that runs its
// command (Runner: its number, its start time, the machine's boot): while that
// process lives the command may still change files, and its record is written when
// it ends. A rewind of the exec's session waits for none of that, so it refuses
// while one runs: the command's changes would commit after the rewind, and the
// session would not be as it was before the turn.

// refuseWhileRunning refuses a rewind of session's turns while an exec of session
// runs: its changes are not recorded yet, and would land after the rewind.
func (e *Engine) refuseWhileRunning(t *journal.Tx, session string) error {
	for _, seq := range t.Pending() {
		r, err := t.Get(seq)
		if err != nil || r == nil || r.Session != session || !journal.IsCommand(r.Tool) || !e.execRunning(r) {
			continue
		}
		run, _ := runnerOf(r)
		return errs.New(errs.Conflict, "", "exec %d of session %s is still running (%s; its vfsctl is process %d): its changes would be recorded after the rewind. Wait for it to end or stop it, then rewind again. Nothing was written.", seq, session, argvOf(r), run.PID)
	}
	return nil
}

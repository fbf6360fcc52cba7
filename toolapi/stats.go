package toolapi

import "github.com/vfsctl/vfsctl/journal"

// Stats is what the models that used a workspace got wrong and what vfsctl did about
// it: calls by tool and state, failures by kind, rescues, recovery after a refusal,
// context padding, per session and per day.
type Stats = journal.Stats

// ToolCount is one tool's calls by state, a row of Stats.
type ToolCount = journal.ToolCount

// GroupCount is one session's or one day's calls, a row of Stats.
type GroupCount = journal.GroupCount

// Stats reads the records q selects in one pass and counts them. Without a journal
// every count is zero (and every list empty, not nil).
func (e *Engine) Stats(q Query) (*Stats, error) {
	if !e.HasJournal() {
		return journal.NewStats().Finish(), nil
	}
	// Every tool that changes files, in every tool set, has refusals to recover from.
	q.ChangesFiles = func(tool string) bool { return !HintsFor(tool).ReadOnly }
	var st *Stats
	err := e.api.eng.View(func(t *journal.Tx) (err error) {
		st, err = t.Stats(q)
		return err
	})
	return st, err
}

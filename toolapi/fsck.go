package toolapi

import (
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/txn"
)

// FsckReport is what Fsck found: Problems are faults of the journal; Changed lists
// files that differ from what the journal last knew, which is no fault of it.
type FsckReport = txn.FsckReport

// Problem is one fault of the journal: what is wrong (a blob, a record, the bbolt
// file) and how.
type Problem = journal.Problem

// FsckOptions say what Fsck does besides checking.
type FsckOptions struct {
	// Diff adds to each file that differs on disk how it differs.
	Diff bool
	// Compact rewrites the journal to its live size once the check found no
	// problem (a journal with problems is left as it is, for a person to look at):
	// pages freed by rewrites and left part-empty by appends are given back.
	// FsckReport.Compacted gives the sizes; a failure to compact is a problem. Other processes wait for it as for a call.
	Compact bool
}

// Compaction is the journal file's size before and after compacting it.
type Compaction = txn.Compaction

// Fsck checks the journal against the disk and itself: each file's last known content
// against the file, every blob present and intact, nothing left pending, and bbolt's
// own check. Opening the journal lets recovery settle what a crash left pending first.
// A journal that cannot be read is an error, as is a busy one.
func (e *Engine) Fsck(opts FsckOptions) (*FsckReport, error) {
	rep, err := e.api.eng.Fsck(opts.Diff)
	if err != nil || !opts.Compact || !rep.OK() {
		return rep, err
	}
	c, err := e.api.eng.Compact()
	if err != nil {
		// The check's findings stand; the journal is as it was (Compact replaces it
		// only with a copy that passed bbolt's check).
		rep.Problems = append(rep.Problems, Problem{What: "compact", Text: err.Error()})
		return rep, nil
	}
	rep.Compacted = &c
	return rep, nil
}

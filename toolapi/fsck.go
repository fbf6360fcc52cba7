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

// FsckOptions say what Fsck does besides checking. Compacting the journal (rewriting
// it without what nothing needs any more) is to be one of them.
type FsckOptions struct {
	// Diff adds to each file that differs on disk how it differs.
	Diff bool
}

// Fsck checks the journal against the disk and itself: each file's last known content
// against the file, every blob present and intact, nothing left pending, and bbolt's
// own check. Opening the journal lets recovery settle what a crash left pending first.
// A journal that cannot be read is an error, as is a busy one.
func (e *Engine) Fsck(opts FsckOptions) (*FsckReport, error) {
	return e.api.eng.Fsck(opts.Diff)
}

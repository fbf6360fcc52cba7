package txn

import (
	"errors"
	"fmt"
	"io/fs"
	"runtime/debug"
	"sort"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
)

// FsckReport is what Fsck found. Problems are faults of the journal; Changed lists
// files that differ from what the journal last knew, which is no fault of the journal
// (people edit files, and every call plans from the disk).
type FsckReport struct {
	Files    int               `json:"files"`   // paths the journal knows
	Blobs    int               `json:"blobs"`   // blobs checked
	Records  int               `json:"records"` // records read
	Changed  []ChangedFile     `json:"changed,omitempty"`
	Problems []journal.Problem `json:"problems,omitempty"`
	// Compacted is set when the journal was rewritten to its live size after the check.
	Compacted *Compaction `json:"compacted,omitempty"`
}

// Compaction is the journal file's size before and after Compact, in bytes.
type Compaction struct {
	Before int64 `json:"before"`
	After  int64 `json:"after"`
}

// Compact rewrites the journal to its live size (journal.Compact). It holds the
// journal alone, as another process would: a hold this engine keeps between calls
// gives way to it, and calls that come meanwhile wait for it.
func (e *Engine) Compact() (Compaction, error) {
	before, after, err := journal.Compact(e.j.Path(), e.jopts)
	return Compaction{Before: before, After: after}, err
}

// ChangedFile is a file whose content on disk is not what the journal last knew.
type ChangedFile struct {
	Path  string `json:"path"`
	State string `json:"state"` // "changed", "missing", "not_a_file" or "unreadable"
	Diff  string `json:"diff,omitempty"`
}

// OK reports whether the journal is sound: no problems. Files changed outside vfsctl
// do not make it unsound.
func (r *FsckReport) OK() bool { return len(r.Problems) == 0 }

// Fsck checks the journal against the disk: each file's last known content against
// the file (reporting files changed outside vfsctl, with a diff when asked), blobs
// present and intact, nothing pending, and bbolt's own check. Opening the journal runs
// recovery first, as for every command.
func (e *Engine) Fsck(withDiff bool) (rep *FsckReport, err error) {
	// A damaged journal.db can make bbolt panic, or fault on a page past the end of
	// the file: that is the damage fsck is asked to find, so it is an error here, not
	// a crash. (bbolt's own check runs in another goroutine and recovers its panics.)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			rep, err = nil, errs.New(errs.IOError, "", "the journal .vfsctl/journal.db is damaged: reading it failed (%v). "+
				"Move it aside to start a new history; the working files are not touched.", p)
		}
	}()
	rep = &FsckReport{}
	var heads map[string]string
	err = e.View(func(t *journal.Tx) error {
		heads = t.Heads()
		rep.Problems, rep.Blobs, rep.Records = t.Verify()
		return nil
	})
	if err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(heads))
	for p := range heads {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	rep.Files = len(paths)
	afs := e.fs.Afero()
	for _, p := range paths {
		// Only a regular file is opened: a FIFO put in a file's place would block.
		info, err := lstat(afs, p)
		if err == nil && !info.Mode().IsRegular() {
			rep.Changed = append(rep.Changed, ChangedFile{Path: p, State: "not_a_file"})
			continue
		}
		var data []byte
		if err == nil {
			data, err = e.fs.ReadCanonical(p)
		}
		switch {
		case errors.Is(err, fs.ErrNotExist):
			rep.Changed = append(rep.Changed, ChangedFile{Path: p, State: "missing"})
			continue
		case err != nil:
			rep.Changed = append(rep.Changed, ChangedFile{Path: p, State: "unreadable", Diff: fmt.Sprintf("cannot be read: %v\n", err)})
			continue
		}
		if journal.Hash(data) == heads[p] {
			continue
		}
		c := ChangedFile{Path: p, State: "changed"}
		if withDiff {
			var known []byte
			if e.View(func(t *journal.Tx) (err error) { known, err = t.Content(p, heads[p]); return err }) == nil {
				// One splice per changed run of lines, so the diff shows hunks.
				c.Diff = matcher.PlacedDiff(p, known, lineSplices(known, data))
			}
		}
		rep.Changed = append(rep.Changed, c)
	}
	return rep, nil
}

func lstat(afs afero.Fs, p string) (fs.FileInfo, error) {
	if l, ok := afs.(afero.Lstater); ok {
		fi, _, err := l.LstatIfPossible(p)
		return fi, err
	}
	return afs.Stat(p)
}

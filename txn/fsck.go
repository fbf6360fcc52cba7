package txn

import (
	"errors"
	"io/fs"
	"sort"

	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
)

// FsckReport is what Fsck found.
type FsckReport struct {
	Files    int               `json:"files"`   // paths the journal knows
	Blobs    int               `json:"blobs"`   // blobs checked
	Records  int               `json:"records"` // records read
	Changed  []ChangedFile     `json:"changed,omitempty"`
	Problems []journal.Problem `json:"problems,omitempty"`
}

// ChangedFile is a file whose content on disk is not what the journal last knew.
type ChangedFile struct {
	Path  string `json:"path"`
	State string `json:"state"` // "changed" or "missing"
	Diff  string `json:"diff,omitempty"`
}

// OK reports whether all is well.
func (r *FsckReport) OK() bool { return len(r.Changed) == 0 && len(r.Problems) == 0 }

// Fsck checks the journal against the disk: each file's last known content against
// the file (reporting files changed outside vfsctl, with a diff when asked), blobs
// present and intact, nothing pending, and bbolt's own check. Opening the journal runs
// recovery first, as for every command.
func (e *Engine) Fsck(withDiff bool) (*FsckReport, error) {
	rep := &FsckReport{}
	var heads map[string]string
	err := e.View(func(t *journal.Tx) error {
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
	for _, p := range paths {
		data, err := e.fs.ReadCanonical(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			rep.Changed = append(rep.Changed, ChangedFile{Path: p, State: "missing"})
			continue
		case err != nil:
			return nil, err
		}
		if journal.Hash(data) == heads[p] {
			continue
		}
		c := ChangedFile{Path: p, State: "changed"}
		if withDiff {
			var known []byte
			if e.View(func(t *journal.Tx) (err error) { known, err = t.Content(p, heads[p]); return err }) == nil {
				c.Diff = matcher.UnifiedDiff(p, known, []matcher.Splice{{Start: 0, End: len(known), Text: data, FirstLine: 1, LastLine: max(1, matcher.CountLines(known))}})
			}
		}
		rep.Changed = append(rep.Changed, c)
	}
	return rep, nil
}

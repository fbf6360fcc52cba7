package toolapi

import (
	"errors"
	"fmt"

	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/vfs"
)

// OriginOperator is the origin of an operator's commands (undo, redo, rewind): no
// model's mistake, counted apart by stats and left out of replay --failed.
const OriginOperator = journal.OriginOperator

// Record is one journaled call: what was asked, what came of it, and per file the
// hashes, splices, match tiers and diff. Log, Show and Export return records.
type Record = journal.Record

// Query selects records: by session, path, kind, failure, time and count. The zero
// Query selects every record.
type Query = journal.Query

// ErrSkippedDamaged is in the error Calls and Export return, after every readable
// record, when a Query with SkipDamaged passed over records that could not be read.
var ErrSkippedDamaged = journal.ErrSkippedDamaged

// State is a record's state (committed, failed, rolled_back, unknown, pending).
type State = journal.State

// StateFailed is the state of a refused or failed call.
const StateFailed = journal.Failed

// Op is what a call did to one file (read, edit, create, write, delete, dry_run).
type Op = journal.Op

// OpDelete is the op of a file a call removed.
const OpDelete = journal.OpDelete

// Log returns the records q selects, newest first, with their diffs. Without a
// journal there are none.
func (e *Engine) Log(q Query) ([]*Record, error) { return e.log(q, true) }

// Calls is Log without the diffs: a file's diff that its record keeps as the splices
// only (most edits') is left "", as rendering it rebuilds the file's content before
// the call from the journal. For listing calls, as vfsctl log does.
func (e *Engine) Calls(q Query) ([]*Record, error) { return e.log(q, false) }

func (e *Engine) log(q Query, diffs bool) ([]*Record, error) {
	if !e.HasJournal() {
		return nil, nil
	}
	var recs []*Record
	err := e.api.eng.View(func(t *journal.Tx) (err error) {
		if recs, err = t.Find(q); (err == nil || errors.Is(err, ErrSkippedDamaged)) && diffs {
			t.Diffs(recs...)
		}
		return err
	})
	return recs, err
}

// Show returns record seq, nil when there is none, and the number of the journal's
// last record (to say which numbers exist).
func (e *Engine) Show(seq uint64) (rec *Record, last uint64, err error) {
	if !e.HasJournal() {
		return nil, 0, nil
	}
	err = e.api.eng.View(func(t *journal.Tx) error {
		last = t.Last()
		if rec, err = t.Get(seq); rec != nil {
			t.Diffs(rec)
		}
		return err
	})
	return rec, last, err
}

// ResolvePath is the key the journal knows path by (relative to the root, symlinks
// resolved); a path that does not resolve inside the root is refused. A symlink
// itself names itself: the calls of a symlink are those that made, retargeted or
// removed it (as git log -- link), its target's are found by the target's path.
func (e *Engine) ResolvePath(path string) (string, error) {
	fsys := e.api.eng.FS()
	if p, err := fsys.Clean(path); err == nil {
		if kind, _, _, err := fsys.EntryAt(p); err == nil && kind == vfs.KindSymlink {
			return p, nil
		}
	}
	r, err := fsys.Resolve(path)
	if err != nil {
		return "", err
	}
	return r.Path, nil
}

// CanonicalPath is ResolvePath for a path that may no longer exist: such a path is
// only cleaned, so that the journal's records of a deleted file can still be found.
func (e *Engine) CanonicalPath(path string) (string, error) {
	if p, err := e.ResolvePath(path); err == nil {
		return p, nil
	}
	return e.api.eng.FS().Clean(path)
}

// EntryText says what a record did to a folder or symlink (Record.Entries), as
// vfsctl show and log, and an undo's reply, say it: "src/gen/ made (0755)",
// "build/ removed (was 0700)", "link: symlink to a.txt, was a folder (0755)".
func EntryText(en journal.Entry) string { return EntryTextFiles(en, false, false) }

// EntryTextFiles is EntryText where the record says whether a file stood at the
// entry's path before (fileBefore) and after: "a.txt: a symlink to t.txt, was a
// file" rather than "was nothing".
func EntryTextFiles(en journal.Entry, fileBefore, fileAfter bool) string {
	return entryText(en, fileBefore, fileAfter, false)
}

// entryText is EntryTextFiles, or with would what a dry run would do: "src/ would be
// made (0700)".
func entryText(en journal.Entry, fileBefore, fileAfter, would bool) string {
	what := func(kind, target string, bits uint32, file bool) string {
		switch {
		case kind == "" && file:
			return "a file"
		case kind == "":
			return "nothing"
		case kind == journal.KindDir:
			return fmt.Sprintf("a folder (%04o)", bits&0o7777)
		case kind == journal.KindSymlink:
			return "a symlink to " + target
		}
		return "a " + kind
	}
	made, removed := "made", "removed"
	if would {
		made, removed = "would be made", "would be removed"
	}
	switch {
	case en.Before == "" && en.After == journal.KindDir:
		if en.AfterMode == 0 {
			return en.Path + "/ " + made
		}
		return fmt.Sprintf("%s/ %s (%04o)", en.Path, made, en.AfterMode&0o7777)
	case en.Before == journal.KindDir && en.After == "":
		if would {
			return fmt.Sprintf("%s/ would be removed (%04o)", en.Path, en.BeforeMode&0o7777)
		}
		return fmt.Sprintf("%s/ %s (was %04o)", en.Path, removed, en.BeforeMode&0o7777)
	}
	after, before := what(en.After, en.AfterTarget, en.AfterMode, fileAfter), what(en.Before, en.BeforeTarget, en.BeforeMode, fileBefore)
	if would {
		return fmt.Sprintf("%s would become %s (now %s)", en.Path, after, before)
	}
	return fmt.Sprintf("%s: %s, was %s", en.Path, after, before)
}

// EntryPaths are the paths of r's folders and symlinks that its files do not name,
// a folder's with a trailing slash: what a listing shows of them.
func EntryPaths(r *Record) []string {
	named := map[string]bool{}
	for _, f := range r.Files {
		named[f.Path] = true
	}
	var out []string
	for _, en := range r.Entries {
		if named[en.Path] {
			continue
		}
		named[en.Path] = true
		if en.Before == journal.KindDir || en.After == journal.KindDir {
			out = append(out, en.Path+"/")
		} else {
			out = append(out, en.Path)
		}
	}
	return out
}

package txn

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/vfs"
)

// ReadResult is what read_file returns.
type ReadResult struct {
	Path       string // canonical
	Data       []byte // the whole file
	TotalLines int
}

// Read reads a file; the session has then seen this content (for write_file).
func (e *Engine) Read(c *Call, path string) (*ReadResult, error) {
	f, err := e.fs.Read(path)
	if err != nil {
		c.Named(journal.OpRead, path)
		return nil, err
	}
	if bytes.IndexByte(f.Data, 0) >= 0 {
		// A refused read shows nothing, so the session has seen nothing of the file.
		c.file(journal.File{Path: f.Path, Op: journal.OpRead, Before: journal.Hash(f.Data)})
		return nil, errs.New(errs.BinaryFile, path, "%s contains NUL bytes and looks binary; the file tools read and edit text only.", path)
	}
	c.saw(f.Path, journal.OpRead, f.Data, true)
	return &ReadResult{Path: f.Path, Data: f.Data, TotalLines: CountLines(f.Data)}, nil
}

// CountLines counts lines as an editor shows them and as matching numbers them.
func CountLines(b []byte) int { return matcher.CountLines(b) }

// Spec is one file's change in a call: edits, a new file, or a whole replacement.
type Spec struct {
	Path    string
	Op      journal.Op // OpEdit, OpCreate or OpWrite
	Edits   []matcher.Edit
	Content []byte
}

// Change is a planned or committed change of one file.
type Change struct {
	Path    string // canonical
	Name    string // as the model sent it
	Op      journal.Op
	Before  []byte // nil for a created file
	After   []byte
	Plan    *matcher.Result // for edits
	Created bool
	Deleted bool   // the change removes the file (undo of a create)
	Seq     uint64 // the call's record; 0 for a dry run

	splices                 []journal.Splice // for a change made without a matcher plan (undo)
	undoSplices             []matcher.Splice // the same, for its diff
	diff                    *string          // rendered on first use
	mode                    fs.FileMode
	id                      vfs.Identity // of the file as planned from, for the conflict check
	beforeHash, afterHash   string       // computed once: hashing a large file is not free
	beforeMarks, afterMarks hashMarks    // their running states, to hash the next version from
	dirs                    []string     // folders a create made, for its rollback
	// Warnings are what a guard in warn mode found, Notes what it repaired; the reply
	// shows both.
	Warnings, Notes []string
}

// Diff renders the change as a compact unified diff (once: the journal and the reply
// both show it).
func (c *Change) Diff() string {
	if c.diff != nil {
		return *c.diff
	}
	var d string
	switch {
	case c.Plan != nil:
		d = c.Plan.Diff(c.Name)
	case c.undoSplices != nil:
		d = matcher.UnifiedDiff(c.Name, c.Before, c.undoSplices)
	default:
		d = wholeDiff(c.Name, c.Before, c.After)
	}
	c.diff = &d
	return d
}

// wholeDiff is the diff of a whole-file write, bounded for the journal.
func wholeDiff(name string, before, after []byte) string {
	if len(before)+len(after) > journal.MaxDiff*4 {
		return fmt.Sprintf("(whole file written: %d bytes, was %d)\n", len(after), len(before))
	}
	lines := bytes.Count(before, []byte{'\n'}) + 1
	sp := []matcher.Splice{{Start: 0, End: len(before), Text: after, FirstLine: 1, LastLine: lines}}
	if len(before) == 0 {
		sp[0].LastLine = 1
	}
	return matcher.UnifiedDiff(name, before, sp)
}

// Edit plans edits of one file and, unless dryRun, commits them.
func (e *Engine) Edit(c *Call, path string, edits []matcher.Edit, dryRun bool) (*Change, error) {
	ch, err := e.Apply(c, []Spec{{Path: path, Op: journal.OpEdit, Edits: edits}}, dryRun)
	if err != nil {
		return nil, err
	}
	return ch[0], nil
}

// Create makes a new file with content, parents included.
func (e *Engine) Create(c *Call, path string, content []byte) (*Change, error) {
	ch, err := e.Apply(c, []Spec{{Path: path, Op: journal.OpCreate, Content: content}}, false)
	if err != nil {
		return nil, err
	}
	return ch[0], nil
}

// Write replaces an existing file whole, only when the session has seen its current
// content.
func (e *Engine) Write(c *Call, path string, content []byte) (*Change, error) {
	ch, err := e.Apply(c, []Spec{{Path: path, Op: journal.OpWrite, Content: content}}, false)
	if err != nil {
		return nil, err
	}
	return ch[0], nil
}

// Apply plans every change and commits them as one transaction: all or nothing.
func (e *Engine) Apply(c *Call, specs []Spec, dryRun bool) ([]*Change, error) {
	if len(specs) == 0 {
		return nil, errs.New(errs.InvalidInput, "", "No changes were sent. Send changes: [{path, edits} or {path, create} or {path, write}].")
	}
	multi := len(specs) > 1
	where := func(i int, err error) error {
		if !multi {
			return err
		}
		return errs.Prefixed(fmt.Sprintf("changes[%d] (%s): ", i, specs[i].Path), err)
	}
	res := make([]*vfs.Resolved, len(specs))
	paths := make([]string, len(specs))
	for i, s := range specs {
		r, err := e.fs.Resolve(s.Path)
		if err != nil {
			c.Named(s.Op, s.Path)
			return nil, where(i, err)
		}
		for k := range i {
			if paths[k] == r.Path {
				return nil, errs.New(errs.InvalidInput, s.Path, "changes[%d] and changes[%d] name the same file (%s). Put all changes of one file in one entry.", k, i, r.Path)
			}
		}
		res[i], paths[i] = r, r.Path
	}
	unlock := e.queues.lock(paths...)
	defer unlock()
	var reads map[string]string
	changes := make([]*Change, len(specs))
	for i, s := range specs {
		ch, err := e.plan(c, s, res[i], &reads)
		if err != nil {
			// The refusal is about one change, but the call named them all.
			for _, o := range specs {
				c.Named(o.Op, o.Path)
			}
			var r *errs.Error
			if errors.As(err, &r) && r.Where != nil {
				w := r.Where
				c.Refused(&journal.Refusal{Change: i, Edit: w.Edit, Lines: w.Lines, Tiers: w.Tiers, Closeness: w.Closeness})
			}
			return nil, where(i, err)
		}
		changes[i] = ch
	}
	if i, err := e.guard(c, changes); err != nil {
		for _, o := range specs {
			c.Named(o.Op, o.Path)
		}
		return nil, where(i, err)
	}
	if dryRun {
		for _, ch := range changes {
			c.file(journal.File{Path: ch.Path, Op: journal.OpDryRun, Before: journal.Hash(ch.Before), After: journal.Hash(ch.After), Diff: bounded(ch.Diff())})
		}
		return changes, nil
	}
	if err := e.commit(c, changes); err != nil {
		return nil, err
	}
	return changes, nil
}

// plan reads one file and works out its new content, or refuses.
func (e *Engine) plan(c *Call, s Spec, r *vfs.Resolved, reads *map[string]string) (*Change, error) {
	ch := &Change{Path: r.Path, Name: s.Path, Op: s.Op}
	if s.Op == journal.OpCreate {
		if int64(len(s.Content)) > e.fs.MaxFileSize() {
			return nil, errs.New(errs.TooLarge, s.Path, "content is %d bytes; files over %d bytes are not written here.", len(s.Content), e.fs.MaxFileSize())
		}
		if r.Exists || r.Link {
			c.file(journal.File{Path: r.Path, Op: s.Op})
			return nil, existsError(s.Path, r)
		}
		ch.After, ch.Created = s.Content, true
		return ch, nil
	}
	if s.Op == journal.OpWrite && !r.Exists && !r.Link {
		c.file(journal.File{Path: r.Path, Op: s.Op})
		return nil, errs.New(errs.FileNotFound, s.Path, "%s does not exist. Use create_file to make a new file.", s.Path)
	}
	f, err := e.fs.ReadKnown(s.Path, e.knownData)
	if err == nil {
		err = e.fs.CheckWritable(f.Resolved)
	}
	if err != nil {
		c.file(journal.File{Path: r.Path, Op: s.Op})
		return nil, err
	}
	if f.Path != r.Path {
		return nil, errs.New(errs.Conflict, s.Path, "%s was re-pointed to another file while this call waited; nothing was written. Read it again and resend.", s.Path)
	}
	ch.Before, ch.mode, ch.id = f.Data, f.Info.Mode(), f.ID
	if k, ok := e.lookup(f.Path, f.ID); ok {
		ch.beforeHash, ch.beforeMarks = k.hash, k.marks
	}
	switch s.Op {
	case journal.OpEdit:
		plan, err := matcher.Apply(f.Data, s.Edits, matcher.Options{Name: s.Path})
		if err != nil {
			c.saw(f.Path, s.Op, f.Data, false)
			return nil, e.staleHint(c, f, err)
		}
		ch.Plan, ch.After = plan, plan.Output
	case journal.OpWrite:
		if int64(len(s.Content)) > e.fs.MaxFileSize() {
			return nil, errs.New(errs.TooLarge, s.Path, "content is %d bytes; files over %d bytes are not written here.", len(s.Content), e.fs.MaxFileSize())
		}
		seen, full, err := e.seen(c, f.Path)
		if err != nil {
			return nil, err
		}
		switch {
		case seen == journal.Hash(f.Data) && !full:
			c.saw(f.Path, s.Op, f.Data, false)
			return nil, errs.New(errs.NotRead, s.Path, "This session has read only part of %s. write_file replaces the whole file, so read all of it first (read_file without offset and limit, or reads that together cover every line); or use edit_file to change part of it.", s.Path)
		case seen == "":
			c.file(journal.File{Path: f.Path, Op: s.Op, Before: journal.Hash(f.Data)})
			return nil, errs.New(errs.NotRead, s.Path, "%s has not been read in this session. Call read_file on it first, then write_file; or use edit_file to change part of it.", s.Path)
		case seen != journal.Hash(f.Data):
			c.saw(f.Path, s.Op, f.Data, false)
			return nil, errs.New(errs.NotRead, s.Path, "%s has changed since this session last read it. Call read_file again so you see its current content, then write_file.", s.Path)
		case bytes.Equal(f.Data, s.Content):
			return nil, errs.New(errs.NoChange, s.Path, "write_file would leave %s exactly as it is. Send the new content, or nothing.", s.Path)
		}
		ch.After = s.Content
	}
	return ch, nil
}

// seen is the hash of the content of path the call's session last saw, or "", and
// whether it saw all of it.
func (e *Engine) seen(c *Call, path string) (string, bool, error) {
	var h string
	var full bool
	// The session's own writes and what recovery settled may still be deferred.
	if err := e.j.Flush(); err != nil {
		return "", false, err
	}
	err := e.j.View(func(t *journal.Tx) error {
		h, full = t.Read(c.rec.Session, path)
		return nil
	})
	return h, full, err
}

// staleHint adds to text_not_found that the session's last read of the file is older
// than the file: the usual cause of a snippet that is no longer there.
func (e *Engine) staleHint(c *Call, f *vfs.File, err error) error {
	var r *errs.Error
	if !errors.As(err, &r) || r.Kind != errs.TextNotFound {
		return err
	}
	if h, _, _ := e.seen(c, f.Path); h != "" && h != journal.Hash(f.Data) {
		r2 := *r
		r2.Message += fmt.Sprintf(" %s has changed since you last read it: read it again before editing.", f.Name)
		return &r2
	}
	return err
}

func existsError(path string, r *vfs.Resolved) error {
	what := "a file"
	switch {
	case r.Link && !r.Exists:
		what = "a dangling symlink"
	case r.Link:
		what = "a symlink"
	case r.Info != nil && r.Info.IsDir():
		what = "a directory"
	}
	return errs.New(errs.FileExists, path, "%s already exists (%s). Use edit_file to change a file, or write_file to replace it whole after reading it.", path, what)
}

func bounded(s string) string {
	if len(s) > journal.MaxDiff {
		return s[:journal.MaxDiff] + "\n(diff truncated)\n"
	}
	return s
}

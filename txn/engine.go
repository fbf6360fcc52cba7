package txn

import (
	"bytes"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/vfs"
)

// Engine runs tool calls against one workspace. It is safe for concurrent use.
type Engine struct {
	fs     *vfs.FS
	queues queues
	reads  reads
	seq    atomic.Int64
}

// New returns an Engine over fs.
func New(fs *vfs.FS) *Engine { return &Engine{fs: fs} }

// FS is the engine's filesystem.
func (e *Engine) FS() *vfs.FS { return e.fs }

// ReadResult is what read_file returns.
type ReadResult struct {
	Path       string // canonical
	Data       []byte // the whole file
	TotalLines int
}

// Read reads a file for session and records that the session has seen this content.
func (e *Engine) Read(session, path string) (*ReadResult, error) {
	f, err := e.fs.Read(path)
	if err != nil {
		return nil, err
	}
	if bytes.IndexByte(f.Data, 0) >= 0 {
		return nil, errs.New(errs.BinaryFile, path, "%s contains NUL bytes and looks binary; the file tools read and edit text only.", path)
	}
	e.reads.record(session, f.Path, HashOf(f.Data))
	return &ReadResult{Path: f.Path, Data: f.Data, TotalLines: countLines(f.Data)}, nil
}

func countLines(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	n := bytes.Count(b, []byte{'\n'})
	if b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// Change is a planned or committed change of one file.
type Change struct {
	Path    string // canonical
	Name    string // as the model sent it
	Before  []byte // nil for a created file
	After   []byte
	Plan    *matcher.Result // for edits
	Created bool
	Txn     int64 // 0 for a dry run
}

// Diff renders the change as a compact unified diff.
func (c *Change) Diff() string {
	if c.Plan != nil {
		return matcher.UnifiedDiff(c.Name, c.Before, c.Plan.Splices)
	}
	return ""
}

// Edit plans edits of one file and, unless dryRun, commits them.
func (e *Engine) Edit(session, path string, edits []matcher.Edit, dryRun bool) (*Change, error) {
	r, err := e.fs.Resolve(path)
	if err != nil {
		return nil, err
	}
	unlock := e.queues.lock(r.Path)
	defer unlock()
	f, err := e.fs.Read(path)
	if err != nil {
		return nil, err
	}
	if f.Path != r.Path {
		return nil, errs.New(errs.Conflict, path, "%s was re-pointed to another file while this call waited; nothing was written. Read it again and resend.", path)
	}
	plan, err := matcher.Apply(f.Data, edits, matcher.Options{Name: path})
	if err != nil {
		return nil, e.staleHint(session, f, err)
	}
	c := &Change{Path: f.Path, Name: path, Before: f.Data, After: plan.Output, Plan: plan}
	if dryRun {
		return c, nil
	}
	if err := e.replace(f, plan.Output); err != nil {
		return nil, err
	}
	e.reads.record(session, f.Path, HashOf(plan.Output))
	c.Txn = e.seq.Add(1)
	return c, nil
}

// staleHint adds to text_not_found that the session's last read of the file is older
// than the file: the usual cause of a snippet that is no longer there.
func (e *Engine) staleHint(session string, f *vfs.File, err error) error {
	var r *matcher.Refusal
	if !errors.As(err, &r) || r.Kind != matcher.KindTextNotFound {
		return err
	}
	if h, ok := e.reads.lookup(session, f.Path); ok && h != HashOf(f.Data) {
		r2 := *r
		r2.Message += fmt.Sprintf(" %s has changed since you last read it: read it again before editing.", f.Name)
		return &r2
	}
	return err
}

// replace commits new content for a file read under its queue, refusing when the file
// changed on disk since that read (another process wrote it).
func (e *Engine) replace(f *vfs.File, data []byte) error {
	now, err := e.fs.ReadCanonical(f.Path)
	if err != nil {
		return errs.Wrap(errs.Conflict, f.Name, err, "%s changed on disk while this call ran (%v); nothing was written. Read it again and resend.", f.Name, err)
	}
	if !bytes.Equal(now, f.Data) {
		return errs.New(errs.Conflict, f.Name, "%s changed on disk while this call ran; nothing was written. Read it again and resend.", f.Name)
	}
	return e.fs.Replace(f.Path, data)
}

// Create makes a new file with content, parents included.
func (e *Engine) Create(session, path string, content []byte) (*Change, error) {
	r, err := e.fs.Resolve(path)
	if err != nil {
		return nil, err
	}
	if int64(len(content)) > e.fs.MaxFileSize() {
		return nil, errs.New(errs.TooLarge, path, "content is %d bytes; files over %d bytes are not written here.", len(content), e.fs.MaxFileSize())
	}
	unlock := e.queues.lock(r.Path)
	defer unlock()
	if r.Exists || r.Link {
		return nil, existsError(path, r)
	}
	if err := e.fs.Create(r.Path, content); err != nil {
		return nil, err
	}
	e.reads.record(session, r.Path, HashOf(content))
	return &Change{Path: r.Path, Name: path, After: content, Created: true, Txn: e.seq.Add(1)}, nil
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

// Write replaces an existing file whole, only when session has read its current
// content.
func (e *Engine) Write(session, path string, content []byte) (*Change, error) {
	r, err := e.fs.Resolve(path)
	if err != nil {
		return nil, err
	}
	if int64(len(content)) > e.fs.MaxFileSize() {
		return nil, errs.New(errs.TooLarge, path, "content is %d bytes; files over %d bytes are not written here.", len(content), e.fs.MaxFileSize())
	}
	unlock := e.queues.lock(r.Path)
	defer unlock()
	if !r.Exists && !r.Link {
		return nil, errs.New(errs.FileNotFound, path, "%s does not exist. Use create_file to make a new file.", path)
	}
	f, err := e.fs.Read(path)
	if err != nil {
		return nil, err
	}
	h, ok := e.reads.lookup(session, f.Path)
	switch {
	case !ok:
		return nil, errs.New(errs.NotRead, path, "%s has not been read in this session. Call read_file on it first, then write_file; or use edit_file to change part of it.", path)
	case h != HashOf(f.Data):
		return nil, errs.New(errs.NotRead, path, "%s has changed since this session last read it. Call read_file again so you see its current content, then write_file.", path)
	}
	if bytes.Equal(f.Data, content) {
		return nil, errs.New(errs.NoChange, path, "write_file would leave %s exactly as it is. Send the new content, or nothing.", path)
	}
	if err := e.replace(f, content); err != nil {
		return nil, err
	}
	e.reads.record(session, f.Path, HashOf(content))
	return &Change{Path: f.Path, Name: path, Before: f.Data, After: content, Txn: e.seq.Add(1)}, nil
}

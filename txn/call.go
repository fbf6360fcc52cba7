package txn

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
)

// Call is one tool call in progress: it holds the journal from Begin (or, begun by
// BeginRead or BeginWrite, from when it needs it) to Finish, and gathers what the
// call's record will say.
type Call struct {
	ctx context.Context // a cancelled call stops before it commits
	e   *Engine
	rec journal.Record
	// beforeFiles runs in commit once the pending record is written, before any
	// file is: an undo's folders and symlinks that must make way or come first.
	beforeFiles func() error
	args        json.RawMessage
	start       time.Time
	final       bool // the record was written in its final state (by a commit)
	held        bool // the call holds the journal (BeginRead's and BeginWrite's once they take it)

	seen    []seen  // content the call looked at, for reads and failures
	anchors []shown // versions its reply showed with anchors (tool set hashline)

	// afterFiles runs in commit at its commit point, before the committed record is
	// made: the source folders a move of a folder removes (folders.go).
	afterFiles func()
	// afterDeletes runs in commit once the deletions listed first among its changes
	// are set aside, before any other file is written: the folders a rewind removes
	// where a file comes back (entries.go).
	afterDeletes func(changes []*Change) error
	// madeHere are the folders this call's steps made (entriesBefore): a rollback
	// removes those alone, not one someone else made meanwhile.
	madeHere map[string]bool
}

// seen is content a call looked at without committing a change of it.
type seen struct {
	file int    // index in rec.Files
	data []byte // the content
	read bool   // a read: the session has now seen it
	// spans are the lines a read showed (1-based, inclusive) of total; nil means all.
	spans [][2]int
	total int
}

// Begin starts a call: it acquires the journal (recovering a crashed predecessor on a
// fresh open) or fails with busy.
func (e *Engine) Begin(session, tool string, args json.RawMessage) (*Call, error) {
	return e.BeginContext(context.Background(), session, tool, args)
}

// BeginContext is Begin with a context: once it is cancelled, the call stops before it
// commits (never halfway through writing files).
func (e *Engine) BeginContext(ctx context.Context, session, tool string, args json.RawMessage) (*Call, error) {
	if strings.IndexByte(session, 0) >= 0 || strings.IndexByte(tool, 0) >= 0 {
		// The journal's index keys separate fields with NUL.
		return nil, errs.New(errs.InvalidInput, "", "session and tool names must not contain NUL bytes.")
	}
	if err := e.j.Acquire(); err != nil {
		return nil, err
	}
	c := e.newCall(ctx, session, tool, args)
	c.held = true
	return c, nil
}

// BeginRead starts a call that only reads the workspace (a read, a listing, a search):
// it does not hold the journal while it works, only while Finish writes its record,
// so that a long search never turns another process away. The journal is taken and
// given back at once first, so that a crashed predecessor is recovered before the
// call reads anything; busy then as Begin.
func (e *Engine) BeginRead(ctx context.Context, session, tool string, args json.RawMessage) (*Call, error) {
	if strings.IndexByte(session, 0) >= 0 || strings.IndexByte(tool, 0) >= 0 {
		return nil, errs.New(errs.InvalidInput, "", "session and tool names must not contain NUL bytes.")
	}
	if err := e.j.Acquire(); err != nil {
		return nil, err
	}
	e.j.Release()
	return e.newCall(ctx, session, tool, args), nil
}

// BeginWrite starts a call that may change files, without holding the journal yet
// (recovery runs first, as in BeginRead): Apply plans the call's changes (matching,
// building the content, the guards) and only then takes the journal to commit them,
// so that one slow plan never turns another process away. Undo takes the journal
// before it looks at it; a handler that changes the workspace other than through
// Apply or Undo takes it first (Hold). The call holds it from then until Finish.
func (e *Engine) BeginWrite(ctx context.Context, session, tool string, args json.RawMessage) (*Call, error) {
	if strings.IndexByte(session, 0) >= 0 || strings.IndexByte(tool, 0) >= 0 {
		return nil, errs.New(errs.InvalidInput, "", "session and tool names must not contain NUL bytes.")
	}
	// Hold's Acquire looks at the journal's place (moved or replaced while the hold
	// lingered?); taking it here too would look twice a call.
	if err := e.j.Recovered(); err != nil {
		return nil, err
	}
	return e.newCall(ctx, session, tool, args), nil
}

// Hold takes the journal for a call begun by BeginRead or BeginWrite, until Finish;
// busy as Begin. A call that holds it already keeps its hold.
func (c *Call) Hold() error {
	if c.held {
		return nil
	}
	if err := c.e.j.Acquire(); err != nil {
		return err
	}
	c.held = true
	return nil
}

func (e *Engine) newCall(ctx context.Context, session, tool string, args json.RawMessage) *Call {
	now := time.Now()
	return &Call{ctx: ctx, e: e, start: now, args: args, rec: journal.Record{
		Time: now.UTC(), Session: session, Tool: tool, Origin: journal.OriginModel, ArgsSize: len(args),
	}}
}

// SetOrigin says who made the call (journal.OriginOperator for an operator's command,
// or an embedder's own name); a call is a model's unless set. "" keeps the origin.
func (c *Call) SetOrigin(origin string) {
	if origin != "" {
		c.rec.Origin = origin
	}
}

// SetTools notes the tool set the call was made under (journal.Record.Tools).
func (c *Call) SetTools(set string) { c.rec.Tools = set }

// SetTurn labels the call with the runtime's turn (journal.Record.Turn).
func (c *Call) SetTurn(turn string) { c.rec.Turn = turn }

// SetArgsSize says how many bytes of arguments were sent, when the call was begun
// with only what the journal keeps of them (ArgsCutter).
func (c *Call) SetArgsSize(n int) { c.rec.ArgsSize = n }

// cancelled refuses to go on with a call whose context is done.
func (c *Call) cancelled() error {
	if err := c.ctx.Err(); err != nil {
		return errs.Wrap(errs.IOError, "", err, "The call was cancelled before it changed anything; nothing was written.")
	}
	return nil
}

// Committed reports whether the call's change was committed: a fault after that point
// must not be reported as "nothing was written".
func (c *Call) Committed() bool { return c.final && c.rec.State == journal.Committed }

// Context is the call's context.
func (c *Call) Context() context.Context { return c.ctx }

// Seq is the call's sequence number once its record was written, else 0.
func (c *Call) Seq() uint64 { return c.rec.Seq }

// testHookFinish, when set by a test, runs inside the transaction that writes a call's
// record in Finish, after the record is put; an error from it fails that transaction.
var testHookFinish func() error

// Finish writes the call's record, unless a commit already did, and releases the
// journal. err is the call's outcome.
func (c *Call) Finish(err error) error {
	if c.final {
		if c.held {
			defer c.e.j.Release()
			if len(c.anchors) > 0 {
				if err := c.e.j.Commit(c.putAnchors); err != nil {
					return errs.Wrap(errs.IOError, "", err, "%s", journalCause(err))
				}
			}
		}
		return nil
	}
	if !c.held {
		if herr := c.e.j.Acquire(); herr != nil {
			c.final = true
			return herr // busy: the call's outcome stands, its record could not be written
		}
		c.held = true
	}
	defer c.e.j.Release()
	if err != nil {
		c.rec.State = journal.Failed
		c.rec.Kind = string(errs.KindOf(err))
		c.rec.Message = err.Error()
		if c.rec.Refusal == nil {
			c.rec.Refusal = refusalOf(0, err) // what stood at a refused path, for replay
		}
	} else {
		c.rec.State = journal.Committed
	}
	c.rec.Duration = time.Since(c.start)
	seq0 := c.rec.Seq
	werr := c.e.j.Commit(func(t *journal.Tx) error {
		c.rec.Seq = seq0 // this may run twice: a failed shared transaction is retried alone
		if err := c.putArgs(t); err != nil {
			return err
		}
		if err := c.putAnchors(t); err != nil {
			return err
		}
		for _, s := range c.seen {
			f := &c.rec.Files[s.file]
			if s.read {
				var err error
				if s.spans == nil {
					err = t.SetRead(c.rec.Session, f.Path, f.Before)
				} else {
					err = t.AddRead(c.rec.Session, f.Path, f.Before, s.spans, s.total)
				}
				if err != nil {
					return err
				}
				continue
			}
			// The version a failed call saw is kept when the journal could not rebuild it.
			f.BeforeBlob = false
			if t.Head(f.Path) != f.Before {
				if _, err := t.PutBlob(s.data); err != nil {
					return err
				}
				f.BeforeBlob = true
				if err := t.SetHead(f.Path, f.Before); err != nil {
					return err
				}
			}
		}
		if err := t.Put(&c.rec); err != nil || testHookFinish == nil {
			return err
		}
		return testHookFinish()
	})
	c.final = true
	if werr != nil {
		// Nothing was stored: the reply must not claim a number the journal lacks.
		c.rec.Seq = seq0
		return errs.Wrap(errs.IOError, "", werr, "%s", journalCause(werr))
	}
	return nil
}

// journalCause is why a journal write failed, without the host path of the journal.
func journalCause(err error) string {
	var x *errs.Error
	if errors.As(err, &x) {
		return x.Error()
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// putArgs keeps the arguments as received: inline when small, else as a blob. A
// refused call's arguments over the file size limit are kept cut (cutArgs): they
// carried more than any file may hold, and keeping tens of megabytes a refusal would
// cost seconds and grow the journal by as much; ArgsSize still says what came. A
// call whose pending record was written (Seq set) keeps what that record stored.
func (c *Call) putArgs(t *journal.Tx) error {
	args := c.args
	if len(args) == 0 {
		return nil
	}
	if c.rec.State == journal.Failed && c.rec.Seq == 0 && int64(len(args)) > c.e.fs.MaxFileSize() {
		args = cutArgs(args)
	}
	if len(args) <= journal.MaxInlineArgs && utf8.Valid(args) {
		c.rec.Args = string(args)
		return nil
	}
	h, err := t.PutBlob(args)
	c.rec.ArgsBlob = h
	return err
}

// file adds a file entry to the record and returns its index.
func (c *Call) file(f journal.File) int {
	c.rec.Files = append(c.rec.Files, f)
	return len(c.rec.Files) - 1
}

// Shown narrows the call's read to the lines its reply showed (1-based, inclusive
// spans) of a file of total lines: write_file later needs every line seen. A reply
// about a file of no lines has seen all of it, whatever it showed.
func (c *Call) Shown(spans [][2]int, total int) {
	for i := len(c.seen) - 1; i >= 0; i-- {
		if c.seen[i].read {
			if total == 0 {
				return
			}
			c.seen[i].spans, c.seen[i].total = spans, total
			if spans == nil {
				c.seen[i].spans = [][2]int{}
			}
			return
		}
	}
}

// Named records that the call named these paths, as the model sent them, so that the
// journal indexes a refused call by every path it named: canonical where the path
// resolves, as sent otherwise. Paths already in the record are skipped.
func (c *Call) Named(op journal.Op, paths ...string) {
	for _, p := range paths {
		if p == "" {
			continue
		}
		name := p
		if r, err := c.e.fs.Resolve(p); err == nil {
			name = r.Path
		} else if q, err := c.e.fs.Clean(p); err == nil {
			name = q
		}
		known := false
		for _, f := range c.rec.Files {
			known = known || f.Path == name
		}
		if !known {
			c.file(journal.File{Path: name, Op: op})
		}
	}
}

// Refused keeps a refusal's structure in the record: which edit, which lines, which
// tiers were tried and how close the nearest region came.
func (c *Call) Refused(d *journal.Refusal) { c.rec.Refusal = d }

// Looked records that the call looked at path (a folder listed or searched), so that
// the journal indexes the call by it.
func (c *Call) Looked(path string) { c.file(journal.File{Path: path, Op: journal.OpRead}) }

// Saw records that the call looked at data, the content of path, without showing it
// (file_info): the record keeps it, so that replay has it, and the session has not
// read it.
func (c *Call) Saw(path string, data []byte) { c.saw(path, journal.OpRead, data, false) }

// dryRun records the changes a dry run planned, with their diffs, none written.
func (c *Call) dryRun(changes []*Change) {
	for _, ch := range changes {
		f := journal.File{Path: ch.Path, Op: journal.OpDryRun, Before: journal.Hash(ch.Before), After: journal.Hash(ch.After), Diff: bounded(ch.Diff())}
		if ch.bitsOnly { // no content read: the hashes are the record's
			f.Before, f.After = ch.beforeHash, ch.afterHash
		}
		c.file(f)
	}
}

// sighted records what planning a refused change saw of its file.
func (c *Call) sighted(s sight) {
	if s.file.Path == "" {
		return
	}
	i := c.file(s.file)
	if s.saw {
		c.seen = append(c.seen, seen{file: i, data: s.data})
	}
}

// saw notes content a call looked at (read, or saw before being refused).
func (c *Call) saw(path string, op journal.Op, data []byte, read bool) {
	i := c.file(journal.File{Path: path, Op: op, Before: journal.Hash(data)})
	c.seen = append(c.seen, seen{file: i, data: data, read: read})
}

// shown is a version of a file whose lines a reply showed with anchors.
type shown struct {
	path  string // canonical
	data  []byte
	spans [][2]int
}

// ShowedAnchors records that the call's reply showed the given lines (1-based,
// inclusive spans) of data, the content of path (canonical), with anchors: edit_lines
// may then name them, and the journal keeps data so that it can map them through the
// changes made since.
func (c *Call) ShowedAnchors(path string, data []byte, spans [][2]int) {
	if len(spans) > 0 {
		c.anchors = append(c.anchors, shown{path: path, data: data, spans: spans})
	}
}

// putAnchors stores the versions shown with anchors, each as content the journal can
// rebuild: a version it cannot (an outside change, a first read) is kept as a blob.
func (c *Call) putAnchors(t *journal.Tx) error {
	for _, a := range c.anchors {
		h := journal.Hash(a.data)
		if t.Head(a.path) != h {
			if _, err := t.PutBlob(a.data); err != nil {
				return err
			}
			if err := t.SetHead(a.path, h); err != nil {
				return err
			}
		}
		if err := t.AddAnchored(c.rec.Session, a.path, h, a.spans); err != nil {
			return err
		}
	}
	return nil
}

package txn

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

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
		return nil, errs.New(errs.BinaryFile, path, "%s", matcher.BinaryMessage(path, f.Data))
	}
	c.saw(f.Path, journal.OpRead, f.Data, true)
	e.folds.warm(f.Path, f.ID, f.Data)
	return &ReadResult{Path: f.Path, Data: f.Data, TotalLines: CountLines(f.Data)}, nil
}

// CountLines counts lines as an editor shows them and as matching numbers them.
func CountLines(b []byte) int { return matcher.CountLines(b) }

// Spec is one file's change in a call: edits, a new file, a whole replacement, or a
// deletion.
type Spec struct {
	Path  string
	Op    journal.Op // OpEdit, OpCreate, OpWrite or OpDelete
	Edits []matcher.Edit
	// Locate, when set, places an OpEdit's change instead of Edits: it gets the file's
	// content as read under the file's queue and returns the planned result (an edit
	// dialect's locator, an insertion at a line). It must be pure: it may run again
	// on the same content, and its refusal refuses the call. On an OpDelete it only
	// checks the content (its result is not used): a refusal keeps the file.
	Locate  func(content []byte) (*matcher.Result, error)
	Content []byte
	// From, on an OpCreate, names the source of a move: an OpDelete of the same call,
	// listed before it. The new file's content is the source's as read under its
	// queue (so nothing can change between the two), with Locate applied when set;
	// Content is not used. Without Locate the file is renamed into place: the same
	// inode, its hard links kept.
	From string
	// Label names the change in a refusal of a call with several changes, before the
	// refusal's own words; "" is "changes[i] (path)", as apply_changes numbers them.
	Label string
	// Adds, with Locate, is the size of the text the change brings in as the model
	// sent it (a dialect's new lines). Like Edits' newText, it is checked against the
	// file size limit before the file is read: a change whose text alone is over it
	// is refused without being matched or guarded.
	Adds int
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
	// HardLinks, over 1, are the hard links (itself included) of the file the change
	// deletes, or, on the undo of a deletion, those the deleted file had: the file put
	// back is a copy, not linked to its other names again.
	HardLinks uint64

	splices                 []journal.Splice // for a change made without a matcher plan (undo)
	undoSplices             []matcher.Splice // the same, for its diff
	diff                    *string          // rendered on first use
	mode                    fs.FileMode
	id                      vfs.Identity  // of the file as planned from, for the conflict check
	info                    fs.FileInfo   // the stat id was taken from, or nil
	beforeHash, afterHash   string        // computed once: hashing a large file is not free
	beforeMarks, afterMarks hashMarks     // their running states, to hash the next version from
	dirs                    []string      // folders a create made, for its rollback
	planned                 []string      // folders a create was to make (its record's Made)
	aside                   string        // where a deleted file waits for the commit point
	from                    *Change       // a create that is a move: the deletion whose set-aside file it renames into place
	source                  []byte        // a create that is a move: its source's content, which the guards judge it against
	taken                   bool          // a deletion whose set-aside file a move renames (from): not removed at the commit point
	creating                bool          // its create began and never returned: a panic
	chmod                   fs.FileMode   // not 0: the bits the change sets (the undo of a command's chmod)
	bitsOnly                bool          // chmod alone, in place: no content read or written (undo_large.go)
	view                    *matcher.View // what the matcher planned on, kept after the commit
	// Warnings are what a guard in warn mode found, Notes what it repaired; the reply
	// shows both.
	Warnings, Notes []string
}

// MadeFolders are the folders a committed create made for its file, shallowest
// first (a file put back where its folder had gone).
func (c *Change) MadeFolders() []string { return c.dirs }

// priorHash is the hash of the content the change replaces, "" for a create. It does
// not fill beforeHash: the commit computes that with its marks (hash).
// ModeChange is the change of permission bits c makes to a file that stays (the
// undo of a command's chmod): from and to, ok false when it keeps them.
func (c *Change) ModeChange() (from, to fs.FileMode, ok bool) {
	if c.chmod == 0 || c.Created || c.Deleted {
		return 0, 0, false
	}
	const bits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky
	from, to = c.mode&bits, c.chmod&bits
	return from, to, from != to
}

func (c *Change) priorHash() string {
	switch {
	case c.Created:
		return ""
	case c.beforeHash != "":
		return c.beforeHash
	}
	return journal.Hash(c.Before)
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

// testHookPlanned, when set by a test, runs when a call has planned its changes: one
// that plans without the journal runs it before it takes the journal.
var testHookPlanned func()

// Apply plans every change and commits them as one transaction: all or nothing.
//
// A call that does not hold the journal yet (BeginWrite) plans first without it, under
// the files' queues: reading, matching, building the content and the guards, the work
// that may take long, keep no other process waiting. It then takes the journal, and the
// queues again, and keeps that plan only if every path resolves as it did and every
// file it read is as it was (the same identity, else the same bytes); what planning
// reads of the journal (write_file's licence, the stale-read hint, whether the syntax
// guard gives way to a call sent again) is decided then. Anything else is planned
// again, holding the journal, as a call begun by Begin plans: no plan is committed, and
// no refusal given, against content that is no longer on disk.
func (e *Engine) Apply(c *Call, specs []Spec, dryRun bool) ([]*Change, error) {
	if len(specs) == 0 {
		return nil, errs.New(errs.InvalidInput, "", "No changes were sent. Send changes: [{path, edits} or {path, create} or {path, write}].")
	}
	multi := len(specs) > 1
	where := func(i int, err error) error {
		if !multi {
			return err
		}
		if l := specs[i].Label; l != "" {
			return errs.Prefixed(l+": ", err)
		}
		return errs.Prefixed(fmt.Sprintf("changes[%d] (%s): ", i, specs[i].Path), err)
	}
	var early *planned
	if !c.held {
		if res, _, err := e.resolve(specs); err == nil {
			unlock := e.queues.lock(pathsOf(res)...)
			early = e.planAll(c, specs, res, false)
			unlock()
		}
		if testHookPlanned != nil {
			testHookPlanned()
		}
		if err := c.Hold(); err != nil {
			return nil, err // busy: nothing was written
		}
	}
	res, i, err := e.resolve(specs)
	if err != nil {
		if i < 0 {
			return nil, err
		}
		c.Named(specs[i].Op, specs[i].Path)
		return nil, where(i, err)
	}
	unlock := e.queues.lock(pathsOf(res)...)
	defer unlock()
	p := early
	if p == nil || !e.asPlanned(p, specs, res) || !e.decide(c, specs, p) {
		p = e.planAll(c, specs, res, true)
		if testHookPlanned != nil {
			testHookPlanned()
		}
	}
	if p.err != nil {
		if p.guarded {
			// Every file was read and planned: the record keeps what the call saw of
			// each, so that replay and show have the content the guard judged.
			for _, ch := range p.changes {
				if !ch.Created {
					c.sighted(sight{file: journal.File{Path: ch.Path, Op: ch.Op, Before: ch.priorHash()}, data: ch.Before, saw: true})
				}
			}
			c.refusedChange(specs, sight{}, p.d)
		} else {
			c.refusedChange(specs, p.saw, refusalOf(p.i, p.err))
		}
		return nil, where(p.i, p.err)
	}
	changes := p.changes
	if dryRun {
		c.dryRun(changes)
		return changes, nil
	}
	if err := e.commit(c, changes); err != nil {
		return nil, err
	}
	e.keepViews(changes)
	return changes, nil
}

// resolve resolves the path of every spec. A refusal comes with the index of the spec
// refused, or -1 when it names two (the same file twice).
func (e *Engine) resolve(specs []Spec) ([]*vfs.Resolved, int, error) {
	res := make([]*vfs.Resolved, len(specs))
	for i, s := range specs {
		r, err := e.fs.Resolve(s.Path)
		if err != nil {
			return nil, i, err
		}
		for k := range i {
			if res[k].Path == r.Path {
				return nil, -1, errs.New(errs.InvalidInput, s.Path, "changes[%d] and changes[%d] name the same file (%s). Put all changes of one file in one entry.", k, i, r.Path)
			}
		}
		res[i] = r
	}
	return res, 0, nil
}

func pathsOf(res []*vfs.Resolved) []string {
	paths := make([]string, len(res))
	for i, r := range res {
		paths[i] = r.Path
	}
	return paths
}

// planned is what planning a call came to: every change planned, or the refusal of
// change i; and what the plan read, so that a plan made without the journal can be
// checked under it.
type planned struct {
	res     []*vfs.Resolved // the specs' paths as they resolved
	read    []*vfs.File     // per spec, its file as the plan read it; nil: not read
	from    []string        // per spec, the canonical path of a move's source
	changes []*Change       // those planned (all of them unless a plan refused)

	i       int   // the change refused
	err     error // the refusal
	saw     sight // what a refused plan saw of its file
	guarded bool  // the guard refused: every change was planned
	d       *journal.Refusal

	// What a plan made without the journal left to decide under it: the write_file
	// licences (spec index, and the content as planned before any guard repaired it),
	// whether the refusal is the matcher's or a locator's (which may get the stale-read
	// hint), and whether the syntax guard refused where it gives way to a call sent
	// again.
	licences []licence
	located  bool
	insist   bool
}

type licence struct {
	i       int
	content []byte
}

// planAll plans every spec and guards the changes. held says the call holds the
// journal; without it nothing of the journal is read, and what needs it is left to
// decide.
func (e *Engine) planAll(c *Call, specs []Spec, res []*vfs.Resolved, held bool) *planned {
	p := &planned{res: res, read: make([]*vfs.File, len(specs)), from: make([]string, len(specs))}
	changes := make([]*Change, len(specs))
	refuse := func(i int, err error, saw sight) *planned {
		p.i, p.err, p.saw, p.changes = i, err, saw, changes[:i]
		return p
	}
	for i, s := range specs {
		ch, f, saw, err := e.plan(c.rec.Session, s, res[i], held)
		p.read[i] = f
		if err != nil {
			p.located = !held && s.Op == journal.OpEdit && f != nil && saw.saw
			return refuse(i, err, saw)
		}
		if s.From != "" {
			r, err := e.fs.Resolve(s.From)
			if err == nil {
				p.from[i] = r.Path
				err = e.moved(ch, s, r.Path, specs[:i], changes[:i])
			}
			if err != nil {
				return refuse(i, err, sight{})
			}
		}
		if err := e.fits(ch); err != nil {
			// Before the guards, which cost most on a large file. It hangs on the
			// file as read and the spec only: a plan made without the journal keeps
			// it if the file is as it was read.
			p.located = !held && f != nil
			return refuse(i, err, sight{})
		}
		if !held && s.Op == journal.OpWrite {
			p.licences = append(p.licences, licence{i, ch.After})
		}
		changes[i] = ch
	}
	p.changes = changes
	if i, d, insist, err := e.guard(c, changes, held); err != nil {
		p.i, p.err, p.d, p.guarded, p.insist = i, err, d, true, insist
	}
	return p
}

// asPlanned reports, under the journal and the queues, whether a plan made without the
// journal still stands on the workspace: every path it looked at resolves as it did,
// and every file it read is as it read it (the same identity, which a write, a rename
// onto it or a change of mode changes; where the filesystem gives none, the same bytes
// and mode). A refusal other than the matcher's, a locator's or a create's (which
// hangs on the path alone) is decided again: it is cheap, and may hang on more than
// the file (a folder's permissions).
func (e *Engine) asPlanned(p *planned, specs []Spec, res []*vfs.Resolved) bool {
	n := len(specs)
	if p.err != nil && !p.guarded {
		if s := specs[p.i]; !p.located && (s.Op != journal.OpCreate || s.From != "") {
			return false
		}
		n = p.i + 1
	}
	for k := range n {
		was, now := p.res[k], res[k]
		if now.Path != was.Path || now.Exists != was.Exists || now.Link != was.Link ||
			now.Exists && now.Info.Mode().Type() != was.Info.Mode().Type() {
			return false
		}
		if f := p.read[k]; f != nil && !e.stillRead(f) {
			return false
		}
		if p.from[k] != "" {
			if r, err := e.fs.Resolve(specs[k].From); err != nil || r.Path != p.from[k] {
				return false
			}
		}
	}
	return true
}

// stillRead reports whether the file f is as a plan read it.
func (e *Engine) stillRead(f *vfs.File) bool {
	if f.ID.Known() {
		now, err := e.fs.IdentityOf(f.Path)
		return err == nil && now == f.ID
	}
	r, err := e.fs.Resolve(f.Path)
	if err != nil || !r.Exists || r.Info.Mode() != f.Info.Mode() {
		return false
	}
	same, err := e.fs.SameContent(f.Path, f.Data)
	return err == nil && same
}

// decide decides, holding the journal, what a plan made without it left to the journal,
// in the order a plan under the journal decides it: write_file's licences first, then
// the refusal's stale-read hint. It reports false when the outcome may be another than
// planned (the syntax guard gives way to this call, sent again after its refusal):
// the call is then planned again.
func (e *Engine) decide(c *Call, specs []Spec, p *planned) bool {
	for _, l := range p.licences {
		s := specs[l.i]
		s.Content = l.content
		if saw, err := e.mayWrite(c.rec.Session, s, p.read[l.i]); err != nil {
			p.i, p.err, p.saw, p.guarded, p.d, p.changes = l.i, err, saw, false, nil, p.changes[:l.i]
			return true
		}
	}
	if p.insist {
		if _, ok := e.insisted(c, p.i, p.changes[p.i]); ok {
			return false
		}
	}
	if p.located {
		p.err = e.staleHint(c.rec.Session, p.read[p.i], p.err)
	}
	return true
}

// keepViews keeps, for each committed edit planned by the matcher, the View of the
// new content, derived from the one it was planned on; other changes' files lose
// theirs. It runs under the files' queues, before the next call of the same file;
// the new View is derived, and prepared, in the background for a large file, and by
// the next call that needs it for a small one (foldCache.keepLocked).
func (e *Engine) keepViews(changes []*Change) {
	for _, ch := range changes {
		k, ok := e.knownOf(ch.Path)
		if ch.view == nil || ch.Plan == nil || !ok {
			e.folds.drop(ch.Path)
			continue
		}
		v, splices, after := ch.view, ch.Plan.Splices, ch.After
		e.folds.put(ch.Path, k.id, k.hash, len(after), func() *matcher.View {
			nv := v.Update(splices, after)
			nv.Prepare() // what the next edit of the file would do first, done now
			return nv
		})
	}
}

// refusedChange records a change refused before anything was journaled: what it saw
// of its file, every path of the call (the refusal is about one change, but the call
// named them all), and the refusal's structure, if any.
func (c *Call) refusedChange(specs []Spec, saw sight, d *journal.Refusal) {
	c.sighted(saw)
	for _, o := range specs {
		c.Named(o.Op, o.Path)
	}
	if d != nil {
		c.Refused(d)
	}
}

// refusalOf is the structure of a matcher's refusal of change i, or nil for any other
// error.
func refusalOf(i int, err error) *journal.Refusal {
	var r *errs.Error
	if !errors.As(err, &r) {
		return nil
	}
	switch {
	case r.Where != nil:
		w := r.Where
		return &journal.Refusal{Change: i, Edit: w.Edit, Lines: w.Lines, Tiers: w.Tiers, Closeness: w.Closeness}
	case r.Found != "":
		return &journal.Refusal{Change: i, Edit: -1, Found: r.Found, At: r.At}
	}
	return nil
}

// sight is what planning a change saw of its file before it refused: the record's entry
// for the file (Path "" for none) and, where the call counts as having seen it, the
// content. plan returns it; the caller records it, so that planning only reads.
type sight struct {
	file journal.File
	data []byte
	saw  bool
}

// named is the sight of a file a refused change named without reading it.
func named(path string, op journal.Op) sight {
	return sight{file: journal.File{Path: path, Op: op}}
}

// looked is the sight of a file whose content a refused change looked at; saw says
// the call counts as having seen it.
func looked(f *vfs.File, op journal.Op, saw bool) sight {
	return sight{file: journal.File{Path: f.Path, Op: op, Before: journal.Hash(f.Data)}, data: f.Data, saw: saw}
}

// plan reads one file and works out its new content for the call's session, or refuses
// with what it saw of the file; it returns the file as it read it, if it did. held says
// the call holds the journal: without it, write_file's licence and the stale-read hint,
// which read the journal, are left to the caller (decide).
func (e *Engine) plan(session string, s Spec, r *vfs.Resolved, held bool) (*Change, *vfs.File, sight, error) {
	ch := &Change{Path: r.Path, Name: s.Path, Op: s.Op}
	if err := e.sentFits(s); err != nil {
		return nil, nil, sight{}, err
	}
	if s.Op == journal.OpCreate {
		if r.Exists || r.Link {
			return nil, nil, named(r.Path, s.Op), existsError(s.Path, r)
		}
		check := e.fs.CheckNewName
		if s.From != "" && path.Base(s.From) == path.Base(r.Path) {
			check = e.fs.CheckNewDepth // a folder's files keep their names, but not their depth
		}
		if err := check(r); err != nil {
			return nil, nil, named(r.Path, s.Op), err
		}
		ch.After, ch.Created = s.Content, true
		return ch, nil, sight{}, nil
	}
	if s.Op == journal.OpDelete && r.Link {
		// The file tools act on the file a link leads to, never on the link: deleting
		// (or moving away) through it would name one path in the reply and remove
		// another, and leave the link dangling.
		var msg string
		switch {
		case r.Dangling():
			msg = vfs.DanglingAdvice(r)
		case r.IsLink():
			msg = fmt.Sprintf("%s is a symlink to %s. delete_file and move_file act on files, not on links: here they would remove %s, not the link, so nothing was changed. Send %s to delete or move that file; the link itself is removed or changed outside vfsctl.", s.Path, r.Path, r.Path, r.Path)
		default:
			msg = fmt.Sprintf("%s. delete_file and move_file do not act through a symlink, so nothing was changed. Send the file's own path, %s.", r.Through(), r.Path)
		}
		return nil, nil, named(r.Path, s.Op), errs.New(errs.NotAFile, s.Path, "%s", msg)
	}
	if s.Op == journal.OpWrite && !r.Exists && !r.Link {
		return nil, nil, named(r.Path, s.Op), errs.New(errs.FileNotFound, s.Path, "%s does not exist. Use create_file to make a new file.", s.Path)
	}
	f, err := e.fs.ReadKnown(s.Path, e.knownData)
	if err == nil {
		if err = e.fs.CheckWritable(f.Resolved); err != nil {
			return nil, f, named(r.Path, s.Op), err
		}
	}
	if err != nil {
		return nil, nil, named(r.Path, s.Op), err
	}
	if f.Path != r.Path {
		return nil, nil, sight{}, errs.New(errs.Conflict, s.Path, "%s was re-pointed to another file while this call waited; nothing was written. Read it again and resend.", s.Path)
	}
	ch.Before, ch.mode, ch.id, ch.info = f.Data, f.Info.Mode(), f.ID, f.IDInfo
	if n := vfs.Links(f.Info); s.Op == journal.OpDelete && n > 1 {
		ch.HardLinks = n
	}
	if k, ok := e.lookup(f.Path, f.ID); ok {
		ch.beforeHash, ch.beforeMarks = k.hash, k.marks
	}
	switch s.Op {
	case journal.OpDelete:
		if s.Locate != nil {
			// A deletion's check of what it deletes (a diff's '-' lines).
			if _, err := s.Locate(f.Data); err != nil {
				return nil, f, looked(f, s.Op, true), err
			}
		}
		ch.Deleted = true
		return ch, f, sight{}, nil
	case journal.OpEdit:
		if s.Locate == nil {
			ch.view = e.folds.view(f.Path, f.ID, ch.beforeHash, f.Data)
		}
		plan, err := e.locate(s, ch.view, f.Data)
		if err != nil {
			if held {
				err = e.staleHint(session, f, err)
			}
			return nil, f, looked(f, s.Op, true), err
		}
		var sent []string // nil: a dialect's text, not at hand here
		if s.Locate == nil {
			sent = make([]string, 0, len(s.Edits))
			for _, ed := range s.Edits {
				sent = append(sent, ed.NewText)
			}
		}
		if msg := matcher.AddedToEightBit(s.Path, f.Data, plan.Output, sent); msg != "" {
			return nil, f, looked(f, s.Op, true), errs.New(errs.InvalidInput, s.Path, "%s", msg)
		}
		ch.Plan, ch.After = plan, plan.Output
		return ch, f, sight{}, nil
	}
	var note string
	s.Content, note = keepConventions(f.Data, s.Content)
	if held {
		if saw, err := e.mayWrite(session, s, f); err != nil {
			return nil, f, saw, err
		}
	}
	if note != "" {
		ch.Notes = append(ch.Notes, note)
	}
	ch.After = s.Content
	return ch, f, sight{}, nil
}

// moved fills the content of a move's new file from its source, a deletion planned
// earlier in the same call.
// from is the source's canonical path.
func (e *Engine) moved(ch *Change, s Spec, from string, specs []Spec, planned []*Change) error {
	var src *Change
	for k, o := range specs {
		if o.Op == journal.OpDelete && planned[k].Path == from {
			src = planned[k]
		}
	}
	if src == nil {
		return errs.New(errs.InvalidInput, s.Path, "the move to %s names %s as its source, which this call does not delete before it.", s.Path, s.From)
	}
	ch.After, ch.mode = src.Before, src.mode // the moved file keeps its permissions
	ch.source = src.Before
	if s.Locate != nil {
		plan, err := s.Locate(src.Before)
		if err != nil {
			return err
		}
		if msg := matcher.AddedToEightBit(s.Path, src.Before, plan.Output, nil); msg != "" {
			return errs.New(errs.InvalidInput, s.Path, "%s", msg)
		}
		ch.After = plan.Output
		d := plan.Diff(s.Path)
		ch.diff = &d
	} else {
		// The content does not change: the move renames the file, which keeps its
		// inode and with it its hard links, owner and times. (A move that also
		// changes the file writes it new, as every change of content does.)
		ch.from, src.taken = src, true
		d := fmt.Sprintf("(moved from %s, content unchanged)\n", s.From)
		ch.diff = &d
	}
	return nil
}

// locate plans an edit: by the spec's own locator, else by the matcher on the file's
// View (data's, with the folded lines kept from earlier calls).
func (e *Engine) locate(s Spec, v *matcher.View, data []byte) (*matcher.Result, error) {
	if s.Locate != nil {
		return s.Locate(data)
	}
	return v.Apply(s.Edits, matcher.Options{Name: s.Path})
}

// tooLarge refuses content over the size limit.
func (e *Engine) tooLarge(s Spec) error {
	return e.overLimit(s.Path, "content is %d bytes", len(s.Content))
}

// overLimit refuses a change of path whose text or result (what, with n its size in
// bytes) is over the file size limit, and says what to send instead.
func (e *Engine) overLimit(path, what string, n int) error {
	max := e.fs.MaxFileSize()
	return errs.New(errs.TooLarge, path, "%s; files over %d bytes are not written here, as no tool could read or edit them afterwards. Nothing was written. Keep %s under %d bytes: put the rest in other files (create_file), or send a smaller change.", fmt.Sprintf(what, n), max, path, max)
}

// sentFits refuses, before its file is read, a change whose text as sent is already
// over the size limit: the file would be too, and matching and guarding tens of
// megabytes takes minutes and gigabytes (a syntax guard needs hundreds of bytes of
// memory a byte). What the change makes is checked once planned (fits).
func (e *Engine) sentFits(s Spec) error {
	max := e.fs.MaxFileSize()
	switch s.Op {
	case journal.OpCreate, journal.OpWrite:
		if int64(len(s.Content)) > max {
			return e.tooLarge(s)
		}
	}
	n := s.Adds
	for _, ed := range s.Edits {
		n += len(ed.NewText)
	}
	if int64(n) <= max {
		return nil
	}
	for i, ed := range s.Edits {
		if int64(len(ed.NewText)) > max {
			return e.overLimit(s.Path, fmt.Sprintf("edits[%d].newText is %%d bytes", i), len(ed.NewText))
		}
	}
	if len(s.Edits) > 0 && s.Adds == 0 {
		return e.overLimit(s.Path, "the newText of the edits is %d bytes in all", n)
	}
	return e.overLimit(s.Path, "the new text for "+s.Path+" is %d bytes", n)
}

// fits refuses a planned change whose new content is over the size limit (an edit
// of a large file, replaceAll's many places, a file's line endings put on a write).
func (e *Engine) fits(ch *Change) error {
	if int64(len(ch.After)) > e.fs.MaxFileSize() {
		return e.overLimit(ch.Name, ch.Name+" would be %d bytes", len(ch.After))
	}
	return nil
}

// mayWrite allows write_file to replace f whole only when the session has seen all of
// its current content, and the new content differs.
func (e *Engine) mayWrite(session string, s Spec, f *vfs.File) (sight, error) {
	if int64(len(s.Content)) > e.fs.MaxFileSize() {
		return sight{}, e.tooLarge(s)
	}
	seen, full, err := e.seen(session, f.Path)
	if err != nil {
		return sight{}, err
	}
	now := journal.Hash(f.Data)
	var spans [][2]int
	var calls []uint64
	own := false
	if seen != "" && !full || seen != now {
		e.j.View(func(t *journal.Tx) error {
			_, _, spans = t.ReadSpans(session, f.Path)
			calls, own = changedSince(t, session, f.Path, seen, now)
			return nil
		})
	}
	switch {
	case seen == now && !full:
		return looked(f, s.Op, true), errs.New(errs.NotRead, s.Path, "This session has seen %s. write_file replaces the whole file, so read %s first (read_file with offset and limit, or without them for all of it); or use edit_file to change part of it.", seenLines(spans, f.Name, f.Data), unseenLines(spans, f.Data))
	case seen == "":
		return looked(f, s.Op, false), errs.New(errs.NotRead, s.Path, "%s has not been read in this session. Call read_file on it first, then write_file; or use edit_file to change part of it.", s.Path)
	case seen != now && own && !full:
		return looked(f, s.Op, true), errs.New(errs.NotRead, s.Path, "This session has seen %s, and since then only its own %s changed it. write_file replaces the whole file, so read %s first (read_file with offset and limit, or without them for all of it); or use edit_file to change part of it.", seenLines(spans, f.Name, f.Data), callsNamed(calls), unseenLines(spans, f.Data))
	case seen != now:
		return looked(f, s.Op, true), errs.New(errs.NotRead, s.Path, "%s has changed since this session last read it%s. Call read_file again so you see its current content, then write_file.", s.Path, changedBy(calls, own))
	case bytes.Equal(f.Data, s.Content):
		return sight{}, errs.New(errs.NoChange, s.Path, "write_file would leave %s exactly as it is. Send the new content, or nothing.", s.Path)
	}
	return sight{}, nil
}

// seen is the hash of the content of path the call's session last saw, or "", and
// whether it saw all of it.
func (e *Engine) seen(session, path string) (string, bool, error) {
	var h string
	var full bool
	// The session's own writes and what recovery settled may still be deferred.
	if err := e.j.Flush(); err != nil {
		return "", false, err
	}
	err := e.j.View(func(t *journal.Tx) error {
		h, full = t.Read(session, path)
		return nil
	})
	return h, full, err
}

// staleHint adds to text_not_found that the session's last read of the file is older
// than the file: the usual cause of a snippet that is no longer there.
func (e *Engine) staleHint(session string, f *vfs.File, err error) error {
	var r *errs.Error
	if !errors.As(err, &r) || r.Kind != errs.TextNotFound {
		return err
	}
	if h, _, _ := e.seen(session, f.Path); h != "" && h != journal.Hash(f.Data) {
		var calls []uint64
		own := false
		e.j.View(func(t *journal.Tx) error {
			calls, own = changedSince(t, session, f.Path, h, journal.Hash(f.Data))
			return nil
		})
		r2 := *r
		if own {
			r2.Message += fmt.Sprintf(" Since you read %s, only your own %s changed it: copy oldText from the file as that left it (read_file shows it).", f.Name, callsNamed(calls))
		} else {
			r2.Message += fmt.Sprintf(" %s has changed since you last read it%s: read it again before editing.", f.Name, changedBy(calls, own))
		}
		return &r2
	}
	return err
}

func existsError(path string, r *vfs.Resolved) error {
	switch {
	case r.Dangling():
		return errs.New(errs.FileExists, path, "%s", vfs.DanglingAdvice(r)).Stood(errs.FoundFile, "")
	case r.Through() != "" && !r.Exists:
		return errs.New(errs.FileExists, path, "%s. create_file does not create through a symlink, so nothing was written. Send the file's own path, %s.", r.Through(), r.Path).Stood(errs.FoundFile, "")
	}
	what := "a file"
	switch {
	case r.Link && !r.Exists:
		what = "a dangling symlink"
	case r.IsLink():
		what = "a symlink to " + r.Path
	case r.Link:
		what = "reached through " + r.LinkAt + ", a symlink"
	case r.Info != nil && r.Info.IsDir():
		what = "a directory"
	case r.Info != nil && !r.Info.Mode().IsRegular():
		// A named pipe, socket or device: edit_file and write_file refuse it too,
		// so pointing at them would send the model round in a circle.
		kind := vfs.KindOfMode(r.Info.Mode())
		return errs.New(errs.FileExists, path, "%s exists and is %s, not a regular file; the file tools do not read, change or replace it. Send another path for the new file.", path, kind).Stood(kind, "")
	}
	found := errs.FoundFile
	if what == "a directory" {
		found = errs.FoundDir
	}
	return errs.New(errs.FileExists, path, "%s already exists (%s). Use edit_file to change a file, or write_file to replace it whole after reading it.", path, what).Stood(found, "")
}

func bounded(s string) string {
	if len(s) > journal.MaxDiff {
		return s[:journal.MaxDiff] + "\n(diff truncated)\n"
	}
	return s
}

// maxChainBack bounds how many of a file's records changedSince walks back.
const maxChainBack = 64

// changedSince lists the committed calls that took path from content seen to content
// now, newest first, and whether they were all session's own; nil when the journal's
// chain of the file's versions does not lead back to seen (a change outside vfsctl).
func changedSince(t *journal.Tx, session, path, seen, now string) ([]uint64, bool) {
	recs, err := t.Find(journal.Query{Path: path, Limit: maxChainBack})
	if err != nil || seen == "" {
		return nil, false
	}
	var calls []uint64
	own, cur := true, now
	for _, r := range recs {
		if cur == seen {
			break
		}
		if r.State != journal.Committed {
			continue
		}
		for _, f := range r.Files {
			if f.Path == path && f.Op.Changes() && f.After == cur {
				calls = append(calls, r.Seq)
				own = own && r.Session == session && r.Undo == 0 && r.Redo == 0
				cur = f.Before
				break
			}
		}
	}
	if cur != seen || len(calls) == 0 {
		return nil, false
	}
	return calls, own
}

// callsNamed names the session's own calls: "edit (call 5)", "edits (calls 5 and 6)".
func callsNamed(calls []uint64) string {
	if len(calls) == 1 {
		return fmt.Sprintf("edit (call %d)", calls[0])
	}
	var s []string
	for i := len(calls) - 1; i >= 0; i-- {
		s = append(s, fmt.Sprint(calls[i]))
	}
	return fmt.Sprintf("edits (calls %s)", strings.Join(s, ", "))
}

// changedBy says which calls changed a file since a read, when the journal knows.
func changedBy(calls []uint64, own bool) string {
	if len(calls) == 0 {
		return " (not through vfsctl, or too many changes back to tell)"
	}
	var s []string
	for i := len(calls) - 1; i >= 0; i-- {
		s = append(s, fmt.Sprint(calls[i]))
	}
	return fmt.Sprintf(" (calls %s changed it, not all of this session)", strings.Join(s, ", "))
}

// lineCount is how many lines data has.
func lineCount(data []byte) int {
	n := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// seenLines says which lines of a file a session saw: "only lines 1-3 of 351 of big.txt".
func seenLines(spans [][2]int, name string, data []byte) string {
	var s []string
	for _, sp := range spans {
		s = append(s, lineRange(sp[0], sp[1]))
	}
	if len(s) == 0 {
		return "only part of " + name
	}
	return fmt.Sprintf("only %s of %d of %s", strings.Join(s, ", "), lineCount(data), name)
}

// unseenLines says which lines are left to read: "line 1, lines 3-9".
func unseenLines(spans [][2]int, data []byte) string {
	total, next := lineCount(data), 1
	var s []string
	for _, sp := range spans {
		if sp[0] > next {
			s = append(s, lineRange(next, min(sp[0]-1, total)))
		}
		next = max(next, sp[1]+1)
	}
	if next <= total {
		s = append(s, lineRange(next, total))
	}
	if len(s) == 0 {
		return "all of it again"
	}
	return strings.Join(s, ", ")
}

// lineRange names lines a to b: "line 4", "lines 4-351".
func lineRange(a, b int) string {
	if a == b {
		return fmt.Sprintf("line %d", a)
	}
	return fmt.Sprintf("lines %d-%d", a, b)
}

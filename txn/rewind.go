package txn

import (
	"bytes"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/vfs"
)

// A rewind puts a session's files back as they were before one of its turns: it
// reverts every change the session made in that turn and in every later one, newest
// first, as one transaction of its own (one record, listing the calls it reverts).
//
// Turns are the runtime's labels, ordered by the calls that carry them: the rewind
// starts at the session's first call carrying the label and takes every change of
// the session from there on, with or without a label, its undos and redos included,
// and the undos and redos an operator made of those changes.
//
// Each change is reverted against the content the newer reversals left, by lines,
// as a three-way merge: what the change did (its content before and after, rebuilt
// from the journal) is taken back, and what happened to the file since (another
// session's calls, edits outside vfsctl) stays. Where both touched the same lines,
// or the lines next to each other, the rewind is refused as a conflict naming the
// calls, and nothing is written. Reverting an undo re-applies what it undid, so a
// change the session made and undid inside the turns comes out as it went in.
//
// Unlike undo of a single call, a write or a create is reverted by lines too: a
// write_file that left the other session's lines as they were does not block the
// rewind of a turn in which the other session edited them afterwards.

// RewindOptions say which session's turns to revert.
type RewindOptions struct {
	Session string
	Turn    string // the first turn reverted; every later turn of the session goes too
	DryRun  bool
	// SkipUnrestorable leaves as they are the files a command changed over the
	// snapshot's size limit (kept by hash only, so not restorable), and reverts the
	// rest; without it, such a file refuses the rewind (HashOnly).
	SkipUnrestorable bool
}

// RewindResult is a planned or committed rewind.
type RewindResult struct {
	Reverts []uint64 // the calls reverted, newest first
	Changes []*Change
	Folders []string        // folders the turns created that were removed, being empty then; in a dry run, those there now
	Entries []journal.Entry // the folders and symlinks the turns' commands changed, put back
	Kept    []string        // folders the turns made that stay, each with why (something else is in it)
	Skipped []string        // with SkipUnrestorable, the files left as they are, a sentence each
}

// maxTurnsNamed bounds how many of a session's turns a message lists.
const maxTurnsNamed = 5

// rewindStep is one call's change of one file, as the rewind reverts it.
type rewindStep struct {
	seq           uint64
	turn          string
	op            journal.Op
	before, after []byte // nil: the file did not exist
	beforeMode    uint32
	afterMode     uint32
	// large is the hash of the file a command created over the snapshot's size limit,
	// kept by hash only (undo_large.go); before and after are then nil.
	large string
	// bits is the hash of a file whose bits alone the step changed, kept by hash
	// only (bitsOnly); before and after are then nil.
	bits string
	// grown is the hash of the file a command grew past the size limit (grown),
	// kept by hash only; before is the prior content, after nil.
	grown string
}

// rewindFile is what a rewind knows of one file from the journal.
type rewindFile struct {
	path   string
	steps  []rewindStep // newest first
	others []uint64     // changes of the file by calls outside the rewind, after its first step
	by     map[uint64]string
	// touching, set by the engine, are those of others after step st whose change
	// meets lines (first, last as st left the file, 1-based).
	touching func(st rewindStep, lines []int, others []uint64) []uint64
	// hashOnly is the refusal of a step that changed the file over the size limit,
	// kept by hash only: its content before cannot be rebuilt.
	hashOnly error
	// turns are the session's turns that the rewind reverts changes of, each by its
	// first call, oldest first: a conflict names the turn after the call in the way.
	turns []turnAt
}

// turnAt is a turn of the session and its first call.
type turnAt struct {
	seq  uint64
	turn string
}

// unrestorable is the refusal to revert f, which a step changed over the snapshot's
// size limit (kept by hash only), nil when its steps can all be reverted.
func (f *rewindFile) unrestorable() error {
	if f.hashOnly != nil {
		return f.hashOnly
	}
	if i := slices.IndexFunc(f.steps, func(st rewindStep) bool { return st.large != "" }); i >= 0 && len(f.steps) > 1 {
		// Made over the limit and changed again in the turns rewound: what it
		// was between cannot be told.
		return notRestorable(f.path, f.steps[0].seq)
	}
	if i := slices.IndexFunc(f.steps, func(st rewindStep) bool { return st.grown != "" }); i >= 0 && len(f.steps) > 1 {
		return notRestorable(f.path, f.steps[i].seq) // changed again: what it was between cannot be told
	}
	if i := slices.IndexFunc(f.steps, func(st rewindStep) bool { return st.bits != "" }); i >= 0 {
		for _, s := range f.steps {
			if s.bits != f.steps[i].bits {
				// A change of its content in the turns, which the journal cannot
				// rebuild beside a content it holds by hash only.
				return notRestorable(f.path, s.seq)
			}
		}
	}
	return nil
}

// Rewind reverts the changes of o.Session from its turn o.Turn on, as the transaction
// of call c, all files or none. The call's record lists the calls reverted.
func (e *Engine) Rewind(c *Call, o RewindOptions) (*RewindResult, error) {
	files, reverts, made, err := e.rewindPlan(o)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		// A file grown past the size limit and changed since: its prior content
		// stays out, as any kept by hash only (SkipUnrestorable leaves it).
		if len(f.steps) == 1 && f.steps[0].grown != "" && f.hashOnly == nil {
			if _, _, _, same, err := e.leftAsMade(f.path, f.steps[0].grown); err == nil && !same {
				f.hashOnly = notRestorable(f.path, f.steps[0].seq)
			}
		}
		// Made over the limit and changed since: the same, else the rest of the
		// turns could never be rewound.
		if st := f.steps[0]; len(f.steps) == 1 && st.large != "" && f.hashOnly == nil {
			if _, _, exists, same, err := e.leftAsMade(f.path, st.large); err == nil && exists && !same {
				f.hashOnly = notAsMade(errs.New(errs.Conflict, f.path, "%s changed since call %d made it (it is not the file the command left); rewinding would undo that change. Nothing was written.", f.path, st.seq), f.path, st.seq)
			}
		}
	}
	var skipped []string
	for _, f := range files {
		err := f.unrestorable()
		if err == nil {
			continue
		}
		if !o.SkipUnrestorable {
			c.Named(journal.OpEdit, f.path)
			return nil, err
		}
		skipped = append(skipped, HashOnlyOf(err).stays(o.DryRun))
		// The folders above it stay with it: none is said to stay for something
		// else in it.
		made = slices.DeleteFunc(made, func(d string) bool { return strings.HasPrefix(f.path, d+"/") })
	}
	files = slices.DeleteFunc(files, func(f *rewindFile) bool { return f.unrestorable() != nil })
	paths := make([]string, 0, len(files))
	for _, f := range files {
		paths = append(paths, f.path)
	}
	unlock := e.queues.lock(paths...)
	defer unlock()
	res := &RewindResult{Reverts: reverts}
	steps, unknown, err := e.rewindEntries(reverts)
	if err != nil {
		return nil, err
	}
	if made, steps, err = e.settleMade(reverts, made, steps); err != nil {
		return nil, err
	}
	steps, notes := specialsNotMade(e.withParents(e.leaveStanding(steps)))
	e.bitsNotLearnt(steps, unknown)
	c.rec.Notes = append(c.rec.Notes, notes...)
	var gone []string // files the turns made: the rewind removes them, or is refused
	for _, f := range files {
		if f.steps[len(f.steps)-1].before == nil {
			gone = append(gone, f.path)
		}
	}
	for _, f := range files {
		ch, err := e.rewindFile(f, steps, made, gone)
		if err != nil {
			c.Named(journal.OpEdit, f.path) // the refusal is found by the file it names
			return nil, err
		}
		if ch != nil {
			res.Changes = append(res.Changes, ch)
		}
	}
	if len(res.Changes) == 0 && len(steps) == 0 && !e.madeEmpty(made) {
		if len(skipped) > 0 {
			return nil, errs.New(errs.NoChange, "", "Session %s has nothing to rewind since turn %q but files recorded by hash only: %s. Nothing was written.", o.Session, o.Turn, strings.Join(skipped, "; "))
		}
		return nil, errs.New(errs.NoChange, "", "The changes of session %s since turn %q are undone already: the files are as they were before it. Nothing was written.", o.Session, o.Turn)
	}
	c.rec.Reverts = reverts
	c.rec.Notes = append(c.rec.Notes, skipped...)
	res.Entries, res.Skipped = doneOrder(steps), skipped
	if o.DryRun {
		if err := e.checkDryRun(c, steps, res.Changes, made); err != nil {
			return nil, err
		}
		c.dryRun(res.Changes)
		res.Folders = e.dryRunFolders(made, steps)
		return res, nil
	}
	after, err := e.withEntries(c, steps, res.Changes, made)
	if err != nil {
		return nil, err
	}
	if err := e.commit(c, res.Changes); err != nil {
		return nil, err
	}
	res.Folders = after()
	res.Kept = e.keptFolders(made, steps, "the turns")
	return res, nil
}

// keptFolders says of each folder a reversal meant to remove that stands still,
// deepest first, that it stays and why: the reply must not leave it to be taken for
// removed. made are the folders the reverted creates made; steps are the reversal's
// own, whose folders that go stand still when something was put in them after the
// check. by names who made them ("the turns", "the call").
func (e *Engine) keptFolders(made []string, steps []journal.Entry, by string) []string {
	ours := slices.Clone(made)
	for _, en := range steps {
		if en.Before == vfs.KindDir && en.After != vfs.KindDir {
			ours = append(ours, en.Path)
		}
	}
	oursSet := map[string]bool{}
	for _, d := range ours {
		oursSet[d] = true
	}
	var kept []string
	look := e.fs.Looker()
	defer look.Close()
	for _, d := range e.madeFoldersThere(ours) {
		_, _, bits, _ := e.fs.EntryAt(d)
		why := "it could not be removed"
		if left, err := e.leftIn(look, d, nil, oursSet); err == nil && len(left) > 0 {
			why = fmt.Sprintf("something %s did not make is in it", by)
		}
		kept = append(kept, fmt.Sprintf("%s/ stays (mode %04o): %s", d, bits, why))
	}
	return kept
}

// rewindEntries are the folders and symlinks the reverted calls (newest first)
// changed, each as one step back to where the oldest found it, and those whose bits
// the newest left never learnt (bitsUnknown).
func (e *Engine) rewindEntries(reverts []uint64) ([]journal.Entry, map[string]bool, error) {
	var recs []*journal.Record
	err := e.j.View(func(t *journal.Tx) error {
		for _, seq := range reverts {
			r, err := t.Get(seq)
			if err != nil {
				return err
			}
			if r != nil && len(r.Entries) > 0 {
				recs = append(recs, r)
			}
		}
		return nil
	})
	return netEntries(recs), bitsUnknown(recs...), err
}

// settleMade settles each folder that both a reverted create made and a reverted
// folder step changed, by which came first, as undoing the calls one by one would:
// made first, or first made by a folder step, it did not stand before the turns and
// goes (the step that would make it again is dropped); found as a folder by the
// first folder step, it stood before them and stays (it is no longer among the made
// folders to remove).
func (e *Engine) settleMade(reverts []uint64, made []string, steps []journal.Entry) ([]string, []journal.Entry, error) {
	if len(made) == 0 || len(steps) == 0 {
		return made, steps, nil
	}
	entryAt, madeAt := map[string]uint64{}, map[string]uint64{} // the oldest call of each
	found := map[string]string{}                                // what the oldest folder step found
	err := e.j.View(func(t *journal.Tx) error {
		for _, seq := range reverts { // newest first: the last seen is the oldest
			r, err := t.Get(seq)
			if err != nil || r == nil {
				return err
			}
			for _, en := range r.Entries {
				entryAt[en.Path], found[en.Path] = seq, en.Before
			}
			for _, f := range r.Files {
				if f.Op == journal.OpCreate {
					for _, d := range madeFor(f) {
						madeAt[d] = seq
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	var keepMade []string
	goes := map[string]bool{}
	for _, d := range made {
		if at, ok := entryAt[d]; ok && at < madeAt[d] && found[d] == vfs.KindDir {
			continue // stood before the turns
		}
		keepMade = append(keepMade, d)
		goes[d] = true
	}
	var keepSteps []journal.Entry
	for _, en := range steps {
		// A step that would make a folder that goes again, or give it back its
		// bits, is dropped: the folder goes with the bits it has, which the
		// rewind's removal records for its undo.
		if goes[en.Path] && en.After == vfs.KindDir {
			continue
		}
		keepSteps = append(keepSteps, en)
	}
	return keepMade, keepSteps, nil
}

// rewindPlan reads from the journal what the rewind reverts: per file, the steps
// newest first; the calls reverted; and the folders their creates made.
func (e *Engine) rewindPlan(o RewindOptions) (files []*rewindFile, reverts []uint64, made []string, err error) {
	if err := e.j.Flush(); err != nil {
		return nil, nil, nil, err
	}
	if historyIndex {
		e.buildHistory()
	}
	err = e.j.View(func(t *journal.Tx) error {
		if err := e.refuseWhileRunning(t, o.Session, "rewind"); err != nil {
			return err
		}
		hist, err := openHistory(t)
		if err != nil {
			return err
		}
		recs, err := t.Find(journal.Query{Session: o.Session})
		if err != nil {
			return err
		}
		start, err := turnStart(recs, o)
		if err != nil {
			return err
		}
		reverts = revertedSince(hist, o.Session, start)
		if len(reverts) == 0 {
			return errs.New(errs.NoChange, "", "Session %s changed no file in turn %q or later; there is nothing to rewind.", o.Session, o.Turn)
		}
		slices.SortFunc(reverts, func(a, b uint64) int { return -cmpU(a, b) })
		in := map[uint64]bool{}
		for _, s := range reverts {
			in[s] = true
		}
		if files, made, err = rewindSteps(t, reverts); err != nil {
			return err
		}
		sessions := map[uint64]sessionOf{}
		turns := turnsFrom(recs, start, reverts[0])
		for _, rf := range files {
			noteOthers(t, hist, rf, in, sessions)
			rf.turns = turns
		}
		sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
		return nil
	})
	return files, reverts, made, err
}

// revertedSince returns, in the index's newest-first order, the changes reverted: the session's own
// since start, and another's (an operator's undo or redo) of a change the session
// made since start.
func revertedSince(hist *history, session string, start uint64) (reverts []uint64) {
	var all []journal.Change
	hist.idx.Newest(func(c journal.Change) bool {
		if c.Seq < start {
			return false
		}
		all = append(all, c)
		return true
	})
	mine := map[uint64]bool{}
	for _, c := range all {
		if c.Session == session {
			mine[c.Seq] = true
		}
	}
	for _, c := range all {
		if mine[c.Seq] || c.Origin >= start && mine[c.Origin] && c.Origin != c.Seq {
			reverts = append(reverts, c.Seq)
		}
	}
	return reverts
}

// turnsFrom are the turns of the session (recs, newest first) that start at or after
// call start and at or before call last, each by its first call, oldest first.
func turnsFrom(recs []*journal.Record, start, last uint64) []turnAt {
	first := map[string]uint64{}
	for _, r := range recs {
		if r.Turn != "" {
			first[r.Turn] = r.Seq // newest first: the last seen is the first call
		}
	}
	var out []turnAt
	for turn, seq := range first {
		if seq >= start && seq <= last {
			out = append(out, turnAt{seq, turn})
		}
	}
	slices.SortFunc(out, func(a, b turnAt) int { return cmpU(a.seq, b.seq) })
	return out
}

// rewindSteps returns, in order of first appearance, the files the calls reverts
// (newest first) changed, each with its steps in that order, and the folders those
// calls' creates made; on error, the files gathered so far.
func rewindSteps(t *journal.Tx, reverts []uint64) (files []*rewindFile, made []string, err error) {
	byPath := map[string]*rewindFile{}
	for _, seq := range reverts {
		r, err := t.Get(seq)
		if err != nil {
			return files, nil, err
		}
		if r == nil {
			return files, nil, fmt.Errorf("call %d is missing from the journal", seq)
		}
		for _, f := range r.Files {
			if !f.Op.Changes() {
				continue
			}
			if f.Op == journal.OpCreate {
				made = append(made, madeFor(f)...)
			}
			st := rewindStep{seq: seq, turn: r.Turn, op: f.Op, beforeMode: f.BeforeMode, afterMode: f.AfterMode}
			var hashOnly error // the step cannot be reverted: no content before it
			switch {
			case overLimit(r, f.Path) && grown(f):
				st.grown = f.After // its prior content alone: undo_large.go
				st.before, err = versionOf(t, f.Path, f.Before)
			case overLimit(r, f.Path) && f.Op != journal.OpCreate:
				hashOnly = notRestorable(f.Path, seq)
			case overLimit(r, f.Path):
				st.large = f.After // no content: undo_large.go
			case bitsOnly(f):
				st.bits = f.After // no content either: its bits alone
			default:
				if st.before, err = versionOf(t, f.Path, f.Before); err == nil {
					st.after, err = versionOf(t, f.Path, f.After)
				}
			}
			if err != nil {
				return files, nil, errs.Wrap(errs.IOError, f.Path, err, "Cannot rebuild %s as call %d found or left it: %v. Nothing was written.", f.Path, seq, err)
			}
			// A command's change that includes other calls' (undo_theirs.go): those
			// the rewind does not revert keep their lines.
			theirs := slices.DeleteFunc(theirsIn(r, f.Path), func(s uint64) bool { return slices.Contains(reverts, s) })
			if len(theirs) > 0 && hashOnly == nil {
				if st.before, err = withTheirs(t, f, seq, st.before, theirs); err != nil {
					return files, nil, err
				}
			}
			rf := byPath[f.Path]
			if rf == nil {
				rf = &rewindFile{path: f.Path, by: map[uint64]string{}}
				byPath[f.Path] = rf
				files = append(files, rf)
			}
			rf.steps = append(rf.steps, st)
			if rf.hashOnly == nil {
				rf.hashOnly = hashOnly
			}
		}
	}
	return files, made, nil
}

// sessionOf is the session of a change, where the history knows it as one.
type sessionOf struct {
	session string
	ok      bool
}

// noteOthers records in rf the changes to it since its oldest step that in (the
// reverted calls) lacks, with their sessions. sessions keeps those read for the other
// files: an undo of a command's thousands of files is a change of each, and reading
// its entry (every path it changed) once per file cost time quadratic in the files.
func noteOthers(t *journal.Tx, hist *history, rf *rewindFile, in map[uint64]bool, sessions map[uint64]sessionOf) {
	first := rf.steps[len(rf.steps)-1]
	for _, seq := range t.SeqsOf(rf.path, first.seq) {
		if in[seq] {
			continue
		}
		s, read := sessions[seq]
		if !read {
			c, ok := hist.idx.Change(seq)
			s = sessionOf{c.Session, ok}
			sessions[seq] = s
		}
		if s.ok {
			rf.others = append(rf.others, seq)
			rf.by[seq] = s.session
		}
	}
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// versionOf is path's content of hash as the journal rebuilds it; nil for "" (absent).
func versionOf(t *journal.Tx, path, hash string) ([]byte, error) {
	if hash == "" {
		return nil, nil
	}
	data, err := t.Content(path, hash)
	if err == nil && data == nil {
		data = []byte{}
	}
	return data, err
}

// turnStart is the first call of the session carrying the turn label; recs are the
// session's records, newest first. An unknown label is invalid_input naming the
// session's last turns.
func turnStart(recs []*journal.Record, o RewindOptions) (uint64, error) {
	var start uint64
	var turns []string // newest first, each once
	for _, r := range recs {
		if r.Turn == o.Turn && o.Turn != "" {
			start = r.Seq
		}
		if r.Turn != "" && !slices.Contains(turns, r.Turn) {
			turns = append(turns, r.Turn)
		}
	}
	if start > 0 {
		return start, nil
	}
	switch {
	case len(recs) == 0:
		return 0, errs.New(errs.InvalidInput, "", "Session %s has no calls in the journal. vfsctl log lists the sessions.", o.Session)
	case len(turns) == 0:
		return 0, errs.New(errs.InvalidInput, "", "Session %s never sent a turn with its calls, so there is no turn %q to rewind. A call carries one as \"turn\" beside \"tool\" (vfsctl call) or as _meta \"vfsctl/turn\" (MCP).", o.Session, o.Turn)
	}
	shown := turns[:min(len(turns), maxTurnsNamed)]
	q := make([]string, len(shown))
	for i, t := range shown {
		q[i] = fmt.Sprintf("%q", t)
	}
	return 0, errs.New(errs.InvalidInput, "", "Session %s never used turn %q. Its last turns, newest first: %s.", o.Session, o.Turn, strings.Join(q, ", "))
}

// rewindFile plans one file: each step reverted against what the newer reversals
// left, starting from the file as it is now; nil when it ends as it is. Under a
// file of gone (made by the turns), or where going or made clear the way, a file
// that cannot be read is absent.
func (e *Engine) rewindFile(f *rewindFile, going []journal.Entry, made, gone []string) (ch *Change, err error) {
	if i := slices.IndexFunc(f.steps, func(st rewindStep) bool { return st.large != "" }); i >= 0 {
		return e.rewindLarge(f, f.steps[i])
	}
	if f.steps[0].grown != "" { // its only step (unrestorable)
		return e.putBackGrown(f.path, f.steps[0].grown, f.steps[0].before, f.steps[0].seq)
	}
	if i := slices.IndexFunc(f.steps, func(st rewindStep) bool { return st.bits != "" }); i >= 0 {
		return e.rewindBits(f, f.steps[i])
	}
	now, err := e.readForUndo(journal.File{Path: f.path}, f.steps[0].seq)
	if err != nil && (underSymlinkGoing(f.path, going) || swappedAway(f.path, going, made) || underFileGoing(f.path, gone)) {
		now, err = fileNow{}, nil
	}
	if err != nil {
		return nil, err
	}
	cur, exists := now.data, now.exists
	f.touching = e.touching(f.path)
	mode := fs.FileMode(0o644)
	if exists {
		if fi, err := e.fs.Afero().Stat(f.path); err == nil {
			mode = fi.Mode()
		}
	}
	var chmod fs.FileMode // the bits a command's chmod in the steps had replaced
	for _, st := range f.steps {
		if cur, exists, err = f.revert(st, cur, exists); err != nil {
			return nil, err
		}
		if st.before != nil && st.after != nil && st.beforeMode != 0 && st.afterMode != st.beforeMode {
			chmod = fs.FileMode(st.beforeMode)
		}
		if st.before != nil && st.beforeMode != 0 {
			mode = fs.FileMode(st.beforeMode)
		}
	}
	ch = &Change{Path: f.path, Name: f.path, Op: journal.OpEdit, mode: mode}
	if now.exists {
		// A file that stays or goes is recorded with the bits it has now, which
		// the undo of the rewind puts back (a later chmod 600 included).
		if fi, err := e.fs.Afero().Stat(f.path); err == nil {
			ch.mode = fi.Mode()
		}
	}
	switch {
	case now.exists && exists:
		perm := ch.mode & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
		if chmod != 0 && chmod != perm {
			ch.chmod = chmod
		}
		if bytes.Equal(now.data, cur) && ch.chmod == 0 {
			return nil, nil
		}
		ch.Before, ch.id = now.data, now.id
		if bytes.Equal(now.data, cur) {
			ch.Op, ch.After = journal.OpWrite, cur
			break
		}
		spliceInto(ch, now.data, lineSplices(now.data, cur))
	case now.exists:
		ch.Op, ch.Deleted, ch.Before, ch.id = journal.OpDelete, true, now.data, now.id
	case exists:
		ch.Op, ch.Created, ch.After = journal.OpCreate, true, cur
	default:
		return nil, nil
	}
	return ch, nil
}

// revert takes step st back out of cur (exists: whether the file is there).
func (f *rewindFile) revert(st rewindStep, cur []byte, exists bool) ([]byte, bool, error) {
	switch {
	case st.after == nil: // the step removed the file: it returns, unless made again
		if exists {
			return nil, false, f.conflict(st, nil, "%s exists again since call %d removed it")
		}
		return st.before, true, nil
	case !exists && st.before == nil:
		// The step created the file and it is gone again: the rewind wants it gone, so
		// the removal made since is kept, not undone.
		return nil, false, nil
	case !exists:
		return nil, false, f.conflict(st, nil, "%s was removed since call %d")
	}
	out, clash := merge3(st.after, cur, st.before)
	if clash != nil {
		return nil, false, f.conflictWay(st, clash, "", outsideWay(f.path, st, cur))
	}
	if st.before == nil { // the step created the file: it goes, if nothing else is left in it
		if len(out) > 0 {
			return nil, false, f.conflict(st, []int{1, lineAt(st.after, len(st.after))}, "")
		}
		return nil, false, nil
	}
	return out, true, nil
}

// conflict refuses the rewind where step st and a change made after it meet: lines
// (first, last as st left the file) where they touched the same lines, else the
// fact given.
func (f *rewindFile) conflict(st rewindStep, lines []int, fact string) error {
	return f.conflictWay(st, lines, fact, "")
}

// conflictWay is conflict with fix, what to do to the file where no call is in the
// way ("": put the lines back as st left them).
func (f *rewindFile) conflictWay(st rewindStep, lines []int, fact, fix string) error {
	var after []uint64
	for _, s := range f.others {
		if s > st.seq {
			after = append(after, s)
		}
	}
	way := "" // what to do, where no call is in the way
	if fact != "" {
		// fact may start with a path: its case is kept
		fact = fmt.Sprintf(fact, f.path, st.seq) + "; rewinding would undo that too. Nothing was written."
	} else {
		if f.touching != nil {
			after = f.touching(st, lines, after) // only they are in the way
		}
		fact, way = f.linesFact(st, lines, after, fix)
	}
	if len(after) > 0 {
		last := after[len(after)-1]
		return &errs.Error{Kind: errs.Conflict, Path: f.path, Message: fmt.Sprintf("%s Undo call %d first.", fact, last), Blocker: last, Fact: fact}
	}
	return errs.New(errs.Conflict, f.path, "%s%s", fact, way)
}

// linesFact says that the calls after (none: a change made outside vfsctl) changed
// lines of the file at or next to those step st changed, and, where no call is in
// the way, the ways on that exist: those lines as st left them merge, and a rewind
// of the turns after st's does not revert it.
func (f *rewindFile) linesFact(st rewindStep, lines []int, after []uint64, fix string) (fact, way string) {
	what := fmt.Sprintf("call %d", st.seq)
	if st.turn != "" {
		what = fmt.Sprintf("call %d (turn %q)", st.seq, st.turn)
	}
	where, them := fmt.Sprintf("line %d", lines[0]), "it"
	if lines[1] > lines[0] {
		where, them = fmt.Sprintf("lines %d-%d", lines[0], lines[1]), "them"
	}
	// who names a call in the way: another session's, or a change made outside
	// vfsctl that a look journaled (it has no session).
	who := func(s uint64) string {
		if f.by[s] == "" {
			return fmt.Sprintf("%d (a change made outside vfsctl)", s)
		}
		return fmt.Sprintf("%d (session %s)", s, f.by[s])
	}
	by := "A change made outside vfsctl"
	switch n := len(after); {
	case n == 1:
		by = "Call " + who(after[0])
	case n > 1:
		names := make([]string, 0, n)
		for _, s := range after[max(0, n-maxTurnsNamed):] {
			names = append(names, who(s))
		}
		by = "Calls " + strings.Join(names, ", ")
	}
	fact = fmt.Sprintf("%s touched %s where %s changed it, or next to that (%s, as that call left the file); rewinding would undo that change too. Nothing was written.", by, f.path, what, where)
	if len(after) > 0 {
		return fact, ""
	}
	if fix == "" {
		fix = fmt.Sprintf("put %s of %s back as call %d left %s", where, f.path, st.seq, them)
	}
	way = " To rewind all the same, " + fix
	if i := slices.IndexFunc(f.turns, func(t turnAt) bool { return t.seq > st.seq }); i >= 0 {
		way += fmt.Sprintf(", or rewind from turn %q on instead, which keeps call %d's change", f.turns[i].turn, st.seq)
	}
	return fact, way + "."
}

// outsideWay says how to take back, in cur, the runs of a change made since step st
// that meet st's own change (the runs merge3 finds clashing): each named by the
// lines it has in cur, so that doing as told gives those lines as st left them. A
// line inserted next to st's is named as one to remove: "put line 2 back" would
// name a line that already is as st left it.
func outsideWay(path string, st rewindStep, cur []byte) string {
	bl := splitLines(st.after)
	th := matcher.ChangedLines(bl, splitLines(st.before))
	var ways []string
	for _, a := range matcher.ChangedLines(bl, splitLines(cur)) {
		if !slices.ContainsFunc(th, func(b matcher.LineChange) bool { return a.A1 <= b.A2 && b.A1 <= a.A2 }) {
			continue
		}
		switch {
		case a.A1 == a.A2: // lines inserted
			ways = append(ways, fmt.Sprintf("remove %s of %s (added since call %d)", runLines(a.B1, a.B2), path, st.seq))
		case a.B1 == a.B2: // lines removed
			at := fmt.Sprintf("after line %d", a.B1)
			if a.B1 == 0 {
				at = "at the start"
			}
			ways = append(ways, fmt.Sprintf("put back, %s of %s, %s as call %d left %s", at, path, runLines(a.A1, a.A2), st.seq, pronoun(a.A2-a.A1)))
		case a.A1 == a.B1 && a.A2-a.A1 == a.B2-a.B1:
			ways = append(ways, fmt.Sprintf("put %s of %s back as call %d left %s", runLines(a.B1, a.B2), path, st.seq, pronoun(a.B2-a.B1)))
		default:
			ways = append(ways, fmt.Sprintf("put %s of %s back as call %d left %s (%s then)", runLines(a.B1, a.B2), path, st.seq, pronoun(a.A2-a.A1), runLines(a.A1, a.A2)))
		}
	}
	if len(ways) == 0 || len(ways) > 3 {
		return "" // the lines of the clash, as st left them
	}
	return strings.Join(ways, ", and ")
}

// runLines names the lines [lo, hi) (0-based) as "line 3" or "lines 3-5".
func runLines(lo, hi int) string { return lineRange(lo+1, hi) }

// pronoun is "it" for one line, else "them".
func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// touching returns the function that finds, among later calls of path, those whose
// change meets lines of a step's result: each line range is carried, through a line
// diff, from the step's result to the content the call found, and compared with the
// lines the call changed there (adjacent lines meet, as in merge3).
func (e *Engine) touching(path string) func(st rewindStep, lines []int, others []uint64) []uint64 {
	return func(st rewindStep, lines []int, others []uint64) []uint64 {
		var out []uint64
		base := splitLines(st.after)
		lo, hi := lines[0]-1, lines[1]
		e.j.View(func(t *journal.Tx) error {
			for _, seq := range others {
				r, err := t.Get(seq)
				if err != nil || r == nil {
					continue
				}
				for _, f := range r.Files {
					if f.Path != path || !f.Op.Changes() {
						continue
					}
					before, err1 := versionOf(t, path, f.Before)
					after, err2 := versionOf(t, path, f.After)
					if err1 != nil || err2 != nil {
						out = append(out, seq) // cannot tell: named, as before
						break
					}
					bl := splitLines(before)
					a, b := carryLines(base, bl, lo, hi)
					for _, h := range matcher.ChangedLines(bl, splitLines(after)) {
						if h.A1 <= b && a <= h.A2 {
							out = append(out, seq)
							break
						}
					}
					break
				}
			}
			return nil
		})
		return out
	}
}

// carryLines carries the lines [lo, hi) of from (0-based) to where they are in to,
// by a line diff: a run changed across an end, or lines inserted at it, widen the
// range to all they became.
func carryLines(from, to []string, lo, hi int) (int, int) {
	hunks := matcher.ChangedLines(from, to)
	carry := func(k int, lower bool) int {
		shift := 0
		for _, h := range hunks {
			switch {
			case h.A2 < k || h.A2 == k && h.A1 < k: // wholly before k
				shift += (h.B2 - h.B1) - (h.A2 - h.A1)
				continue
			case h.A1 > k || h.A1 == k && h.A2 > k: // wholly after k
			case lower: // across k, or inserted at it
				return h.B1
			default:
				return h.B2
			}
			break
		}
		return k + shift
	}
	return carry(lo, true), carry(hi, false)
}

// splitLines splits data after each line break, keeping the breaks (a lone CR ends a
// line too, as everywhere else).
func splitLines(data []byte) []string {
	var out []string
	start := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '\n':
			out = append(out, string(data[start:i+1]))
			start = i + 1
		case '\r':
			if i+1 < len(data) && data[i+1] == '\n' {
				continue
			}
			out = append(out, string(data[start:i+1]))
			start = i + 1
		}
	}
	if start < len(data) {
		out = append(out, string(data[start:]))
	}
	return out
}

// merge3 applies to ours the change from base to theirs, by lines. Changes of the
// two sides that touch the same lines of base, or adjacent ones, clash: clash is
// then the first such run's lines of base (1-based, inclusive).
func merge3(base, ours, theirs []byte) (out []byte, clash []int) {
	bl, ol, tl := splitLines(base), splitLines(ours), splitLines(theirs)
	oh, th := matcher.ChangedLines(bl, ol), matcher.ChangedLines(bl, tl)
	for _, a := range oh {
		for _, b := range th {
			if a.A1 <= b.A2 && b.A1 <= a.A2 {
				lo, hi := min(a.A1, b.A1), max(a.A2, b.A2)
				return nil, []int{lo + 1, max(lo+1, hi)}
			}
		}
	}
	// No two runs touch, so in order of base they apply one after another.
	type run struct {
		matcher.LineChange
		lines []string
	}
	runs := make([]run, 0, len(oh)+len(th))
	for _, h := range oh {
		runs = append(runs, run{h, ol})
	}
	for _, h := range th {
		runs = append(runs, run{h, tl})
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].A1 < runs[j].A1 })
	var buf bytes.Buffer
	i := 0
	for _, r := range runs {
		buf.WriteString(strings.Join(bl[i:r.A1], ""))
		buf.WriteString(strings.Join(r.lines[r.B1:r.B2], ""))
		i = r.A2
	}
	buf.WriteString(strings.Join(bl[i:], ""))
	return buf.Bytes(), nil
}

// lineSplices are the splices that turn from into to, one per changed run of lines.
// The whole lines both share at their start and end are found by their bytes and
// left out before the rest is split into lines: a command that changes a few lines
// of a long file has only those split and diffed, with the same splices as a diff of
// all the lines gives (TestLineSplicesAsAllLines).
func lineSplices(from, to []byte) []matcher.Splice {
	pre, suf := sameLines(from, to)
	fl, tl := splitLines(from[pre:len(from)-suf]), splitLines(to[pre:len(to)-suf])
	off := make([]int, len(fl)+1)
	off[0] = pre
	for i, l := range fl {
		off[i+1] = off[i] + len(l)
	}
	var out []matcher.Splice
	for _, h := range matcher.ChangedLines(fl, tl) {
		out = append(out, matcher.Splice{Start: off[h.A1], End: off[h.A2], Text: []byte(strings.Join(tl[h.B1:h.B2], ""))})
	}
	return out
}

// sameLines are the lengths in bytes of the whole lines a and b share at their start
// (pre) and, in what is left of both, at their end (suf): the equal runs a diff of
// their lines finds first, as splitLines cuts lines.
func sameLines(a, b []byte) (pre, suf int) {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	pre = n
	for pre > 0 && !(lineStart(a, pre) && lineStart(b, pre)) {
		pre--
	}
	m := 0
	for m < len(a)-pre && m < len(b)-pre && a[len(a)-1-m] == b[len(b)-1-m] {
		m++
	}
	suf = m
	for suf > 0 && !(lineStart(a, len(a)-suf) && lineStart(b, len(b)-suf)) {
		suf--
	}
	return pre, suf
}

// lineStart reports whether a line of d, as splitLines cuts them, starts at i (or
// its last line ends there, i == len(d)).
func lineStart(d []byte, i int) bool {
	if i == 0 {
		return true
	}
	switch d[i-1] {
	case '\n':
		return true
	case '\r':
		return i == len(d) || d[i] != '\n'
	}
	return false
}

// removeMadeFolders removes the folders made (by the reverted calls' creates) that
// are empty, deepest first; it returns those removed, in that order.
func (e *Engine) removeMadeFolders(made []string) []string {
	defer e.openMade(made)()
	var removed []string
	for _, d := range deepestFirst(made) {
		if e.fs.RemoveDir(d) == nil {
			removed = append(removed, d)
		}
	}
	return removed
}

// openMade gives each folder of made that stands, and denies its owner writing in it
// or searching it (a later command's chmod 500), those bits, shallowest first: the
// turns made it, so what they made in it can go, as it does for root. It returns the
// function that gives each folder opened that still stands its bits back, deepest
// first (a folder without search bits would hide those below it).
func (e *Engine) openMade(made []string) (closeMade func()) {
	type opened struct {
		path string
		bits uint32
	}
	var done []opened
	look := e.fs.Looker() // shallowest first: one walk down a chain
	defer look.Close()
	deep := deepestFirst(made)
	for i := len(deep) - 1; i >= 0; i-- {
		kind, _, bits, err := look.EntryAt(deep[i])
		if err != nil || kind != vfs.KindDir || bits&0o300 == 0o300 {
			continue
		}
		if e.fs.SetBits(deep[i], bits|0o300) == nil {
			done = append(done, opened{deep[i], bits})
		}
	}
	return func() {
		for i := len(done) - 1; i >= 0; i-- {
			if kind, _, _, err := e.fs.EntryAt(done[i].path); err == nil && kind == vfs.KindDir {
				e.fs.SetBits(done[i].path, done[i].bits)
			}
		}
	}
}

// madeEmpty reports whether a folder made (by the reverted creates) stands, holding
// nothing but folders made: the rewind removes it, though its files are as they were.
func (e *Engine) madeEmpty(made []string) bool {
	madeSet := map[string]bool{}
	for _, d := range made {
		madeSet[d] = true
	}
	look := e.fs.Looker()
	defer look.Close()
	for _, d := range made {
		if left, err := e.leftIn(look, d, nil, madeSet); err == nil && len(left) == 0 {
			return true
		}
	}
	return false
}

// madeFoldersThere are the folders made that are there now, deepest first: what a dry
// run says removeMadeFolders would try.
func (e *Engine) madeFoldersThere(made []string) []string {
	var there []string
	for _, d := range deepestFirst(made) {
		if e.fs.IsFolder(d) {
			there = append(there, d)
		}
	}
	return there
}

// dryRunFolders are the folders made that are there now, deepest first, but for
// those a step removes: the dry run's line for that step names them already, and the
// run removes each once.
func (e *Engine) dryRunFolders(made []string, steps []journal.Entry) []string {
	made = slices.DeleteFunc(slices.Clone(made), func(d string) bool {
		return slices.ContainsFunc(steps, func(en journal.Entry) bool {
			return en.Path == d && en.Before == vfs.KindDir && en.After != vfs.KindDir
		})
	})
	return e.madeFoldersThere(made)
}

// deepestFirst is folders, each once, a folder's subfolders before it.
func deepestFirst(folders []string) []string {
	folders = slices.Clone(folders)
	slices.Sort(folders)
	folders = slices.Compact(folders)
	slices.SortStableFunc(folders, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	return folders
}

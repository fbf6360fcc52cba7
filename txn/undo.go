package txn

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/vfs"
)

// Undo and redo are transactions like any tool call: the same queues, pending record,
// file writes, committed mark and recovery. An undo writes the reverse of a recorded
// change: the reverse splices of an edit, located the way an edit is (so changes
// elsewhere in the file do not block it), the prior content of a write, the removal of
// a created file. A redo undoes an undo.
//
// Which call a bare undo takes: every change has an origin, the tool call that first
// made it (an undo's origin is its target's, a redo's the origin of the undo it
// re-applies). An origin is applied or reverted by the latest record about it. Bare
// undo reverts the newest applied origin (through its latest record, whose splices
// match the file), so repeating it walks back like an editor's undo; bare redo
// re-applies the newest undo whose origin is still reverted, made after the newest new
// change (as in an editor, a new change ends what can be redone).

// ErrNothingToUndo is the cause of a refusal (kind no_change) when no change, or for
// redo no undo, matches: callers phrase it for their reader.
var ErrNothingToUndo = errors.New("nothing to undo")

// blocked is the conflict of an undo that call seq blocks. The error's Blocker and Fact
// let callers give their own advice: an operator runs vfsctl undo seq, a model cannot
// undo another's change.
func blocked(path string, seq uint64, format string, args ...any) error {
	fact := fmt.Sprintf(format, args...)
	return &errs.Error{Kind: errs.Conflict, Path: path, Message: fmt.Sprintf("%s Undo call %d first.", fact, seq), Blocker: seq, Fact: fact}
}

// UndoOptions say what to undo or redo.
type UndoOptions struct {
	Seq     uint64 // the call to undo (for redo: the undo to re-apply); 0 picks one
	Redo    bool
	Session string // with Seq 0: only calls of this session
	Path    string // with Seq 0: only calls that changed this path (canonical)
	Whole   bool   // with Path: a command's or outside record that changed other paths too, whole (else refused: PartOf)
	DryRun  bool
	// SkipUnrestorable leaves as they are the files the call changed over the
	// snapshot's size limit (kept by hash only, so not restorable), and reverts the
	// rest; without it, such a file refuses the undo (HashOnly).
	SkipUnrestorable bool
}

// UndoResult is a planned or committed undo.
type UndoResult struct {
	Target  uint64 // the record reverted (for redo: the undo re-applied)
	Origin  uint64 // the tool call the change came from
	Changes []*Change
	// Folders are the folders the reverted creates had made that were removed, being
	// empty then; in a dry run, those there now, which would go if empty.
	Folders []string
	// Entries are the folders and symlinks put back (a command's, or a folder call's).
	Entries []journal.Entry
	DryRun  bool
	Seq     uint64 // the undo's own call, once committed
	// Notes say what was not done (a FIFO the command made is not made again).
	Notes []string
	// Passed are the calls a bare undo passed over before its target, a sentence each:
	// their undo would change nothing (the folders they removed stand again).
	Passed []string
	// Kept are the folders the call made that stay, each with why (something else is
	// in it), as a rewind says them.
	Kept []string
	// Skipped are, with SkipUnrestorable, the files left as they are, a sentence
	// each; Notes hold them too.
	Skipped []string
}

// historyIndex, off, makes undo decode every record of the journal to choose its
// target, as a journal without the history index needs (benchmarks compare the two in
// one run).
var historyIndex = true

// history is what undo needs of the journal: the index of its changes (usable only
// inside the transaction it was opened in), the target, and the later changes of the
// target's files that are not undone.
type history struct {
	idx    journal.History
	recs   map[uint64]*journal.Record // the target and those later changes
	origin map[uint64]uint64          // record -> the call its change came from
}

// reverted reports whether the latest record about origin is an undo.
func (h *history) reverted(origin uint64) bool {
	c, ok := h.idx.Change(h.idx.Latest(origin))
	return ok && c.Undo
}

// buildHistory gives a journal made before the history index its index, once.
func (e *Engine) buildHistory() error {
	ready := false
	if err := e.j.View(func(t *journal.Tx) error { ready = t.HistoryReady(); return nil }); err != nil || ready {
		return err
	}
	return e.j.Commit(func(t *journal.Tx) error { return t.BuildHistory() })
}

// openHistory returns the journal's history: its index, or where it has none, one
// built in memory from every record.
func openHistory(t *journal.Tx) (*history, error) {
	h := &history{recs: map[uint64]*journal.Record{}, origin: map[uint64]uint64{}}
	if historyIndex && t.HistoryReady() {
		h.idx = t.History()
		return h, nil
	}
	idx, err := t.ScanHistory()
	h.idx = idx
	return h, err
}

// load reads the target and every later change of its files that is not undone.
func (h *history) load(t *journal.Tx, target uint64) error {
	rec, err := t.Get(target)
	if err != nil {
		return err
	}
	c, ok := h.idx.Change(target)
	if rec == nil || !ok {
		return fmt.Errorf("call %d is missing from the journal", target)
	}
	h.recs[target], h.origin[target] = rec, c.Origin
	for _, f := range rec.Files {
		if !f.Op.Changes() {
			continue
		}
		for _, seq := range t.SeqsOf(f.Path, target) {
			c, ok := h.idx.Change(seq)
			if !ok || h.recs[seq] != nil || h.reverted(c.Origin) {
				continue
			}
			r, err := t.Get(seq)
			if err != nil {
				return err
			}
			if r != nil {
				h.recs[seq], h.origin[seq] = r, c.Origin
			}
		}
	}
	return nil
}

// pick finds the record to revert (undo) or the undo to revert (redo), walking the
// changes newest first.
func (h *history) pick(o UndoOptions, folder, skip map[uint64]bool) (uint64, error) {
	// matches judges an origin by its latest record c: the session that made the
	// origin, the files of the latest record, or the folders it made or removed
	// (folder: the records that name o.Path as a folder).
	matches := func(c journal.Change) bool {
		if o.Session != "" {
			oc := c
			if c.Origin != c.Seq {
				oc, _ = h.idx.Change(c.Origin)
			}
			if oc.Session != o.Session {
				return false
			}
		}
		return o.Path == "" || slices.Contains(c.Paths, o.Path) || folder[c.Seq]
	}
	latest := func(c journal.Change) bool { return h.idx.Latest(c.Origin) == c.Seq }
	var best, newest, ended uint64 // ended: the newest undo that a new change made final
	if !o.Redo {
		// The newest latest record of an applied origin.
		h.idx.Newest(func(c journal.Change) bool {
			if latest(c) && !c.Undo && !skip[c.Origin] && matches(c) {
				best = c.Seq
				return false
			}
			return true
		})
	} else {
		// As in an editor, a new change ends what can be redone: only undos made
		// after the newest matching origin count.
		h.idx.Newest(func(c journal.Change) bool {
			if c.Origin != c.Seq {
				return true
			}
			if l, ok := h.idx.Change(h.idx.Latest(c.Origin)); ok && matches(l) {
				newest = c.Seq
				return false
			}
			return true
		})
		h.idx.Newest(func(c journal.Change) bool {
			if latest(c) && c.Undo && matches(c) {
				if c.Seq < newest {
					ended = c.Seq
				} else {
					best = c.Seq
				}
				return false
			}
			return true
		})
	}
	if best == 0 && ended > 0 {
		return 0, errs.Wrap(errs.NoChange, o.Path, ErrNothingToUndo, "Undo %d can no longer be redone: call %d made a new change after it%s, and a new change ends what can be redone.", ended, newest, scopeText(o))
	}
	if best == 0 {
		what := "change to undo"
		if o.Redo {
			what = "undo to redo"
		}
		return 0, errs.Wrap(errs.NoChange, o.Path, ErrNothingToUndo, "There is no %s%s.", what, scopeText(o))
	}
	return best, nil
}

func scopeText(o UndoOptions) string {
	var parts []string
	if o.Session != "" {
		parts = append(parts, "in session "+o.Session)
	}
	if o.Path != "" {
		parts = append(parts, "on "+o.Path)
	}
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, " ")
}

// errNotAChange is check's refusal of a call that changed no file; notAChange says
// why, from its record.
var errNotAChange = errors.New("the call changed no file")

// notAChange is the refusal to undo or redo call o.Seq, which changed no file: it was
// refused, a dry run, or a read.
func notAChange(t *journal.Tx, o UndoOptions) error {
	r, err := t.Get(o.Seq)
	var what string
	switch {
	case err != nil || r == nil:
		what = fmt.Sprintf("Call %d changed no file", o.Seq)
	case r.Kind != "":
		// The kind is a code, for --json and the log: not words to read.
		what = fmt.Sprintf("Call %d (%s) was refused, so it changed nothing", o.Seq, r.Tool)
	case slices.ContainsFunc(r.Files, func(f journal.File) bool { return f.Op == journal.OpDryRun }):
		what = fmt.Sprintf("Call %d (%s) was a dry run, so it changed nothing", o.Seq, r.Tool)
	case r.State == journal.Pending:
		what = fmt.Sprintf("Call %d (%s) has not finished", o.Seq, r.Tool)
	default:
		what = fmt.Sprintf("Call %d (%s) changed no file", o.Seq, r.Tool)
	}
	return errs.New(errs.InvalidInput, "", "%s: there is nothing to %s.", what, verb(o))
}

// check validates an explicit target.
func (h *history) check(o UndoOptions) (uint64, error) {
	c, ok := h.idx.Change(o.Seq)
	if !ok {
		return 0, errNotAChange
	}
	latest := h.idx.Latest(c.Origin)
	if o.Redo {
		if !c.Undo {
			return 0, errs.New(errs.InvalidInput, "", "Call %d is not an undo; redo re-applies what an undo reverted. To revert call %d, undo it.", o.Seq, o.Seq)
		}
		if latest != o.Seq {
			return 0, errs.New(errs.InvalidInput, "", "Undo %d was already redone or undone again by call %d.", o.Seq, latest)
		}
		return o.Seq, nil
	}
	if c.Undo {
		return 0, errs.New(errs.InvalidInput, "", "Call %d is an undo; to re-apply what it reverted, redo %d.", o.Seq, o.Seq)
	}
	if h.reverted(c.Origin) {
		return 0, errs.New(errs.InvalidInput, "", "Call %d is already undone (by call %d); redo %d re-applies it.", o.Seq, latest, latest)
	}
	return latest, nil
}

func verb(o UndoOptions) string {
	if o.Redo {
		return "redo"
	}
	return "undo"
}

// Undo reverts a recorded change as a new transaction of call c, all files or none.
// The call's record names the target (Record.Undo, or Record.Redo for a redo). It
// holds the journal from its start: what it plans comes from there.
func (e *Engine) Undo(c *Call, o UndoOptions) (*UndoResult, error) {
	if err := c.Hold(); err != nil {
		return nil, err
	}
	var passed []string       // the calls a bare undo passed over, each said in a sentence
	skip := map[uint64]bool{} // their origins
	var hist *history
	var target uint64
	var rec *journal.Record
	var files []journal.File
	var net, steps []journal.Entry
	for {
		var err error
		if hist, target, err = e.undoTarget(o, skip); err != nil {
			if len(passed) > 0 && errors.Is(err, ErrNothingToUndo) {
				return nil, passedOnly(err, passed)
			}
			return nil, err
		}
		rec, files = hist.recs[target], nil
		for _, f := range rec.Files {
			if f.Op.Changes() {
				files = append(files, f)
			}
		}
		if len(files) > 0 {
			break
		}
		// A call of folders only: the undo's steps do not depend on a file's queue.
		net = netEntries([]*journal.Record{rec})
		toMake := e.leaveStanding(net)
		steps = e.withParents(toMake)
		if len(net) == 0 {
			break
		}
		// Every folder to make stands already (leaveStanding leaves it as it is, with
		// its own bits): the call is in effect undone, and an undo of nothing is not
		// recorded as a change. A bare undo passes over it to the calls before, as an
		// editor's undo passes over what has nothing left to take back.
		var fact string
		if len(steps) > 0 {
			// For a bare undo, so is a folder that the call that made it, undone since
			// the deletion, took away: once passed over, a deletion does not come back
			// when the calls before it are undone (the folder was not there before them).
			if o.Seq != 0 || o.Redo {
				break
			}
			if fact = e.madeByUndone(toMake, target); fact == "" {
				break
			}
		} else {
			fact = e.standsAlready(net, target)
		}
		if o.Seq == 0 && !o.Redo {
			passed = append(passed, fmt.Sprintf("Call %d (%s) passed over, nothing to %s: %s", target, rec.Tool, verb(o), fact))
			skip[hist.origin[target]] = true
			continue
		}
		return nil, errs.New(errs.NoChange, net[0].Path, "Nothing to %s: %s", verb(o), fact)
	}
	res := &UndoResult{Target: target, Origin: hist.origin[target], Passed: passed}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	unlock := e.queues.lock(paths...)
	defer unlock()
	net = netEntries([]*journal.Record{rec})
	steps, res.Notes = specialsNotMade(e.withParents(e.leaveStanding(net)))
	e.bitsNotLearnt(steps, bitsUnknown(rec))
	c.rec.Notes = append(c.rec.Notes, res.Notes...)
	if len(files) == 0 && len(steps) == 0 && len(res.Notes) > 0 {
		return nil, errs.New(errs.NoChange, net[0].Path, "Nothing to %s: %s.", verb(o), strings.Join(res.Notes, "; "))
	}
	var gone []string // the files the undo removes: a file put back under one reads as absent
	var made []string // the folders the reverted creates made: a file put back at one reads as absent
	for _, f := range files {
		if f.Before == "" {
			gone = append(gone, f.Path)
		}
		if f.Op == journal.OpCreate {
			made = append(made, madeFor(f)...)
		}
	}
	made = notComing(made, net)
	var reversed []journal.File // files, but for those skipped: relinkMoves pairs them with the changes
	for _, f := range files {
		ch, err := e.reverse(hist, target, f, steps, gone, made)
		if h := HashOnlyOf(err); h != nil && o.SkipUnrestorable {
			res.Skipped = append(res.Skipped, h.stays(o.DryRun))
			// The folders above it stay with it: none is said to stay for
			// something else in it.
			made = slices.DeleteFunc(made, func(d string) bool { return strings.HasPrefix(f.Path, d+"/") })
			continue
		}
		if err != nil {
			if len(files) > 1 {
				err = errs.Prefixed(fmt.Sprintf("%s: ", f.Path), err)
			}
			return nil, err
		}
		res.Changes = append(res.Changes, ch)
		reversed = append(reversed, f)
	}
	if len(res.Changes) == 0 && len(steps) == 0 && len(res.Skipped) > 0 {
		return nil, errs.New(errs.NoChange, files[0].Path, "Nothing to %s: %s. Nothing was written.", verb(o), strings.Join(res.Skipped, "; "))
	}
	res.Notes = append(res.Notes, res.Skipped...)
	c.rec.Notes = append(c.rec.Notes, res.Skipped...)
	res.Changes = relinkMoves(reversed, res.Changes)
	if o.Redo {
		c.rec.Redo = target
	} else {
		c.rec.Undo = target
	}
	if o.DryRun {
		if err := e.checkDryRun(c, steps, res.Changes, made); err != nil {
			return nil, err
		}
		c.dryRun(res.Changes)
		res.DryRun, res.Folders, res.Entries = true, e.dryRunFolders(made, steps), doneOrder(steps)
		return res, nil
	}
	after, err := e.withEntries(c, steps, res.Changes, made)
	if err != nil {
		return nil, err
	}
	if err := e.commit(c, res.Changes); err != nil {
		return nil, err
	}
	res.Folders, res.Entries, res.Seq = after(), doneOrder(steps), c.rec.Seq
	res.Kept = e.keptFolders(made, steps, "the call")
	return res, nil
}

// doneOrder is steps in the order they are taken, for the reply: the folders that go
// deepest first (entriesAfter), those that come back shallowest first
// (entriesBefore). The other steps keep their places, and each kind the places of
// its own.
func doneOrder(steps []journal.Entry) []journal.Entry {
	out := slices.Clone(steps)
	reorder := func(is func(journal.Entry) bool, deeperFirst bool) {
		var at []int
		var sub []journal.Entry
		for i, en := range out {
			if is(en) {
				at, sub = append(at, i), append(sub, en)
			}
		}
		slices.SortStableFunc(sub, func(a, b journal.Entry) int {
			if deeperFirst {
				return depth(b.Path) - depth(a.Path)
			}
			return depth(a.Path) - depth(b.Path)
		})
		for k, i := range at {
			out[i] = sub[k]
		}
	}
	reorder(func(en journal.Entry) bool { return en.Before == vfs.KindDir && en.After != vfs.KindDir }, true)
	reorder(func(en journal.Entry) bool { return en.After == vfs.KindDir && en.Before != vfs.KindDir }, false)
	return out
}

// bitsNotLearnt gives each folder that steps remove and whose bits the record never
// learnt (unknown, bitsUnknown's) the bits it has now. Else the reversal would take
// 0000 for the bits the call left, refuse the folder as changed since, and a redo
// would make it again 0000. A folder whose bits are known to be 0000 keeps them: one
// chmodded since is refused as changed, as with any other bits.
func (e *Engine) bitsNotLearnt(steps []journal.Entry, unknown map[string]bool) {
	look := e.fs.Looker()
	defer look.Close()
	for i, en := range steps {
		if en.Before != vfs.KindDir || en.BeforeMode != 0 || en.After == vfs.KindDir || !unknown[en.Path] {
			continue
		}
		if kind, _, bits, err := look.EntryAt(en.Path); err == nil && kind == vfs.KindDir {
			steps[i].BeforeMode = bits
		}
	}
}

// bitsUnknown are the folders whose bits recs (newest first) leave them with and
// never learnt: 0 in a folder call's record (create_directory, a move of folders),
// which its pending record does not know and recovery, rolling it forward, may not
// learn (it does not look through a symlink). A command's or an outside record has
// the bits lstat gave, and an undo's, a redo's or a rewind's those of the record it
// reverses (bitsNotLearnt's, where that one had none): 0 there is mode 0000.
func bitsUnknown(recs ...*journal.Record) map[string]bool {
	seen, out := map[string]bool{}, map[string]bool{}
	for _, r := range recs {
		known := journal.IsCommand(r.Tool) || r.Tool == ToolOutside || r.Undo != 0 || r.Redo != 0 || len(r.Reverts) > 0
		for _, en := range r.Entries {
			if seen[en.Path] {
				continue
			}
			seen[en.Path] = true
			if en.After == vfs.KindDir && en.AfterMode == 0 && !known {
				out[en.Path] = true
			}
		}
	}
	return out
}

// standsAlready says that every folder net makes stands already, naming those whose
// bits are not the ones call target found.
func (e *Engine) standsAlready(net []journal.Entry, target uint64) string {
	var names, other []string
	for _, en := range net {
		names = append(names, en.Path+"/")
		// The bits a folder had when the call removed it are known (lstat's, or
		// bitsNotLearnt's): 0 is mode 0000.
		if _, _, bits, err := e.fs.EntryAt(en.Path); err == nil && !vfs.SameBits(bits, en.AfterMode) {
			other = append(other, fmt.Sprintf("%s/ has mode %04o, where call %d found %04o (chmod %o %s gives it those)", en.Path, bits&0o7777, target, en.AfterMode&0o7777, en.AfterMode&0o7777, shellPath(en.Path)))
		}
	}
	stand := "stand"
	if len(names) == 1 {
		stand = "stands"
	}
	msg := fmt.Sprintf("%s %s again already, and a folder that stands is left as it is.", strings.Join(names, ", "), stand)
	if len(other) > 0 {
		msg += " " + strings.Join(other, "; ") + "."
	}
	return msg
}

// passedOnly is the refusal of a bare undo that found nothing to undo once past the
// calls it passed over: it names them (in the message, and as Fact for a caller that
// words the refusal its own way).
func passedOnly(err error, passed []string) error {
	fact := strings.Join(passed, " ")
	var e *errs.Error
	if !errors.As(err, &e) {
		return err
	}
	e2 := *e
	e2.Message, e2.Fact, e2.Err = e.Error()+" "+fact, fact, err
	return &e2
}

// relinkMoves pairs, in the reverse of a move (File.From), the create of the old path
// with the deletion of the new one, so that the file is renamed back, the same inode;
// the deletion goes first, as a move's own does. changes[i] reverses files[i].
func relinkMoves(files []journal.File, changes []*Change) []*Change {
	first := make([]int, len(changes)) // per change, the index of the change to write before it, or -1
	for i := range first {
		first[i] = -1
	}
	for d, f := range files {
		if f.Op != journal.OpCreate || f.From == "" {
			continue
		}
		for s, g := range files {
			if g.Op == journal.OpDelete && g.Path == f.From && g.Before == f.After && changes[s].Created && changes[d].Deleted {
				changes[s].from, changes[d].taken = changes[d], true
				first[s] = d
			}
		}
	}
	out := make([]*Change, 0, len(changes))
	done := make([]bool, len(changes))
	for i, ch := range changes {
		if done[i] {
			continue
		}
		if d := first[i]; d >= 0 && !done[d] {
			out, done[d] = append(out, changes[d]), true
		}
		out, done[i] = append(out, ch), true
	}
	return out
}

// madeFor are the folders f's create made (File.Made), as far as they are folders
// above f's path: a damaged record can name no folder elsewhere (though its path may
// be damaged too: only empty folders inside the root are ever removed).
func madeFor(f journal.File) []string {
	var made []string
	for _, d := range f.Made {
		if strings.HasPrefix(f.Path, d+"/") && d != "" && !strings.HasPrefix(d, "/") {
			made = append(made, d)
		}
	}
	return made
}

// undoTarget picks (Seq 0) or checks the record to undo or redo, and loads its history:
// the record and the later changes of its files, from everything journaled so far.
func (e *Engine) undoTarget(o UndoOptions, skip map[uint64]bool) (hist *history, target uint64, err error) {
	if err := e.j.Flush(); err != nil {
		return nil, 0, err
	}
	if historyIndex {
		// Should the index not be written, the history is read from every record.
		e.buildHistory()
	}
	err = e.j.View(func(t *journal.Tx) (err error) {
		if err := e.refuseWhileRunning(t, "", verb(o)); err != nil {
			return err
		}
		if hist, err = openHistory(t); err != nil {
			return err
		}
		switch last := t.Last(); {
		case o.Seq == 0:
			var folder map[uint64]bool
			if o.Path != "" {
				folder = map[uint64]bool{}
				for _, seq := range t.SeqsOf(o.Path+"/", 0) {
					folder[seq] = true
				}
			}
			target, err = hist.pick(o, folder, skip)
		case o.Seq > last:
			// Said as show says it, rather than as a call that changed nothing.
			return errs.New(errs.InvalidInput, "", "There is no call %d (the journal holds 1 to %d): there is nothing to %s.", o.Seq, last, verb(o))
		default:
			if target, err = hist.check(o); err == errNotAChange {
				err = notAChange(t, o)
			}
		}
		if err != nil {
			return err
		}
		if err := hist.load(t, target); err != nil {
			return err
		}
		return partOfCall(t, hist, target, o)
	})
	return hist, target, err
}

// reverse plans the reverse of one file's change in record target, against the file
// as it is now. It reads the file and hands the planning to reversal, whose steps take
// the file's content as an argument: a caller that reverts several calls in one
// transaction plans each one against the content the newer reversals leave.
func (e *Engine) reverse(hist *history, target uint64, f journal.File, going []journal.Entry, gone, made []string) (*Change, error) {
	if bitsOnly(f) {
		return e.reverseBits(hist, target, f) // undo_large.go
	}
	if overLimit(hist.recs[target], f.Path) {
		return e.reverseOverLimit(hist, target, f) // undo_large.go
	}
	cur, err := e.readForUndo(f, target)
	if err != nil && (underSymlinkGoing(f.Path, going) || specialGoing(f.Path, going) || swappedAway(f.Path, going, made) || underFileGoing(f.Path, gone)) {
		cur, err = fileNow{}, nil
	}
	if err != nil {
		return nil, err
	}
	rv := &reversal{e: e, hist: hist, target: target, f: f, later: hist.laterChanges(target, f.Path)}
	if theirs := theirsIn(hist.recs[target], f.Path); len(theirs) > 0 {
		if err := rv.keepTheirs(theirs); err != nil {
			return nil, err
		}
	}
	return rv.plan(cur)
}

// fileNow is a file as an undo finds it: its bytes and identity (for the conflict
// check at commit), or its absence.
type fileNow struct {
	data   []byte
	id     vfs.Identity
	exists bool
}

// readForUndo reads the file an undo reverts; only its absence is not an error, since
// the reverse of a deletion creates it again.
func (e *Engine) readForUndo(f journal.File, target uint64) (fileNow, error) {
	data, id, err := e.fs.ReadCanonicalID(f.Path)
	if err == nil {
		return fileNow{data, id, true}, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return fileNow{}, nil
	}
	if berr := e.blockedFolder(f.Path); berr != nil {
		return fileNow{}, berr
	}
	if errors.Is(err, vfs.ErrSymlinkNow) {
		return fileNow{}, errs.Wrap(errs.NotAFile, f.Path, err, "%s is a symlink now (put at its path since call %d), which was not followed; nothing was undone. Move it aside first.", f.Path, target)
	}
	if errors.Is(err, vfs.ErrNotRegular) {
		if kind, _, _, kerr := e.fs.EntryAt(f.Path); kerr == nil && kind != "" && e.madeThere(target, f.Path, kind) {
			// A FIFO, socket or device the command put in the file's place: never
			// opened nor removed by an undo (it may be in use).
			return fileNow{}, errs.Wrap(errs.NotAFile, f.Path, err, "%s is a %s now, which call %d's command put in the file's place (its record says so); an undo does not remove a %s. Nothing was undone. Move it aside (or remove it), then undo again.", f.Path, kind, target, kind)
		}
	}
	if errors.Is(err, syscall.EISDIR) || errors.Is(err, vfs.ErrNotRegular) {
		return fileNow{}, errs.Wrap(errs.NotAFile, f.Path, err, "%s is no longer a regular file (something else was put at its path since call %d); nothing was undone. Move it aside first.", f.Path, target)
	}
	cause := err
	if u := errors.Unwrap(err); u != nil {
		cause = u // the OS's words, without the path it was opened by
	}
	return fileNow{}, errs.Wrap(errs.IOError, f.Path, err, "Cannot read %s: %v.", f.Path, cause)
}

// madeThere says whether record seq (a command's) notes that it replaced the file at
// path by something of kind (diffSnapshots' note).
func (e *Engine) madeThere(seq uint64, path, kind string) bool {
	made := false
	e.j.View(func(t *journal.Tx) error {
		if r, err := t.Get(seq); err == nil && r != nil && journal.IsCommand(r.Tool) {
			made = slices.Contains(r.Notes, path+": a file became a "+kind)
		}
		return nil
	})
	return made
}

// laterChanges are the calls after target that changed path, oldest first. A later
// change that is itself undone cancels out: load left it out, with its undo.
func (h *history) laterChanges(target uint64, path string) []uint64 {
	var later []uint64
	for seq, r := range h.recs {
		if seq <= target {
			continue
		}
		for _, lf := range r.Files {
			if lf.Path == path && lf.Op.Changes() {
				later = append(later, seq)
				break
			}
		}
	}
	sort.Slice(later, func(i, j int) bool { return later[i] < later[j] })
	return later
}

// reversal is the plan of reverting one file's change in record target: later are the
// calls since that changed the same file, oldest first. A caller reverting several
// calls at once leaves its own calls out of later.
type reversal struct {
	e      *Engine
	hist   *history
	target uint64
	f      journal.File
	later  []uint64
}

// plan works out the reverse change against cur: a create, write or delete only on the
// file exactly as it left it, an edit by its regions followed through the later calls.
func (rv *reversal) plan(cur fileNow) (*Change, error) {
	f := rv.f
	ch := &Change{Path: f.Path, Name: f.Path, Op: journal.OpEdit, mode: fs.FileMode(f.AfterMode)}
	if cur.exists {
		ch.Before, ch.id = cur.data, cur.id
		if fi, err := rv.e.fs.Afero().Stat(f.Path); err == nil {
			ch.mode = fi.Mode()
		}
	}
	var prior []byte
	if f.Before != "" {
		var err error
		if prior, err = rv.content(f.Before); err != nil {
			if f.Op == journal.OpDelete && !f.BeforeBlob {
				// Every deletion keeps its content but that of a file over the size
				// limit (undo_large.go).
				return nil, notRestorable(f.Path, rv.target)
			}
			if by := rv.e.keptByHashOnly(f.Path, f.Before); by != 0 {
				return nil, notRewritable(f.Path, by, rv.target)
			}
			return nil, errs.Wrap(errs.IOError, f.Path, err, "Cannot undo call %d: %v.", rv.target, err)
		}
	}
	if f.Before != "" && f.After != "" && f.BeforeMode != 0 && f.AfterMode != f.BeforeMode {
		// A change of bits (a command's chmod): taken back only from the bits it set.
		if now := uint32(ch.mode & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)); cur.exists && now != f.AfterMode {
			return nil, modeChanged(f.Path, now, f.AfterMode, rv.target, rv.later)
		}
		ch.chmod = fs.FileMode(f.BeforeMode)
	}
	if f.Op == journal.OpEdit {
		return rv.planEdit(ch, cur)
	}
	if err := rv.checkWhole(cur); err != nil {
		return nil, err
	}
	switch f.Op {
	case journal.OpCreate:
		ch.Op, ch.Deleted, ch.afterHash = journal.OpDelete, true, ""
	case journal.OpDelete:
		ch.Op, ch.Created, ch.After, ch.mode = journal.OpCreate, true, prior, fs.FileMode(f.BeforeMode)
		ch.HardLinks = f.Links
	case journal.OpWrite:
		ch.Op, ch.After = journal.OpWrite, prior
	}
	return ch, nil
}

// content is the file's content of the given hash, rebuilt from the journal.
func (rv *reversal) content(hash string) (data []byte, err error) {
	err = rv.e.j.View(func(t *journal.Tx) error {
		data, err = t.Content(rv.f.Path, hash)
		return err
	})
	return data, err
}

// checkWhole allows the reverse of a create, write or delete only on the file exactly
// as that call left it (later changes that cancelled out allowed), else refuses it as a
// conflict naming what came between.
func (rv *reversal) checkWhole(cur fileNow) error {
	f, target, later := rv.f, rv.target, rv.later
	if f.Op == journal.OpDelete && !cur.exists || f.Op != journal.OpDelete && cur.exists && journal.Hash(cur.data) == f.After {
		return nil // later changes, if any, cancelled out
	}
	if len(later) > 0 {
		last := later[len(later)-1]
		if len(later) == 1 {
			return blocked(f.Path, last, "Call %d changed %s after call %d; nothing was written.", last, f.Path, target)
		}
		return blocked(f.Path, last, "%d calls changed %s after call %d, the latest call %d; nothing was written.", len(later), f.Path, target, last)
	}
	if f.Op == journal.OpDelete {
		if cur.exists {
			return errs.New(errs.Conflict, f.Path, "%s exists again, made outside vfsctl since call %d removed it; nothing was written.", f.Path, target)
		}
		return nil
	}
	if !cur.exists || journal.Hash(cur.data) != f.After {
		return errs.New(errs.Conflict, f.Path, "%s changed outside vfsctl since call %d; undoing it would lose that change. Nothing was written.", f.Path, target)
	}
	return nil
}

// planEdit reverts an edit: its regions, followed through the later calls, get their
// old bytes back, and no byte outside them changes.
func (rv *reversal) planEdit(ch *Change, cur fileNow) (*Change, error) {
	regs, tracked, err := rv.trackRegions()
	if err != nil {
		return nil, err
	}
	if !cur.exists {
		return nil, errs.New(errs.Conflict, rv.f.Path, "%s no longer exists; call %d cannot be undone.", rv.f.Path, rv.target)
	}
	splices, err := rv.placeRegions(regs, tracked, cur.data)
	if err != nil {
		return nil, err
	}
	spliceInto(ch, cur.data, splices)
	if bytes.Equal(ch.After, ch.Before) {
		return nil, errs.New(errs.NoChange, rv.f.Path, "Undoing call %d would leave %s as it is.", rv.target, rv.f.Path)
	}
	return ch, nil
}

// region is a byte range a change wrote, tracked through later changes.
type region struct {
	start, end int    // in the tracked content
	old        []byte // what was there before the change (written back by the undo)
}

// editRegions are the ranges the edit's splices wrote, in the content it left.
func editRegions(f journal.File) []region {
	regs := make([]region, 0, len(f.Splices))
	delta := 0
	for _, s := range f.Splices {
		st := s.Start + delta
		regs = append(regs, region{start: st, end: st + len(s.New), old: s.Old})
		delta += len(s.New) - len(s.Old)
	}
	return regs
}

// trackRegions follows the edit's regions through the later calls' splices and returns
// them with the hash of the content they are in; a later call that touched a region,
// or replaced the file whole, blocks the undo.
func (rv *reversal) trackRegions() ([]region, string, error) {
	regs, tracked, later := editRegions(rv.f), rv.f.After, rv.later
	for k := 0; k < len(later); k++ {
		// Later calls that bring the file back to exactly this content (a change and
		// its undo) leave the regions where they are.
		for j := len(later) - 1; j >= k; j-- {
			if rv.fileOf(later[j]).After == tracked {
				k = j + 1
				break
			}
		}
		if k >= len(later) {
			break
		}
		seq := later[k]
		lf := rv.fileOf(seq)
		if lf.Before != tracked {
			break // changed outside vfsctl in between: located by content later
		}
		if lf.Op != journal.OpEdit {
			return nil, "", blocked(rv.f.Path, seq, "Call %d replaced or removed %s after call %d; nothing was written.", seq, rv.f.Path, rv.target)
		}
		if err := rv.checkUntouched(regs, seq, lf.Splices, tracked); err != nil {
			return nil, "", err
		}
		shiftRegions(regs, lf.Splices)
		tracked = lf.After
	}
	return regs, tracked, nil
}

// fileOf is the record of call seq about the reversal's file.
func (rv *reversal) fileOf(seq uint64) journal.File {
	for _, x := range rv.hist.recs[seq].Files {
		if x.Path == rv.f.Path {
			return x
		}
	}
	return journal.File{}
}

// checkUntouched refuses, as blocked by call seq, when one of its splices touches a
// region: reverting would undo part of that later change too.
func (rv *reversal) checkUntouched(regs []region, seq uint64, splices []journal.Splice, tracked string) error {
	for _, s := range splices {
		sEnd := s.Start + len(s.Old)
		for i := range regs {
			if s.Start <= regs[i].end && regs[i].start <= sEnd {
				line := ""
				if before, err := rv.content(tracked); err == nil {
					line = fmt.Sprintf(" line %d of", lineAt(before, regs[i].start))
				}
				return blocked(rv.f.Path, seq, "Call %d changed%s %s where call %d did, after it; nothing was written.", seq, line, rv.f.Path, rv.target)
			}
		}
	}
	return nil
}

// shiftRegions moves each region by what the splices before it added or removed; the
// splices do not touch the regions.
func shiftRegions(regs []region, splices []journal.Splice) {
	for i := range regs {
		shift := 0
		for _, s := range splices {
			if s.Start+len(s.Old) <= regs[i].start {
				shift += len(s.New) - len(s.Old)
			}
		}
		regs[i].start += shift
		regs[i].end += shift
	}
}

// placeRegions turns the regions into splices of cur. Where cur is the tracked content
// they are where tracking left them; where it changed outside vfsctl since, each is
// located by its lines in the tracked content, exactly and once, as an edit is.
func (rv *reversal) placeRegions(regs []region, tracked string, cur []byte) ([]matcher.Splice, error) {
	var splices []matcher.Splice
	if journal.Hash(cur) == tracked {
		for _, r := range regs {
			splices = append(splices, matcher.Splice{Start: r.start, End: r.end, Text: r.old})
		}
		return splices, nil
	}
	f, target := rv.f, rv.target
	base, err := rv.content(tracked)
	if err != nil {
		return nil, errs.Wrap(errs.Conflict, f.Path, err, "%s changed outside vfsctl since call %d, and the journal cannot show where its change went (%v); nothing was written.", f.Path, target, err)
	}
	for _, r := range regs {
		at, ok := locate(base, cur, r.start, r.end)
		if !ok {
			return nil, errs.New(errs.Conflict, f.Path, "%s changed outside vfsctl since call %d, where that call changed it (around line %d then); nothing was written. To take it back all the same, put those lines back as call %d left them first.", f.Path, target, lineAt(base, r.start), target)
		}
		splices = append(splices, matcher.Splice{Start: at, End: at + r.end - r.start, Text: r.old})
	}
	return splices, nil
}

// spliceInto sets ch.After to cur with the splices applied, in order of position, and
// keeps them for the record; the bytes between splices are cur's.
func spliceInto(ch *Change, cur []byte, splices []matcher.Splice) {
	sort.Slice(splices, func(i, j int) bool { return splices[i].Start < splices[j].Start })
	var out bytes.Buffer
	prev := 0
	for i := range splices {
		s := &splices[i]
		s.FirstLine, s.LastLine = lineAt(cur, s.Start), lineAt(cur, max(s.Start, s.End-1))
		out.Write(cur[prev:s.Start])
		out.Write(s.Text)
		prev = s.End
		ch.splices = append(ch.splices, journal.Splice{Start: s.Start, Old: cur[s.Start:s.End], New: s.Text})
	}
	out.Write(cur[prev:])
	ch.After, ch.undoSplices = out.Bytes(), splices
}

// locate finds where bytes [start, end) of base sit in cur: the whole lines around
// them, with more lines of context until they occur exactly once. It returns the
// offset of start in cur.
func locate(base, cur []byte, start, end int) (int, bool) {
	lo := bytes.LastIndexByte(base[:start], '\n') + 1
	hi := end
	if i := bytes.IndexByte(base[end:], '\n'); i >= 0 {
		hi = end + i + 1
	} else {
		hi = len(base)
	}
	for range 8 {
		snip := base[lo:hi]
		if len(snip) > 0 {
			if i := bytes.Index(cur, snip); i >= 0 && !bytes.Contains(cur[i+1:], snip) {
				return i + (start - lo), true
			}
		}
		if lo == 0 && hi == len(base) {
			break
		}
		if lo > 0 {
			lo = bytes.LastIndexByte(base[:lo-1], '\n') + 1
		}
		if hi < len(base) {
			if i := bytes.IndexByte(base[hi:], '\n'); i >= 0 {
				hi += i + 1
			} else {
				hi = len(base)
			}
		}
	}
	return 0, false
}

// lineAt is the 1-based line holding byte offset off, numbered as everywhere else.
func lineAt(data []byte, off int) int {
	pre := data[:min(off, len(data))]
	n := matcher.CountLines(pre)
	if len(pre) == 0 || pre[len(pre)-1] == '\n' || pre[len(pre)-1] == '\r' {
		n++
	}
	return n
}

// madeByUndone says, for the folders an undo of call target (a folder deletion) would
// make, that each was made by a call before target that has been undone since target:
// the folder is gone with that call's undo, and making it again would bring back a
// folder that stood at no point before that call. "" when one is not so.
func (e *Engine) madeByUndone(toMake []journal.Entry, target uint64) string {
	var said []string
	e.j.View(func(t *journal.Tx) error {
		hist := t.History()
		for _, en := range toMake {
			if en.After != journal.KindDir {
				return nil
			}
			maker := newestMaker(t, en.Path, target)
			c, ok := hist.Change(maker)
			if maker == 0 || !ok {
				return nil
			}
			latest := hist.Latest(c.Origin)
			if lc, ok := hist.Change(latest); !ok || !lc.Undo || latest < target {
				return nil
			}
			said = append(said, fmt.Sprintf("%s/ was made by call %d, which call %d undid since, taking it away", en.Path, maker, latest))
		}
		return nil
	})
	if len(said) < len(toMake) {
		return ""
	}
	return strings.Join(said, "; ") + ": there was no such folder before that call."
}

// newestMaker is the newest committed record before call target that made folder p:
// a create whose folders made include it, or a folder call's entry; 0 when none did.
func newestMaker(t *journal.Tx, p string, target uint64) uint64 {
	var best uint64
	for _, seq := range t.SeqsBelow(p + "/") {
		if seq >= target || seq <= best {
			continue
		}
		r, err := t.Get(seq)
		if err != nil || r == nil || r.State != journal.Committed {
			continue
		}
		made := slices.ContainsFunc(r.Entries, func(en journal.Entry) bool {
			return en.Path == p && en.After == journal.KindDir && en.Before != journal.KindDir
		}) || slices.ContainsFunc(r.Files, func(f journal.File) bool {
			return f.Op == journal.OpCreate && slices.Contains(f.Made, p)
		})
		if made {
			best = seq
		}
	}
	return best
}

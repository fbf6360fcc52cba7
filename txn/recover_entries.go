package txn

import (
	"cmp"
	"fmt"
	"path"
	"slices"

	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/vfs"
)

// Recovery of a pending record's entries: the folders and symlinks an undo, redo or
// rewind takes back in the same transaction as its files (entries.go). The files
// decide, as for any call: a record rolled forward has its entries brought to their
// After, one rolled back to their Before, each step only from where one end or the
// other of that record left it. So a crash at any step leaves, once recovered, the
// tree before the call or the tree after it, never a mix. A step already done is
// recognised and not done again; a path that is neither as the call found it nor
// as it leaves it was changed by someone else: it is left alone, and the record's
// notes (and the line recovery prints) say so.

// entryPlace is where one entry of a pending record stands.
type entryPlace int

const (
	entryAtBefore entryPlace = iota
	entryBetween             // half way: what goes removed, what comes not yet made
	entryAtAfter
	entryElsewhere // changed by someone else: left alone
	entryUntrusted // a path no call could change: never touched
)

// entryStep is one entry of a pending record on its way to the end recovery chose.
type entryStep struct {
	en      journal.Entry // oriented toward that end: Before is where it leaves from
	forward bool          // toward the record's own After
	place   entryPlace
	kind    string // what stands at the path, when recovery looked
	bits    uint32
	why     string // for a step left alone, when the usual note would not say why
}

// entriesRecoverable reports whether r's entries are steps of its own transaction,
// still to settle: a command's or an outside record's entries say what was found
// changed, and nothing of them is done again.
func entriesRecoverable(r *journal.Record) bool {
	return len(r.Entries) > 0 && !journal.IsCommand(r.Tool) && r.Tool != ToolOutside
}

// entryWritable reports whether p is a path whose folder or symlink a call could
// change: canonical, outside reserved folders, in a folder reached with no symlink on
// the way (p itself may be a symlink).
func (e *Engine) entryWritable(p string) bool {
	q, err := e.fs.Clean(p)
	if err != nil || q != p || p == "." {
		return false
	}
	dir := path.Dir(p)
	return dir == "." || e.writable(dir)
}

// placeEntries finds where each entry of r stands on its way to the chosen end
// (forward: After; back: Before), the record's files notwithstanding.
func (e *Engine) placeEntries(r *journal.Record, forward bool) (steps []entryStep, files map[string]bool) {
	files = map[string]bool{}
	for _, f := range r.Files {
		files[f.Path] = true
	}
	steps = make([]entryStep, 0, len(r.Entries))
	unknown := bitsUnknown(r)
	for i, en := range r.Entries {
		if !forward {
			en = en.Reversed()
		}
		st := entryStep{en: en, forward: forward, place: entryUntrusted}
		if e.entryWritable(en.Path) {
			if forward && en.After == vfs.KindDir && en.Before != vfs.KindDir && unknown[en.Path] {
				// A folder call's pending record does not know the bits of the folders
				// it makes (MakeFolders learns them once made, for the committed
				// record): one found there has the bits it was made with, one made
				// again gets those of a folder made under the usual umask. (An undo's,
				// a redo's or a rewind's 0 is known: mode 0000, as a command left it.)
				st.en.AfterMode = 0o755
				if kind, _, bits, err := e.fs.EntryAt(en.Path); err == nil && kind == vfs.KindDir {
					st.en.AfterMode = bits
				}
				r.Entries[i].AfterMode = st.en.AfterMode
			}
			en = st.en
			st.place, st.kind, st.bits = e.entryPlaceOf(en, files[en.Path])
		}
		steps = append(steps, st)
	}
	return steps, files
}

// entryPlaceOf compares what stands at en's path with both ends of en. A file there
// is "nothing of the two" only where the record has a file of that path.
func (e *Engine) entryPlaceOf(en journal.Entry, file bool) (entryPlace, string, uint32) {
	kind, target, bits, err := e.fs.EntryAt(en.Path)
	if err != nil && e.fileAbove(en.Path) {
		kind, err = "", nil // nothing stands there: a file stands above it
	}
	if err != nil {
		return entryElsewhere, "unreadable", 0
	}
	is := func(side, sideTarget string, sideBits uint32) bool {
		switch side {
		case "":
			return kind == "" || file && kind == vfs.KindFile
		case vfs.KindSymlink:
			return kind == vfs.KindSymlink && target == sideTarget
		case vfs.KindDir:
			// A folder's bits tell the ends apart only where they are the change.
			return kind == vfs.KindDir && (en.Before != en.After || bits == sideBits)
		case journal.KindFIFO, journal.KindSocket:
			return kind == side && e.sameSpecial(en)
		}
		return false
	}
	switch {
	case is(en.After, en.AfterTarget, en.AfterMode):
		return entryAtAfter, kind, bits
	case is(en.Before, en.BeforeTarget, en.BeforeMode):
		return entryAtBefore, kind, bits
	case kind == "":
		return entryBetween, kind, bits // both ends are a folder or a symlink
	case kind == vfs.KindDir && en.Before == vfs.KindDir && en.After == vfs.KindDir && (opening(en.BeforeMode, en.AfterMode, bits) || opening(en.AfterMode, en.BeforeMode, bits)):
		return entryBetween, kind, bits
	}
	return entryElsewhere, kind, bits
}

// opening reports whether a folder whose bits go from shut (denying its owner some
// of ownerBits) to to stands half way with bits: to's, with ownerBits added, as an
// undo opens it first for what it holds (openFolders).
func opening(shut, to, bits uint32) bool {
	return shut&ownerBits != ownerBits && bits == to|ownerBits
}

// sameSpecial reports whether the FIFO or socket at en's path is the one en names.
func (e *Engine) sameSpecial(en journal.Entry) bool {
	_, id, err := e.fs.SpecialAt(en.Path)
	return err == nil && id.Dev == en.Dev && id.Ino == en.Ino && id.Ctime == en.Ctime
}

// fileAbove reports whether the nearest entry above p that stands is a file.
func (e *Engine) fileAbove(p string) bool {
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		if kind, _, _, err := e.fs.EntryAt(d); err == nil && kind != "" {
			return kind == vfs.KindFile
		}
	}
	return false
}

// entriesFirst does, of steps, what goes before the files: symlinks that go or change
// are removed, folders that come are made, shallowest first.
func (e *Engine) entriesFirst(steps []entryStep) []string {
	var notes []string
	for _, st := range steps {
		if st.en.Before == vfs.KindSymlink && st.place == entryAtBefore {
			if err := e.fs.RemoveSymlink(st.en.Path); err != nil {
				notes = append(notes, entryNotMade(st.en, err))
			} else {
				notes = append(notes, fmt.Sprintf("the symlink %s removed", st.en.Path))
			}
		}
		if en := st.en; journal.IsSpecial(en.Before) && st.place == entryAtBefore {
			if err := e.fs.RemoveSpecial(en.Path, en.Before, en.Dev, en.Ino, en.Ctime); err != nil {
				notes = append(notes, entryNotMade(en, err))
			} else {
				notes = append(notes, fmt.Sprintf("the %s %s removed", en.Before, en.Path))
			}
		}
	}
	order := slices.Clone(steps)
	slices.SortStableFunc(order, func(a, b entryStep) int { return cmp.Compare(depth(a.en.Path), depth(b.en.Path)) })
	for _, st := range order {
		en := st.en
		if en.After != vfs.KindDir || en.Before == vfs.KindDir {
			continue
		}
		// One made already, whose bits a crash came before, gets them after what it
		// holds (entriesThen).
		if st.place == entryAtBefore || st.place == entryBetween {
			notes = append(notes, entryMade(en, e.fs.MakeDir(en.Path, en.AfterMode))) // a file there refuses it
		}
	}
	return notes
}

func entryMade(en journal.Entry, err error) string {
	if err != nil {
		return entryNotMade(en, err)
	}
	return fmt.Sprintf("%s is %s again", en.Path, describeEntry(en.After, en.AfterTarget, en.AfterMode))
}

func entryNotMade(en journal.Entry, err error) string {
	return fmt.Sprintf("%s could not be made %s (%v); it was left as found", en.Path, describeEntry(en.After, en.AfterTarget, en.AfterMode), err)
}

// entriesThen does, of steps, what comes after the files: folders that go are
// removed, deepest first and only when empty; symlinks that come are made; folders
// get their bits, deepest first (a folder the record made, found made already, gets
// its bits, which a crash between the two may have missed). Where each step stands is
// looked at again: the files' settling, and entriesFirst, have moved some.
func (e *Engine) entriesThen(steps []entryStep, files map[string]bool) []string {
	steps = slices.Clone(steps)
	for i, st := range steps {
		if st.place != entryElsewhere && st.place != entryUntrusted {
			steps[i].place, steps[i].kind, steps[i].bits = e.entryPlaceOf(st.en, files[st.en.Path])
		}
	}
	var notes []string
	order := slices.Clone(steps)
	slices.SortStableFunc(order, func(a, b entryStep) int { return cmp.Compare(depth(b.en.Path), depth(a.en.Path)) })
	gone := map[string]bool{}
	for _, st := range order {
		en := st.en
		if en.Before != vfs.KindDir || en.After == vfs.KindDir || st.place != entryAtBefore {
			continue
		}
		if err := e.fs.RemoveDir(en.Path); err != nil {
			// As the call itself leaves it: its files are settled, the folder holds
			// something else; opened for them, it gets its bits back.
			notes = append(notes, fmt.Sprintf("the folder %s was left, not being empty (%v)", en.Path, err))
			if opening(en.BeforeMode, en.BeforeMode, st.bits) {
				notes = append(notes, entryMade(journal.Entry{Path: en.Path, After: vfs.KindDir, AfterMode: en.BeforeMode}, e.fs.SetBits(en.Path, en.BeforeMode)))
			}
			continue
		}
		gone[en.Path] = true
		notes = append(notes, fmt.Sprintf("the folder %s removed", en.Path))
	}
	for _, st := range steps {
		en := st.en
		var err error
		switch {
		case en.After == vfs.KindSymlink && (st.place == entryBetween || st.place == entryAtBefore && (en.Before == "" || gone[en.Path])):
			err = e.fs.MakeSymlink(en.AfterTarget, en.Path)
		case journal.IsSpecial(en.After) && st.place != entryAtAfter && st.place != entryElsewhere && st.place != entryUntrusted:
			// Removed before the crash: vfsctl makes no FIFO or socket.
			notes = append(notes, fmt.Sprintf("the %s %s, removed before the crash, is not made again (vfsctl does not make a FIFO or socket)", en.After, en.Path))
			continue
		default:
			continue
		}
		notes = append(notes, entryMade(en, err))
	}
	// Folders get their bits last, deepest first: bits that deny writing would
	// refuse the symlinks and folders still to come in them.
	for _, st := range order {
		en := st.en
		switch {
		case en.After == vfs.KindDir && en.Before == vfs.KindDir && (st.place == entryAtBefore || st.place == entryBetween):
		case en.After == vfs.KindDir && en.Before != vfs.KindDir && st.place == entryAtAfter && st.bits != en.AfterMode && st.forward:
			// Made, and a crash came before its bits were set. (Going back, a folder
			// the call had still to remove has the bits someone gave it, but for
			// those it was opened with, next.)
		case en.After == vfs.KindDir && en.Before != vfs.KindDir && st.place == entryAtAfter && opening(en.AfterMode, en.AfterMode, st.bits):
			// A folder the call was to remove, opened for what it held: what it holds
			// is back, and so are its bits.
		default:
			continue
		}
		notes = append(notes, entryMade(en, e.fs.SetBits(en.Path, en.AfterMode)))
	}
	return notes
}

// entriesLeft notes the steps recovery did not touch: changed by someone else since,
// or at a path no call could change.
func entriesLeft(steps []entryStep, forward bool) []string {
	var notes []string
	for _, st := range steps {
		en := st.en
		switch st.place {
		case entryUntrusted:
			notes = append(notes, fmt.Sprintf("recovery: %q is not a path whose folder or symlink a call could change (reserved, through a symlink, or not canonical); it was not touched", en.Path))
		case entryElsewhere:
			if st.why != "" {
				notes = append(notes, st.why)
				continue
			}
			to := "rolled back"
			if forward {
				to = "rolled forward"
			}
			notes = append(notes, fmt.Sprintf("recovery: %s is %s, neither %s nor %s: someone changed it since; it was left alone, though the call was %s, and the next look journals it as found",
				en.Path, describeFound(st.kind, st.bits), describeEntry(en.Before, en.BeforeTarget, en.BeforeMode), describeEntry(en.After, en.AfterTarget, en.AfterMode), to))
		}
	}
	return notes
}

// describeFound says what recovery found at an entry's path.
func describeFound(kind string, bits uint32) string {
	switch kind {
	case "":
		return "nothing"
	case "unreadable":
		return "not readable"
	case vfs.KindDir:
		return fmt.Sprintf("a folder (mode %04o)", bits)
	}
	return "a " + kind
}

// settleEntries brings r's entries to the end its files were settled at, around
// them: first runs before the files are settled (for a rollback: before they are
// put back), then after. Each returns notes for the record. The snapshot is told
// what the paths settled hold now, so that the next look does not take recovery's
// work for a change outside vfsctl; a path left alone is not, and the next look
// journals it as found.
//
// A folder to make where a file of the record stands waits for it: again makes it
// once the files are settled, and reports whether it made any.
func (e *Engine) settleEntries(j *journal.Journal, r *journal.Record, forward bool, adjust ...func(st *entryStep)) (first, then func(), again func() bool) {
	if !entriesRecoverable(r) {
		return func() {}, func() {}, func() bool { return false }
	}
	steps, files := e.placeEntries(r, forward)
	for i := range steps {
		for _, f := range adjust {
			f(&steps[i])
		}
	}
	said := func(notes []string) {
		for _, n := range notes {
			r.Notes = append(r.Notes, "recovery: "+n)
		}
	}
	var waiting []entryStep
	first = func() {
		var now []entryStep
		for _, st := range steps {
			if st.why == "" && st.en.After == vfs.KindDir && st.en.Before != vfs.KindDir && (st.kind == vfs.KindFile && files[st.en.Path] || e.fileAbove(st.en.Path)) {
				waiting = append(waiting, st)
				continue
			}
			now = append(now, st)
		}
		said(e.entriesFirst(now))
	}
	again = func() bool {
		var now []entryStep
		for _, st := range waiting {
			st.place, st.kind, st.bits = e.entryPlaceOf(st.en, false)
			if st.place == entryAtBefore || st.place == entryBetween {
				now = append(now, st)
			}
		}
		said(e.entriesFirst(now))
		return len(now) > 0
	}
	then = func() {
		said(e.entriesThen(steps, files))
		r.Notes = append(r.Notes, entriesLeft(steps, forward)...)
		var settled []journal.Entry
		for _, st := range steps {
			if st.place != entryElsewhere && st.place != entryUntrusted {
				settled = append(settled, st.en)
			}
		}
		if len(settled) > 0 {
			j.Defer(func(t *journal.Tx) error { return e.snapEntries(t, settled) })
		}
	}
	return first, then, again
}

// foldersDoneWhenLanded reports whether every folder r's entries make was made
// (and, for a call of folders only, every one they remove removed) before its
// process marked it landed: so for a folder call (create_directory, delete_file of
// a folder, a move of one), not for an undo, redo or rewind, which makes and
// removes some after the mark (laterFolders, entriesAfter).
func foldersDoneWhenLanded(r *journal.Record) bool {
	return r.Undo == 0 && r.Redo == 0 && len(r.Reverts) == 0
}

// rollLandedEntriesForward is rollEntriesForward for a record its process marked
// landed. A folder a folder call made before that mark and that is gone now was
// removed by someone after the call: it is left so, and noted, rather than made
// again (empty, and with bits of recovery's choosing); likewise a folder a
// delete_file removed that stands again.
func (e *Engine) rollLandedEntriesForward(j *journal.Journal, r *journal.Record) {
	first, then, again := e.settleEntries(j, r, true, func(st *entryStep) {
		en := st.en
		if foldersDoneWhenLanded(r) && en.After == vfs.KindDir && en.Before != vfs.KindDir && (st.place == entryAtBefore || st.place == entryBetween) {
			st.place = entryElsewhere
			st.why = fmt.Sprintf("recovery: %s/ is gone: the call, which had finished, made it, and someone removed it after; it was not made again", en.Path)
		}
		// A call of folders only (delete_file of a folder) removed them before its
		// mark, or was refused: one standing now was made again by someone after.
		// (A move of a folder keeps a source folder something was put in.)
		if foldersDoneWhenLanded(r) && foldersOnly(r) && en.Before == vfs.KindDir && en.After != vfs.KindDir && st.place == entryAtBefore {
			st.place = entryElsewhere
			st.why = fmt.Sprintf("recovery: %s/ stands: the call, which had finished, removed it, and someone made it again after; it was left", en.Path)
		}
	})
	first()
	then()
	again()
}

// rollEntriesForward brings r's entries to their After: its files are at theirs.
func (e *Engine) rollEntriesForward(j *journal.Journal, r *journal.Record) {
	first, then, again := e.settleEntries(j, r, true)
	first()
	then()
	again()
}

// noteEntriesUnsettled notes, for a record recovery neither rolls forward nor back
// (its files all changed by someone else), the entries not at either end.
func (e *Engine) noteEntriesUnsettled(r *journal.Record) {
	if !entriesRecoverable(r) {
		return
	}
	steps, _ := e.placeEntries(r, true)
	for _, st := range steps {
		if st.place == entryAtBefore || st.place == entryAtAfter {
			continue
		}
		r.Notes = append(r.Notes, fmt.Sprintf("recovery: %s is %s, neither %s nor %s; it was left as found", st.en.Path, describeFound(st.kind, st.bits),
			describeEntry(st.en.Before, st.en.BeforeTarget, st.en.BeforeMode), describeEntry(st.en.After, st.en.AfterTarget, st.en.AfterMode)))
	}
}

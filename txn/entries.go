package txn

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/vfs"
)

// Folders and symlinks that commands made, removed or changed are the records'
// Entries (exec.go). An undo or a rewind takes them back with the files, in the same
// transaction: each entry goes from its Before to its After (the reversal of the
// record's), and only from where the command left it: a symlink still with the
// target it was given, a folder still a folder with the bits it was given. Around the
// files: symlinks that must make way are removed and folders that come back are made
// (shallowest first) before any file is written, once the pending record is; folders
// that go are removed, when empty, symlinks that come back are made, and folders are
// given their bits (deepest first), after the files. A folder that is not empty then
// stays, and the record says so. A folder whose bits deny its owner writing in it
// (chmod 555) is made, or opened, with the owner's bits first (openFolders), and one
// that the calls taken back do not name is refused (checkWritable). After a crash,
// recovery takes the steps forward or back with the files (recover_entries.go).

// netEntries composes the reversals of records' entries, newest record first, into
// one step per path: from the state the newest left to the state the oldest found.
func netEntries(recs []*journal.Record) []journal.Entry {
	byPath := map[string]*journal.Entry{}
	var order []string
	for _, r := range recs {
		for _, en := range r.Entries {
			rev := en.Reversed()
			if cur, ok := byPath[en.Path]; ok {
				cur.After, cur.AfterTarget, cur.AfterMode = rev.After, rev.AfterTarget, rev.AfterMode
				if journal.IsSpecial(rev.After) && !journal.IsSpecial(cur.Before) {
					cur.Dev, cur.Ino, cur.Ctime = rev.Dev, rev.Ino, rev.Ctime
				}
				continue
			}
			byPath[en.Path] = &rev
			order = append(order, en.Path)
		}
	}
	var out []journal.Entry
	for _, p := range order {
		en := *byPath[p]
		if en.Before != en.After || en.BeforeTarget != en.AfterTarget || en.BeforeMode != en.AfterMode {
			out = append(out, en)
		}
	}
	return out
}

func describeEntry(kind, target string, bits uint32) string {
	switch kind {
	case "":
		return "nothing (or a file)"
	case vfs.KindSymlink:
		return "a symlink to " + target
	case vfs.KindDir:
		return fmt.Sprintf("a folder (mode %04o)", bits)
	}
	return "a " + kind
}

// checkEntries refuses, changing nothing, when an entry is not as its Before says
// (someone changed it since the command did), or a folder cannot be taken back
// (checkFolderSteps). A folder's bits count whether it stays or goes: one chmodded
// since is not the command's to remove, and a redo would bring it back with the
// command's bits, not the ones chosen since. rec is the reversal's record.
func (e *Engine) checkEntries(rec *journal.Record, steps []journal.Entry, changes []*Change, made []string) error {
	verb, left := reversalVerb(rec), leftBy(rec)
	look := e.fs.Looker() // the folders a command made, shallowest first: one walk down
	defer look.Close()
	for _, en := range steps {
		kind, target, bits, err := look.EntryAt(en.Path)
		if err != nil && en.Before == "" && underDeleted(en.Path, changes) {
			kind, err = "", nil // under a file the same transaction removes
		}
		if err != nil {
			if berr := e.blockedFolder(en.Path); berr != nil {
				return berr
			}
			return errs.Wrap(errs.IOError, en.Path, err, "Cannot look at %s: %v. Nothing was %s.", en.Path, err, pastOf(verb))
		}
		if journal.IsSpecial(en.Before) {
			if err := e.checkSpecial(en); err != nil {
				return err
			}
			continue
		}
		ok := true
		switch en.Before {
		case vfs.KindSymlink:
			ok = kind == vfs.KindSymlink && target == en.BeforeTarget
		case vfs.KindDir:
			if kind == vfs.KindDir && bits != en.BeforeMode {
				if later := e.laterEntryCall(rec, en.Path); later != 0 {
					// A chmod back by hand would take that call's change away
					// outside the journal: its undo is the way, as for a file.
					return blocked(en.Path, later, "Call %d changed %s after %s left it (its mode is %04o now, %s left it %04o); nothing was %s.",
						later, en.Path, left, bits, left, en.BeforeMode, pastOf(verb))
				}
				return errs.New(errs.Conflict, en.Path, "%s is no longer as %s left it: its mode is %04o now, %s left it %04o. Nothing was %s; run `chmod %o %s` first, then %s again.",
					en.Path, left, bits, left, en.BeforeMode, pastOf(verb), en.BeforeMode, shellPath(en.Path), verb)
			}
			ok = kind == vfs.KindDir
		}
		if !ok {
			return errs.New(errs.Conflict, en.Path, "%s is no longer as %s left it (%s): it is %s now, changed since. Nothing was %s; put it back as it was, or move it aside, and retry.",
				en.Path, left, describeEntry(en.Before, en.BeforeTarget, en.BeforeMode), describeEntry(kind, target, bits), pastOf(verb))
		}
	}
	return e.checkFolderSteps(steps, changes, made)
}

// checkSpecial refuses the removal of the FIFO or socket en.Before names when what
// stands there is another one (made since, or written to since: its change time
// moved), or something else: it may be in use, so it is kept. One gone already
// needs no removal.
func (e *Engine) checkSpecial(en journal.Entry) error {
	kind, id, err := e.fs.SpecialAt(en.Path)
	if err != nil {
		return errs.Wrap(errs.IOError, en.Path, err, "Cannot look at %s: %v. Nothing was undone.", en.Path, err)
	}
	switch {
	case kind == "" || kind == en.Before && id.Dev == en.Dev && id.Ino == en.Ino && id.Ctime == en.Ctime:
		return nil
	case kind == en.Before:
		return errs.New(errs.Conflict, en.Path, "%s is a %s, but not the one the command made there (another was made at that path since, or this one was written to since); it may be in use, so it was kept. Nothing was undone; move it aside or remove it if it is not in use, then retry.", en.Path, kind)
	}
	return errs.New(errs.Conflict, en.Path, "%s is no longer the %s the command made: it is %s now, put there since. Nothing was undone; move it aside, then retry.", en.Path, en.Before, describeEntry(kind, "", 0))
}

// specialsNotMade turns each step that would make a FIFO or socket (the redo of an
// undo that removed one) into a step that only removes what stands there, or drops
// it: vfsctl never makes one, since a new one would not be the one the command made,
// for readers only it knew. The notes say so.
func specialsNotMade(steps []journal.Entry) ([]journal.Entry, []string) {
	var out []journal.Entry
	var notes []string
	for _, en := range steps {
		if !journal.IsSpecial(en.After) {
			out = append(out, en)
			continue
		}
		notes = append(notes, fmt.Sprintf("%s: the %s the command made is not made again (vfsctl does not make a FIFO or socket; run the command again for a new one)", en.Path, en.After))
		en.After, en.Dev, en.Ino, en.Ctime = "", 0, 0, 0
		if en.Before != "" {
			out = append(out, en)
		}
	}
	return out, notes
}

func depth(p string) int { return strings.Count(p, "/") }

// entriesBefore removes the symlinks that go or are changed, and makes the folders
// that come back, shallowest first: what the files need in place before they are
// written. A folder whose bits deny its owner reading, writing or searching it
// (chmod 555) is made with those added, so that what it holds can be put back in it
// by a user who is not root (root ignores the bits): loose are those folders, which
// folderBits gives their own bits once what they hold is back. Each folder made is
// put in madeHere, when not nil.
func (e *Engine) entriesBefore(steps []journal.Entry, madeHere map[string]bool) (loose []journal.Entry, err error) {
	for _, en := range steps {
		if en.Before == vfs.KindSymlink {
			if err := e.fs.RemoveSymlink(en.Path); err != nil {
				return nil, errs.Wrap(errs.IOError, en.Path, err, "Cannot remove the symlink %s: %v.", en.Path, err)
			}
		}
		if journal.IsSpecial(en.Before) {
			if err := e.fs.RemoveSpecial(en.Path, en.Before, en.Dev, en.Ino, en.Ctime); err != nil {
				return nil, errs.Wrap(errs.Conflict, en.Path, err, "Cannot remove the %s %s: %v. Nothing was undone.", en.Before, en.Path, err)
			}
		}
	}
	made := slices.Clone(steps)
	slices.SortStableFunc(made, func(a, b journal.Entry) int { return cmp.Compare(depth(a.Path), depth(b.Path)) })
	look := e.fs.Looker() // a chain made shallowest first: each from the folder above, held
	defer look.Close()
	for _, en := range made {
		if en.After == vfs.KindDir && en.Before != vfs.KindDir && !look.IsFolder(en.Path) {
			if err := look.MakeDir(en.Path, en.AfterMode|ownerBits); err != nil {
				if madeHere != nil && !errors.Is(err, fs.ErrExist) && look.IsFolder(en.Path) {
					madeHere[en.Path] = true // made, and a later step of it failed
				}
				return nil, errs.Wrap(errs.IOError, en.Path, err, "Cannot make the folder %s: %v.", en.Path, err)
			}
			if madeHere != nil {
				madeHere[en.Path] = true
			}
			if en.AfterMode&ownerBits != ownerBits {
				loose = append(loose, en)
			}
		}
	}
	return loose, nil
}

// ownerBits are the bits by which a folder's owner lists it, writes in it and
// passes through it.
const ownerBits = 0o700

// openFolders gives the folders steps change the bits of, or remove, whose bits deny
// their owner listing, writing in or passing through them now (chmod 555), their
// owner's bits (ownerBits) first, shallowest first, so that what they hold can be
// written or removed by a user who is not root (root ignores the bits). A folder
// that stays is given the bits it comes back with, and ownerBits: entriesAfter gives
// it those alone once what it holds is settled. One that goes keeps its bits, with
// ownerBits added: if it cannot go, it gets them back (closeFolders). A crash
// between leaves either half way, which recovery knows (entryPlaceOf) and settles
// to one end or the other. It returns the folders that go, opened.
//
// checkWritable has refused, before, a folder the steps do not name that a change
// needs to write in: only those the steps name are opened.
func (e *Engine) openFolders(steps []journal.Entry) (opened []journal.Entry, err error) {
	order := slices.Clone(steps)
	slices.SortStableFunc(order, func(a, b journal.Entry) int { return cmp.Compare(depth(a.Path), depth(b.Path)) })
	look := e.fs.Looker()
	defer look.Close()
	for _, en := range order {
		if en.Before != vfs.KindDir || en.BeforeMode&ownerBits == ownerBits {
			continue
		}
		kind, _, bits, err := look.EntryAt(en.Path)
		if err != nil || kind != vfs.KindDir || bits != en.BeforeMode {
			continue // not as the steps found it: checkEntries and checkWritable say so
		}
		open := en.BeforeMode | ownerBits
		if en.After == vfs.KindDir {
			open = en.AfterMode | ownerBits
		} else {
			opened = append(opened, en)
		}
		if err := look.SetBits(en.Path, open); err != nil {
			return opened, errs.Wrap(errs.IOError, en.Path, err, "Cannot make the folder %s writable for its owner (mode %04o): %v.", en.Path, open, err)
		}
	}
	return opened, nil
}

// restage stages again, once the steps before the files ran, each file whose staging
// failed: staged beside the pending record, before any step, it may have been
// refused by a folder openFolders has opened since.
func (e *Engine) restage(st *staging, changes []*Change) {
	for i, ch := range changes {
		if st.errs[i] != nil {
			st.files[i], st.errs[i] = e.stageReplace(ch)
		}
	}
}

// closeFolders gives the folders that were to go, opened by openFolders, that stand
// still (something else was put in them meanwhile) the bits they had, deepest
// first. It returns notes on what could not be done.
func (e *Engine) closeFolders(opened []journal.Entry) []string {
	var notes []string
	look := e.fs.Looker()
	defer look.Close()
	for _, en := range deepestFirstEntries(opened) {
		if kind, _, bits, err := look.EntryAt(en.Path); err != nil || kind != vfs.KindDir || bits == en.BeforeMode {
			continue
		}
		if err := look.SetBits(en.Path, en.BeforeMode); err != nil {
			notes = append(notes, fmt.Sprintf("%s: could not be given its bits back (%04o): %v", en.Path, en.BeforeMode, err))
		}
	}
	return notes
}

// checkWritable refuses, changing nothing, a reversal that would write in a folder
// (a file put back, changed or removed, a folder or symlink made or removed) whose
// bits deny this process writing in it or passing through it now (shutToUs), and
// that steps do not name as the calls left it: someone made it so since, and it is
// theirs to open. Else the reversal would fail part way, with a bare "permission
// denied". (The folders steps name are opened, and closed again, by the reversal:
// openFolders.) verb is the reversal's: undo, redo or rewind. The folders a reverted
// create made are not looked at: their removal is best effort, and one whose folder
// denies it stays, as it did before this check.
func (e *Engine) checkWritable(verb string, steps []journal.Entry, changes []*Change) error {
	look := e.fs.Looker()
	defer look.Close()
	// The folders steps name: opened by the reversal when as the calls left them, or
	// refused by checkEntries, with the chmod that puts them back, when not.
	named := map[string]bool{}
	for _, en := range steps {
		if en.Before == vfs.KindDir {
			named[en.Path] = true
		}
	}
	var paths []string // where an entry is made or removed
	for _, ch := range changes {
		if !ch.bitsOnly {
			paths = append(paths, ch.Path)
		}
	}
	for _, en := range steps {
		if en.Before != vfs.KindDir || en.After != vfs.KindDir {
			paths = append(paths, en.Path)
		}
	}
	// Shallowest first, so that the looks go down a chain of folders once.
	slices.SortStableFunc(paths, func(a, b string) int { return cmp.Compare(depth(a), depth(b)) })
	seen := map[string]bool{}
	for _, p := range paths {
		// The nearest folder above p that stands: those between are made by the
		// reversal, or by a create, open.
		for d := path.Dir(p); !seen[d]; d = path.Dir(d) {
			seen[d] = true
			if named[d] {
				break
			}
			fi, err := look.Lstat(d)
			if errors.Is(err, fs.ErrNotExist) && d != "." {
				continue
			}
			if err != nil || !fi.IsDir() {
				break // checkEntries, blockedFolder or the change's own check says so
			}
			if shutToUs(fi) {
				bits := uint32(fi.Mode().Perm())
				who := map[uint32]string{0o200: "u+w", 0o100: "u+x", 0o300: "u+wx"}[0o300&^bits]
				return errs.New(errs.PermissionDenied, p, "The change to %s cannot be taken back: its folder %s is not writable (mode %04o), and the calls taken back did not make it so. Nothing was %s; run `chmod %s %s` first, then %s again.",
					p, d, bits, pastOf(verb), who, shellPath(d), verb)
			}
			break
		}
	}
	return nil
}

// checkDryRun refuses a dry run of a reversal where its run would refuse before
// writing anything (withEntries): a folder shut to it, an entry changed since.
func (e *Engine) checkDryRun(c *Call, steps []journal.Entry, changes []*Change, made []string) error {
	if err := e.checkWritable(reversalVerb(&c.rec), steps, changes); err != nil {
		return err
	}
	return e.checkEntries(&c.rec, steps, changes, made)
}

// laterEntryCall is the latest record after those rec reverts (its undo's, redo's or
// rewind's) with an entry for the folder or symlink at p, not one rec reverts; 0
// when there is none: what changed p since, if anything, was not journaled.
func (e *Engine) laterEntryCall(rec *journal.Record, p string) uint64 {
	reverted := slices.Clone(rec.Reverts)
	for _, s := range []uint64{rec.Undo, rec.Redo} {
		if s != 0 {
			reverted = append(reverted, s)
		}
	}
	if len(reverted) == 0 {
		return 0
	}
	var later uint64
	e.j.View(func(t *journal.Tx) error {
		for _, s := range t.SeqsOf(p+"/", slices.Min(reverted)) {
			if s != rec.Seq && !slices.Contains(reverted, s) {
				later = s
			}
		}
		return nil
	})
	return later
}

// reversalVerb is the word for what call record r does: undo, redo or rewind.
func reversalVerb(r *journal.Record) string {
	switch {
	case r.Redo != 0:
		return "redo"
	case len(r.Reverts) > 0:
		return "rewind"
	}
	return "undo"
}

// leftBy names, in a refusal, the call whose change rec reverses, which left the
// entries as their Before says: a command's, or a redo's, or (a rewind) the latest
// of the calls it reverts.
func leftBy(r *journal.Record) string {
	switch {
	case r.Undo != 0:
		return fmt.Sprintf("call %d", r.Undo)
	case r.Redo != 0:
		return fmt.Sprintf("call %d", r.Redo)
	}
	return "the calls rewound"
}

func pastOf(verb string) string {
	if verb == "rewind" {
		return "rewound"
	}
	return verb + "ne"
}

// folderBits gives each folder of made (made with ownerBits added, or by a create
// with the usual bits) the bits its step brings it back with, deepest first: a
// folder is given bits that may deny writing in it only once what it holds is in
// place, and before the folder above it is. It returns notes on what could not be
// done.
func (e *Engine) folderBits(made []journal.Entry) []string {
	var notes []string
	look := e.fs.Looker()
	defer look.Close()
	for _, en := range deepestFirstEntries(made) {
		kind, _, bits, err := look.EntryAt(en.Path)
		if err == nil && (kind != vfs.KindDir || bits == en.AfterMode) {
			continue
		}
		if err == nil {
			err = look.SetBits(en.Path, en.AfterMode)
		}
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s: could not be made %s: %v", en.Path, describeEntry(en.After, en.AfterTarget, en.AfterMode), err))
		}
	}
	return notes
}

// entriesAfter removes the folders that go (deepest first, only when empty), with
// the folders made (by the reverted creates) among them, so that a folder goes after
// whatever of either kind it holds; then it makes the symlinks that come back and
// gives folders their bits back. It returns notes on what could not be done, and the
// made folders removed, deepest first.
func (e *Engine) entriesAfter(steps []journal.Entry, made []string) (notes []string, removed []string) {
	type gone struct {
		path string
		made bool
	}
	for _, en := range steps {
		if journal.IsSpecial(en.Before) {
			if err := e.fs.RemoveSpecial(en.Path, en.Before, en.Dev, en.Ino, en.Ctime); err != nil {
				notes = append(notes, fmt.Sprintf("%s: the %s was left (%v)", en.Path, en.Before, err))
			}
		}
	}
	var all []gone
	for _, en := range steps {
		if en.Before == vfs.KindDir && en.After != vfs.KindDir {
			all = append(all, gone{path: en.Path})
		}
	}
	for _, d := range deepestFirst(made) {
		all = append(all, gone{path: d, made: true})
	}
	slices.SortStableFunc(all, func(a, b gone) int { return cmp.Compare(depth(b.path), depth(a.path)) })
	closeMade := e.openMade(made)
	look := e.fs.Looker() // a chain removed deepest first: each from the folder above, held
	for _, g := range all {
		err := look.RemoveDir(g.path)
		switch {
		case g.made && err == nil:
			removed = append(removed, g.path)
		case !g.made && err != nil:
			notes = append(notes, fmt.Sprintf("%s: the folder was left, not being empty (%v)", g.path, err))
		}
	}
	closeMade()
	var bits []journal.Entry
	for _, en := range steps {
		switch {
		case en.After == vfs.KindSymlink:
			if err := e.fs.MakeSymlink(en.AfterTarget, en.Path); err != nil {
				notes = append(notes, fmt.Sprintf("%s: could not be made %s: %v", en.Path, describeEntry(en.After, en.AfterTarget, en.AfterMode), err))
			}
		case en.After == vfs.KindDir && en.Before == vfs.KindDir:
			bits = append(bits, en)
		}
	}
	look.Close()
	// Once the symlinks are in them: bits that deny writing would refuse those.
	look = e.fs.Looker()
	defer look.Close()
	for _, en := range deepestFirstEntries(bits) {
		if err := look.SetBits(en.Path, en.AfterMode); err != nil {
			notes = append(notes, fmt.Sprintf("%s: could not be made %s: %v", en.Path, describeEntry(en.After, en.AfterTarget, en.AfterMode), err))
		}
	}
	return notes, removed
}

// leaveStanding drops from steps each folder to make that already stands: it is left
// as it is, with its own bits, so it is no step of the call. Neither the record nor
// the reply says it was made, and a redo does not remove it.
func (e *Engine) leaveStanding(steps []journal.Entry) []journal.Entry {
	var kept []journal.Entry
	for _, en := range steps {
		if en.After == vfs.KindDir && en.Before != vfs.KindDir && e.fs.IsFolder(en.Path) {
			continue
		}
		kept = append(kept, en)
	}
	return kept
}

// withEntries has call c take steps back with its files: checked now, recorded in
// its pending record, the first half run once that is written. The second half runs
// when commit returns (after); it removes too the folders made (by the reverted
// creates) that are empty then, and returns those. Where a folder and a file trade
// places (swaps), what goes is removed before what comes is put back.
func (e *Engine) withEntries(c *Call, steps []journal.Entry, changes []*Change, made []string) (after func() []string, err error) {
	// (After runs with the call's hold: the journal is held.)
	sw := e.swapsOf(steps, changes, made)
	if len(sw.cleared) > 0 || len(sw.later) > 0 || createdUnderDeleted(changes) {
		// The deletions go first: a file put back where a folder goes waits for the
		// folder, and a folder put back where a file goes waits for the file.
		slices.SortStableFunc(changes, func(a, b *Change) int {
			switch {
			case a.Deleted == b.Deleted:
				return 0
			case a.Deleted:
				return -1
			}
			return 1
		})
	}
	// The folders the reverted creates made, standing now, are steps of the record
	// too (a folder to nothing), so that an undo of this call makes them again with
	// their bits; the committed record keeps those that went.
	going := e.madeSteps(made, steps)
	if err := e.checkWritable(reversalVerb(&c.rec), steps, changes); err != nil {
		return nil, err
	}
	if len(steps) == 0 && len(sw.cleared) == 0 {
		c.rec.Entries = going
		return func() []string {
			removed := e.removeMadeFolders(made)
			e.recordMadeGone(c, nil, going, nil)
			return removed
		}, nil
	}
	if err := e.checkEntries(&c.rec, steps, changes, made); err != nil {
		return nil, err
	}
	c.rec.Entries = append(slices.Clone(steps), going...)
	var loose []journal.Entry  // the folders made that are given their bits last
	var opened []journal.Entry // the folders to remove that were opened first
	c.beforeFiles = func() (err error) {
		if opened, err = e.openFolders(steps); err != nil {
			return err
		}
		c.madeHere = map[string]bool{}
		loose, err = e.entriesBefore(sw.first, c.madeHere)
		return err
	}
	var cleared []string // the made folders among them, for the reply
	if len(sw.cleared) > 0 {
		c.afterDeletes = func(done []*Change) error {
			for _, d := range sw.cleared {
				if slices.Contains(made, d) {
					cleared = append(cleared, d)
				}
			}
			return e.clearFolders(sw.cleared, done)
		}
	}
	return func() []string {
		notes := e.laterFolders(sw.later)
		more, removed := e.entriesAfter(sw.then, made)
		notes = append(notes, more...)
		notes = append(notes, e.closeFolders(opened)...)
		notes = append(notes, e.folderBits(append(loose, sw.later...))...)
		e.recordMadeGone(c, steps, going, notes)
		return append(removed, cleared...)
	}, nil
}

// madeSteps are the steps that remove the folders made (by the reverted creates)
// that stand now, with their bits, deepest first; a folder that steps name already
// is theirs.
func (e *Engine) madeSteps(made []string, steps []journal.Entry) []journal.Entry {
	var out []journal.Entry
	look := e.fs.Looker()
	defer look.Close()
	// Looked at shallowest first, so that the looks go down a chain of folders once.
	deep := deepestFirst(made)
	for i := len(deep) - 1; i >= 0; i-- {
		d := deep[i]
		if slices.ContainsFunc(steps, func(en journal.Entry) bool { return en.Path == d }) {
			continue
		}
		if kind, _, bits, err := look.EntryAt(d); err == nil && kind == vfs.KindDir {
			out = append(out, journal.Entry{Path: d, Before: vfs.KindDir, BeforeMode: bits})
		}
	}
	slices.Reverse(out)
	return out
}

// recordMadeGone writes call c's record again once its folders are settled: its
// entries are steps and those of going (the made folders) that went, a made folder
// that holds something else by then staying out of them; notes are added to it.
// The snapshot is told what the paths hold now.
func (e *Engine) recordMadeGone(c *Call, steps, going []journal.Entry, notes []string) {
	rec := c.rec
	rec.Notes = append(slices.Clone(rec.Notes), notes...)
	rec.Entries = slices.Clone(steps)
	for _, en := range going {
		if !e.fs.IsFolder(en.Path) {
			rec.Entries = append(rec.Entries, en)
		}
	}
	c.rec.Entries = rec.Entries
	if len(notes) == 0 && len(going) == 0 && len(steps) == 0 {
		return
	}
	// With the committed record (deferred by commit, which this transaction carries
	// first): a failure leaves the snapshot behind, and the next look journals the
	// entries as found then; the record keeps the folders planned, which an undo
	// makes again only where nothing stands.
	e.j.Commit(func(t *journal.Tx) error {
		if len(notes) > 0 || len(rec.Entries) != len(steps)+len(going) {
			if err := t.Put(&rec); err != nil {
				return err
			}
		}
		return e.snapEntries(t, append(slices.Clone(steps), going...))
	})
}

// underDeleted reports whether a folder above p is a file one of changes deletes.
func underDeleted(p string, changes []*Change) bool {
	for _, ch := range changes {
		if ch.Deleted && strings.HasPrefix(p, ch.Path+"/") {
			return true
		}
	}
	return false
}

// createdUnderDeleted reports whether a change creates a file under the path of a
// file another deletes: the deletion must come first.
func createdUnderDeleted(changes []*Change) bool {
	for _, ch := range changes {
		if ch.Deleted {
			for _, in := range changes {
				if in.Created && strings.HasPrefix(in.Path, ch.Path+"/") {
					return true
				}
			}
		}
	}
	return false
}

// snapEntries tells the snapshot what the entries' paths hold now, so that the next
// look does not take the undo's work for a change made outside vfsctl.
func (e *Engine) snapEntries(t *journal.Tx, steps []journal.Entry) error {
	if !t.HasSnapshot() {
		return nil
	}
	snap := t.Snapshot()
	look := e.fs.Looker()
	defer look.Close()
	for _, en := range steps {
		kind, target, bits, err := look.EntryAt(en.Path)
		if err == nil && journal.IsSpecial(kind) {
			continue // a FIFO or socket left standing (vfsctl makes none): as the snapshot has it
		}
		if err != nil || (kind != vfs.KindDir && kind != vfs.KindSymlink) {
			if old, ok := snap[en.Path]; ok && old.Kind != vfs.KindFile {
				if err := t.SetSnapshotEntry(en.Path, nil); err != nil {
					return err
				}
			}
			continue
		}
		if err := t.SetSnapshotEntry(en.Path, &journal.SnapEntry{Kind: kind, Target: target, Mode: bits}); err != nil {
			return err
		}
	}
	return nil
}

// entriesFailed records call c refused: a step before its files failed (none was
// written). The steps done before it are taken back.
func (e *Engine) entriesFailed(c *Call, err error) error {
	e.entriesTakenBack(c)
	c.final = true
	c.rec.State = journal.Failed
	c.rec.Kind = string(errs.KindOf(err))
	c.rec.Message = err.Error()
	c.rec.Duration = time.Since(c.start)
	if cerr := e.j.Commit(func(t *journal.Tx) error { return t.Put(&c.rec) }); cerr != nil {
		return cerr
	}
	return err
}

// entriesTakenBack puts back, for call c refused after its first steps ran (a step
// or a file failed), what those steps changed: a refused call changes nothing. What
// was put back, and what could not be, is in the record's notes.
func (e *Engine) entriesTakenBack(c *Call) {
	if c.beforeFiles == nil {
		return
	}
	steps, files := e.placeEntries(&c.rec, false)
	for i, st := range steps {
		// A folder the call was to make that stands, but not made by it (made by
		// someone else while it ran): theirs, left. Recovery after a crash cannot
		// tell, and goes by what stands.
		if en := st.en; en.Before == vfs.KindDir && en.After != vfs.KindDir && st.place == entryAtBefore && !c.madeHere[en.Path] {
			steps[i].place = entryElsewhere
			steps[i].why = fmt.Sprintf("the folder %s was made by someone else while the call ran, not by the call: it was left", en.Path)
		}
	}
	notes := append(e.entriesFirst(steps), e.entriesThen(steps, files)...)
	for _, st := range steps {
		switch {
		case st.why != "":
			notes = append(notes, st.why)
		case st.place == entryElsewhere || st.place == entryUntrusted:
			notes = append(notes, fmt.Sprintf("%s is %s, not as the call found it: it was left alone", st.en.Path, describeFound(st.kind, st.bits)))
		}
	}
	c.rec.Notes = append(c.rec.Notes, notes...)
}

// specialGoing reports whether p is the path of a FIFO or socket that steps remove
// (a command's `rm f && mkfifo f` taken back): the file there is read as absent, and
// comes back once it has made way. checkEntries refuses the whole undo if it is not
// the one the command made.
func specialGoing(p string, steps []journal.Entry) bool {
	return slices.ContainsFunc(steps, func(en journal.Entry) bool { return en.Path == p && journal.IsSpecial(en.Before) })
}

// underSymlinkGoing reports whether p is, or lies under, a symlink that steps remove
// (a command's `ln -sf t.txt a.txt` taken back): a file there is read as absent (the
// symlink's target is not followed), and comes back once the symlink has made way.
// checkEntries then refuses the whole undo if the symlink is not as the command
// left it.
func underSymlinkGoing(p string, steps []journal.Entry) bool {
	for _, en := range steps {
		if en.Before == vfs.KindSymlink && en.After != vfs.KindSymlink && (p == en.Path || strings.HasPrefix(p, en.Path+"/")) {
			return true
		}
	}
	return false
}

// shellPath is p, a workspace path, as one word of a POSIX shell command that the
// advice of a refusal gives (chmod's operand): a leading "-" gets "./" so that it is
// no option, and a name with anything but plain characters is single-quoted.
func shellPath(p string) string {
	if strings.HasPrefix(p, "-") {
		p = "./" + p
	}
	if p == "" || strings.ContainsFunc(p, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("@%+=:,./_-", r)
	}) {
		p = "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
	}
	return p
}

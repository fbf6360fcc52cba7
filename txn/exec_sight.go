package txn

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/vfs"
)

// A look compares two walks, each under the .gitignore files of its time. When a
// .gitignore changed in between, some paths came into the walk's sight and others went
// out of it without being made or removed: a file that stops being ignored is not the
// command's creation (its undo would remove the user's file), and a file that becomes
// ignored is not deleted (its undo would be refused, the file being there).
//
// The rules:
//   - a path that the earlier walk's rules (the .gitignore files of the snapshot)
//     left out, and that is seen now, was there or not, unknown: it is not a change;
//     the snapshot takes it from now on. A file a command made where .gitignore hid
//     it before is therefore not recorded as made: the careful side, since its
//     undo would remove it.
//   - a file a call wrote (a head in the journal, from a record that is neither a
//     command's nor an outside one) is followed by every look though the rules
//     hide it (follow): the walk's sight includes it, so the first rule does not
//     apply to it, and a command's change of it is the command's. A file no call
//     wrote stays out of sight.
//   - a path of the snapshot that the walk does not see but that still stands, of the
//     same kind (an lstat), is not removed. Left out by the rules of now, it leaves
//     the snapshot (a later look that sees it again meets the first rule), and a file
//     of it that changed meanwhile is read, its change told as any; else (a folder
//     that could not be listed) the snapshot keeps its last known state.
//
// inSight returns the map to tell changes against (now, less the paths that came into
// sight, plus the state of those that went out of it: as last known, or as read now
// when a file changed as it went, its content added to data), and notes that name
// both; it takes out of now the paths that the rules of now leave out, still standing.
// changed are the paths where old and now differ (snapOf): it looks at those only.
// oldExclude is the .git/info/exclude the walk of old applied (nil: none), whose
// rules count with those of old's .gitignore files, as scan.Exclude's with now's.
func inSight(fsys *vfs.FS, old, now map[string]journal.SnapEntry, changed []string, scan *vfs.Scan, oldExclude []byte, content func(hash string) []byte) (map[string]journal.SnapEntry, []string) {
	data := scan.Data
	var came, went, unread []string
	seen, cloned := now, false
	clone := func() {
		if !cloned {
			seen, cloned = maps.Clone(now), true
		}
	}
	var before, after *vfs.Ignores
	for _, p := range changed {
		n, has := now[p]
		if _, had := old[p]; had || !has {
			continue
		}
		if before == nil {
			before = ignoresOf(old, oldExclude, content)
		}
		if before.Hid(p, n.Kind == vfs.KindDir) && !slices.Contains(scan.Followed, p) {
			clone()
			delete(seen, p)
			came = append(came, p)
		}
	}
	for _, p := range changed {
		o, had := old[p]
		if _, has := now[p]; has || !had {
			continue
		}
		st, ok, err := fsys.Lstat(p)
		if err != nil || !ok || st.Kind != o.Kind {
			continue // gone, another kind, or not to be looked at: told as removed
		}
		clone()
		seen[p] = o
		if after == nil {
			after = ignoresOf(now, scan.Exclude, content)
		}
		if after.Hid(p, o.Kind == vfs.KindDir) {
			delete(now, p)
			went = append(went, p)
			if o.Kind == vfs.KindFile && !st.ID.SameFile(fromSnap(p, o).ID) {
				// It changed too: read as the walk would have, the change is told.
				b, err := fsys.ReadSnapFile(p, vfs.DefaultSnapshotMaxFile)
				if err != nil {
					unread = append(unread, p)
					continue
				}
				h := journal.Hash(b)
				data[h] = b
				seen[p] = journal.SnapEntry{Kind: vfs.KindFile, Mode: st.Mode, Size: int64(len(b)), Dev: st.ID.Dev, Ino: st.ID.Ino, Mtime: st.ID.Mtime, Ctime: st.ID.Ctime, Hash: h}
			}
			continue
		}
		now[p] = o // not seen, for a reason of its own: kept as last known
	}
	var notes []string
	rules := ".gitignore"
	if !sameExclude(oldExclude, scan.Exclude) {
		rules = ".gitignore or .git/info/exclude"
	}
	if len(came) > 0 {
		notes = append(notes, fmt.Sprintf("%s left out %s before this look; now seen, %s not taken as made here (what stood there before was not recorded)", rules, names(came), itThey(came)))
	}
	if len(went) > 0 {
		notes = append(notes, fmt.Sprintf("%s now leaves out %s; still there, %s not taken as removed, and no longer followed", rules, names(went), itThey(went)))
	}
	if len(unread) > 0 {
		notes = append(notes, fmt.Sprintf("%s changed as %s came to leave %s out, and could not be read again; this record does not hold that change", names(unread), rules, itThem(unread)))
	}
	return seen, notes
}

// ignoresOf are the rules of the .gitignore files in snapshot s, each as a walk used
// it: a file, of at most vfs.MaxIgnoreBytes; one whose content the journal does not
// hold counts as unknown rules, which hide everything below its folder. exclude is
// the .git/info/exclude the walk of s applied (nil: none).
func ignoresOf(s map[string]journal.SnapEntry, exclude []byte, content func(hash string) []byte) *vfs.Ignores {
	files := map[string][]byte{}
	for p, e := range s {
		dir, ok := vfs.IgnoreFolder(p)
		if !ok || e.Kind != vfs.KindFile {
			continue
		}
		if e.Size > vfs.MaxIgnoreBytes {
			continue // a walk does not use it either
		}
		var data []byte // nil: not held (over a snapshot's size limit, or missing)
		if !e.Large {
			data = content(e.Hash)
		}
		if data == nil && e.Size == 0 {
			data = []byte{}
		}
		files[dir] = data
	}
	return vfs.NewIgnores(files, exclude)
}

// sameExclude reports whether two walks applied the same .git/info/exclude (nil:
// none): a look that finds every entry as the snapshot has it still keeps the new
// one, else the next look would judge what came into sight by rules no walk used.
func sameExclude(a, b []byte) bool {
	return (a == nil) == (b == nil) && bytes.Equal(a, b)
}

// names lists paths for a note, sorted, at most 5 by name.
func names(ps []string) string {
	slices.Sort(ps)
	if len(ps) > 5 {
		return strings.Join(ps[:5], ", ") + fmt.Sprintf(" and %d more", len(ps)-5)
	}
	return strings.Join(ps, ", ")
}

func itThey(ps []string) string {
	if len(ps) == 1 {
		return "it is"
	}
	return "they are"
}

func itThem(ps []string) string {
	if len(ps) == 1 {
		return "it"
	}
	return "them"
}

// follow adds to scan, a walk against base, the files below the entries its rules
// left out that a call wrote (calledIgnored), as the walk would have read them; j is
// held. A model that writes build/gen.txt with create_file and then runs a command
// that changes it expects the command's change in the journal, .gitignore or not:
// without it, the turn's rewind meets a change no record holds.
func (e *Engine) follow(j *journal.Journal, o LookOptions, scan *vfs.Scan, base map[string]journal.SnapEntry) error {
	if len(scan.Ignored) == 0 {
		return nil
	}
	var paths []string
	if err := j.View(func(t *journal.Tx) error {
		paths = calledIgnored(t, scan.Ignored)
		return nil
	}); err != nil {
		return err
	}
	e.fs.Follow(scan, paths, func(p string) (vfs.Entry, bool) {
		s, ok := base[p]
		return fromSnap(p, s), ok
	}, o.MaxFile)
	return nil
}

// calledIgnored are the paths at the ignored entries (vfs.Scan.Ignored) with a head
// that a committed call changed: not a command, whose change of an ignored file is
// not seen, nor an outside record, which only holds what a walk saw (a file that
// .gitignore came to hide stops being followed, exec_sight.go's second rule). Only
// the paths with a head are decoded, oldest record first: the call that made a file
// is its first.
//
// Each record is decoded once per look, whatever the number of its paths asked about:
// a command that made 2,000 files under an ignored folder, undone and redone, made
// every look decode its record 2,000 times (a look of `exec -- true` took 50 s).
func calledIgnored(t *journal.Tx, ignored []string) []string {
	changed := map[uint64]map[string]bool{} // a call's record: the paths it changed; nil for no call
	changedBy := func(seq uint64) map[string]bool {
		if m, ok := changed[seq]; ok {
			return m
		}
		var m map[string]bool
		r, err := t.Get(seq)
		if err == nil && r != nil && r.State == journal.Committed && !journal.IsCommand(r.Tool) && r.Tool != ToolOutside {
			m = map[string]bool{}
			for _, f := range r.Files {
				if f.Op.Changes() {
					m[f.Path] = true
				}
			}
		}
		changed[seq] = m
		return m
	}
	var out []string
	for _, q := range ignored {
		for _, p := range t.HeadsAt(q) {
			if slices.ContainsFunc(t.SeqsOf(p, 0), func(seq uint64) bool { return changedBy(seq)[p] }) {
				out = append(out, p)
			}
		}
	}
	return out
}

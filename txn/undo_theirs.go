package txn

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
)

// A command's record of a file that another session's call changed while the
// command ran, between changes of the command's, holds the whole change, theirs
// included (leaveOutCalls cannot split it, and its note says so). Taking the command
// back must keep their lines: its change is reverted against its prior content with
// their changes applied by lines (withTheirs), and where theirs and the command's
// touch the same lines, it is refused as a conflict naming their call.

// theirsIn are the calls whose changes exec record r's change of path includes, as
// the record's note names them.
func theirsIn(r *journal.Record, path string) []uint64 {
	if r == nil || !journal.IsCommand(r.Tool) {
		return nil
	}
	prefix := path + ": calls ["
	for _, n := range r.Notes {
		rest, ok := strings.CutPrefix(n, prefix)
		if !ok || !strings.HasSuffix(n, "includes theirs") {
			continue
		}
		list, _, ok := strings.Cut(rest, "]")
		if !ok {
			continue
		}
		var seqs []uint64
		for _, w := range strings.Fields(list) {
			if s, err := strconv.ParseUint(w, 10, 64); err == nil && s > r.Seq {
				seqs = append(seqs, s)
			}
		}
		slices.Sort(seqs)
		return seqs
	}
	return nil
}

// withTheirs is the content before the command's change of f (before) with the
// changes of the calls theirs applied, by lines, in order: what taking the command
// back alone leaves. A call whose change meets the command's lines, or that created,
// removed or replaced a file that is not text, refuses it, naming the call.
func withTheirs(t *journal.Tx, f journal.File, exec uint64, before []byte, theirs []uint64) ([]byte, error) {
	out := before
	for _, seq := range theirs {
		r, err := t.Get(seq)
		if err != nil || r == nil {
			return nil, errs.New(errs.IOError, f.Path, "Call %d, which changed %s while call %d's command ran, is missing from the journal; nothing was written.", seq, f.Path, exec)
		}
		for _, rf := range r.Files {
			if rf.Path != f.Path || !rf.Op.Changes() {
				continue
			}
			cb, err := versionOf(t, f.Path, rf.Before)
			var ca []byte
			if err == nil {
				ca, err = versionOf(t, f.Path, rf.After)
			}
			if err != nil {
				return nil, errs.Wrap(errs.IOError, f.Path, err, "Cannot rebuild %s as call %d found or left it: %v. Nothing was written.", f.Path, seq, err)
			}
			var clash []int
			if cb != nil && ca != nil && f.Op == journal.OpEdit && isText(cb) && isText(ca) {
				out, clash = merge3(cb, out, ca)
			} else {
				clash = []int{1, 1}
			}
			if clash != nil {
				fact := fmt.Sprintf("Call %d (session %s) changed %s while call %d's command ran, next to or on the lines the command changed; taking the command back would take back that call's change too. Nothing was written.", seq, r.Session, f.Path, exec)
				return nil, &errs.Error{Kind: errs.Conflict, Path: f.Path, Message: fmt.Sprintf("%s Undo call %d first.", fact, seq), Blocker: seq, Fact: fact}
			}
		}
	}
	return out, nil
}

// keepTheirs makes the reversal of a command's change of its file leave the lines of
// the calls theirs (which the record's change includes): its change is taken as the
// one from the prior content with theirs applied to the content it left, and those
// calls are not later changes in its way.
func (rv *reversal) keepTheirs(theirs []uint64) error {
	rv.later = slices.DeleteFunc(rv.later, func(s uint64) bool { return slices.Contains(theirs, s) })
	f := rv.f
	return rv.e.j.View(func(t *journal.Tx) error {
		before, err := versionOf(t, f.Path, f.Before)
		var after []byte
		if err == nil {
			after, err = versionOf(t, f.Path, f.After)
		}
		if err != nil {
			return errs.Wrap(errs.IOError, f.Path, err, "Cannot undo call %d: %v.", rv.target, err)
		}
		mine, err := withTheirs(t, f, rv.target, before, theirs)
		if err != nil {
			return err
		}
		rv.f.Splices = nil
		for _, s := range lineSplices(mine, after) {
			rv.f.Splices = append(rv.f.Splices, journal.Splice{Start: s.Start, Old: mine[s.Start:s.End], New: s.Text})
		}
		return nil
	})
}

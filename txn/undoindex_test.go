package txn

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
)

// The history index chooses and checks undo and redo targets exactly as reading every
// record does, for every target and scope, after random sessions of edits, creates,
// writes, undos and redos; so does the history built in memory for a journal that has
// no index.
func TestHistoryIndexAgreesWithRecords(t *testing.T) {
	e, _ := memWorkspace(t, map[string]string{"a.txt": "a1\na2\na3\n", "b.txt": "b1\nb2\n"})
	rng := rand.New(rand.NewSource(16))
	questions, targets := 0, 0
	// Sessions one after the other, each a few calls: an undo of one session's change
	// that another changed since is a conflict, which randomSession does not expect.
	for k := range 30 {
		randomSession(t, e, rng, fmt.Sprintf("s%d", k), 4)
		if k%2 == 0 {
			continue
		}
		q, n := compareHistories(t, e, "s0", fmt.Sprintf("s%d", k))
		questions, targets = questions+q, targets+n
	}
	if targets < questions/5 {
		t.Fatalf("only %d of %d questions had a target: the sessions made too little history", targets, questions)
	}
	t.Logf("%d questions, %d with a target", questions, targets)
}

// compareHistories asks the index, the history built in memory and the oracle every
// question undo and redo can ask of the journal now; it returns how many it asked and
// how many had a target.
func compareHistories(t *testing.T, e *Engine, sessions ...string) (questions, targets int) {
	t.Helper()
	outcome := func(target uint64, err error) string {
		if err != nil {
			return fmt.Sprintf("%s: %v", errs.KindOf(err), err)
		}
		return fmt.Sprint(target)
	}
	var last uint64
	var paths []string
	e.View(func(tx *journal.Tx) error {
		last = tx.Last()
		for p := range tx.Heads() {
			paths = append(paths, p)
		}
		return nil
	})
	var opts []UndoOptions
	for _, redo := range []bool{false, true} {
		for _, s := range append([]string{"", "nobody"}, sessions...) {
			for _, p := range append([]string{""}, paths...) {
				opts = append(opts, UndoOptions{Redo: redo, Session: s, Path: p})
			}
		}
		for seq := uint64(1); seq <= last+1; seq++ {
			opts = append(opts, UndoOptions{Seq: seq, Redo: redo})
		}
	}
	for _, index := range []bool{true, false} {
		historyIndex = index
		err := e.View(func(tx *journal.Tx) error {
			want, err := oracleLoad(tx)
			if err != nil {
				return err
			}
			got, err := openHistory(tx)
			if err != nil {
				return err
			}
			for _, o := range opts {
				var w, g string
				if o.Seq == 0 {
					w, g = outcome(want.pick(o)), outcome(got.pick(o, nil, nil))
				} else {
					w, g = outcome(phrased(tx, o)(want.check(o))), outcome(phrased(tx, o)(got.check(o)))
				}
				if w != g {
					t.Errorf("after call %d, index %v, %+v: got %s, want %s", last, index, o, g, w)
				}
				questions++
				if !strings.Contains(w, ":") {
					targets++
				}
			}
			return nil
		})
		historyIndex = true
		if err != nil {
			t.Fatal(err)
		}
	}
	return questions, targets
}

// oracleHistory is how undo chose its target before the history index: from every
// record of the journal, decoded. It is the model the index is checked against.
type oracleHistory struct {
	recs   map[uint64]*journal.Record
	origin map[uint64]uint64 // record -> the call its change came from
	latest map[uint64]uint64 // origin -> its latest record (itself, an undo or a redo)
	order  []uint64          // origins, oldest first
}

func (h *oracleHistory) reverted(origin uint64) bool {
	r := h.recs[h.latest[origin]]
	return r != nil && r.Undo != 0
}

func oracleLoad(t *journal.Tx) (*oracleHistory, error) {
	h := &oracleHistory{recs: map[uint64]*journal.Record{}, origin: map[uint64]uint64{}, latest: map[uint64]uint64{}}
	for seq := uint64(1); seq <= t.Last(); seq++ {
		r, err := t.Get(seq)
		if err != nil {
			return nil, err
		}
		if r == nil || r.State != journal.Committed || !oracleChanges(r) {
			continue
		}
		h.recs[seq] = r
		o := seq
		switch {
		case r.Undo != 0:
			o = h.origin[r.Undo]
		case r.Redo != 0:
			o = h.origin[r.Redo]
		}
		if o == 0 {
			continue // its target is not a change this journal knows
		}
		if o == seq {
			h.order = append(h.order, seq)
		}
		h.origin[seq] = o
		h.latest[o] = seq
	}
	return h, nil
}

func oracleChanges(r *journal.Record) bool {
	for _, f := range r.Files {
		if f.Op.Changes() {
			return true
		}
	}
	return false
}

// pick finds the record to revert (undo) or the undo to revert (redo).
func (h *oracleHistory) pick(o UndoOptions) (uint64, error) {
	matches := func(origin uint64) bool {
		r := h.recs[origin]
		if o.Session != "" && r.Session != o.Session {
			return false
		}
		if o.Path != "" {
			for _, f := range h.recs[h.latest[origin]].Files {
				if f.Path == o.Path {
					return true
				}
			}
			return false
		}
		return true
	}
	var best, newestChange, ended uint64
	for _, origin := range h.order {
		if matches(origin) {
			newestChange = max(newestChange, origin)
		}
	}
	for _, origin := range h.order {
		if !matches(origin) || h.reverted(origin) == !o.Redo {
			continue
		}
		l := h.latest[origin]
		if o.Redo && l < newestChange {
			ended = max(ended, l)
			continue // as in an editor, a new change ends what can be redone
		}
		best = max(best, l)
	}
	if best == 0 && ended > 0 {
		return 0, errs.New(errs.NoChange, o.Path, "Undo %d can no longer be redone: call %d made a new change after it%s, and a new change ends what can be redone.", ended, newestChange, scopeText(o))
	}
	if best == 0 {
		what := "change to undo"
		if o.Redo {
			what = "undo to redo"
		}
		return 0, errs.New(errs.NoChange, o.Path, "There is no %s%s.", what, scopeText(o))
	}
	return best, nil
}

// phrased words check's errNotAChange as undoTarget does.
func phrased(tx *journal.Tx, o UndoOptions) func(uint64, error) (uint64, error) {
	return func(target uint64, err error) (uint64, error) {
		if err == errNotAChange {
			err = notAChange(tx, o)
		}
		return target, err
	}
}

// check validates an explicit target.
func (h *oracleHistory) check(o UndoOptions) (uint64, error) {
	r := h.recs[o.Seq]
	if r == nil {
		return 0, errNotAChange // phrased by notAChange, as the engine's
	}
	origin := h.origin[o.Seq]
	latest := h.latest[origin]
	if o.Redo {
		if r.Undo == 0 {
			return 0, errs.New(errs.InvalidInput, "", "Call %d is not an undo; redo re-applies what an undo reverted. To revert call %d, undo it.", o.Seq, o.Seq)
		}
		if latest != o.Seq {
			return 0, errs.New(errs.InvalidInput, "", "Undo %d was already redone or undone again by call %d.", o.Seq, latest)
		}
		return o.Seq, nil
	}
	if r.Undo != 0 {
		return 0, errs.New(errs.InvalidInput, "", "Call %d is an undo; to re-apply what it reverted, redo %d.", o.Seq, o.Seq)
	}
	if h.reverted(origin) {
		return 0, errs.New(errs.InvalidInput, "", "Call %d is already undone (by call %d); redo %d re-applies it.", o.Seq, latest, latest)
	}
	return latest, nil
}

package txn

import (
	"io/fs"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
)

// hostPath stands for where a journal lives on the host: no message may show it.
const hostPath = "/srv/hostonly/ws/.vfsctl/journal.db"

func noSpace() error { return &fs.PathError{Op: "write", Path: hostPath, Err: syscall.ENOSPC} }

// nospaceEdit runs an edit that fails for want of space and returns the call's number
// as the reply would carry it, with the error.
func nospaceEdit(t *testing.T, e *Engine) (uint64, error) {
	t.Helper()
	var c *Call
	err := do(e, "s", func(cc *Call) error {
		c = cc
		_, err := e.Edit(cc, "a.txt", []matcher.Edit{{OldText: "beta", NewText: "BETA"}}, false)
		return err
	})
	testutil.WantKind(t, err, errs.IOError)
	if strings.Contains(err.Error(), "hostonly") {
		t.Errorf("the message shows a host path: %v", err)
	}
	return c.Seq(), err
}

// A call that fails for want of space, on the workspace's disk or the journal's, is
// journaled as a failed call under the number its reply carries; where the journal
// cannot take even that, the reply carries no number.
func TestNoSpaceKeepsTheCallsNumber(t *testing.T) {
	check := func(t *testing.T, e *Engine, seq uint64) {
		t.Helper()
		if seq == 0 {
			t.Fatal("the reply carries no transaction number")
		}
		var rec *journal.Record
		e.View(func(tx *journal.Tx) error { rec, _ = tx.Get(seq); return nil })
		if rec == nil || rec.State != journal.Failed || rec.Kind != string(errs.IOError) {
			t.Fatalf("the journal's record %d: %+v", seq, rec)
		}
		if strings.Contains(rec.Message, "hostonly") {
			t.Errorf("the record's message shows a host path: %s", rec.Message)
		}
	}
	t.Run("workspace", func(t *testing.T) {
		r := newFaultRig(t)
		r.ffs.SetHook(func(op testutil.Op, _ string) error {
			if op == testutil.OpWrite {
				return syscall.ENOSPC
			}
			return nil
		})
		seq, _ := nospaceEdit(t, r.e)
		r.ffs.SetHook(nil)
		check(t, r.e, seq)
	})
	t.Run("journal", func(t *testing.T) {
		r := newFaultRig(t)
		testHookPending = noSpace // the pending record does not fit; the failed one does
		defer func() { testHookPending = nil }()
		seq, _ := nospaceEdit(t, r.e)
		testHookPending = nil
		check(t, r.e, seq)
	})
	t.Run("journal full", func(t *testing.T) {
		r := newFaultRig(t)
		testHookPending, testHookFinish = noSpace, noSpace
		defer func() { testHookPending, testHookFinish = nil, nil }()
		var ferr error
		var seq uint64
		c, err := r.e.Begin("s", "test", nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.e.Edit(c, "a.txt", []matcher.Edit{{OldText: "beta", NewText: "BETA"}}, false)
		testutil.WantKind(t, err, errs.IOError)
		ferr = c.Finish(err)
		seq = c.Seq()
		testHookPending, testHookFinish = nil, nil
		if ferr == nil || strings.Contains(ferr.Error(), "hostonly") {
			t.Errorf("Finish says %v, want an error without a host path", ferr)
		}
		var last uint64
		r.e.View(func(tx *journal.Tx) error { last = tx.Last(); return nil })
		if seq != 0 {
			t.Fatalf("the reply carries number %d, which the journal never recorded (its last is %d)", seq, last)
		}
	})
}

// In the journal-durable mode, a call refused after its pending record, whose refusal
// the journal cannot record either, stays on the lazy list, where recovery would roll
// it forward: the reply says so instead of "nothing was changed" alone, and the
// refusal goes in this process's next journal write.
func TestJournalDurableRefusalNotRecorded(t *testing.T) {
	faultDurability = DurableJournal
	defer func() { faultDurability = "" }()
	r := newFaultRig(t)
	r.ffs.SetHook(func(op testutil.Op, _ string) error {
		if op == testutil.OpWrite {
			return syscall.ENOSPC
		}
		return nil
	})
	testHookRefusal = noSpace
	seq, err := nospaceEdit(t, r.e)
	testHookRefusal = nil
	r.ffs.SetHook(nil)
	if !strings.Contains(err.Error(), "nothing was changed") || !strings.Contains(err.Error(), "could not record this refusal") ||
		!strings.Contains(err.Error(), "write the change after all") {
		t.Errorf("the reply does not say what a crash would do: %v", err)
	}
	if got, _ := afero.ReadFile(r.mem, "a.txt"); string(got) != faultFiles["a.txt"] {
		t.Fatalf("a.txt = %q, want it unchanged", got)
	}
	// The refusal went in the next journal write (here the call's own end).
	var rec *journal.Record
	r.e.View(func(tx *journal.Tx) error { rec, _ = tx.Get(seq); return nil })
	if rec == nil || rec.State != journal.Failed {
		t.Errorf("record %d after the call: %+v, want failed", seq, rec)
	}
}

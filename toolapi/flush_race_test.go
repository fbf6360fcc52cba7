package toolapi

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// An undo or a rewind run while another session's call is being journaled sees every
// call acknowledged before it as committed: the other call's transaction may carry
// the deferred write that marks it so. Each undo must revert its call, each rewind
// remove both files of its turn, and each says what it did truly.
func TestUndoAndRewindSeeEveryAcknowledgedCall(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	create := func(ctx context.Context, session, path string) Result {
		args, _ := json.Marshal(map[string]string{"path": path, "content": "x\n"})
		r := e.Call(ctx, session, CreateFile, args)
		if !r.OK {
			t.Fatalf("create %s: %s", path, r.Text)
		}
		return r
	}
	there := func(p string) bool { _, err := os.Stat(filepath.Join(dir, p)); return err == nil }
	// Each round's own two goroutines: the revert, and another session's create.
	alongside := func(i int, revert func()) {
		var wg sync.WaitGroup
		wg.Go(revert)
		wg.Go(func() { create(ctx, "other", fmt.Sprintf("other%d.txt", i)) })
		wg.Wait()
	}
	const rounds = 60
	for i := range rounds {
		p := fmt.Sprintf("u%d.txt", i)
		r := create(ctx, "s", p)
		var u *UndoReport
		alongside(i, func() { u = e.Revert(ctx, UndoRequest{Seq: uint64(*r.Txn)}) })
		if !u.OK || there(p) {
			t.Fatalf("round %d: undo of call %d, just acknowledged: %s (%s there: %v)", i, *r.Txn, u.Text, p, there(p))
		}
	}
	for i := range rounds {
		sess, turn := fmt.Sprintf("S%d", i), WithTurn(ctx, "t1")
		create(turn, sess, fmt.Sprintf("a%d.txt", i))
		create(turn, sess, fmt.Sprintf("b%d.txt", i))
		var rw *RewindReport
		alongside(rounds+i, func() { rw = e.RewindTurns(ctx, RewindRequest{Session: sess, Turn: "t1"}) })
		if !rw.OK || there(fmt.Sprintf("a%d.txt", i)) || there(fmt.Sprintf("b%d.txt", i)) {
			t.Fatalf("round %d: rewind of %s's turn: %s (a there: %v, b there: %v)", i, sess, rw.Text, there(fmt.Sprintf("a%d.txt", i)), there(fmt.Sprintf("b%d.txt", i)))
		}
	}
}

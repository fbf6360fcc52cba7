package toolapi

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestHoldSpansAModelsTurn: with the default options, the journal stays held across
// a pause between two calls as long as a model's turn (so the next call does not open
// it again), and another engine, as an operator's command would, still gets it at
// once: the hold gives way to the queue.
func TestHoldSpansAModelsTurn(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
	eng, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if res := eng.Call(context.Background(), "s", "edit_file", json.RawMessage(`{"path":"a.txt","edits":[{"oldText":"one","newText":"two"}]}`)); !res.OK {
		t.Fatal(res.Text)
	}
	time.Sleep(300 * time.Millisecond) // the model's turn
	lock, err := os.OpenFile(filepath.Join(dir, ".vfsctl", "lock"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if lockFree(lock) {
		t.Fatal("the journal's hold ended during the pause: the next call opens it again")
	}

	op, err := Open(dir, Options{Wait: 3 * time.Second, Holder: "operator", Linger: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	// Its wait is shorter than the linger: it gets in only if the hold gives way.
	if _, err := op.Log(Query{}); err != nil {
		t.Fatalf("an operator's command while the hold lingers: %v", err)
	}
	if res := eng.Call(context.Background(), "s", "edit_file", json.RawMessage(`{"path":"a.txt","edits":[{"oldText":"two","newText":"three"}]}`)); !res.OK {
		t.Fatalf("the call after the operator's: %s", res.Text)
	}
}

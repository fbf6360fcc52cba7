package toolapi

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A rewind's reply says which folders the turns made stay, and why: one that holds
// another session's file is not removed, and the reply must not leave it unsaid.
func TestRewindSaysMadeFoldersStay(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(dir, Options{Tools: "all"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if r := e.Call(WithTurn(context.Background(), "t1"), "s", "create_file", json.RawMessage(`{"path": "p/q/g.txt", "content": "g\n"}`)); !r.OK {
		t.Fatal(r.Text)
	}
	if r := e.Call(context.Background(), "other", "create_file", json.RawMessage(`{"path": "p/q/o.txt", "content": "o\n"}`)); !r.OK {
		t.Fatal(r.Text)
	}
	rw := e.RewindTurns(context.Background(), RewindRequest{Session: "s", Turn: "t1"})
	if !rw.OK {
		t.Fatal(rw.Text)
	}
	if _, err := os.Stat(filepath.Join(dir, "p", "q", "o.txt")); err != nil {
		t.Fatalf("the other session's file: %v", err)
	}
	for _, want := range []string{"p/q/ stays (mode ", "): something the turns did not make is in it.", "p/ stays (mode "} {
		if !strings.Contains(rw.Text, want) {
			t.Fatalf("the reply does not say %q:\n%s", want, rw.Text)
		}
	}
}

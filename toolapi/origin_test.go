package toolapi

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The journal names who made each call: the Engine's calls are a model's unless the
// embedder names another origin; its Undo is an operator's.
func TestCallOrigins(t *testing.T) {
	for _, c := range []struct{ option, want string }{{"", "model"}, {"eval-harness", "eval-harness"}} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("one\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		e, err := Open(dir, Options{Origin: c.option})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		e.Call(ctx, "s", EditFile, json.RawMessage(`{"path": "f.txt", "edits": [{"oldText": "one", "newText": "two"}]}`))
		e.Call(ctx, "s", EditFile, json.RawMessage(`{"path": "f.txt", "edits": [{"oldText": "zzz", "newText": "two"}]}`))
		e.Undo(ctx, 1)
		e.Undo(ctx, 99) // refused: nothing to undo
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		want := []string{c.want, c.want, "operator", "operator"}
		recs := records(t, dir)
		if len(recs) != len(want) {
			t.Fatalf("Origin %q: %d records, want %d", c.option, len(recs), len(want))
		}
		for i, r := range recs {
			if r.Origin != want[i] {
				t.Errorf("Origin %q: call %d (%s, %s) has origin %q, want %q", c.option, r.Seq, r.Tool, r.State, r.Origin, want[i])
			}
		}
	}
}

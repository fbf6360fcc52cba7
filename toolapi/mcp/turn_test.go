package mcp

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vfsctl/vfsctl/toolapi"
)

// A client's turn label in params._meta "vfsctl/turn" is journaled with the call, so
// that an operator can list the turn and rewind the session to before it.
func TestTurnFromMeta(t *testing.T) {
	cs, dir := connect(t, map[string]string{"a.txt": "one\ntwo\n"})
	ctx := context.Background()
	edit := func(old, new string, meta sdk.Meta) {
		t.Helper()
		r, err := cs.CallTool(ctx, &sdk.CallToolParams{Meta: meta, Name: "edit_file", Arguments: map[string]any{
			"path": "a.txt", "edits": []any{map[string]any{"oldText": old, "newText": new}}}})
		if err != nil || r.IsError {
			t.Fatalf("edit: %v %s", err, text(r))
		}
	}
	edit("one", "ONE", sdk.Meta{MetaTurn: "t1"})
	edit("two", "TWO", sdk.Meta{MetaTurn: "t2"})
	edit("ONE", "One", nil)
	// A turn counter is a label too (it used to be dropped without a word); a value
	// that is no label is refused, and the call not run.
	edit("One", "Uno", sdk.Meta{MetaTurn: 5})
	for _, bad := range []any{5.5, map[string]any{"n": 1}, true, string(make([]byte, toolapi.MaxTurnLen+1))} {
		r, err := cs.CallTool(ctx, &sdk.CallToolParams{Meta: sdk.Meta{MetaTurn: bad}, Name: "edit_file", Arguments: map[string]any{
			"path": "a.txt", "edits": []any{map[string]any{"oldText": "TWO", "newText": "Two"}}}})
		if err != nil || !r.IsError || r.StructuredContent.(map[string]any)["kind"] != "invalid_input" {
			t.Errorf("turn %.20v: %v %+v", bad, err, r)
		}
	}
	eng, err := toolapi.Open(dir, toolapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	recs, err := eng.Log(toolapi.Query{})
	if err != nil || len(recs) != 4 {
		t.Fatalf("log: %v, %d records", err, len(recs))
	}
	if recs[3].Turn != "t1" || recs[2].Turn != "t2" || recs[1].Turn != "" || recs[0].Turn != "5" {
		t.Errorf("turns %q %q %q %q, want t1 t2, none and 5", recs[3].Turn, recs[2].Turn, recs[1].Turn, recs[0].Turn)
	}
	if got, _ := eng.Log(toolapi.Query{Turn: "t2"}); len(got) != 1 || got[0].Seq != recs[2].Seq {
		t.Errorf("log --turn t2: %d records", len(got))
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(data) != "Uno\nTWO\n" {
		t.Errorf("a refused call ran: a.txt = %q", data)
	}
}

package mcp

import (
	"context"
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
	eng, err := toolapi.Open(dir, toolapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	recs, err := eng.Log(toolapi.Query{})
	if err != nil || len(recs) != 3 {
		t.Fatalf("log: %v, %d records", err, len(recs))
	}
	if recs[2].Turn != "t1" || recs[1].Turn != "t2" || recs[0].Turn != "" {
		t.Errorf("turns %q %q %q, want t1 t2 and none", recs[2].Turn, recs[1].Turn, recs[0].Turn)
	}
	if got, _ := eng.Log(toolapi.Query{Turn: "t2"}); len(got) != 1 || got[0].Seq != recs[1].Seq {
		t.Errorf("log --turn t2: %d records", len(got))
	}
}

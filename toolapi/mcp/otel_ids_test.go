package mcp

import (
	"context"
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A served call's span carries gen_ai.tool.call.id (the runtime's id from _meta,
// else the JSON-RPC request id the stdio transport hands over) and vfsctl.turn.
func TestSpanCarriesCallIDAndTurn(t *testing.T) {
	// The stdio transport puts a tools/call's request id in its _meta.
	frame := withRequestID([]byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}` + "\n"))
	var got struct {
		Params struct {
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	if err := json.Unmarshal(frame, &got); err != nil || got.Params.Meta[metaRequestID] != float64(42) {
		t.Fatalf("frame %s: %v", frame, err)
	}

	cs, exp := tracedSession(t)
	ctx := context.Background()
	args := map[string]any{"path": "a.txt"}
	for _, meta := range []sdk.Meta{
		{MetaCallID: "toolu_01", MetaTurn: "t1"},
		{metaRequestID: got.Params.Meta[metaRequestID], MetaTurn: 2},
	} {
		if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "read_file", Arguments: args, Meta: meta}); err != nil {
			t.Fatal(err)
		}
	}
	want := []map[string]string{{"gen_ai.tool.call.id": "toolu_01", "vfsctl.turn": "t1"}, {"gen_ai.tool.call.id": "42", "vfsctl.turn": "2"}}
	spans := exp.GetSpans()
	if len(spans) != 2 {
		t.Fatalf("%d spans, want 2", len(spans))
	}
	for i, s := range spans {
		attrs := map[string]string{}
		for _, a := range s.Attributes {
			attrs[string(a.Key)] = a.Value.Emit()
		}
		for k, v := range want[i] {
			if attrs[k] != v {
				t.Errorf("span %d: %s = %q, want %q", i, k, attrs[k], v)
			}
		}
	}
}

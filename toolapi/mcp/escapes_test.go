package mcp

import (
	"testing"
)

// A tools/call whose id, method or tool name is spelled with JSON escapes is the
// same call to a decoder, and runs where it is read like any other: answered before
// the next frame is read, in the order sent, under its id. The scan used to compare
// the bytes as sent, and handed such calls to the SDK, which ran them beside the
// next ones (and whose reply to one under "i\u0064" was lost when the input ended).
func TestEscapedCallRunsWhereItIsRead(t *testing.T) {
	out, c := serveFrames(t, "2025-06-18", false, false,
		`{"jsonrpc":"2.0","id":2,"method":"tools\/call","params":{"name":"edit_file","arguments":{"path":"a.txt","edits":[{"oldText":"two","newText":"TWO"}]}}}`,
		`{"jsonrpc":"2.0","i\u0064":3,"method":"tools/call","params":{"name":"edit\u005ffile","arguments":{"path":"a.txt","edits":[{"oldText":"TWO","newText":"2"}]}}}`,
		`{"jsonrpc":"2.0","\u0069d":4,"\u006dethod":"tools\u002fcall","params":{"name":"read_file","arguments":{"path":"a.txt"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"ping"}`,
	)
	if len(c.unanswered) > 0 {
		t.Errorf("tools/call %v not answered when the next request was read", c.unanswered)
	}
	for _, id := range []int{2, 3, 4} {
		m, ok := out.byID(id)
		res, _ := m["result"].(map[string]any)
		if isErr, _ := res["isError"].(bool); !ok || res == nil || isErr {
			t.Errorf("reply to %d: %v", id, m)
		}
	}
	m, _ := out.byID(4)
	if text := m["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]; text != "     1\tone\n     2\t2\n     3\tthree\n" {
		t.Errorf("read_file after the two edits: %q", text)
	}
}

package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// A request nested past what encoding/json reads (10000 levels) is answered like one
// nested past MaxFrameDepth: to its id, saying how deep it is, not as a parse error
// with id null that a client cannot pair with its call.
func TestFrameReaderVeryDeep(t *testing.T) {
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	frame := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt","x":` + deep + `}}}` + "\n"
	ok := `{"jsonrpc":"2.0","id":8,"method":"ping"}`
	var out bytes.Buffer
	r := &frameReader{in: bufioReader(frame + ok), out: &out, max: MaxFrame}
	got, err := io.ReadAll(r)
	if err != nil || string(got) != ok {
		t.Fatalf("read %q, %v", got, err)
	}
	var reply struct {
		ID     *int `json:"id"`
		Result struct {
			Content    []struct{ Text string } `json:"content"`
			IsError    bool                    `json:"isError"`
			Structured map[string]any          `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(out.Bytes(), &reply); err != nil || reply.ID == nil || *reply.ID != 7 || !reply.Result.IsError ||
		reply.Result.Structured["kind"] != "invalid_input" || len(reply.Result.Content) != 1 ||
		!strings.Contains(reply.Result.Content[0].Text, "nested 20003 levels deep") {
		t.Fatalf("reply %s (%v)", out.Bytes(), err)
	}
}

// TooDeep, which vfsctl call uses, says what serve says, with the id a line carries.
func TestTooDeep(t *testing.T) {
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	for _, c := range []struct{ line, id string }{
		{`{"tool":"read_file","args":{"path":"a.txt","x":` + deep + `},"id":1}`, "1"},
		{`{"id":"c-2","tool":"read_file","args":` + deep + `}`, `"c-2"`},
		{`{"id":{"a":1},"tool":"read_file","args":` + deep + `}`, ""}, // not an id a reply can carry
	} {
		msg, id := TooDeep([]byte(c.line))
		if !strings.HasPrefix(msg, "This request is nested ") || !strings.Contains(msg, "at most 128 are read and nothing was run") || string(id) != c.id {
			t.Errorf("%.40s: %q, id %s", c.line, msg, id)
		}
	}
	if msg, id := TooDeep([]byte(`{"tool":"read_file","args":{"path":"a.txt"},"id":1}`)); msg != "" || id != nil {
		t.Errorf("a flat line: %q, id %s", msg, id)
	}
}

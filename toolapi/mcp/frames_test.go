package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// The scan finds the top-level id and method wherever they stand, never one nested
// inside params, and measures the nesting.
func TestFrameScan(t *testing.T) {
	for _, c := range []struct {
		frame, id, method string
		depth             int
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"id":99}}`, `7`, `"tools/call"`, 2},
		{`{"params":{"id":1,"method":"x","a":[[["id"]]]},"method":"ping","id":"a\"b"}`, `"a\"b"`, `"ping"`, 5},
		{` { "id" : 3 , "method" : "m" } `, `3`, `"m"`, 1},
		{`{"method":"notifications/initialized","params":{}}`, ``, `"notifications/initialized"`, 2},
		{`{"id":{"x":1},"method":"m"}`, ``, `"m"`, 2},
	} {
		var s frameScan
		s.feed([]byte(c.frame))
		if string(s.id) != c.id || string(s.method) != c.method || s.maxDepth != c.depth {
			t.Errorf("%s: id %s method %s depth %d", c.frame, s.id, s.method, s.maxDepth)
		}
	}
}

// Frames within bounds reach the SDK byte for byte; a refused one is answered and
// left out.
func TestFrameReader(t *testing.T) {
	ok1 := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
	big := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"x":"` + strings.Repeat("y", 300) + `"}}` + "\n"
	ok2 := `{"jsonrpc":"2.0","id":3,"method":"ping"}`
	var out bytes.Buffer
	r := &frameReader{in: bufioReader(ok1 + big + ok2), out: &out, max: 200}
	got, err := io.ReadAll(r)
	if err != nil || string(got) != ok1+ok2 {
		t.Fatalf("read %q, %v", got, err)
	}
	var reply struct {
		ID     int `json:"id"`
		Result struct {
			IsError    bool           `json:"isError"`
			Structured map[string]any `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(out.Bytes(), &reply); err != nil || reply.ID != 2 || !reply.Result.IsError || reply.Result.Structured["kind"] != "too_large" {
		t.Fatalf("reply %s (%v)", out.Bytes(), err)
	}
}

func bufioReader(s string) *bufio.Reader { return bufio.NewReaderSize(strings.NewReader(s), 16) }

// replyID tells the replies the SDK writes from its requests and notifications,
// whatever the order of the keys, and without reading past what it needs; the id
// is one key whatever its spelling.
func TestReplyID(t *testing.T) {
	for msg, want := range map[string]string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`:                                           "n1",
		`{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"no"}}`:              "sa",
		`{"result":{"content":[{"type":"text","text":"x"}]},"id":7,"jsonrpc":"2.0"}`:     "n7",
		`{"result":{},"id":7.0}`:                                                         "n7",
		`{"jsonrpc":"2.0","id":2,"method":"roots/list"}`:                                 "",
		`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`:                 "",
		`{"jsonrpc":"2.0","result":{}}`:                                                  "",
		`[1,2]`:                                                                          "",
		`{"jsonrpc":"2.0","id":3,"result":{"text":"` + strings.Repeat("y", 1<<20) + `"}`: "n3", // cut short: never read
	} {
		id, ok := replyID([]byte(msg))
		if !ok {
			id = ""
		}
		if id != want || ok != (want != "") {
			t.Errorf("replyID(%.60s) = %q, %v, want %q", msg, id, ok, want)
		}
	}
}

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
		{`{"i\u0064":5,"\u006dethod":"tools\/call"}`, `5`, `"tools\/call"`, 1},
		{`{"id":5,"ID":6,"Method":"x","method":"m"}`, `5`, `"m"`, 1},
		// A second value on the line is not read: not its id, not its depth.
		{`{"id":1,"method":"a"} {"id":99,"method":"b","params":[[[]]]}`, `1`, `"a"`, 1},
		{`[1] {"id":99,"method":"b"}`, ``, ``, 1},
		{`"s" {"id":99,"method":"b"}`, ``, ``, 1},
	} {
		var s frameScan
		s.feed([]byte(c.frame))
		if string(s.id) != c.id || string(s.method) != c.method || s.maxDepth != c.depth {
			t.Errorf("%s: id %s method %s depth %d", c.frame, s.id, s.method, s.maxDepth)
		}
	}
}

// Keys that differ from a JSON-RPC member only in case, as a folding decoder reads
// them, are noted, and nothing else is.
func TestFrameScanNotesFoldedKeys(t *testing.T) {
	for frame, want := range map[string]string{
		`{"jsonrpc":"2.0","ID":5,"method":"m"}`:                              "ID",
		`{"jsonrpc":"2.0","id":5,"Method":"m"}`:                              "Method",
		`{"jsonrpc":"2.0","id":5,"method":"m","paramſ":{}}`:                  "paramſ",
		`{"JSONRPC":"2.0","id":5,"method":"m"}`:                              "JSONRPC",
		`{"jsonrpc":"2.0","id":5,"method":"m","p\u0041rams":1}`:              "pArams",
		`{"jsonrpc":"2.0","i\u0064":5,"method":"m","x":{"ID":1}}`:            "",
		`{"jsonrpc":"2.0","id":5,"method":"m","params":{"Name":"x","ID":2}}`: "",
		`{"jsonrpc":"2.0","id":5,"method":"m","idx":1,"Methods":2}`:          "",
		`{"id":1} {"ID":2}`: "",
	} {
		var s frameScan
		s.feed([]byte(frame))
		if s.folded != want {
			t.Errorf("%s: folded key %q, want %q", frame, s.folded, want)
		}
	}
}

// Once a frame's first value has ended, what follows is only looked at: a frame too
// large to hold that goes on after its request keeps nothing more of it however long.
func TestFrameScanKeepsNothingAfterTheFirstValue(t *testing.T) {
	p := newCutCall()
	p.feed([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_file","arguments":{"path":"a"}}}`))
	rest := []byte(`  {"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"` + strings.Repeat("b", 1<<20) + `"}}}`)
	if n := testing.AllocsPerRun(10, func() { p.feed(rest) }); n != 0 {
		t.Errorf("%v allocations to read past the first value", n)
	}
	if string(p.id) != "2" || p.Tool() != "create_file" || !p.trailing || strings.Contains(string(p.Frame()), "99") {
		t.Errorf("picked id %s, tool %q, trailing %v, frame kept %.200s", p.id, p.Tool(), p.trailing, p.Frame())
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

// A byte order mark before a first frame over the limit is no part of it either: the
// frame is answered under its id.
func TestFrameReaderSkipsABOMBeforeAFrameTooLarge(t *testing.T) {
	big := "\ufeff" + `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"` + strings.Repeat("y", 300) + `"}}` + "\n"
	var out bytes.Buffer
	r := &frameReader{in: bufioReader(big), out: &out, max: 200}
	io.ReadAll(r)
	var reply struct{ ID int }
	if err := json.Unmarshal(out.Bytes(), &reply); err != nil || reply.ID != 2 {
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

// A frame over the limit with a member "ID" besides its "id" is refused under its
// "id", as a frame within bounds is: the client waits on that one.
func TestFrameReaderFoldedIDTooLargeAnsweredUnderID(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":40,"ID":22,"method":"tools/call","params":{"x":"` + strings.Repeat("y", 300) + `"}}` + "\n"
	var out bytes.Buffer
	r := &frameReader{in: bufioReader(big), out: &out, max: 200}
	io.ReadAll(r)
	var reply struct {
		ID    json.RawMessage
		Error struct{ Code int }
	}
	if err := json.Unmarshal(out.Bytes(), &reply); err != nil || string(reply.ID) != "40" || reply.Error.Code != -32600 {
		t.Fatalf("reply %s (%v); want an Invalid Request under id 40", out.Bytes(), err)
	}
}

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

// vfsctl serve answers every request under the id it was sent, byte for byte: a
// number id that a reply cannot carry exactly (a fraction, past ±2^53) is refused as
// Invalid Request under that same id, never answered under another (the SDK read 1.5
// as 1, the initialize's id, and 2^63-1 as -2^63).
func TestMCPRepliesUnderTheRequestID(t *testing.T) {
	bin := buildVfsctl(t)
	stdin, stdout := rawServe(t, bin, t.TempDir())
	ok := []string{`2`, `"s"`, `-7`, `9007199254740992`, `-9007199254740992`, `0`}
	refused := []string{`1.5`, `-0.5`, `9007199254740993`, `9223372036854775807`, `12345678901234567890123`, `-9007199254740993`}
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	for _, id := range append(append([]string{}, ok...), refused...) {
		in.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}` + "\n")
	}
	in.WriteString(`{"jsonrpc":"2.0","id":2.5,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}` + "\n")
	refused = append(refused, `2.5`)
	io.WriteString(stdin, in.String())
	stdin.Close()

	got := map[string]string{} // id as replied, byte for byte -> "result" or the error code
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not JSON-RPC: %q", sc.Text())
		}
		id := string(m.ID)
		if _, dup := got[id]; dup {
			t.Errorf("two replies under id %s", id)
		}
		switch {
		case m.Error != nil:
			got[id] = fmt.Sprintf("error %d", m.Error.Code)
		case m.Result != nil:
			got[id] = "result"
		}
	}
	want := map[string]string{`1`: "result"}
	for _, id := range ok {
		want[id] = "result"
	}
	for _, id := range refused {
		want[id] = "error -32600"
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("id %s: got %q, want %q", id, got[id], w)
		}
	}
	for id := range got {
		if _, sent := want[id]; !sent {
			t.Errorf("a reply under id %s, which no request had", id)
		}
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// code is the error code of a reply, nil for none.
func code(reply map[string]any) any {
	e, _ := reply["error"].(map[string]any)
	return e["code"]
}

const rawInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
`

// JSON-RPC member names are case-sensitive; Go's encoding/json matches them
// regardless of case, and the SDK does not. A request with "ID" or "Method" got no
// reply at all (the SDK took it for a notification, or for a reply, and dropped it),
// and a tools/call with "Params" ran on the fast path, which read it as params. Each
// is now an Invalid Request, and nothing runs; "i\u0064" is "id" and is answered,
// even with the input closed at once. The refusal carries the exact "id", also when
// the member in another case is "ID" itself: the client waits on the id it reads in
// exact case, and {"id":40,"ID":22} answered with id null left it waiting on 40.
// With no exact "id" it is answered with id null.
func TestMCPMemberNamesInAnotherCase(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	replies := serveRaw(t, dir, rawInit+`{"jsonrpc":"2.0","ID":10,"method":"tools/list"}
{"jsonrpc":"2.0","id":11,"Method":"tools/list"}
{"jsonrpc":"2.0","id":12,"method":"tools/call","Params":{"name":"create_file","arguments":{"path":"p.txt","content":"x"}}}
{"jsonrpc":"2.0","ID":14,"method":"tools/call","params":{"name":"create_file","arguments":{"path":"q.txt","content":"x"}}}
{"jsonrpc":"2.0","id":15,"method":"tools/call","paramſ":{"name":"create_file","arguments":{"path":"r.txt","content":"x"}}}
{"jsonrpc":"2.0","i\u0064":13,"method":"tools/list"}
{"jsonrpc":"2.0","id":40,"ID":22,"method":"tools/call","params":{"name":"create_file","arguments":{"path":"s.txt","content":"x"}}}
{"jsonrpc":"2.0","id":43,"method":"tools/call","params":{"name":"create_file","arguments":{"path":"t.txt","content":"x"}},"ID":9}
{"jsonrpc":"2.0","Id":23,"id":"x","method":"ping"}
{"jsonrpc":"2.0","id":99,"method":"ping"}
`)
	if n := len(replies["null"]); n != 2 || code(replies["null"][0]) != -32600.0 || code(replies["null"][1]) != -32600.0 {
		t.Errorf("replies with id null: %v; want two Invalid Request errors (for ID 10 and ID 14)", replies["null"])
	}
	for _, id := range []string{"11", "12", "15", "40", "43", `"x"`} {
		if len(replies[id]) != 1 || code(replies[id][0]) != -32600.0 {
			t.Errorf("request %s: replies %v; want one Invalid Request error", id, replies[id])
		}
	}
	for _, id := range []string{"1", "13", "99"} {
		if len(replies[id]) != 1 || replies[id][0]["result"] == nil {
			t.Errorf("request %s: replies %v; want one result", id, replies[id])
		}
	}
	for id := range replies {
		if !strings.Contains(` null 1 11 12 13 15 40 43 "x" 99 `, " "+id+" ") {
			t.Errorf("a reply under id %s: %.300v", id, replies[id])
		}
	}
	for _, name := range []string{"p.txt", "q.txt", "r.txt", "s.txt", "t.txt"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s was created by a refused request (%v)", name, err)
		}
	}
}

// A line over 16 MiB that goes on, with no newline, into a second request is
// answered under the first request's id, and journaled under its tool, never the
// second's; the second is not run (the line is one frame, and a line holding two
// values is no valid message), and a parse error with id null tells the client that
// the rest of the line was not read. A tools/call over the limit whose method and
// tool name are spelled with escapes is journaled as too_large like any other.
func TestServeOversizeLineGoingOnIntoAnother(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	huge := strings.Repeat("x", 17<<20)
	replies := serveRaw(t, dir, rawInit+
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_file","arguments":{"path":"big.txt","content":"`+huge+`"}}}`+
		`{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"edit_file","arguments":{"path":"a.txt","edits":[{"oldText":"alpha","newText":"beta"}]}}}
{"jsonrpc":"2.0","id":3,"method":"tools\/call","params":{"n\u0061me":"create_fil\u0065","arguments":{"path":"big2.txt","content":"`+huge+`"}}}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}
`)
	for id, txn := range map[string]float64{"2": 1, "3": 2} {
		var st map[string]any
		if len(replies[id]) == 1 {
			res, _ := replies[id][0]["result"].(map[string]any)
			st, _ = res["structuredContent"].(map[string]any)
		}
		if st["kind"] != "too_large" || st["txn"] != txn {
			t.Errorf("request %s: replies %.300v; want a too_large tool result journaled as %v", id, replies[id], txn)
		}
	}
	if len(replies["99"]) > 0 {
		t.Errorf("the request after the oversize one on its line was answered: %.300v", replies["99"])
	}
	if len(replies["null"]) != 1 || code(replies["null"][0]) != -32700.0 {
		t.Errorf("replies with id null: %v; want one parse error", replies["null"])
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(data) != "alpha\n" {
		t.Errorf("a.txt holds %q: the request after the oversize one ran", data)
	}
	var out, errb strings.Builder
	if code := run([]string{"log", "--root", dir, "--json"}, strings.NewReader(""), &out, &errb); code != exitOK {
		t.Fatalf("vfsctl log: exit %d: %s", code, errb.String())
	}
	var tools []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var rec struct {
			Seq        int
			Tool, Kind string
		}
		json.Unmarshal([]byte(l), &rec)
		if rec.Kind == "too_large" {
			tools = append(tools, rec.Tool)
		}
	}
	if strings.Join(tools, " ") != "create_file create_file" {
		t.Errorf("calls journaled too_large: %q; want the two create_file", tools)
	}
}

package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// serveRaw writes in to a vfsctl serve of dir, then closes its input, and returns
// every reply it wrote by its id's JSON text as written.
func serveRaw(t *testing.T, dir, in string) map[string][]map[string]any {
	t.Helper()
	stdin, stdout := rawServe(t, buildVfsctl(t), dir)
	go func() {
		io.WriteString(stdin, in)
		stdin.Close()
	}()
	replies := map[string][]map[string]any{}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var raw struct{ ID json.RawMessage }
		var m map[string]any
		if !utf8.Valid(sc.Bytes()) || json.Unmarshal(sc.Bytes(), &raw) != nil || json.Unmarshal(sc.Bytes(), &m) != nil {
			t.Fatalf("stdout holds a line that is not UTF-8 JSON-RPC: %.200q", sc.Text())
		}
		replies[string(raw.ID)] = append(replies[string(raw.ID)], m)
	}
	return replies
}

// Ids longer than 256 bytes skipped every id check: a number id of "1.5" and 300
// zeros was answered as 1 (the initialize request's id), 1e300 written out as
// -2^63, and a tools/call with a 300-character id ran but was never answered when
// the input closed right after it. Number ids spelled otherwise than in digits
// alone (1e0, 1.0, -0) were answered by the SDK under another spelling (1, 0). Each
// reply now carries the id as sent: a long string id is answered, a number id the
// SDK cannot write back as sent is refused -32600 under its own text, and nothing
// of a refused request runs.
func TestServeLongAndSpelledNumberIDsAnsweredAsSent(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	zeros := strings.Repeat("0", 300)
	longStr := `"` + strings.Repeat("8", 300) + `"`
	refused := []string{"1" + zeros, "1.5" + zeros, "1e0", "1.0", "10e-1", "-0", "1.5e0"}
	in := rawInit
	for _, id := range refused {
		in += `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}` + "\n"
	}
	in += `{"jsonrpc":"2.0","id":2E0,"method":"tools/call","params":{"name":"create_file","arguments":{"path":"e.txt","content":"x"}}}` + "\n"
	in += `{"jsonrpc":"2.0","id":` + longStr + `,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}` + "\n"
	replies := serveRaw(t, dir, in)
	for _, id := range refused {
		if r := replies[id]; len(r) != 1 || code(r[0]) != -32600.0 {
			t.Errorf("id %.20s…: replies %.300v; want one Invalid Request under the id as sent", id, r)
		}
	}
	if r := replies["2E0"]; len(r) != 1 || code(r[0]) != -32600.0 {
		t.Errorf("tools/call with id 2E0: replies %.300v; want one Invalid Request under the id as sent", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "e.txt")); err == nil {
		t.Errorf("a tools/call with a refused id ran")
	}
	if r := replies[longStr]; len(r) != 1 || r[0]["result"] == nil || !strings.Contains(toolText(r[0]), "alpha") {
		t.Errorf("tools/call with a 300-character id: replies %.300v; want its result under its id", r)
	}
	for id, r := range replies {
		if id != "1" && id != "null" && id != longStr && id != "2E0" && !contains(refused, id) {
			t.Errorf("a reply under id %.40s…, which no request sent: %.200v", id, r)
		}
	}
	if len(replies["1"]) != 1 || replies["1"][0]["result"] == nil {
		t.Errorf("id 1: replies %.300v; want initialize's alone", replies["1"])
	}
}

// toolText is the text of a tool result's content.
func toolText(reply map[string]any) string {
	res, _ := reply["result"].(map[string]any)
	b, _ := json.Marshal(res["content"])
	return string(b)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// A tools/call over 16 MiB whose id was longer than 256 bytes got no reply at all,
// and was not journaled. Its id is now kept (up to 64 KiB): it is answered too_large
// under that id and journaled as other oversize calls are. An id longer than that
// is refused -32600 with id null, not journaled, and the connection goes on.
func TestServeOversizeCallWithLongID(t *testing.T) {
	dir := t.TempDir()
	huge := strings.Repeat("y", 17<<20)
	longID := `"` + strings.Repeat("9", 300) + `"`
	tooLong := `"` + strings.Repeat("7", 70<<10) + `"`
	call := func(id, path string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"create_file","arguments":{"path":"` + path + `","content":"` + huge + `"}}}` + "\n"
	}
	replies := serveRaw(t, dir, rawInit+call(longID, "x")+call(tooLong, "z")+`{"jsonrpc":"2.0","id":5,"method":"ping"}`+"\n")
	var st map[string]any
	if r := replies[longID]; len(r) == 1 {
		res, _ := r[0]["result"].(map[string]any)
		st, _ = res["structuredContent"].(map[string]any)
	}
	if st["kind"] != "too_large" || st["txn"] != 1.0 {
		t.Errorf("oversize call with a 300-character id: replies %.300v; want too_large under its id, journaled as 1", replies[longID])
	}
	if r := replies["null"]; len(r) != 1 || code(r[0]) != -32600.0 || !strings.Contains(r[0]["error"].(map[string]any)["message"].(string), "longer than 65536 bytes") {
		t.Errorf("oversize call with a 70 KiB id: replies with id null %.300v; want one Invalid Request naming the id's bound", r)
	}
	if len(replies["5"]) != 1 {
		t.Errorf("the ping after them: replies %v; want one", replies["5"])
	}
	var out, errb strings.Builder
	if code := run([]string{"log", "--root", dir, "--json"}, strings.NewReader(""), &out, &errb); code != exitOK {
		t.Fatalf("vfsctl log: exit %d: %s", code, errb.String())
	}
	if n := strings.Count(strings.TrimSpace(out.String()), "\n") + 1; strings.TrimSpace(out.String()) == "" || n != 1 {
		t.Errorf("journal: %.500s; want one record, the call with the 300-character id", out.String())
	}
}

// A string id holding a lone surrogate escape, or a byte that is not UTF-8, was
// answered by the SDK under "\ufffd", another id (and by tools/call under the bytes
// sent). Such an id is now refused -32600 on every method: under the id as sent, or,
// for bytes that are not UTF-8, which no reply can carry, under null; a surrogate
// pair is a character, and is answered.
func TestServeStringIDsThatDoNotDecodeWhole(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	refused := []string{`"\ud800"`, `"a\udc00b"`, `"\ud800\u0041"`}
	in := rawInit
	for _, id := range append(refused, "\"\xff\"") {
		in += `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}` + "\n"
	}
	in += `{"jsonrpc":"2.0","id":"\ud800x","method":"tools/call","params":{"name":"create_file","arguments":{"path":"s.txt","content":"x"}}}` + "\n"
	in += `{"jsonrpc":"2.0","id":"\ud83d\ude00","method":"ping"}` + "\n"
	replies := serveRaw(t, dir, in)
	for _, id := range append(refused, `"\ud800x"`) {
		if r := replies[id]; len(r) != 1 || code(r[0]) != -32600.0 {
			t.Errorf("id %q: replies %.300v; want one Invalid Request under the id as sent", id, r)
		}
	}
	if r := replies["null"]; len(r) != 1 || code(r[0]) != -32600.0 {
		t.Errorf("id \"\\xff\": replies under null %.300v; want one Invalid Request", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "s.txt")); err == nil {
		t.Errorf("a tools/call with a refused id ran")
	}
	if r := replies[`"😀"`]; len(r) != 1 || r[0]["result"] == nil {
		t.Errorf("a surrogate pair id: replies %.300v; want the ping's result", r)
	}
	if r := append(replies[`"\ufffd"`], replies[`"�"`]...); len(r) > 0 {
		t.Errorf("replies under U+FFFD, an id no request sent: %.300v", r)
	}
}

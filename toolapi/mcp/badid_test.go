package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vfsctl/vfsctl/toolapi"
)

// An id holding bytes that are not UTF-8 cannot be carried by a reply, which is UTF-8
// text: such a request is refused under id null, in words that say so, and not run;
// every line the server writes is UTF-8, whichever way the request is refused.
func TestIDNotUTF8AnsweredUnderNull(t *testing.T) {
	dir := t.TempDir()
	eng, err := toolapi.Open(dir, toolapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	deep := strings.Repeat("[", MaxFrameDepth+5) + strings.Repeat("]", MaxFrameDepth+5)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":\"a\xffb\",\"method\":\"tools/call\",\"params\":{\"name\":\"create_file\",\"arguments\":{\"path\":\"s.txt\",\"content\":\"x\"}}}",
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xfe\",\"method\":\"ping\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":\"d\xff\",\"method\":\"tools/call\",\"params\":{\"name\":\"read_file\",\"arguments\":{\"path\":" + deep + "}}}",
	}, "\n") + "\n"
	out := &replies{}
	if err := Serve(context.Background(), eng, NewTransport(strings.NewReader(in), out, nil), Options{}); err != nil {
		t.Fatal(err)
	}
	var underNull []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out.buf.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if !utf8.Valid(sc.Bytes()) {
			t.Errorf("a reply is not UTF-8: %q", sc.Text())
		}
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			t.Fatalf("a reply is not JSON: %q", sc.Text())
		}
		if id, ok := m["id"]; !ok || id == nil {
			underNull = append(underNull, m)
		} else if id != float64(1) {
			t.Errorf("a reply under id %q, which no request sent as such", id)
		}
	}
	if len(underNull) != 3 {
		t.Fatalf("%d replies under id null, want 3 (one for each request with a bad id):\n%s", len(underNull), out.buf.String())
	}
	for _, m := range underNull[:2] {
		if msg, _ := m["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "not UTF-8") || !strings.Contains(msg, "answered with id null") {
			t.Errorf("the refusal does not say why the id is null: %q", msg)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "s.txt")); err == nil {
		t.Error("the tools/call with a refused id ran")
	}
}

// A tools/call whose _meta names its turn or session with bytes that are not UTF-8
// was journaled under another name (each bad byte as U+FFFD), which no rewind can
// name, without a word: it is refused and not run, as a turn of another type is.
func TestMetaTurnNotUTF8Refused(t *testing.T) {
	dir := t.TempDir()
	eng, err := toolapi.Open(dir, toolapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"create_file\",\"arguments\":{\"path\":\"t.txt\",\"content\":\"x\"},\"_meta\":{\"vfsctl/turn\":\"t\xff\"}}}",
		"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"create_file\",\"arguments\":{\"path\":\"s.txt\",\"content\":\"x\"},\"_meta\":{\"vfsctl/session\":\"s\xff\"}}}",
	}, "\n") + "\n"
	out := &replies{}
	if err := Serve(context.Background(), eng, NewTransport(strings.NewReader(in), out, nil), Options{}); err != nil {
		t.Fatal(err)
	}
	if !utf8.ValidString(out.buf.String()) {
		t.Errorf("the replies are not UTF-8: %q", out.buf.String())
	}
	for _, c := range []struct {
		id   int
		key  string
		file string
	}{{2, "vfsctl/turn", "t.txt"}, {3, "vfsctl/session", "s.txt"}} {
		r, ok := out.byID(c.id)
		res, _ := r["result"].(map[string]any)
		if !ok || res["isError"] != true || !strings.Contains(fmt.Sprint(res["content"]), c.key) {
			t.Errorf("the call with %s not UTF-8: %v; want it refused, naming %s", c.key, r, c.key)
		}
		if _, err := os.Stat(filepath.Join(dir, c.file)); err == nil {
			t.Errorf("the call with %s not UTF-8 ran", c.key)
		}
	}
	if recs, _ := eng.Log(toolapi.Query{}); len(recs) != 0 {
		t.Errorf("%d records; want none, the refused calls are not journaled", len(recs))
	}
}

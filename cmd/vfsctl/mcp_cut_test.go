package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A tools/call over serve's 16 MiB frame limit is refused unread, and journaled as
// vfsctl call journals a call whose arguments are over the size limit: under its tool,
// refused too_large, its arguments kept with their long strings cut (the record stays
// small) and their size as sent; the operator's log shows it, and the reply carries its
// number.
func TestServeJournalsACallOverTheFrameLimit(t *testing.T) {
	bin := buildVfsctl(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	content := strings.Repeat("é", 9<<20) // 18 MiB
	args, _ := json.Marshal(map[string]string{"path": "big.txt", "content": content})
	// Over the limit with no long string to cut: 400,000 short edits (23 MB), the
	// turn in _meta after them.
	edits := `{"path":"a.txt","edits":[` + strings.Repeat(`{"old_string":"aaaaaaaaaa","new_string":"bbbbbbbbbb"},`, 400000)
	edits = edits[:len(edits)-1] + `]}`
	stdin, stdout := rawServe(t, bin, dir)
	go func() {
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_file","_meta":{"vfsctl/turn":"t7"},"arguments":`+string(args)+`}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"edit_file","arguments":`+edits+`,"_meta":{"vfsctl/turn":"t9"}}}
`)
	}()
	replies := map[string]map[string]any{}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	for len(replies) < 4 && sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			t.Fatalf("stdout holds a line that is not JSON-RPC: %.200q", sc.Text())
		}
		b, _ := json.Marshal(m["id"])
		replies[string(b)] = m
	}
	stdin.Close()
	io.Copy(io.Discard, stdout) // until serve has ended
	res, _ := replies["2"]["result"].(map[string]any)
	st, _ := res["structuredContent"].(map[string]any)
	if st["kind"] != "too_large" || st["txn"] != 1.0 {
		t.Fatalf("the oversized call's reply: %v", replies["2"])
	}
	if _, err := os.Lstat(filepath.Join(dir, "big.txt")); !os.IsNotExist(err) {
		t.Fatalf("big.txt was refused, but: %v", err)
	}

	cli := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(append(args[:1:1], append([]string{"--root", dir}, args[1:]...)...), strings.NewReader(""), &out, &errb); code != exitOK {
			t.Fatalf("vfsctl %s: exit %d: %s%s", strings.Join(args, " "), code, out.String(), errb.String())
		}
		return out.String()
	}
	var logged []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(cli("log", "--json")), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		logged = append(logged, m)
	}
	if len(logged) != 3 || logged[2]["seq"] != 1.0 || logged[2]["tool"] != "create_file" || logged[2]["state"] != "failed" || logged[2]["kind"] != "too_large" ||
		logged[2]["turn"] != "t7" || !strings.Contains(fmt.Sprint(logged[2]["message"]), "16 MiB") {
		t.Fatalf("vfsctl log: %v", logged)
	}
	// The edits' record: under its tool and turn, found by its path, as vfsctl call
	// journals the same arguments.
	if logged[0]["seq"] != 3.0 || logged[0]["tool"] != "edit_file" || logged[0]["kind"] != "too_large" || logged[0]["turn"] != "t9" ||
		fmt.Sprint(logged[0]["paths"]) != "[a.txt]" {
		t.Errorf("vfsctl log, the call of 400,000 edits: call %v, tool %v, turn %v, paths %v", logged[0]["seq"], logged[0]["tool"], logged[0]["turn"], logged[0]["paths"])
	}
	// The operator finds a call over the limit by the path it named.
	if found := cli("log", "--json", "--path", filepath.Join(dir, "big.txt")); !strings.Contains(found, `"tool":"create_file"`) || strings.Count(strings.TrimSpace(found), "\n") != 0 {
		t.Errorf("vfsctl log --path big.txt: %q", found)
	}
	// The arguments are kept with the content cut to its first 512 bytes, and their
	// size as sent; a replay says it cannot run them.
	var rec struct {
		Tool     string
		Args     map[string]string
		ArgsSize int `json:"args_size"`
	}
	if err := json.Unmarshal([]byte(strings.SplitN(cli("export"), "\n", 2)[0]), &rec); err != nil {
		t.Fatal(err)
	}
	cut := map[string]string{"path": "big.txt", "content": strings.Repeat("é", 256) + fmt.Sprintf("… [cut: %d bytes as sent]", len(content))}
	if rec.Tool != "create_file" || fmt.Sprint(rec.Args) != fmt.Sprint(cut) || rec.ArgsSize != len(args) {
		t.Errorf("the record keeps %s %.300v, %d bytes sent; want create_file %.300v, %d", rec.Tool, rec.Args, rec.ArgsSize, cut, len(args))
	}
	if replay := cli("replay", "1"); !strings.Contains(replay, fmt.Sprintf("its %d bytes of arguments were refused and the journal keeps only their start", len(args))) {
		t.Errorf("vfsctl replay 1: %s", replay)
	}
}

// A tools/call over the frame limit that names a tool the server does not serve is
// journaled as a call of tool "unknown", the name as sent kept, cut, in the record's
// arguments: the operator sees it, and the journal's tools are only those served (a
// long name would widen every table of vfsctl stats).
func TestServeJournalsAnUnservedToolOverTheFrameLimitAsUnknown(t *testing.T) {
	bin := buildVfsctl(t)
	dir := t.TempDir()
	stdin, stdout := rawServe(t, bin, dir)
	long := strings.Repeat("n", 17<<20)
	go io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"no_such_tool","arguments":{"path":"a.txt","content":"`+long+`"}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"`+long+`","arguments":{"path":"b.txt"}}}
`)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	for replies := 0; replies < 3 && sc.Scan(); replies++ {
	}
	stdin.Close()
	io.Copy(io.Discard, stdout) // until serve has ended
	cli := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(append(args[:1:1], append([]string{"--root", dir}, args[1:]...)...), strings.NewReader(""), &out, &errb); code != exitOK {
			t.Fatalf("vfsctl %s: exit %d: %s%s", strings.Join(args, " "), code, out.String(), errb.String())
		}
		return out.String()
	}
	names := []string{`"no_such_tool"`, `"` + long[:512] + fmt.Sprintf("… [cut: %d bytes as sent]", len(long)) + `"`}
	lines := strings.Split(strings.TrimSpace(cli("export")), "\n")
	for i, l := range lines {
		var rec struct {
			Tool, Kind string
			Args       json.RawMessage
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil || i >= len(names) {
			t.Fatalf("export: %.300s (%v)", l, err)
		}
		if rec.Tool != "unknown" || rec.Kind != "too_large" || !strings.Contains(string(rec.Args), `"name":`+names[i]) {
			t.Errorf("call %d is journaled as %.100q, %s, with arguments %.200s; want unknown, too_large, with the name as sent cut", i+1, rec.Tool, rec.Kind, rec.Args)
		}
	}
	if stats := cli("stats"); !strings.Contains(stats, "\nunknown  2 ") {
		t.Errorf("vfsctl stats:\n%.1000s", stats)
	}
}

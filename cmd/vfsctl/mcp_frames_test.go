package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMCPOversizedAndDeepFrames speaks raw JSON-RPC to vfsctl serve: a request over
// 16 MiB and one nested thousands of levels deep are each refused with a reply to
// their id (too_large, invalid_input), a line cut short gets a parse error, and the
// same connection keeps serving.
func TestMCPOversizedAndDeepFrames(t *testing.T) {
	bin := buildVfsctl(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	in := oversizedFrames()
	stdin, stdout := rawServe(t, bin, dir)
	go func() {
		io.WriteString(stdin, in)
		// stdin stays open until every reply is in: EOF would end the server anyway.
	}()
	defer stdin.Close()
	replies := map[string]map[string]any{}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	for len(replies) < 7 && sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			t.Fatalf("stdout holds a line that is not JSON-RPC: %.200q", sc.Text())
		}
		if id, ok := m["id"]; ok {
			b, _ := json.Marshal(id)
			replies[string(b)] = m
		}
	}
	toolResult := func(id string) (text, kind string, isError bool) {
		t.Helper()
		res, _ := replies[id]["result"].(map[string]any)
		if res == nil {
			t.Fatalf("request %s: no tool result: %v", id, replies[id])
		}
		content, _ := res["content"].([]any)
		if len(content) > 0 {
			text, _ = content[0].(map[string]any)["text"].(string)
		}
		sc, _ := res["structuredContent"].(map[string]any)
		kind, _ = sc["kind"].(string)
		isError, _ = res["isError"].(bool)
		return text, kind, isError
	}
	text, kind, isError := toolResult("2")
	if !isError || kind != "too_large" || strings.Contains(text, "\n") || len(text) > 400 {
		t.Errorf("oversized call: kind %q, isError %v, text %q", kind, isError, text)
	}
	if _, err := os.Stat(filepath.Join(dir, "big.txt")); err == nil {
		t.Error("the oversized create_file created its file")
	}
	text, kind, isError = toolResult(`"four"`)
	if !isError || kind != "invalid_input" || strings.Contains(text, "\n") || len(text) > 400 {
		t.Errorf("deeply nested call: kind %q, isError %v, text %q", kind, isError, text)
	}
	e, _ := replies["5"]["error"].(map[string]any)
	if e == nil || !strings.Contains(e["message"].(string), "too_large") {
		t.Errorf("oversized ping: %v", replies["5"])
	}
	if e, _ := replies["null"]["error"].(map[string]any); e == nil || e["code"] != -32700.0 {
		t.Errorf("a line that is not JSON: %v", replies["null"])
	}
	for _, id := range []string{"3", "6"} {
		if text, _, isError := toolResult(id); isError || !strings.Contains(text, "alpha") {
			t.Errorf("request %s after a refused frame: %q", id, text)
		}
	}
}

// oversizedFrames is a session whose requests are over 16 MiB, nested 5000 deep, or cut
// short, among well-formed ones.
func oversizedFrames() string {
	huge := strings.Repeat("x", 17<<20)
	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_file","arguments":{"path":"big.txt","content":"` + huge + `"}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}
{"jsonrpc":"2.0","method":"tools/call","params":{"name":"edit_file","arguments":{"path":"a.txt","edits":` + deep + `}},"id":"four"}
{"jsonrpc":"2.0","id":5,"method":"ping","params":{"pad":"` + huge + `"}}
{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}
{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}
`
}

// TestMCPFramesThatAreNotJSONRPC: lines that are JSON but not a JSON-RPC 2.0 request
// object (a batch, a bare value, another version tag, no version, an object or null
// for an id) each get an Invalid Request error, and the connection keeps serving: the SDK's
// transport ended it on every one of them.
func TestMCPFramesThatAreNotJSONRPC(t *testing.T) {
	bin := buildVfsctl(t)
	stdin, stdout := rawServe(t, bin, t.TempDir())
	defer stdin.Close()
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
[1,2,3]
[]
"str"
42
null
{"jsonrpc":"1.0","id":20,"method":"tools/list"}
{"id":21,"method":"tools/list"}
{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}
{"jsonrpc":"2.0","id" :  null ,"method":"tools/list"}
{"jsonrpc":"2.0","id":99,"method":"tools/list"}
`)
	invalid := map[string]int{}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	listed := false
	for !listed && sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			t.Fatalf("stdout holds a line that is not JSON-RPC: %.200q", sc.Text())
		}
		id, _ := json.Marshal(m["id"])
		switch e, _ := m["error"].(map[string]any); {
		case string(id) == "99":
			listed = m["result"] != nil
		case e != nil && e["code"] == -32600.0:
			invalid[string(id)]++
		}
	}
	if !listed {
		t.Fatalf("tools/list after the bad lines got no answer (the server stopped?): %v", sc.Err())
	}
	if invalid["null"] != 7 || invalid["20"] != 1 || invalid["21"] != 1 {
		t.Errorf("Invalid Request replies by id: %v, want 7 with id null and one each for 20 and 21", invalid)
	}
}

// A client that writes its calls and closes its end gets every reply: the server
// used to end at the end of its input, cancelling the calls in flight and dropping
// the replies of those that had already written their files. Each reply must agree
// with the disk.
func TestMCPEndOfInputAnswersEveryCall(t *testing.T) {
	bin := buildVfsctl(t)
	dir := t.TempDir()
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
`)
	const n = 30
	for i := range n {
		name := fmt.Sprintf("f%02d.txt", i)
		if err := os.WriteFile(filepath.Join(dir, name), []byte("alpha\nbeta\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"edit_file","arguments":{"path":%q,"edits":[{"oldText":"beta","newText":"BETA"}]}}}`+"\n", 100+i, name)
	}
	cmd := exec.Command(bin, "serve", "--root", dir)
	cmd.Stdin = strings.NewReader(in.String()) // then the end of the input
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("serve: %v", err)
	}
	replies := map[int]bool{} // id -> the call says it edited
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m struct {
			ID     int `json:"id"`
			Result struct {
				IsError bool `json:"isError"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.ID >= 100 {
			replies[m.ID] = !m.Result.IsError
		}
	}
	for i := range n {
		data, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("f%02d.txt", i)))
		edited := string(data) == "alpha\nBETA\n"
		ok, answered := replies[100+i]
		switch {
		case !answered:
			t.Errorf("call %d got no reply (the file edited: %v)", 100+i, edited)
		case ok != edited:
			t.Errorf("call %d: the reply says edited=%v, the disk %v", 100+i, ok, edited)
		case !ok:
			t.Errorf("call %d was refused", 100+i)
		}
	}
}

// rawServe starts vfsctl serve on dir, to be spoken to in raw JSON-RPC lines: its
// stdin and stdout. At the test's end vfsctl is waited for; a server that hangs is
// killed after a minute, which fails the test.
func rawServe(t *testing.T, bin, dir string) (io.WriteCloser, io.Reader) {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--root", dir)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
		stop.Stop()
	})
	return stdin, stdout
}

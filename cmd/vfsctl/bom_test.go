package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A UTF-8 byte order mark at the start of the input (a file of calls saved by Notepad
// or PowerShell 5.1) is no part of the first line: the first call runs and replies
// with its id, as the second does.
func TestCallSkipsALeadingBOM(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hi\n"), 0o644)
	in := "\ufeff" + `{"tool":"read_file","args":{"path":"a.txt"},"id":1}` + "\r\n" +
		`{"tool":"read_file","args":{"path":"a.txt"},"id":2}` + "\r\n"
	var out, errb bytes.Buffer
	if code := run([]string{"call", "--root", dir}, strings.NewReader(in), &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
	dec := json.NewDecoder(&out)
	for want := 1; want <= 2; want++ {
		var r struct {
			OK   bool
			ID   int
			Text string
		}
		if err := dec.Decode(&r); err != nil || !r.OK || r.ID != want || !strings.Contains(r.Text, "hi") {
			t.Fatalf("reply %d: %+v %v", want, r, err)
		}
	}
}

// The same over MCP: an initialize after a BOM is answered, not refused as a parse
// error with id null (which left the session unopened).
func TestServeSkipsALeadingBOM(t *testing.T) {
	bin := buildVfsctl(t)
	stdin, stdout := rawServe(t, bin, t.TempDir())
	io.WriteString(stdin, "\ufeff"+`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`+"\n")
	stdin.Close()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	if !sc.Scan() {
		t.Fatalf("no reply: %v", sc.Err())
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(sc.Bytes(), &m); err != nil || string(m.ID) != "1" || m.Result == nil {
		t.Fatalf("initialize after a BOM: %s", sc.Text())
	}
}

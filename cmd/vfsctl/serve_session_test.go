package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// `vfsctl serve --session S` journals the connection's calls as session S and tells
// the client so; a client that starts serve again with the same --session goes on in
// that session: what it read in the first process counts for write_file in the second,
// as for vfsctl call --session.
func TestServeSessionAcrossProcesses(t *testing.T) {
	bin := buildVfsctl(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	connect := func() *sdk.ClientSession {
		t.Helper()
		client := sdk.NewClient(&sdk.Implementation{Name: "rt", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: exec.Command(bin, "serve", "--root", dir, "--session", "conv-1")},
			&sdk.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
		if err != nil {
			t.Fatal(err)
		}
		if got := cs.InitializeResult().Meta["vfsctl/session"]; got != "conv-1" {
			t.Errorf("initialize _meta vfsctl/session %v, want conv-1", got)
		}
		return cs
	}
	call := func(cs *sdk.ClientSession, tool string, args map[string]any) map[string]any {
		t.Helper()
		r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		st, _ := r.StructuredContent.(map[string]any)
		if st["ok"] != true || st["session"] != "conv-1" {
			t.Errorf("%s: %v %s", tool, st, textOf(r))
		}
		return st
	}
	cs := connect()
	call(cs, "read_file", map[string]any{"path": "a.txt"})
	cs.Close()
	cs = connect()
	call(cs, "write_file", map[string]any{"path": "a.txt", "content": "two\n"})
	cs.Close()
	if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(data) != "two\n" {
		t.Errorf("a.txt = %q", data)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"log", "--root", dir, "--json"}, strings.NewReader(""), &out, &errb); code != exitOK {
		t.Fatalf("vfsctl log: exit %d: %s", code, errb.String())
	}
	var tools []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var rec struct{ Tool, Session string }
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if rec.Session != "conv-1" {
			t.Errorf("vfsctl log: %s is of session %q, want conv-1", rec.Tool, rec.Session)
		}
		tools = append(tools, rec.Tool)
	}
	if strings.Join(tools, " ") != "write_file read_file" {
		t.Errorf("vfsctl log: %v", tools)
	}
}

// A --session that is no session name is a usage error.
func TestServeSessionRefused(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"serve", "--root", t.TempDir(), "--session", strings.Repeat("s", 201)}, strings.NewReader(""), &out, &errb); code != exitUsage || !strings.Contains(errb.String(), "--session") {
		t.Errorf("exit %d: %s", code, errb.String())
	}
}

// A tools/call over serve's frame limit is journaled in the session its _meta names,
// and its refusal says which, as a call read whole does.
func TestServeCutCallSession(t *testing.T) {
	bin := buildVfsctl(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "serve", "--root", dir, "--session", "conv-1")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
	defer stop.Stop()
	go func() {
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_file","_meta":{"vfsctl/session":"conv-2"},"arguments":{"path":"big.txt","content":"`+strings.Repeat("x", 17<<20)+`"}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_file","arguments":{"path":"big.txt","content":"`+strings.Repeat("x", 17<<20)+`"}}}
`)
		stdin.Close()
	}()
	var got []string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		var m struct {
			ID     int
			Result struct{ StructuredContent map[string]any }
		}
		json.Unmarshal(sc.Bytes(), &m)
		if m.ID >= 2 {
			got = append(got, fmt.Sprint(m.Result.StructuredContent["kind"], " ", m.Result.StructuredContent["session"]))
		}
	}
	cmd.Wait()
	if strings.Join(got, ", ") != "too_large conv-2, too_large conv-1" {
		t.Errorf("replies to the calls over the limit: %v", got)
	}
	var out, errb bytes.Buffer
	run([]string{"log", "--root", dir, "--json"}, strings.NewReader(""), &out, &errb)
	if n := strings.Count(out.String(), `"session":"conv-2","tool":"create_file"`); n != 1 || strings.Count(out.String(), `"session":"conv-1","tool":"create_file"`) != 1 {
		t.Errorf("vfsctl log: %s", out.String())
	}
}

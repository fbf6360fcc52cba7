//go:build !windows

package mcp

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/toolapi"
)

// run_command served over stdio runs beside the reading of requests: a ping is
// answered while the command runs, and the client's notifications/cancelled kills the
// command's process group, whose record then says how it ended; the cancelled call
// gets no reply.
func TestRunCommandCancelledWhileServed(t *testing.T) {
	dir := t.TempDir()
	eng, err := toolapi.Open(dir, toolapi.Options{Tools: "native,shell"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	in, send := io.Pipe()
	out := &replies{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, eng, NewTransport(in, out, nil), Options{}) }()
	write := func(f string) {
		if _, err := io.WriteString(send, f+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	// waitFor polls until ok; the bound only keeps a broken server from hanging the test.
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(15 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not yet after 15 s; replies:\n%s", what, out.buf.String())
			}
		}
	}
	answered := func(id int) func() bool { return func() bool { _, ok := out.byID(id); return ok } }
	write(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	waitFor("initialize", answered(1))
	write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_command","arguments":{"command":"sleep 30 & echo $! > sleep.pid; wait; echo e > ended.txt"}}}`)
	pidFile := filepath.Join(dir, "sleep.pid")
	waitFor("the command starts", func() bool { b, _ := os.ReadFile(pidFile); return len(b) > 0 && b[len(b)-1] == '\n' })
	write(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	waitFor("the ping's reply while the command runs", answered(3))
	if _, ok := out.byID(2); ok {
		t.Fatal("run_command replied before it was cancelled")
	}
	write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"the user stopped it"}}`)
	var rec *toolapi.Record
	waitFor("the command's record", func() bool {
		recs, _ := eng.Log(toolapi.Query{})
		for _, r := range recs {
			if r.Tool == toolapi.RunCommand && r.State == "committed" {
				rec = r
				return true
			}
		}
		return false
	})
	if rec.Exit != "killed: the caller cancelled the call" {
		t.Errorf("the record says the command ended %q, want killed as the caller cancelled it", rec.Exit)
	}
	b, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	waitFor("the command's background sleep ends", func() bool { return pid > 0 && syscall.Kill(pid, 0) != nil })
	send.Close()
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	// MCP: a request the client cancelled gets no reply (Serve ended once every
	// request it read had its reply or was dropped).
	if reply, ok := out.byID(2); ok {
		t.Errorf("the cancelled run_command got a reply: %s", reply)
	}
	if _, err := os.Stat(filepath.Join(dir, "ended.txt")); err == nil {
		t.Error("the command ran to its end")
	}
}

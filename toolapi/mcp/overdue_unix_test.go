//go:build !windows

package mcp

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/toolapi"
)

// A client that sends a run_command and closes its input gets the call's reply all
// the same: a command still running DrainWait later is killed, and its reply (that it
// was killed, and the file it had written) comes before Serve ends, which its record
// says in words a reader understands.
func TestOverdueCommandAnsweredAfterEOF(t *testing.T) {
	defer func(d time.Duration) { DrainWait = d }(DrainWait)
	DrainWait = 300 * time.Millisecond
	dir := t.TempDir()
	eng, err := toolapi.Open(dir, toolapi.Options{Tools: "native,shell"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	in, send := io.Pipe()
	out := &replies{}
	served := make(chan error, 1)
	go func() { served <- Serve(context.Background(), eng, NewTransport(in, out, nil), Options{}) }()
	for _, f := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_command","arguments":{"command":"echo made > z.txt; sleep 30; echo e > ended.txt","timeoutMs":600000}}}`,
	} {
		if _, err := io.WriteString(send, f+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "z.txt")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command did not start within 15 s")
		}
	}
	send.Close()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Serve still runs 20 s after the end of its input")
	}
	reply, ok := out.byID(2)
	if !ok {
		t.Fatalf("the run_command sent before the end of the input got no reply; replies:\n%s", out.buf.String())
	}
	text := fmt.Sprint(reply)
	if !strings.Contains(text, "killed") || !strings.Contains(text, "z.txt") {
		t.Errorf("the reply does not say the command was killed and what it wrote: %s", text)
	}
	if _, err := os.Stat(filepath.Join(dir, "ended.txt")); err == nil {
		t.Error("the command ran to its end")
	}
	recs, _ := eng.Log(toolapi.Query{})
	var exit string
	for _, r := range recs {
		if r.Tool == toolapi.RunCommand {
			exit = r.Exit
		}
	}
	if want := "killed: the client closed its input and the call still ran 300ms later"; exit != want {
		t.Errorf("the record says the command ended %q, want %q", exit, want)
	}
}

package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/toolapi"
)

// replies is what a served connection wrote, readable while it goes on.
type replies struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (r *replies) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.buf.Write(p)
}

// byID returns the reply to request id, if written.
func (r *replies) byID(id int) (map[string]any, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, line := range bytes.Split(r.buf.Bytes(), []byte("\n")) {
		var m map[string]any
		if json.Unmarshal(line, &m) == nil && m["id"] == float64(id) {
			return m, true
		}
	}
	return nil, false
}

// client hands a served connection its frames one Read at a time, as a runtime writes
// them, and notes what had been answered when each was asked for.
type client struct {
	frames []string
	out    *replies
	next   int
	// await: before frame i is handed over, the reply to request id (a client
	// waits for initialize's before it goes on).
	await map[int]int
	// unanswered: the tools/call requests that had no reply yet when the frame after
	// them was asked for.
	unanswered []int
}

func (c *client) Read(p []byte) (int, error) {
	if c.next >= len(c.frames) {
		return 0, io.EOF
	}
	if c.next > 0 {
		var prev struct {
			ID     int    `json:"id"`
			Method string `json:"method"`
		}
		json.Unmarshal([]byte(c.frames[c.next-1]), &prev)
		if _, ok := c.out.byID(prev.ID); prev.Method == "tools/call" && !ok {
			c.unanswered = append(c.unanswered, prev.ID)
		}
	}
	if id, ok := c.await[c.next]; ok {
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
			if _, ok := c.out.byID(id); ok || time.Now().After(deadline) {
				break
			}
		}
	}
	f := c.frames[c.next] + "\n"
	if len(p) < len(f) {
		return 0, io.ErrShortBuffer // the frame reader reads 64 KiB at once
	}
	c.next++
	return copy(p, f), nil
}

// serveFrames serves a workspace holding a.txt to frames (after initialize, for
// protocol version, and its notification), through Serve, or through the SDK alone
// (sdkOnly), and returns what was written and the client. awaitAll makes the client
// wait for each request's reply before it sends the next frame.
func serveFrames(t *testing.T, version string, sdkOnly, awaitAll bool, frames ...string) (*replies, *client) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	eng, err := toolapi.Open(dir, toolapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	out := &replies{}
	all := append([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	}, frames...)
	c := &client{frames: all, out: out, await: map[int]int{1: 1}}
	for i, f := range all {
		var m struct {
			ID *int `json:"id"`
		}
		if json.Unmarshal([]byte(f), &m) == nil && m.ID != nil && awaitAll {
			c.await[i+1] = *m.ID
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := NewTransport(c, out, nil)
	// One session named for both ways: a session named after the client ends in a
	// random id.
	opts := Options{Session: "conv-1"}
	if sdkOnly {
		NewServer(eng, opts).Run(ctx, tr)
	} else {
		Serve(ctx, eng, tr, opts)
	}
	return out, c
}

func editFrame(id int, old, new string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"edit_file","arguments":{"path":"a.txt","edits":[{"oldText":%q,"newText":%q}]}}}`, id, old, new)
}

// A tool call over stdio is answered before the next request is read: a runtime that
// waits for each reply gets it without the request passing from goroutine to
// goroutine, and calls run in the order sent.
func TestCallAnsweredBeforeNextRead(t *testing.T) {
	out, c := serveFrames(t, "2025-06-18", false, false,
		editFrame(2, "two", "TWO"),
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
		editFrame(4, "TWO", "2"),
		editFrame(5, "TWO", "two"), // refused: the call before changed it
		`{"jsonrpc":"2.0","id":6,"method":"ping"}`,
	)
	if len(c.unanswered) > 0 {
		t.Errorf("tools/call %v not answered when the next request was read", c.unanswered)
	}
	for id, wantErr := range map[int]bool{2: false, 4: false, 5: true} {
		m, ok := out.byID(id)
		if !ok {
			t.Fatalf("no reply to %d:\n%s", id, out.buf.String())
		}
		res, _ := m["result"].(map[string]any)
		if isErr, _ := res["isError"].(bool); isErr != wantErr {
			t.Errorf("reply to %d: %v", id, m)
		}
	}
}

// The reply written where the call is read is the one the SDK writes: the same
// frames served by Serve and by the SDK alone, over the same transport, each reply
// awaited before the next frame is sent, get equal replies, for a client of an
// older protocol version and of one whose results carry a resultType: successes,
// refusals, a turn label refused before the tool ran, a call of another session and
// one whose session is no name, _meta keys of the protocol's
// own, a tool not served (the SDK's JSON-RPC error), params of another shape.
func TestFastReplyIsTheSDKs(t *testing.T) {
	params := []string{
		`{"name":"read_file","arguments":{"path":"a.txt"}}`,
		`{"name":"edit_file","arguments":{"path":"a.txt","edits":[{"oldText":"two","newText":"2"}]},"_meta":{"vfsctl/turn":"t1"}}`,
		`{"name":"edit_file","arguments":{"path":"a.txt","edits":[{"oldText":"nowhere","newText":"x"}]}}`,
		`{"name":"edit_file","arguments":{"path":"a.txt","edits":"not a list"}}`,
		`{"name":"read_file","arguments":{"path":"a.txt"},"_meta":{"vfsctl/turn":{"no":1}}}`,
		`{"name":"read_file","arguments":{"path":"a.txt"},"_meta":{"vfsctl/session":"conv-2"}}`,
		`{"name":"read_file","arguments":{"path":"a.txt"},"_meta":{"vfsctl/session":7}}`,
		`{"_meta":{"vfsctl/call_id":"toolu_1"},"arguments":{"path":"b/c.txt","content":"new\n"},"name":"create_file"}`,
		`{"name":"read_file","arguments":{"path":"b/c.txt"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-06-18"}}`,
		`{"name":"rm_rf","arguments":{}}`,
		`{"name":"read_file"}`,
		`{"name":"read_file","arguments":{"path":"a.txt"},"extra":1}`,
		`{"name":7}`,
		`[]`,
	}
	var frames []string
	for i, p := range params {
		frames = append(frames, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, 10+i, p))
	}
	for _, version := range []string{"2025-06-18", mrtrVersion} {
		fast, _ := serveFrames(t, version, false, true, frames...)
		slow, _ := serveFrames(t, version, true, true, frames...)
		for i := range frames {
			got, ok1 := fast.byID(10 + i)
			want, ok2 := slow.byID(10 + i)
			if !ok1 || !ok2 || !reflect.DeepEqual(got, want) {
				t.Errorf("%s, %s:\nServe: %v\nSDK:   %v", version, frames[i], got, want)
			}
		}
	}
}

package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vfsctl/vfsctl/toolapi"
)

// A client learns the journal session of its connection: in the initialize result
// (its _meta and its instructions) and in each tool result; the journal keeps its
// calls under that name, so that the runtime can rewind it. A call's _meta may name
// another session, whose reads are its own; a value there that is no name is refused
// and the call not run.
func TestClientLearnsItsSession(t *testing.T) {
	// A client of a protocol version with initialize; the Go SDK's client keeps
	// server/discover's instructions, not its _meta.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
	cs, eng := connectAs(t, dir, Options{}, "2025-06-18")
	ctx := context.Background()
	init := cs.InitializeResult()
	name, _ := init.Meta[MetaSession].(string)
	if !strings.HasPrefix(name, "mcp-rt-") {
		t.Fatalf("initialize _meta %q: %v", MetaSession, init.Meta)
	}
	if !strings.Contains(init.Instructions, `"`+name+`"`) {
		t.Errorf("the instructions do not name the session %s: %s", name, init.Instructions)
	}
	call := func(tool string, args map[string]any, meta sdk.Meta) map[string]any {
		t.Helper()
		r, err := cs.CallTool(ctx, &sdk.CallToolParams{Meta: meta, Name: tool, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		st, _ := r.StructuredContent.(map[string]any)
		return st
	}
	if st := call("read_file", map[string]any{"path": "a.txt"}, nil); st["session"] != name || st["ok"] != true {
		t.Errorf("read_file's structuredContent %v, want session %s", st, name)
	}
	// Another session, named in _meta: it has read nothing, so write_file is refused
	// there; it reads, and then may write.
	other := sdk.Meta{MetaSession: "conv-2"}
	write := map[string]any{"path": "a.txt", "content": "two\n"}
	if st := call("write_file", write, other); st["session"] != "conv-2" || st["kind"] != "not_read" {
		t.Errorf("write_file in a session that read nothing: %v", st)
	}
	call("read_file", map[string]any{"path": "a.txt"}, other)
	if st := call("write_file", write, other); st["session"] != "conv-2" || st["ok"] != true {
		t.Errorf("write_file after a read in session conv-2: %v", st)
	}
	for _, bad := range []any{"", 7, strings.Repeat("s", MaxSession+1), "a\x00b"} {
		if st := call("read_file", map[string]any{"path": "a.txt"}, sdk.Meta{MetaSession: bad}); st["kind"] != "invalid_input" || st["txn"] != nil {
			t.Errorf("_meta session %.20q: %v", bad, st)
		}
	}
	recs, err := eng.Log(toolapi.Query{})
	if err != nil || len(recs) != 4 {
		t.Fatalf("log: %v, %d records, want 4", err, len(recs))
	}
	for i, want := range []string{"conv-2", "conv-2", "conv-2", name} {
		if recs[i].Session != want {
			t.Errorf("call %d is of session %q, want %q", recs[i].Seq, recs[i].Session, want)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(data) != "two\n" {
		t.Errorf("a.txt = %q", data)
	}
}

// Options.Session names the session of every connection, and the client is told it,
// whether it initializes or discovers (the protocol's stateless version).
func TestSessionNamedByServer(t *testing.T) {
	for _, version := range []string{"2025-06-18", mrtrVersion} {
		cs, eng := connectAs(t, t.TempDir(), Options{Session: "conv-9"}, version)
		init := cs.InitializeResult()
		if version < mrtrVersion && init.Meta[MetaSession] != "conv-9" {
			t.Errorf("%s: initialize says session %v, want conv-9", version, init.Meta[MetaSession])
		}
		if !strings.Contains(init.Instructions, `session "conv-9"`) {
			t.Errorf("%s: the instructions do not name the session: %s", version, init.Instructions)
		}
		r, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "create_file", Arguments: map[string]any{"path": "n.txt", "content": "x\n"}})
		if err != nil || r.StructuredContent.(map[string]any)["session"] != "conv-9" {
			t.Fatalf("%s: create_file: %v %+v", version, err, r)
		}
		if recs, _ := eng.Log(toolapi.Query{}); len(recs) != 1 || recs[0].Session != "conv-9" {
			t.Errorf("%s: journal: %+v", version, recs)
		}
	}
}

// connectAs serves dir with opts to an in-memory client "rt" of protocol version.
func connectAs(t *testing.T, dir string, opts Options, version string) (*sdk.ClientSession, *toolapi.Engine) {
	t.Helper()
	eng, err := toolapi.Open(dir, toolapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := NewServer(eng, opts).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "rt", Version: "1"}, nil).Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, eng
}

// The tool list never changes while a server runs: the server does not promise
// notifications of its changes.
func TestToolListNotSaidToChange(t *testing.T) {
	cs, _ := connect(t, nil)
	caps := cs.InitializeResult().Capabilities
	if caps.Tools == nil || caps.Tools.ListChanged {
		t.Errorf("tools capability %+v, want one without listChanged", caps.Tools)
	}
}

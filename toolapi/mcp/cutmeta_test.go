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

// afterInit hands over its frames once the reply to initialize (id 1) is written, as
// a client waits for it.
type afterInit struct {
	out    *replies
	rest   io.Reader
	waited bool
}

func (a *afterInit) Read(p []byte) (int, error) {
	for deadline := time.Now().Add(10 * time.Second); !a.waited && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		_, a.waited = a.out.byID(1)
	}
	return a.rest.Read(p)
}

// A tools/call too large to hold is journaled in the session its params._meta names,
// with its turn, as a call within the limit is, also when its _meta is too long to
// keep whole (it was journaled in the connection's session, which a rewind of the
// named one never sees). One whose _meta names a session or turn that a call within
// the limit is refused for, unjournaled, or whose _meta cannot be read, or whose
// session or turn is too long as sent to be kept whole (escaped), is not
// journaled, and its reply says so: no record number, no session. Each reply's record
// number and session are those of the record the journal holds.
func TestTooLargeCallJournaledInTheSessionItsMetaNames(t *testing.T) {
	dir := t.TempDir()
	eng, err := toolapi.Open(dir, toolapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	pad := `"pad":"` + strings.Repeat("p", 70000) + `"` // _meta over the 64 KiB kept whole
	numbers := strings.Repeat("1,", 40000) + "1"        // over 64 KiB even cut
	content := strings.Repeat("y", 300<<10)
	metas := map[int]string{
		2: `{"vfsctl/session":"ok2","vfsctl/turn":"t2",` + pad + `}`,
		3: `{"vfsctl/session":5,` + pad + `}`,
		4: `{"vfsctl/session":"` + strings.Repeat("s", 300) + `",` + pad + `}`,
		5: `{"vfsctl/session":"` + strings.Repeat("s", 5000) + `"}`,
		6: `{"vfsctl/turn":"t6","vfsctl/session":"ok6","x":[` + numbers + `]}`,
		7: `{"vfsctl/session":"ok7","vfsctl/turn":{"a":1}}`,
		8: `{"vfsctl/session":"ok8","vfsctl/turn":8}`,
		9: `5`,
		// Valid names once decoded, but over the 512 bytes of a string kept whole
		// as sent: what is left of them cut is no name the client sent.
		10: `{"vfsctl/session":"` + strings.Repeat(`\u0061`, 100) + `",` + pad + `}`,
		11: `{"vfsctl/session":"ok11","vfsctl/turn":"` + strings.Repeat(`\u0074`, 100) + `",` + pad + `}`,
		12: `{"vfsctl/session":"` + strings.Repeat(`\u0062`, 50) + `",` + pad + `}`,
	}
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
	var calls strings.Builder
	for id := 2; id <= 12; id++ {
		fmt.Fprintf(&calls, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"create_file","_meta":%s,"arguments":{"path":"f%d","content":"%s"}}}`+"\n",
			id, metas[id], id, content)
	}
	out := &replies{}
	tr := newTransport(io.MultiReader(strings.NewReader(in), &afterInit{out: out, rest: strings.NewReader(calls.String())}), out, nil)
	tr.r.max = 256 << 10 // each call is over it, and its _meta within
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	Serve(ctx, eng, tr, Options{Session: "conn"})

	recs, err := eng.Log(toolapi.Query{})
	if err != nil {
		t.Fatal(err)
	}
	bySeq := map[float64]*toolapi.Record{}
	var journaled []string
	for _, r := range recs {
		bySeq[float64(r.Seq)] = r
		journaled = append(journaled, r.Session+"/"+r.Turn+"/"+r.Kind)
	}
	if got, want := strings.Join(journaled, " "), strings.Repeat("b", 50)+"//too_large ok8/8/too_large ok2/t2/too_large"; got != want {
		t.Errorf("journaled (session/turn/kind, newest first): %s; want %s", got, want)
	}
	for id := 2; id <= 12; id++ {
		reply, ok := out.byID(id)
		res, _ := reply["result"].(map[string]any)
		st, _ := res["structuredContent"].(map[string]any)
		text := fmt.Sprint(res["content"])
		if !ok || st["kind"] != "too_large" || res["isError"] != true {
			t.Errorf("call %d: reply %.300v; want a too_large tool result", id, reply)
			continue
		}
		if rec := bySeq[asFloat(st["txn"])]; rec != nil {
			if st["session"] != rec.Session || strings.Contains(text, "not journaled") {
				t.Errorf("call %d: reply says session %v, %.100s...; its record %d is of session %q", id, st["session"], text, rec.Seq, rec.Session)
			}
		} else if st["txn"] != nil || st["session"] != nil || !strings.Contains(text, "not journaled") {
			t.Errorf("call %d: reply says record %v of session %v (%.200s); no such record", id, st["txn"], st["session"], text[max(0, len(text)-200):])
		}
	}
	for id := 2; id <= 12; id++ {
		if _, err := os.Lstat(filepath.Join(dir, fmt.Sprintf("f%d", id))); !os.IsNotExist(err) {
			t.Errorf("f%d was refused, but: %v", id, err)
		}
	}
}

func asFloat(v any) float64 {
	f, _ := v.(float64)
	return f
}

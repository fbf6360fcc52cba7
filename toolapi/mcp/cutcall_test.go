package mcp

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
)

// A tools/call too large to hold is followed as it is read for its tool, its _meta
// and its arguments, whatever the order of params' members, however the frame is
// split into reads, and whatever else is named "name" or "arguments" in it: what is
// picked is what a decoder reads of the whole frame.
func TestCutCallPicksTheCallsMembersAsADecoderReadsThem(t *testing.T) {
	args := `{ "path" : "a.txt", "name": "decoy", "edits": [{"old_string": "a\"b", "new_string": "x\\"}],  "n": [1, 2.5, null, {"arguments": {}}]}`
	meta := `{"vfsctl/turn": "t9", "deep": {"name": "decoy", "x": [true]}}`
	frames := []string{
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"edit_file","_meta":` + meta + `,"arguments":` + args + `}}`,
		`{"params": { "arguments" : ` + args + ` , "_meta" : ` + meta + ` , "name" : "edit_file" } , "name": "top", "arguments": {"path": "b.txt"}, "x": {"name": "decoy", "arguments": 5, "_meta": {}}, "id": 4, "method": "tools/call", "jsonrpc": "2.0"}`,
		`{"id":"x","method":"tools/call","params":{"name":"old","arguments":{"path":"b.txt"},"_meta":{},"name":"edit_file","arguments":` + args + `,"_meta":` + meta + `}}`,
	}
	rng := rand.New(rand.NewSource(1))
	for i, frame := range frames {
		var want struct {
			Params struct {
				Name      string          `json:"name"`
				Meta      json.RawMessage `json:"_meta"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"params"`
		}
		if err := json.Unmarshal([]byte(frame), &want); err != nil {
			t.Fatal(err)
		}
		for try := 0; try < 20; try++ {
			p := newCutCall()
			for rest := []byte(frame); len(rest) > 0; {
				n := min(len(rest), 1+rng.Intn(9))
				p.feed(rest[:n])
				rest = rest[n:]
			}
			got, size := p.Args()
			if p.Tool() != want.Params.Name || !bytes.Equal(compact(p.Meta()), compact(want.Params.Meta)) ||
				string(got) != string(want.Params.Arguments) || size != len(want.Params.Arguments) {
				t.Fatalf("frame %d: picked %q, _meta %s, arguments %s (%d bytes); want %q, %s, %s (%d)", i, p.Tool(), p.Meta(), got, size,
					want.Params.Name, want.Params.Meta, want.Params.Arguments, len(want.Params.Arguments))
			}
		}
	}
}

// What is kept of a frame too large to hold stays bounded: arguments of a million
// short values are kept cut to what a record keeps, with their size as sent, and a
// _meta too large to keep is dropped rather than held.
func TestCutCallKeepsBoundedMemory(t *testing.T) {
	args := `{"path":"a.txt","content":[` + strings.Repeat("1,", 1<<20) + `1]}`
	p := newCutCall()
	p.feed([]byte(`{"id":1,"method":"tools/call","params":{"name":"create_file","arguments":` + args + `,"_meta":{"big":"` + strings.Repeat("m", 100<<10) + `"}}}`))
	got, size := p.Args()
	if p.Tool() != "create_file" || len(got) != maxCutFrame || !strings.HasPrefix(string(got), args[:1000]) || size != len(args) {
		t.Errorf("picked %q, %d bytes of arguments kept, %d as sent; want create_file, %d, %d", p.Tool(), len(got), size, maxCutFrame, len(args))
	}
	if p.Meta() != nil || cap(p.meta) > 2*maxCutMeta {
		t.Errorf("a _meta over %d bytes is kept: %d bytes, %d held", maxCutMeta, len(p.Meta()), cap(p.meta))
	}
}

// A frame too large to hold may be any bytes: following it never fails.
func TestCutCallReadsAnyBytes(t *testing.T) {
	for _, frame := range []string{`]]]]}}{{[{"params":{"name":"x"`, `}"}}}{{{"\`, `{"params":{"name":"a","name"}}}}}}}}[[[{`, "\xff\x00\"\"::,,{{"} {
		p := newCutCall()
		p.feed([]byte(frame))
		p.Tool()
		p.Meta()
		p.Args()
	}
}

func compact(b []byte) []byte {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return b
	}
	return out.Bytes()
}

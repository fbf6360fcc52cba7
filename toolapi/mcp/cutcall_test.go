package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// Random frames of the members the scan looks for, nested anywhere, spaced and split
// into reads at random, some keys and values spelled with escapes, some keys in
// another case: what it picks is what a decoder that matches names exactly, as the
// SDK's does, reads of the whole frame (an id or a method only when a scalar, as a
// reply can carry it). A frame that Go's encoding/json, which folds case, reads
// otherwise is one the scan says has a folded key.
func TestFrameScanPicksWhatADecoderReads(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	space := []string{"", " ", "\n\t ", "  "}
	keys := []string{"id", "method", "params", "name", "_meta", "arguments", "x", `a\"b`,
		`i\u0064`, `\u006dethod`, `param\u0073`, `n\u0061me`, `_m\u0065ta`, `argument\u0073`, `ID`, `Method`, `paramſ`, `jsonRPC`}
	scalars := []string{`1`, `-2.5e3`, `true`, `null`, `"a\\\"b{}[],:"`, `"tools/call"`, `"tools\/call"`, `"edit_file"`, `"edit\u005ffile"`, `""`}
	var value func(depth int) string
	value = func(depth int) string {
		var parts []string
		k := rng.Intn(9)
		for n := rng.Intn(5); k >= 3 && depth < 5 && n > 0; n-- {
			v := space[rng.Intn(4)] + value(depth+1) + space[rng.Intn(4)]
			if k >= 6 {
				v = space[rng.Intn(4)] + `"` + keys[rng.Intn(len(keys))] + `"` + space[rng.Intn(4)] + ":" + v
			}
			parts = append(parts, v)
		}
		switch {
		case k < 3 || depth >= 5:
			if k == 0 {
				return `"` + strings.Repeat("é ", rng.Intn(150)) + `"` // up to 450 bytes: kept whole
			}
			return scalars[rng.Intn(len(scalars))]
		case k < 6:
			return "[" + strings.Join(parts, ",") + "]"
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	// What the scan keeps of a value: at most maxKept bytes, of an id maxID.
	keptUpTo := func(v json.RawMessage, max int) string {
		if len(v) > max {
			return ""
		}
		return string(v)
	}
	kept := func(v json.RawMessage) string { return keptUpTo(v, maxKept) }
	folded := 0
	for n := 0; n < 3000; n++ {
		frame := value(1)
		var top, params map[string]json.RawMessage
		if frame[0] != '{' || json.Unmarshal([]byte(frame), &top) != nil ||
			bytes.ContainsAny(top["id"][:min(len(top["id"]), 1)], "{[") || bytes.ContainsAny(top["method"][:min(len(top["method"]), 1)], "{[") {
			continue // an object or an array for an id: not a request the scan reads
		}
		json.Unmarshal(top["params"], &params) // none unless an object
		var name string
		json.Unmarshal([]byte(kept(params["name"])), &name)
		p := newCutCall()
		for rest := []byte(frame); len(rest) > 0; {
			k := min(len(rest), 1+rng.Intn(40))
			p.feed(rest[:k])
			rest = rest[k:]
		}
		args, size := p.Args()
		got := fmt.Sprintf("%s %s %q %s %s %d", p.id, p.method, p.Tool(), compact(p.Meta()), args, size)
		if w := fmt.Sprintf("%s %s %q %s %s %d", keptUpTo(top["id"], maxID), kept(top["method"]), name, compact(params["_meta"]), params["arguments"],
			len(params["arguments"])); got != w {
			t.Fatalf("%s\npicked %s\nwant   %s", frame, got, w)
		}
		var method string
		json.Unmarshal([]byte(kept(top["method"])), &method)
		if p.methodName != method {
			t.Fatalf("%s\nmethod read as %q, want %q", frame, p.methodName, method)
		}
		var folding struct{ JSONRPC, ID, Method, Params json.RawMessage }
		json.Unmarshal([]byte(frame), &folding)
		if !bytes.Equal(folding.JSONRPC, top["jsonrpc"]) || !bytes.Equal(folding.ID, top["id"]) || !bytes.Equal(folding.Method, top["method"]) ||
			!bytes.Equal(folding.Params, top["params"]) {
			folded++
			if p.folded == "" {
				t.Fatalf("%s\nencoding/json reads another id, method or params, and the scan found no folded key", frame)
			}
		}
	}
	if folded < 50 {
		t.Errorf("only %d frames that encoding/json reads otherwise", folded)
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
	if p.Meta() != nil || cap(p.kept[keepMeta].b) > 2*maxCutMeta {
		t.Errorf("a _meta over %d bytes is kept: %d bytes, %d held", maxCutMeta, len(p.Meta()), cap(p.kept[keepMeta].b))
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

// A call line's envelope member named twice at its top level is found, the one named
// again first, its key read with its escapes decoded; keys inside the arguments, or
// other than the envelope's, are not. A line too large to hold, read in parts, is
// read the same.
func TestTwiceNamed(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for line, want := range map[string]string{
		`{"tool":"a","args":{},"tool":"b"}`:                             "tool",
		`{"id":1,"tool":"a","args":{},"tool":"b","id":2}`:               "tool",
		`{"id":1,"tool":"a","id":2,"args":{},"tool":"b"}`:               "id",
		`{"tool":"a","args":{"x":1},"turn":"t","args":{}}`:              "args",
		`{"turn":null,"tool":"a","t\u0075rn":"t"}`:                      "turn",
		`{"tool":"a","args":{"tool":1,"tool":2,"x":{"id":1,"id":2}}}`:   "",
		`{"tool":"a","args":{"q":1,"q":2},"x":1,"x":2,"Tool":"b"}`:      "",
		`{"args":{"q":1,"q":2},"tool":"a","tool":"b"}`:                  "tool",
		`{"tool":"a","args":{"s":"\"tool\":1,\"tool\":2"},"id":"tool"}`: "",
		`{"tool":"a"} {"tool":"b"}`:                                     "",
	} {
		if got := TwiceNamed([]byte(line)); got != want {
			t.Errorf("TwiceNamed(%s) = %q, want %q", line, got, want)
		}
		c := NewCutLine()
		for rest := []byte(line); len(rest) > 0; {
			n := min(len(rest), 1+rng.Intn(7))
			c.Write(rest[:n])
			rest = rest[n:]
		}
		if got := c.Twice(); got != want {
			t.Errorf("CutLine of %s: Twice %q, want %q", line, got, want)
		}
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A line nested deeper than encoding/json reads is refused as serve refuses it, and
// the reply keeps the line's id: a client that pairs replies by id (the Python
// client) would otherwise take it as out of turn. The next line is served.
func TestCallVeryDeepLineKeepsItsID(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	in := `{"tool":"read_file","args":{"path":"a.txt","x":` + deep + `},"id":1}` + "\n" +
		`{"tool":"read_file","args":{"path":"a.txt"},"id":2}` + "\n"
	_, out, _ := runBounded(t, in, "call", "--root", dir)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 replies, got:\n%s", out)
	}
	var r struct {
		ID   json.RawMessage `json:"id"`
		OK   bool            `json:"ok"`
		Kind string          `json:"kind"`
		Text string          `json:"text"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &r); err != nil || string(r.ID) != "1" || r.OK || r.Kind != "invalid_input" ||
		!strings.Contains(r.Text, "nested 20002 levels deep; at most 128 are read and nothing was run") {
		t.Errorf("the deep line: %s (%v)", lines[0], err)
	}
	if !strings.Contains(lines[1], `"id":2,"ok":true`) {
		t.Errorf("the line after it: %s", lines[1])
	}
}

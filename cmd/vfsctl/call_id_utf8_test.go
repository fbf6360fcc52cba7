package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// A call line whose "id" holds bytes that are not UTF-8 is refused, not run, and
// answered without the id: echoed as sent, it would make the reply no UTF-8, which a
// strict reader of JSON (Python's, a text pipe) refuses whole. A line refused for
// its depth, under such an id, is answered without it too.
func TestCallIDNotUTF8(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.txt")
	os.WriteFile(a, []byte("alpha\n"), 0o644)
	edit := `{"path":"a.txt","edits":[{"oldText":"alpha","newText":"beta"}]}`
	deep := strings.Repeat("[", 10050) + strings.Repeat("]", 10050)
	in := "{\"id\":\"a\xffb\",\"tool\":\"edit_file\",\"args\":" + edit + "}\n" +
		"{\"id\":\"deep\xfe\",\"tool\":\"read_file\",\"args\":" + deep + "}\n" +
		`{"id":"next","tool":"read_file","args":{"path":"a.txt"}}` + "\n"
	_, out, _ := runBounded(t, in, "call", "--root", dir)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 replies, got:\n%q", out)
	}
	for i, l := range lines {
		if !utf8.ValidString(l) {
			t.Errorf("reply %d is not UTF-8: %q", i+1, l)
			continue
		}
		var r struct {
			ID   *string `json:"id"`
			OK   bool    `json:"ok"`
			Kind *string `json:"kind"`
			Text string  `json:"text"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Errorf("reply %d is not JSON: %v: %s", i+1, err, l)
			continue
		}
		switch i {
		case 0, 1:
			if r.OK || r.Kind == nil || *r.Kind != "invalid_input" || r.ID != nil {
				t.Errorf("reply %d: want invalid_input with no id, got %s", i+1, l)
			}
		case 2:
			if !r.OK || r.ID == nil || *r.ID != "next" {
				t.Errorf("the line after: want ok under id next, got %s", l)
			}
		}
	}
	if !strings.Contains(lines[0], "not UTF-8") {
		t.Errorf("the refusal does not say why: %s", lines[0])
	}
	if b, _ := os.ReadFile(a); string(b) != "alpha\n" {
		t.Errorf("the refused call changed the file: %q", b)
	}
}

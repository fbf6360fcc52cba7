package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A call line that names one of its own fields twice is refused (JSON would keep the
// last silently), and nothing is written; a key named twice inside the arguments is
// the tool's to refuse, with the key's name.
func TestCallEnvelopeDuplicate(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.txt")
	os.WriteFile(a, []byte("alpha\n"), 0o644)
	edit := `{"path":"a.txt","edits":[{"oldText":"alpha","newText":"beta"}]}`
	in := `{"id":1,"tool":"read_file","tool":"edit_file","args":` + edit + "}\n" +
		`{"id":2,"tool":"edit_file","args":{"path":"a.txt"},"args":` + edit + "}\n" +
		`{"id":3,"tool":"read_file","args":{"path":"a.txt","path":"b.txt"}}` + "\n"
	_, out, _ := runBounded(t, in, "call", "--root", dir, "--guard", "off")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 replies, got:\n%s", out)
	}
	for i, want := range []string{`names \"tool\" twice`, `names \"args\" twice`, `the key \"path\" twice`} {
		if !strings.Contains(lines[i], `"ok":false`) || !strings.Contains(lines[i], want) {
			t.Errorf("line %d: want a refusal saying %s, got %s", i+1, want, lines[i])
		}
	}
	if b, _ := os.ReadFile(a); string(b) != "alpha\n" {
		t.Errorf("a refused line changed the file: %q", b)
	}
}

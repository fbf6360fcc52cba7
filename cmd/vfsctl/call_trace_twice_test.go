package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A call line that names "traceparent" (or "tracestate") twice is refused and not
// run, as one naming tool or args twice is: the sender meant one of the two.
func TestCallLineNamingTraceparentTwice(t *testing.T) {
	dir := t.TempDir()
	tp1 := `"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"`
	tp2 := `"00-9af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"`
	create := `{"path":"b.txt","content":"beta\n"}`
	in := `{"id":1,"traceparent":` + tp1 + `,"tool":"create_file","args":` + create + `,"traceparent":` + tp2 + "}\n" +
		`{"id":2,"tool":"create_file","tracestate":"a=1","args":` + create + `,"tracestate":"b=2","traceparent":` + tp1 + "}\n"
	_, out, _ := runBounded(t, in, "call", "--root", dir, "--guard", "off")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 replies, got:\n%s", out)
	}
	for i, want := range []string{`names \"traceparent\" twice`, `names \"tracestate\" twice`} {
		if !strings.Contains(lines[i], `"ok":false`) || !strings.Contains(lines[i], want) || !strings.Contains(lines[i], `"id":`) {
			t.Errorf("line %d: want a refusal with its id saying %s, got %s", i+1, want, lines[i])
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
		t.Error("a refused line made b.txt")
	}
}

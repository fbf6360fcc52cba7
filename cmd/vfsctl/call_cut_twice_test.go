package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A line that names "tool" twice is refused "names tool twice" and journaled as a
// line that is no call (tool "unknown"), over the 64 MiB line limit as under it: over
// it, it was answered and journaled as a call of its last tool (delete_file, of path
// x). A key named twice inside the arguments is the tool's to refuse, not the line's:
// {"x": {"tool": 1, "tool": 2}} in the arguments was refused as the line naming
// "tool" twice, and a nested key named twice before the line's second "tool" hid it,
// so that the call ran under the last tool.
func TestCallLineNamingToolTwiceOverTheLimitAsUnder(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "x"), []byte("keep\n"), 0o644)
	const n = 65 << 20
	in := io.MultiReader(
		strings.NewReader(`{"id":"first","tool":"create_file","args":{"path":"x","content":"`), &letters{n},
		strings.NewReader(`"},"tool":"delete_file","id":"second"}`+"\n"),
		strings.NewReader(`{"id":"first","tool":"create_file","args":{"path":"x","content":"y"},"tool":"delete_file","id":"second"}
{"id":3,"tool":"read_file","args":{"path":"a.txt","x":{"tool":1,"tool":2}}}
{"id":4,"args":{"path":"x","x":{"q":1,"q":2}},"tool":"create_file","tool":"delete_file"}
`))
	var out, errb bytes.Buffer
	if code := run([]string{"call", "--root", dir, "--session", "s1"}, in, &out, &errb); code != exitRefused {
		t.Fatalf("exit %d, want %d: %s %.600s", code, exitRefused, errb.String(), out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d replies, want 4:\n%.900s", len(lines), out.String())
	}
	type reply struct {
		ID   any
		OK   bool
		Tool string
		Kind *string
		Text string
		Txn  *int
	}
	var r [4]reply
	for i, l := range lines {
		json.Unmarshal([]byte(l), &r[i])
	}
	const twice = `The line names "tool" twice.`
	for i, want := range []any{"second", "second", nil, 4.0} {
		if i == 2 {
			continue
		}
		if c := r[i]; c.ID != want || c.OK || c.Tool != "" || c.Kind == nil || *c.Kind != "invalid_input" || !strings.HasPrefix(c.Text, twice) || c.Txn == nil {
			t.Errorf("reply %d: %.400s; want id %v refused: %s", i+1, lines[i], want, twice)
		}
	}
	if c := r[2]; c.ID != 3.0 || c.Tool != "read_file" || strings.Contains(c.Text, "The line names") {
		t.Errorf("reply 3, of a line naming \"tool\" twice inside its arguments only: %.400s", lines[2])
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "x")); string(data) != "keep\n" {
		t.Errorf("x holds %q after refused calls", data)
	}

	var logOut bytes.Buffer
	if code := run([]string{"log", "--root", dir, "--json"}, strings.NewReader(""), &logOut, &errb); code != exitOK {
		t.Fatalf("vfsctl log: exit %d: %s", code, errb.String())
	}
	var tools []string
	for _, l := range strings.Split(strings.TrimSpace(logOut.String()), "\n") {
		var rec struct {
			Seq        int
			Tool, Kind string
			Session    string
			Paths      []string
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		tools = append(tools, rec.Tool+" "+rec.Kind+" "+strings.Join(rec.Paths, ","))
	}
	// vfsctl log lists the newest first.
	if got, want := strings.Join(tools, "; "), "unknown invalid_input ; read_file invalid_input a.txt; unknown invalid_input ; unknown invalid_input "; got != want {
		t.Errorf("journaled: %s\nwant:      %s", got, want)
	}
}

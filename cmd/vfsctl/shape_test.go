package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// show --json, log --json and export give a call in one shape: time in RFC 3339, UTC,
// with microseconds; duration_ms with a fraction; args the object sent; and export's
// paths relative to the root, though the text editor tool sent an absolute one.
func TestOneShapeForEveryOutput(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.py"), []byte("a = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(dir, "f.py")
	calls := fmt.Sprintf(`{"tool": "str_replace_based_edit_tool", "args": {"command": "str_replace", "path": %q, "old_str": "a = 1", "new_str": "a = 2"}}`, abs)
	var out, errb bytes.Buffer
	if code := run([]string{"call", "--root", dir, "--tools", "anthropic"}, strings.NewReader(calls), &out, &errb); code != exitOK {
		t.Fatalf("call: exit %d: %s %s", code, out.String(), errb.String())
	}
	outputs := map[string][]string{
		"show --json": {"show", "--root", dir, "--json", "1"},
		"log --json":  {"log", "--root", dir, "--json"},
		"export":      {"export", "--root", dir},
	}
	stamp := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$`)
	for what, args := range outputs {
		out.Reset()
		if code := run(args, nil, &out, &errb); code != exitOK {
			t.Fatalf("%s: exit %d: %s", what, code, errb.String())
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(out.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v: %s", what, err, out.String())
		}
		var tm string
		json.Unmarshal(m["time"], &tm)
		if !stamp.MatchString(tm) {
			t.Errorf("%s: time %s, want RFC 3339, UTC, with microseconds", what, m["time"])
		}
		if d := string(m["duration_ms"]); !strings.Contains(d, ".") {
			t.Errorf("%s: duration_ms %q, want milliseconds with a fraction", what, d)
		}
		if _, ok := m["duration_ns"]; ok {
			t.Errorf("%s: still gives duration_ns", what)
		}
		var paths []string
		json.Unmarshal(m["paths"], &paths)
		if fmt.Sprint(paths) != "[f.py]" {
			t.Errorf("%s: paths %s, want [\"f.py\"] relative to the root", what, m["paths"])
		}
		if what == "log --json" {
			continue // log lists calls; it gives no args
		}
		var sent map[string]string
		if err := json.Unmarshal(m["args"], &sent); err != nil || sent["path"] != abs {
			t.Errorf("%s: args %s, want the object sent", what, m["args"])
		}
	}
}

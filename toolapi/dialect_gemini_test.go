package toolapi

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

func openGemini(t *testing.T, files map[string]string) (*Engine, string) {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		testutil.WriteFile(t, filepath.Join(dir, p), c)
	}
	e, err := Open(dir, Options{Tools: "gemini"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, dir
}

// replace with expected_replacements writes exactly when the file holds that many
// occurrences, and then as strings.ReplaceAll would; otherwise it names the count and
// writes nothing.
func TestGeminiReplaceCount(t *testing.T) {
	for have := 0; have <= 3; have++ {
		for want := 1; want <= 3; want++ {
			content := "start\n" + strings.Repeat("x := old()\ny := 1\n", have) + "end\n"
			e, dir := openGemini(t, map[string]string{"f.go": content})
			args := fmt.Sprintf(`{"file_path": "f.go", "old_string": "old()", "new_string": "fresh()", "expected_replacements": %d}`, want)
			r := e.Call(context.Background(), "g", "replace", json.RawMessage(args))
			got, _ := os.ReadFile(filepath.Join(dir, "f.go"))
			switch {
			case have == want:
				if !r.OK || string(got) != strings.ReplaceAll(content, "old()", "fresh()") {
					t.Errorf("have %d, want %d: %v %s\n%s", have, want, r.OK, r.Text, got)
				}
			case have > 0 && want > 1:
				kind := "multiple_matches"
				if have < want {
					kind = "text_not_found"
				}
				if r.OK || kindOf(r) != kind || !strings.Contains(r.Text, fmt.Sprintf("but found %d", have)) || string(got) != content {
					t.Errorf("have %d, want %d: %v %s %s", have, want, r.OK, kindOf(r), r.Text)
				}
			default:
				// One expected (the default) is edit_file's rule: one place, or a refusal
				// that counts the places.
				if r.OK || string(got) != content {
					t.Errorf("have %d, want %d: %v %s", have, want, r.OK, r.Text)
				}
				if have > 1 && !strings.Contains(r.Text, fmt.Sprintf("Found %d occurrences", have)) {
					t.Errorf("have %d, want %d: %s", have, want, r.Text)
				}
			}
		}
	}
}

// Gemini's write_file makes a new file, but replaces an existing one only after a read;
// its read_file counts lines from 0.
func TestGeminiWriteAndRead(t *testing.T) {
	e, dir := openGemini(t, map[string]string{"a.txt": "zero\none\ntwo\n"})
	ctx := context.Background()
	if r := e.Call(ctx, "g", "write_file", json.RawMessage(`{"file_path": "a.txt", "content": "x\n"}`)); r.OK || kindOf(r) != "not_read" {
		t.Fatalf("blind overwrite: %v %s", r.OK, r.Text)
	}
	abs := filepath.Join(dir, "a.txt")
	q, _ := json.Marshal(abs) // a Windows path's backslashes escaped
	r := e.Call(ctx, "g", "read_file", json.RawMessage(`{"absolute_path": `+string(q)+`, "offset": 1, "limit": 1}`))
	if !r.OK || r.Text != "     2\tone\n(line 2 of 3; read on with offset 2)\n" {
		t.Fatalf("read from offset 1: %q", r.Text)
	}
	e.Call(ctx, "g", "read_file", json.RawMessage(`{"absolute_path": "a.txt"}`))
	if r := e.Call(ctx, "g", "write_file", json.RawMessage(`{"file_path": `+string(q)+`, "content": "x\n"}`)); !r.OK {
		t.Fatalf("write after read: %s", r.Text)
	}
	if r := e.Call(ctx, "g", "write_file", json.RawMessage(`{"file_path": "new/b.txt", "content": "b\n"}`)); !r.OK {
		t.Fatalf("write of a new file: %s", r.Text)
	}
	for p, want := range map[string]string{"a.txt": "x\n", "new/b.txt": "b\n"} {
		if got, _ := os.ReadFile(filepath.Join(dir, p)); string(got) != want {
			t.Errorf("%s is %q", p, got)
		}
	}
}

// The gemini set is the tools Gemini CLI declares, by their names and argument names.
func TestGeminiDeclarations(t *testing.T) {
	defs, err := DefinitionsFor("gemini", "gemini", 0)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(defs)
	var got []struct {
		FunctionDeclarations []struct {
			Name       string
			Parameters struct {
				Type       string
				Properties map[string]any
				Required   []string
			}
		}
	}
	json.Unmarshal(b, &got)
	want := map[string][]string{
		"replace":             {"file_path", "old_string", "new_string", "expected_replacements"},
		"write_file":          {"file_path", "content"},
		"read_file":           {"absolute_path", "offset", "limit"},
		"list_directory":      {"path"},
		"glob":                {"pattern", "path"},
		"search_file_content": {"pattern", "path", "include"},
	}
	if len(got) != 1 || len(got[0].FunctionDeclarations) != len(want) {
		t.Fatalf("declarations: %s", b)
	}
	for _, d := range got[0].FunctionDeclarations {
		if d.Parameters.Type != "OBJECT" {
			t.Errorf("%s: parameters type %q", d.Name, d.Parameters.Type)
		}
		for _, arg := range want[d.Name] {
			if d.Parameters.Properties[arg] == nil {
				t.Errorf("%s lacks %s: %v", d.Name, arg, d.Parameters.Properties)
			}
		}
	}
	if _, err := selectTools("native,gemini"); err == nil {
		t.Error("native and gemini together were accepted: two read_file tools")
	}
	all, _ := selectTools("all")
	if d := lookupTool(all, ReadFile); d != readFileDef {
		t.Error("all does not keep the native read_file")
	}
}

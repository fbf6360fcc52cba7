package toolapi

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

const keptClaim = "what you did not change was kept as the file has it"

// The file's dash, special space, curly quote or zero-width space that the model left in
// place in a line it changed stays on disk, as the reply says, whatever the tool.
func TestFoldKeepsUnchangedOnDisk(t *testing.T) {
	cases := []struct{ name, file, old, new, want string }{
		{"em dash", "a \u2014 b\n", "a - b", "A - B", "A \u2014 B\n"},
		{"closing curly quote", "Use “foo” here.\n", `Use "foo" here.`, `Use "bar" there.`, "Use “bar” there.\n"},
		{"curly quotes, text added", "// Greeting “v2”: say hello.\n", `// Greeting "v2": say hello.`, `// Greeting "v3": say hello to all.`, "// Greeting “v3”: say hello to all.\n"},
		{"nbsp", "price:\u00a0100 EUR\n", "price: 100 EUR", "Price: 100 USD", "Price:\u00a0100 USD\n"},
		{"zero-width space", "foo\u200bbar baz\n", "foobar baz", "Foobar qux", "Foo\u200bbar qux\n"},
	}
	for _, c := range cases {
		t.Run("edit_file "+c.name, func(t *testing.T) {
			a, dir := newAPI(t, map[string]string{"f.txt": c.file})
			r := call(a, EditFile, editCall("f.txt", c.old, c.new))
			checkKept(t, r, filepath.Join(dir, "f.txt"), c.want)
		})
		t.Run("apply_patch "+c.name, func(t *testing.T) {
			a, dir := dialectAPI(t, "codex", map[string]string{"f.txt": c.file})
			b, _ := json.Marshal(map[string]string{"input": "*** Begin Patch\n*** Update File: f.txt\n@@\n-" + c.old + "\n+" + c.new + "\n*** End Patch"})
			r := call(a, ApplyPatch, string(b))
			checkKept(t, r, filepath.Join(dir, "f.txt"), c.want)
		})
		t.Run("str_replace "+c.name, func(t *testing.T) {
			a, dir := dialectAPI(t, "anthropic", map[string]string{"f.txt": c.file})
			b, _ := json.Marshal(map[string]string{"command": "str_replace", "path": "f.txt", "old_str": c.old, "new_str": c.new})
			r := call(a, TextEditor, string(b))
			checkKept(t, r, filepath.Join(dir, "f.txt"), c.want)
		})
	}
}

func checkKept(t *testing.T, r Result, path, want string) {
	t.Helper()
	if !r.OK {
		t.Fatalf("refused: %s", r.Text)
	}
	if got := testutil.ReadFile(t, path); got != want {
		t.Errorf("disk %q, want %q", got, want)
	}
	if !strings.Contains(r.Text, keptClaim+".") {
		t.Errorf("reply does not say what it kept: %s", r.Text)
	}
}

// Where the model's change could be read more than one way, the changed part is written
// as sent, and the reply does not claim the file's characters were kept there.
func TestFoldKeepReplyOwnsUnkept(t *testing.T) {
	a, dir := newAPI(t, map[string]string{"f.txt": "x\na \u2014 b\n"})
	r := call(a, EditFile, editCall("f.txt", "a - b", "A - B - C"))
	if !r.OK {
		t.Fatalf("refused: %s", r.Text)
	}
	if got := testutil.ReadFile(t, filepath.Join(dir, "f.txt")); got != "x\nA - B - C\n" {
		t.Fatalf("disk %q", got)
	}
	if strings.Contains(r.Text, keptClaim+".") || !strings.Contains(r.Text, keptClaim+", but for line 2: there which characters you kept could not be told, and the changed part is written as you sent it.") {
		t.Errorf("reply: %s", r.Text)
	}
}

// A rewrite of many lines the model could not be told to have kept names the first
// few and how many more, not every line: the reply goes into the model's context.
func TestFoldKeepReplyNamesAFewUnkeptLines(t *testing.T) {
	var file, old, new strings.Builder
	for i := range 40 {
		fmt.Fprintf(&file, "v%d = a\u2014b\n", i)
		fmt.Fprintf(&old, "v%d = a-b\n", i)
		fmt.Fprintf(&new, "w%d = x-y-z\n", i)
	}
	new.WriteString("extra\n")
	a, _ := newAPI(t, map[string]string{"f.txt": file.String()})
	r := call(a, EditFile, editCall("f.txt", old.String(), new.String()))
	if !r.OK {
		t.Fatalf("refused: %s", r.Text)
	}
	if !strings.Contains(r.Text, "but for lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 30 more:") {
		t.Errorf("reply: %s", r.Text)
	}
}

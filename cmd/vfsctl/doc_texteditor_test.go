package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs/tools.md's example of the text editor tool showed a refusal text the binary
// no longer printed. The example's calls, run on the file it shows, print its replies
// byte for byte.
func TestToolsDocTextEditorExample(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "tools.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	_, after, ok := strings.Cut(doc, "$ cd /home/me/project && vfsctl call --tools anthropic < calls.jsonl")
	if !ok {
		t.Fatal("docs/tools.md: no text editor tool example")
	}
	calls := block(t, after, "with `calls.jsonl`:")
	want := block(t, after, "prints:")

	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "app.py"), []byte("def greet(name):\n    print(\"Hello, \" + name)\n\ngreet(\"world\")\n"), 0o644)
	_, out, errb := cliIn(t, dir, strings.ReplaceAll(calls, "/home/me/project", filepath.ToSlash(dir)), "call", "--tools", "anthropic", "--root", dir)
	if out != want {
		t.Errorf("docs/tools.md's text editor example prints:\n%s\nthe binary:\n%s%s", want, out, errb)
	}
}

// block is the body of the first fenced block after the line intro in s.
func block(t *testing.T, s, intro string) string {
	t.Helper()
	_, s, ok := strings.Cut(s, intro)
	if !ok {
		t.Fatalf("docs/tools.md: no %q", intro)
	}
	_, s, _ = strings.Cut(s, "```")
	_, s, _ = strings.Cut(s, "\n")
	body, _, ok := strings.Cut(s, "```")
	if !ok {
		t.Fatalf("docs/tools.md: the block after %q does not end", intro)
	}
	return body
}

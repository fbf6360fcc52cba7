package toolapi

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// A non-ASCII character a model adds to a Latin-1 file would be written as UTF-8
// bytes, making a file of two encodings: every edit tool refuses it, naming the
// characters and the way out, and the file is untouched. What the model copied from
// the file (U+FFFD for each of its bytes) and ASCII it adds still go in, as the file's
// bytes; a UTF-8 file with a stray byte and a new file take UTF-8 as before. file_info
// says what edit_file does.
func TestEightBitFileKeepsItsEncoding(t *testing.T) {
	const lat = "caf\xe9 ol\xe9\nsecond\n"
	files := map[string]string{"lat.txt": lat, "mix.txt": "caf\xc3\xa9 \xe9\nsecond\n", "w.txt": "\x93quoted\x94\nsecond\n", "one.txt": "caf\xe9\nx\n", "adj.txt": "x\xc3 \xa9 y\xe9\n"}
	dir := t.TempDir()
	for n, c := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e, err := Open(dir, Options{Tools: "all"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	run := func(tool string, args any) Result {
		t.Helper()
		b, _ := json.Marshal(args)
		return e.Call(context.Background(), "s", tool, b)
	}
	edit := func(path, old, nw string) map[string]any {
		return map[string]any{"path": path, "edits": []map[string]string{{"oldText": old, "newText": nw}}}
	}
	var text string
	for _, c := range []struct {
		tool string
		args any
	}{
		{"edit_file", edit("lat.txt", "second", "sécond")},
		{"edit_file", edit("lat.txt", "caf\ufffd ol\ufffd", "café ol\ufffd")}, // "fixing" one of what read_file showed
		{"apply_changes", map[string]any{"changes": []any{edit("lat.txt", "second", "sécond")}}},
		{"str_replace_based_edit_tool", map[string]any{"command": "insert", "path": "lat.txt", "insert_line": 1, "insert_text": "ñ\n"}},
		{"apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: lat.txt\n@@\n-second\n+s\u00e9cond\n*** End Patch\n"}},
		{"replace_in_file", map[string]any{"path": "lat.txt", "diff": "------- SEARCH\nsecond\n=======\nsécond\n+++++++ REPLACE\n"}},
	} {
		r := run(c.tool, c.args)
		if r.OK || kindOf(r) != "invalid_input" {
			t.Fatalf("%s: want invalid_input, got ok=%v kind=%q: %s", c.tool, r.OK, kindOf(r), r.Text)
		}
		if c.tool == "edit_file" {
			text = r.Text
		}
		for _, w := range []string{"lat.txt is not UTF-8", "U+00", "as UTF-8 bytes", "in ASCII", "iconv -f LATIN1 -t UTF-8 lat.txt"} {
			if !strings.Contains(r.Text, w) {
				t.Errorf("%s: %q lacks %q", c.tool, r.Text, w)
			}
		}
	}
	if !strings.Contains(text, "'é' (U+00E9) on line 1") {
		t.Errorf("the characters and their line are not named: %q", text)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "lat.txt")); string(b) != lat {
		t.Fatalf("a refused edit changed lat.txt: %q", b)
	}
	if r := run("edit_file", edit("w.txt", "second", "sécond")); r.OK || !strings.Contains(r.Text, "iconv -f WINDOWS-1252") {
		t.Errorf("Windows-1252 quotes: %v %s", r.OK, r.Text)
	}
	if info := run("file_info", map[string]any{"path": "lat.txt"}).Text; !strings.Contains(info, "edits may add ASCII text only") || strings.Contains(info, "exactly only") {
		t.Errorf("file_info: %s", info)
	}

	// Copied text and ASCII go in as the file's bytes.
	for _, c := range []map[string]any{edit("lat.txt", "caf\ufffd ol\ufffd", "caf\ufffd OL\ufffd!"), edit("lat.txt", "second", "third")} {
		if r := run("edit_file", c); !r.OK {
			t.Fatalf("%v: %s", c, r.Text)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "lat.txt")); string(b) != "caf\xe9 OL\xe9!\nthird\n" {
		t.Errorf("lat.txt is %q", b)
	}
	// An edit that leaves the file all UTF-8 makes one encoding: it goes in.
	if r := run("edit_file", edit("one.txt", "caf\ufffd", "café")); !r.OK {
		t.Errorf("one.txt made all UTF-8: %s", r.Text)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "one.txt")); string(b) != "caf\xc3\xa9\nx\n" {
		t.Errorf("one.txt is %q", b)
	}
	// A deletion that makes two of the file's bytes read as a UTF-8 character ("Ã"
	// and "©" adjacent) adds no character: it goes in.
	if r := run("edit_file", edit("adj.txt", "x\ufffd \ufffd", "x\ufffd\ufffd")); !r.OK {
		t.Errorf("adj.txt, a deletion: %s", r.Text)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "adj.txt")); string(b) != "x\xc3\xa9 y\xe9\n" {
		t.Errorf("adj.txt is %q", b)
	}
	// A UTF-8 file with a stray byte, and a new file, take UTF-8.
	if r := run("edit_file", edit("mix.txt", "second", "sécond")); !r.OK {
		t.Errorf("mix.txt: %s", r.Text)
	}
	if r := run("create_file", map[string]any{"path": "new.txt", "content": "café\n"}); !r.OK {
		t.Errorf("new.txt: %s", r.Text)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "mix.txt")); string(b) != "caf\xc3\xa9 \xe9\ns\xc3\xa9cond\n" {
		t.Errorf("mix.txt is %q", b)
	}

	// The command the refusal gives makes a UTF-8 file the edit then goes into.
	if runtime.GOOS == "windows" {
		return
	}
	if _, err := exec.LookPath("iconv"); err != nil {
		t.Log("no iconv here; the conversion command is not run")
		return
	}
	cmd := regexp.MustCompile("`([^`]*iconv [^`]*)`").FindStringSubmatch(text)
	if cmd == nil {
		t.Fatalf("no command in %q", text)
	}
	sh := exec.Command("sh", "-c", cmd[1])
	sh.Dir = dir
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v %s", cmd[1], err, out)
	}
	if r := run("edit_file", edit("lat.txt", "third", "sécond")); !r.OK {
		t.Fatalf("after the conversion: %s", r.Text)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "lat.txt")); string(b) != "café OLé!\nsécond\n" {
		t.Errorf("converted and edited: %q", b)
	}
}

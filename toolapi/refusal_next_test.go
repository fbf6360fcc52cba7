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
	"unicode/utf16"
)

// utf16LE is s as UTF-16LE with its byte-order mark, as Windows tools write it.
func utf16LE(s string) string {
	b := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return string(b)
}

// A UTF-16 file is named as UTF-16 text by every tool that refuses it, not as binary,
// and the refusal gives a command that converts it; run, that command leaves a file
// the tools read, with the text the UTF-16 file held.
func TestUTF16RefusalGivesConversion(t *testing.T) {
	e, dir := openWorkspace(t, map[string]string{"u16.txt": utf16LE("hello\nworld\n"), "bin.dat": "a\x00b\n"})
	var text string
	for _, c := range []struct{ tool, args string }{
		{"read_file", `{"path": "u16.txt"}`},
		{"edit_file", `{"path": "u16.txt", "edits": [{"oldText": "hello", "newText": "bye"}]}`},
		{"apply_changes", `{"changes": [{"path": "u16.txt", "edits": [{"oldText": "hello", "newText": "bye"}]}]}`},
	} {
		text = refused(t, e, c.tool, c.args, "binary_file")
		for _, w := range []string{"u16.txt is UTF-16LE text", "byte-order mark FF FE", "iconv -f UTF-16 -t UTF-8 u16.txt"} {
			if !strings.Contains(text, w) {
				t.Errorf("%s: %q lacks %q", c.tool, text, w)
			}
		}
		if strings.Contains(text, "looks binary") {
			t.Errorf("%s: UTF-16 text called binary: %q", c.tool, text)
		}
	}
	if got := refused(t, e, "read_file", `{"path": "bin.dat"}`, "binary_file"); !strings.Contains(got, "looks binary") {
		t.Errorf("a file with NUL bytes and no byte-order mark: %q", got)
	}

	// Run the command the refusal gave, where a shell and iconv are at hand.
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
	if got := mustCall(t, e, "read_file", `{"path": "u16.txt"}`); !strings.Contains(got, "hello") || !strings.Contains(got, "world") {
		t.Fatalf("after the conversion, read_file gives %q", got)
	}
}

// A file over the size bound is refused with a way to its lines; search_files skips
// such files, so the way is a command.
func TestTooLargeRefusalGivesNextStep(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(strings.Repeat("x\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := Open(dir, Options{MaxFileSize: 50})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, args := range []string{`{"path": "big.txt"}`, `{"path": "big.txt", "limit": 1}`} {
		r := e.Call(context.Background(), "s", "read_file", json.RawMessage(args))
		if r.OK || kindOf(r) != "too_large" {
			t.Fatalf("read_file %s: want too_large, got %v %s: %s", args, r.OK, kindOf(r), r.Text)
		}
		for _, w := range []string{"big.txt is 200 bytes", "with a command", "grep -n", "sed -n"} {
			if !strings.Contains(r.Text, w) {
				t.Errorf("read_file %s: %q lacks %q", args, r.Text, w)
			}
		}
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A line carrying more than a file may hold (content just over the 32 MiB limit) is
// refused with its id, the next line is still answered, and the journal keeps the
// refusal without the 32 MiB it carried.
func TestCallRefusesOverLimitLine(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
	// Just over the limit once decoded, and of lines that do not repeat (a journal
	// that compresses would keep little of a repeated one): 64 letters and an escaped
	// newline, 65 bytes a line decoded.
	n := (32<<20)/65 + 1
	var in bytes.Buffer
	in.WriteString(`{"id":"huge","tool":"create_file","args":{"path":"big.txt","content":"`)
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/"
	x := uint64(88172645463325252)
	line := make([]byte, 66)
	copy(line[64:], `\n`)
	for range n {
		for i := range 64 {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			line[i] = letters[x&63]
		}
		in.Write(line)
	}
	in.WriteString(`"}`)
	sent := in.Len()
	in.WriteString("}\n" + `{"id":2,"tool":"read_file","args":{"path":"a.txt"}}` + "\n")
	var out, errb bytes.Buffer
	code := run([]string{"call", "--root", dir, "--guard", "off"}, &in, &out, &errb)
	if code != exitRefused {
		t.Fatalf("exit %d, want %d: %s %.300s", code, exitRefused, errb.String(), out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d replies, want 2:\n%.500s", len(lines), out.String())
	}
	var first, second struct {
		ID   any     `json:"id"`
		OK   bool    `json:"ok"`
		Kind *string `json:"kind"`
		Text string  `json:"text"`
	}
	json.Unmarshal([]byte(lines[0]), &first)
	json.Unmarshal([]byte(lines[1]), &second)
	if first.ID != "huge" || first.OK || first.Kind == nil || *first.Kind != "too_large" || !strings.Contains(first.Text, fmt.Sprintf("content is %d bytes; files over 33554432", 65*n)) {
		t.Errorf("the over-limit line's reply: %.400s", lines[0])
	}
	if second.ID != 2.0 || !second.OK || !strings.Contains(second.Text, "one") {
		t.Errorf("the next line's reply: %.400s", lines[1])
	}
	if _, err := os.Lstat(filepath.Join(dir, "big.txt")); !os.IsNotExist(err) {
		t.Errorf("big.txt was refused, but: %v", err)
	}
	fi, err := os.Stat(filepath.Join(dir, ".vfsctl", "journal.db"))
	if err != nil || fi.Size() > 8<<20 {
		t.Errorf("the journal holds %d bytes after the refusal of a %d-byte line (%v)", fi.Size(), sent, err)
	}
}

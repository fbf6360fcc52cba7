package toolapi

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// write_file keeps a file's CRLF line breaks and BOM when the content sent has
// neither, says so, and writes content that has its own as sent. The expected bytes
// are written out by hand.
func TestWriteFileKeepsLineBreaksAndBOM(t *testing.T) {
	const b = "\xef\xbb\xbf"
	for _, c := range []struct {
		name, file, content, want, note string
	}{
		{"crlf", "one\r\ntwo\r\n", "one\nTWO\nthree\n", "one\r\nTWO\r\nthree\r\n", "CRLF line breaks"},
		{"crlf sent", "one\r\ntwo\r\n", "one\r\nTWO\r\n", "one\r\nTWO\r\n", ""},
		{"a CR sent", "one\r\ntwo\r\n", "one\r\nTWO\nthree\n", "one\r\nTWO\nthree\n", ""},
		{"mixed file", "one\r\ntwo\nthree\r\n", "one\nTWO\n", "one\nTWO\n", ""},
		{"lf file", "one\ntwo\n", "one\nTWO\n", "one\nTWO\n", ""},
		{"no line break sent", "one\r\ntwo\r\n", "ONE", "ONE", ""},
		{"bom", b + "one\ntwo\n", "one\nTWO\n", b + "one\nTWO\n", "byte order mark (BOM)"},
		{"bom sent", b + "one\ntwo\n", b + "one\nTWO\n", b + "one\nTWO\n", ""},
		{"both", b + "one\r\ntwo\r\n", "one\nTWO\n", b + "one\r\nTWO\r\n", "CRLF line breaks and byte order mark (BOM)"},
		{"bom, crlf sent", b + "one\r\ntwo\r\n", "one\r\nTWO\r\n", b + "one\r\nTWO\r\n", "byte order mark (BOM)"},
		{"emptied", b + "one\ntwo\n", "", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, dir := newAPI(t, map[string]string{"f.txt": c.file})
			if r := call(a, "read_file", `{"path":"f.txt"}`); !r.OK {
				t.Fatal(r.Text)
			}
			args, _ := json.Marshal(map[string]string{"path": "f.txt", "content": c.content})
			r := call(a, "write_file", string(args))
			got, _ := os.ReadFile(filepath.Join(dir, "f.txt"))
			if !r.OK || string(got) != c.want {
				t.Fatalf("reply %q; the disk holds %q, want %q", r.Text, got, c.want)
			}
			said := strings.Contains(r.Text, "Written with the file's")
			if said != (c.note != "") || c.note != "" && !strings.Contains(r.Text, "the file's "+c.note+", which") {
				t.Errorf("reply %q, want a note of %q", r.Text, c.note)
			}
		})
	}
	// Content that the file's line breaks make the file's own is no change at all.
	a, dir := newAPI(t, map[string]string{"f.txt": "one\r\ntwo\r\n"})
	call(a, "read_file", `{"path":"f.txt"}`)
	if r := call(a, "write_file", `{"path":"f.txt","content":"one\ntwo\n"}`); r.OK || kindOf(r) != "no_change" {
		t.Errorf("a write that only drops CRs: %s %q", kindOf(r), r.Text)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(got) != "one\r\ntwo\r\n" {
		t.Errorf("the file became %q", got)
	}
}

package toolapi

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

func editCall(path, old, new string) string {
	b, _ := json.Marshal(map[string]any{"path": path, "edits": []map[string]string{{"oldText": old, "newText": new}}})
	return string(b)
}

// What the reply says about characters is checked against the disk.
func TestReplyClaimsAreTrueOnDisk(t *testing.T) {
	a, dir := newAPI(t, map[string]string{"q.py": "import os\nprint(\"a\")\n", "c.py": "s = “hi”\n"})
	r := call(a, EditFile, editCall("q.py", "print(“a”)", "print(“a”, “b”)"))
	if !r.OK {
		t.Fatalf("refused: %s", r.Text)
	}
	got := testutil.ReadFile(t, filepath.Join(dir, "q.py"))
	if got != "import os\nprint(\"a\", \"b\")\n" {
		t.Fatalf("disk has %q", got)
	}
	if !strings.Contains(r.Text, "in newText written as the file's '\"'") {
		t.Errorf("reply does not say the quotes were translated: %s", r.Text)
	}
	for _, c := range "“”" {
		if strings.ContainsRune(got, c) {
			t.Errorf("the model's %c reached the file", c)
		}
	}
	// The file's own curly quotes stay where the model did not change them.
	r = call(a, EditFile, editCall("c.py", `s = "hi"`, `s = "hi" + "!"`))
	if got := testutil.ReadFile(t, filepath.Join(dir, "c.py")); !r.OK || got != "s = “hi” + \"!\"\n" {
		t.Fatalf("ok=%v disk %q: %s", r.OK, got, r.Text)
	}
	if strings.Contains(r.Text, "written as the file's") {
		t.Errorf("reply claims a translation that did not happen: %s", r.Text)
	}
}

func TestReadNumbersLinesLikeEdits(t *testing.T) {
	a, _ := newAPI(t, map[string]string{"cr.txt": "a\rb\rc\r", "bad.txt": "caf\xe9\xff\n"})
	r := call(a, ReadFile, `{"path": "cr.txt"}`)
	if r.Text != "     1\ta\n     2\tb\n     3\tc\n" {
		t.Fatalf("read of a CR file: %q", r.Text)
	}
	e := call(a, EditFile, editCall("cr.txt", "b\nc", "B\nC"))
	if !strings.Contains(e.Text, "(lines 2-3)") {
		t.Fatalf("edit reply: %s", e.Text)
	}
	r = call(a, ReadFile, `{"path": "bad.txt"}`)
	if r.Text != "     1\tcaf\ufffd\ufffd\n" {
		t.Fatalf("invalid bytes shown as %q", r.Text)
	}
	e = call(a, EditFile, editCall("bad.txt", "caf\ufffd\ufffd", "caf\ufffd\ufffd!"))
	if !e.OK {
		t.Fatalf("U+FFFD copied from read_file refused: %s", e.Text)
	}
}

func TestReplySize(t *testing.T) {
	long := strings.Repeat("x", 3<<20) + " TOKEN " + strings.Repeat("y", 3<<20)
	many := strings.Repeat(strings.Repeat("z", 300)+"\n", 2000)
	a, dir := newAPI(t, map[string]string{"one.txt": long, "many.txt": many})
	r := call(a, ReadFile, `{"path": "one.txt"}`)
	if len(r.Text) > MaxReplyBytes || !strings.Contains(r.Text, "(line 1 is 6291463 characters, over 256 KiB: too long to show whole in any read") {
		t.Fatalf("read of a 6 MB line: %d bytes, tail %q", len(r.Text), r.Text[max(0, len(r.Text)-200):])
	}
	r = call(a, ReadFile, `{"path": "many.txt"}`)
	if len(r.Text) > MaxReplyBytes+1024 || !strings.Contains(r.Text, "the reply stopped at 256 KiB; read on with offset") {
		t.Fatalf("read of 600 KB: %d bytes, tail %q", len(r.Text), r.Text[max(0, len(r.Text)-200):])
	}
	e := call(a, EditFile, editCall("one.txt", "TOKEN", "WORD"))
	if !e.OK || len(e.Text) > 16<<10 || !strings.Contains(e.Text, "more characters]") {
		t.Fatalf("edit of a 6 MB line: ok=%v, %d bytes", e.OK, len(e.Text))
	}
	if got := testutil.ReadFile(t, filepath.Join(dir, "one.txt")); got != strings.Replace(long, "TOKEN", "WORD", 1) {
		t.Fatal("the file was not edited whole")
	}
}

// A refused read sees nothing: write_file must not then overwrite the file.
func TestRefusedReadSeesNothing(t *testing.T) {
	a, dir := newAPI(t, map[string]string{"bin.dat": "a\x00b"})
	if r := call(a, ReadFile, `{"path": "bin.dat"}`); kindOf(r) != "binary_file" {
		t.Fatalf("read: %+v", r)
	}
	if r := call(a, WriteFile, `{"path": "bin.dat", "content": "text"}`); kindOf(r) != "not_read" {
		t.Fatalf("write after a refused read: %+v", r)
	}
	if got := testutil.ReadFile(t, filepath.Join(dir, "bin.dat")); got != "a\x00b" {
		t.Fatalf("bin.dat is %q", got)
	}
}

// A line cut in the reply is not seen whole.
func TestCutLineIsNotSeen(t *testing.T) {
	a, _ := newAPI(t, map[string]string{"long.txt": "short\n" + strings.Repeat("x", MaxLineChars+10) + "\n"})
	call(a, ReadFile, `{"path": "long.txt"}`)
	if r := call(a, WriteFile, `{"path": "long.txt", "content": "new"}`); kindOf(r) != "not_read" {
		t.Fatalf("write after a read that cut a line: %+v", r)
	}
}

func TestNumbersSentLoosely(t *testing.T) {
	a, _ := newAPI(t, map[string]string{"f.txt": "one\ntwo\nthree\n"})
	for _, args := range []string{`{"path": "f.txt", "offset": "2", "limit": 1}`, `{"path": "f.txt", "offset": 2.0, "limit": "1"}`} {
		if r := call(a, ReadFile, args); !r.OK || !strings.HasPrefix(r.Text, "     2\ttwo\n") {
			t.Errorf("%s: %+v", args, r)
		}
	}
}

// A call whose context is cancelled before it commits writes nothing.
func TestCancelledCallWritesNothing(t *testing.T) {
	a, dir := newAPI(t, map[string]string{"f.txt": "one\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := a.CallContext(ctx, "s", EditFile, json.RawMessage(editCall("f.txt", "one", "two")))
	if r.OK || kindOf(r) != "io_error" || !strings.Contains(r.Text, "cancelled before it changed anything") {
		t.Fatalf("cancelled call: %+v", r)
	}
	if got := testutil.ReadFile(t, filepath.Join(dir, "f.txt")); got != "one\n" {
		t.Fatalf("f.txt is %q", got)
	}
}

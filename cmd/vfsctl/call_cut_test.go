package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// letters reads n bytes of letters, never held whole.
type letters struct{ n int }

var alphabet = bytes.Repeat([]byte("abcdefghijklmnopqrstuvwxyz"), 2600)

func (l *letters) Read(p []byte) (int, error) {
	if l.n == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), l.n)], alphabet)
	l.n -= k
	return k, nil
}

// A call line over the 64 MiB line limit is refused under its id and tool, and
// journaled as serve journals a tools/call over its frame limit: a call of its tool in
// its turn, refused too_large, its arguments cut (the record stays small) with their
// size as sent. One naming no tool served is journaled as tool "unknown". The lines
// after are answered as usual.
func TestCallJournalsALineOverTheLimit(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
	const n = 65 << 20
	head := `{"id":"big-1","tool":"create_file","turn":"t4","args":{"path":"big.txt","content":"`
	in := io.MultiReader(
		strings.NewReader(head), &letters{n}, strings.NewReader(`"}}`+"\n"),
		strings.NewReader(`{"args":{"x":"`), &letters{n}, strings.NewReader(`"},"tool":"no_such_tool","id":7}`+"\n"),
		strings.NewReader(`{"id":3,"tool":"read_file","args":{"path":"a.txt"}}`+"\n"))
	var out, errb bytes.Buffer
	if code := run([]string{"call", "--root", dir, "--session", "s1"}, in, &out, &errb); code != exitRefused {
		t.Fatalf("exit %d, want %d: %s %.600s", code, exitRefused, errb.String(), out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d replies, want 3:\n%.900s", len(lines), out.String())
	}
	var r [3]struct {
		ID   any
		OK   bool
		Tool string
		Kind *string
		Text string
		Txn  *int
	}
	for i, l := range lines {
		json.Unmarshal([]byte(l), &r[i])
	}
	size := len(head) + n + 3
	if r[0].ID != "big-1" || r[0].Tool != "create_file" || r[0].OK || r[0].Kind == nil || *r[0].Kind != "too_large" || r[0].Txn == nil ||
		!strings.Contains(r[0].Text, fmt.Sprintf("This call line is %d bytes", size)) {
		t.Errorf("the reply to the line over the limit: %.500s", lines[0])
	}
	if r[1].ID != 7.0 || r[1].Tool != "no_such_tool" || r[1].Kind == nil || *r[1].Kind != "too_large" {
		t.Errorf("the reply to the line naming no tool served: %.500s", lines[1])
	}
	if r[2].ID != 3.0 || !r[2].OK || !strings.Contains(r[2].Text, "one") {
		t.Errorf("the next line's reply: %.500s", lines[2])
	}
	if _, err := os.Lstat(filepath.Join(dir, "big.txt")); !os.IsNotExist(err) {
		t.Errorf("big.txt was refused, but: %v", err)
	}

	cli := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(append(args[:1:1], append([]string{"--root", dir}, args[1:]...)...), strings.NewReader(""), &out, &errb); code != exitOK {
			t.Fatalf("vfsctl %s: exit %d: %s%s", strings.Join(args, " "), code, out.String(), errb.String())
		}
		return out.String()
	}
	var logged []struct {
		Seq                       int
		Session, Tool, Kind, Turn string
		Paths                     []string
	}
	for _, l := range strings.Split(strings.TrimSpace(cli("log", "--json")), "\n") {
		var m struct {
			Seq                       int
			Session, Tool, Kind, Turn string
			Paths                     []string
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		logged = append(logged, m)
	}
	if len(logged) != 3 {
		t.Fatalf("vfsctl log: %+v", logged)
	}
	if c := logged[2]; c.Tool != "create_file" || c.Kind != "too_large" || c.Turn != "t4" || c.Session != "s1" || fmt.Sprint(c.Paths) != "[big.txt]" {
		t.Errorf("vfsctl log, the line over the limit: %+v", c)
	}
	if c := logged[1]; c.Tool != "unknown" || c.Kind != "too_large" || c.Session != "s1" {
		t.Errorf("vfsctl log, the line naming no tool served: %+v", c)
	}
	// The record keeps the arguments with the content cut, and their size as sent.
	var rec struct {
		Args     map[string]string
		ArgsSize int `json:"args_size"`
	}
	if err := json.Unmarshal([]byte(strings.SplitN(cli("export"), "\n", 2)[0]), &rec); err != nil {
		t.Fatal(err)
	}
	if c := rec.Args["content"]; rec.Args["path"] != "big.txt" || len(c) > 1024 || !strings.HasSuffix(c, fmt.Sprintf("[cut: %d bytes as sent]", n)) ||
		rec.ArgsSize != len(`{"path":"big.txt","content":""}`)+n {
		t.Errorf("the record keeps %.300v, %d bytes sent", rec.Args, rec.ArgsSize)
	}
}

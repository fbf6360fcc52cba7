//go:build !windows

package main

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// A command that removed the journal: exec --json's text began in lower case ("the
// command ended ..."), where it is a reply of its own, as run_command's is.
func TestExecJSONJournalGoneTextIsASentence(t *testing.T) {
	dir := t.TempDir()
	if code, out, errb := cliIn(t, dir, "", "checkpoint", "--root", dir); code != 0 {
		t.Fatalf("checkpoint: %s%s", out, errb)
	}
	code, out, errb := cliIn(t, dir, "", "exec", "--root", dir, "--json", "--", "sh", "-c", "rm -rf .vfsctl")
	if code == 0 {
		t.Fatalf("exec that removed the journal exited 0: %s%s", out, errb)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var r struct {
		OK   bool   `json:"ok"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil || r.OK {
		t.Fatalf("want an {ok: false} line: %v %q", err, out)
	}
	if c, _ := utf8.DecodeRuneInString(r.Text); !unicode.IsUpper(c) || !strings.Contains(r.Text, "is gone") {
		t.Errorf("text: %q\nwant a sentence, starting with a capital, that says the journal is gone", r.Text)
	}
}

package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/toolapi"
)

// log and show print a session name, a turn label, a path or arguments that hold a
// control character, a bidirectional control or a byte that is not UTF-8 escaped:
// no escape reaches the terminal (to retitle or recolour it), no newline splits a
// row, and U+202E does not make b/gnp.exe show as b/exe.png. A journal may come
// from anyone (an older vfsctl took any turn label), so the printing is what must hold.
func TestLogAndShowEscapeWhatDoesNotPrint(t *testing.T) {
	rec := &toolapi.Record{
		Seq: 1, Time: time.Unix(0, 0), Tool: "move_file", State: toolapi.StateFailed, Kind: "invalid_input",
		Session: "s\x1b[32m", Turn: "t\x1b]0;pwned\a\x1b[31mRED\nnext",
		Args:  `{"destination":"b/` + "\u202e" + `gnp.exe","x":"` + "\x1b" + `"}`,
		Files: []journal.File{{Path: "b/\u202egnp.exe", Op: journal.OpDelete}, {Path: "bad\xffname", Op: journal.OpRead}},
	}
	var lg, sh bytes.Buffer
	writeLogTable(&lg, []*toolapi.Record{rec})
	writeRecord(&sh, rec)
	for name, out := range map[string]string{"log": lg.String(), "show": sh.String()} {
		if i := strings.IndexFunc(out, func(r rune) bool { return r != '\n' && (r < 0x20 || r == 0x7f || r == 0x202e) }); i >= 0 {
			t.Errorf("%s prints %q raw:\n%s", name, out[i:i+1], out)
		}
		if strings.Contains(out, "\xff") {
			t.Errorf("%s prints a byte that is not UTF-8 raw:\n%s", name, out)
		}
	}
	if n := strings.Count(lg.String(), "\n"); n != 2 {
		t.Errorf("log: %d lines for one record, want the header and one row:\n%s", n, lg.String())
	}
	for _, want := range []string{`"s\x1b[32m"`, `"t\x1b]0;pwned\a\x1b[31mRED\nnext"`, `"b/\u202egnp.exe"`, `"bad\xffname"`} {
		if !strings.Contains(lg.String(), want) || !strings.Contains(sh.String(), want) {
			t.Errorf("log and show should both show %s:\nlog:\n%s\nshow:\n%s", want, lg.String(), sh.String())
		}
	}
	if !strings.Contains(sh.String(), `args     {"destination":"b/\u202egnp.exe","x":"\u001b"}`) {
		t.Errorf("show's args:\n%s", sh.String())
	}
}

// vfsctl exec --turn takes the labels a call line takes, and no other.
func TestExecTurnLabel(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"exec", "--root", dir, "--turn", "t\x1b[31m", "--", "true"}, strings.NewReader(""), &out, &errb); code != exitVfsctl || !strings.Contains(errb.String(), "without control characters") {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
}

// --wait takes 0 or more, as --since refuses what cannot be meant; -1s was taken.
func TestWaitNotNegative(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"call", "--root", t.TempDir(), "--wait", "-1s"}, strings.NewReader(""), &out, &errb); code != exitUsage || !strings.Contains(errb.String(), "negative") {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if code := run([]string{"call", "--root", t.TempDir(), "--wait", "0"}, strings.NewReader(""), &out, &errb); code != exitOK {
		t.Fatalf("--wait 0: exit %d: %s", code, errb.String())
	}
}

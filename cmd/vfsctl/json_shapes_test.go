package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/winetest"
)

// checkpoint --json printed a Go struct ({"Seq":1,...,"Files":null}); it has the
// shape of exec --json now, lists as [] when empty.
func TestCheckpointJSONShape(t *testing.T) {
	dir := t.TempDir()
	for i, want := range []string{
		`{"ok":true,"text":"The workspace's first snapshot was taken; nothing to journal.","txn":0,"first":true,"files":[],"entries":[],"notes":[],"running":[]}`,
		`{"ok":true,"text":"Call 1 journaled 1 file changed outside vfsctl.","txn":1,"first":false,"files":[{"path":"y.txt","op":"create"}],"entries":[],"notes":[],"running":[]}`,
		`{"ok":true,"text":"Nothing changed outside vfsctl.","txn":0,"first":false,"files":[],"entries":[],"notes":[],"running":[]}`,
	} {
		if i == 1 {
			os.WriteFile(filepath.Join(dir, "y.txt"), []byte("y\n"), 0o644)
		}
		code, out, errb := cliIn(t, dir, "", "checkpoint", "--root", dir, "--json")
		if code != exitOK || strings.TrimSpace(out) != want {
			t.Errorf("checkpoint %d --json: exit %d\n%s%s\nwant %s", i, code, out, errb, want)
		}
	}
}

// log --json with no journal printed nothing and exited 0; export too.
func TestLogJSONAndExportWithoutJournal(t *testing.T) {
	dir := t.TempDir()
	code, out, _ := cliIn(t, dir, "", "log", "--root", dir, "--json")
	var r struct {
		OK   *bool  `json:"ok"`
		Kind string `json:"kind"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != exitRefused || r.OK == nil || *r.OK || r.Kind != "file_not_found" || !strings.Contains(r.Text, "no journal") {
		t.Errorf("log --json without a journal: exit %d %q", code, out)
	}
	code, out, errb := cliIn(t, dir, "", "export", "--root", dir)
	if code != exitRefused || out != "" || !strings.Contains(errb, "no journal") {
		t.Errorf("export without a journal: exit %d %q %q", code, out, errb)
	}
}

// exec --json glued its summary to the command's last line when that had no newline.
func TestExecJSONSummaryOnItsOwnLine(t *testing.T) {
	winetest.NeedPOSIXShell(t)
	dir := t.TempDir()
	code, out, errb := cliIn(t, dir, "", "exec", "--root", dir, "--json", "--", "printf", "no newline")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var r struct {
		OK bool `json:"ok"`
	}
	if code != 0 || len(lines) != 2 || lines[0] != "no newline" || json.Unmarshal([]byte(lines[1]), &r) != nil || !r.OK {
		t.Errorf("exec --json of printf 'no newline': exit %d %q %s", code, out, errb)
	}
	_, out, _ = cliIn(t, dir, "", "exec", "--root", dir, "--json", "--", "echo", "line")
	if !strings.HasPrefix(out, "line\n{") {
		t.Errorf("exec --json of echo: an empty line added? %q", out)
	}
}

// exec --timeout -1s ran with no timeout, exec --session ” made a session-less
// record; both are refused as the other flags refuse what cannot be meant (exit 125,
// as every usage error of exec: the command was not run).
func TestExecFlagsRefused(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"--timeout", "-1s"}, {"--session", ""}} {
		code, out, errb := cliIn(t, dir, "", append(append([]string{"exec", "--root", dir}, args...), "--", "true")...)
		if code != exitVfsctl || !strings.Contains(errb, strings.TrimLeft(args[0], "-")) {
			t.Errorf("exec %q: exit %d %s%s", args, code, out, errb)
		}
	}
}

// show names a file's change of bits on its line, whether its content changed too or
// not: a command that wrote a file and made it 0600 showed only the write.
func TestShowNamesAChangeOfBits(t *testing.T) {
	winetest.NeedPOSIXShell(t)
	dir := t.TempDir()
	for name, content := range map[string]string{"r.sh": "a\n", "w.txt": "b\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, out, errb := cliIn(t, dir, "", "checkpoint", "--root", dir); code != 0 {
		t.Fatalf("checkpoint: exit %d %s%s", code, out, errb)
	}
	if code, out, errb := cliIn(t, dir, "", "exec", "--root", dir, "--", "sh", "-c", "chmod 755 r.sh; echo c > w.txt; chmod 600 w.txt"); code != 0 {
		t.Fatalf("exec: exit %d %s%s", code, out, errb)
	}
	_, out, errb := cliIn(t, dir, "", "show", "--root", dir, "1")
	for _, want := range []string{"r.sh  write", "w.txt  edit"} {
		i := strings.Index(out, "file     "+want)
		if i < 0 {
			t.Fatalf("show 1 has no line for %s:\n%s%s", want, out, errb)
		}
		line, _, _ := strings.Cut(out[i:], "\n")
		name, _, _ := strings.Cut(want, " ")
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if bits := fmt.Sprintf("mode 0644 -> %04o", fi.Mode().Perm()); !strings.Contains(line, bits) {
			t.Errorf("show 1's line %q does not say %s", line, bits)
		}
	}
}

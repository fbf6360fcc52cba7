package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/winetest"
)

// One command that grew a file over the snapshot's size limit (16 MiB) blocked every
// rewind reaching its turn, for good, the command's small file too. The exec's
// warning and the refusal name --skip-unrestorable; with it the rest is rewound and
// the big file named as left as it is; vfsctl undo of the rewind brings the rest back
// and leaves the big file alone. vfsctl undo of the command does the same.
func TestRewindSkipUnrestorableCLI(t *testing.T) {
	winetest.NeedPOSIXShell(t)
	dir := t.TempDir()
	big := bytes.Repeat([]byte("a"), 16<<20+1000)
	os.WriteFile(filepath.Join(dir, "big.txt"), big, 0o644)
	os.WriteFile(filepath.Join(dir, "s.txt"), []byte("small\n"), 0o644)
	if code, out, errb := cliIn(t, dir, "", "checkpoint", "--root", dir); code != 0 {
		t.Fatalf("checkpoint: %s%s", out, errb)
	}
	code, out, errb := cliIn(t, dir, "", "exec", "--root", dir, "--session", "B", "--turn", "1", "--", "sh", "-c", "echo x >> big.txt; echo y >> s.txt")
	if code != 0 {
		t.Fatalf("exec: %s%s", out, errb)
	}
	if w := "big.txt is over the snapshot's size limit: recorded by hash only, not restorable; an undo of this call, or a rewind of its turn or of an earlier one, is refused unless given --skip-unrestorable"; !strings.Contains(errb, w) {
		t.Errorf("the exec's warning does not say %q:\n%s", w, errb)
	}
	bigLeft := append(big, "x\n"...)
	check := func(when, s string) {
		t.Helper()
		if got := readFiles(t, dir, "s.txt"); got != s {
			t.Errorf("s.txt %s: %q, want %q", when, got, s)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "big.txt")); !bytes.Equal(got, bigLeft) {
			t.Errorf("big.txt %s: %d bytes, want it as the command left it", when, len(got))
		}
	}

	code, out, errb = cliIn(t, dir, "", "rewind", "--root", dir, "--session", "B", "--turn", "1")
	if code != 1 || !strings.Contains(errb, "big.txt was over the snapshot's size limit") || !strings.Contains(errb, "To take back everything else and leave big.txt as it is, run this rewind again with --skip-unrestorable.") {
		t.Fatalf("rewind without the flag: exit %d\n%s%s", code, out, errb)
	}
	check("after the refused rewind", "small\ny\n")
	code, out, errb = cliIn(t, dir, "", "undo", "1", "--root", dir)
	if code != 1 || !strings.Contains(errb, "run this undo again with --skip-unrestorable") {
		t.Fatalf("undo without the flag: exit %d\n%s%s", code, out, errb)
	}

	code, out, errb = cliIn(t, dir, "", "rewind", "--root", dir, "--session", "B", "--turn", "1", "--skip-unrestorable", "--json")
	var rep struct {
		OK      bool     `json:"ok"`
		Text    string   `json:"text"`
		Txn     uint64   `json:"txn"`
		Skipped []string `json:"skipped"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || !rep.OK {
		t.Fatalf("rewind --skip-unrestorable: exit %d, %v\n%s%s", code, err, out, errb)
	}
	stays := "big.txt stays as it is, not put back to before call 1: it was over the snapshot's size limit and recorded by hash only"
	if len(rep.Skipped) != 1 || rep.Skipped[0] != stays || !strings.Contains(rep.Text, stays+".") {
		t.Errorf("the rewind does not say big.txt stays: %+v", rep)
	}
	check("after the rewind", "small\n")

	code, out, errb = cliIn(t, dir, "", "undo", "--root", dir, strconv.FormatUint(rep.Txn, 10))
	if code != 0 {
		t.Fatalf("undo of the rewind: %s%s", out, errb)
	}
	check("after the rewind's undo", "small\ny\n")

	code, out, errb = cliIn(t, dir, "", "undo", "1", "--root", dir, "--skip-unrestorable")
	if code != 0 || !strings.Contains(out, stays+".") {
		t.Fatalf("undo 1 --skip-unrestorable: exit %d\n%s%s", code, out, errb)
	}
	check("after undo 1", "small\n")
}

// vfsctl undo of an exec that made sub/deep/ said "sub/ removed" before "sub/deep/
// removed": the folders are said in the order they go, deepest first.
func TestUndoSaysFoldersDeepestFirstCLI(t *testing.T) {
	winetest.NeedPOSIXShell(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "new"), []byte("a\n"), 0o644)
	if code, out, errb := cliIn(t, dir, "", "checkpoint", "--root", dir); code != 0 {
		t.Fatalf("checkpoint: %s%s", out, errb)
	}
	if code, out, errb := cliIn(t, dir, "", "exec", "--root", dir, "--session", "A", "--", "sh", "-c", "echo hi >> new; mkdir -p sub/deep; echo x > sub/deep/f.txt"); code != 0 {
		t.Fatalf("exec: %s%s", out, errb)
	}
	for _, dry := range []bool{true, false} {
		args := []string{"undo", "--root", dir}
		if dry {
			args = append(args, "--dry-run")
		}
		code, out, errb := cliIn(t, dir, "", args...)
		deep, top := strings.Index(out, "sub/deep/ "), strings.Index(out, "sub/ ")
		if code != 0 || deep < 0 || top < 0 || deep > top || strings.Count(out, "sub/ ") != 1 {
			t.Errorf("undo (dry run %v) does not say sub/deep/ once, before sub/:\n%s%s", dry, out, errb)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "sub")); !os.IsNotExist(err) {
		t.Errorf("sub/ after the undo: %v", err)
	}
}

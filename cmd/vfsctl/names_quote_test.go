package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/winetest"
)

// undo, redo, rewind (and --dry-run), show's diff headers, exec's notes, stats and
// replay printed names raw: an ESC reached the terminal, a newline split a line. They
// quote them now as log does.
func TestOperatorOutputQuotesNames(t *testing.T) {
	winetest.NeedPOSIXShell(t)
	dir := t.TempDir()
	raw := func(name, out string) {
		t.Helper()
		if i := strings.IndexFunc(out, func(r rune) bool { return r != '\n' && r != '\t' && (r < 0x20 || r == 0x7f) }); i >= 0 {
			t.Errorf("%s prints %q raw:\n%s", name, out[i:i+1], out)
		}
		if strings.Contains(out, "a\nb.txt") {
			t.Errorf("%s splits the name a<newline>b.txt over two lines:\n%s", name, out)
		}
	}
	script := `printf 1 > "$(printf "a\nb.txt")"; printf 5 > "$(printf "e\033[31mvil.txt")"; ln -s "$(printf "x\033]0;t\a")" lnk`
	_, out, errb := cliIn(t, dir, "", "exec", "--root", dir, "--session", "S\x1b[31m", "--turn", "t1", "--", "sh", "-c", script)
	raw("exec", out+errb)
	_, out, errb = cliIn(t, dir, "", "show", "--root", dir, "1")
	raw("show", out+errb)
	if !strings.Contains(out, `--- "a/e\x1b[31mvil.txt"`) || !strings.Contains(out, `+++ "b/a\nb.txt"`) {
		t.Errorf("show's diff headers should quote the names as git does:\n%s", out)
	}
	for _, args := range [][]string{{"undo"}, {"redo"}, {"rewind", "--session", "S\x1b[31m", "--turn", "t1", "--dry-run"}, {"rewind", "--session", "S\x1b[31m", "--turn", "t1"}, {"stats"}, {"replay", "1"}} {
		_, out, errb := cliIn(t, dir, "", append(args, "--root", dir)...)
		raw(strings.Join(args, " "), out+errb)
		if args[0] == "undo" && !strings.Contains(out, `"e\x1b[31mvil.txt" removed`) {
			t.Errorf("undo:\n%s", out)
		}
	}
	// A refusal names the other files of a command, which no list of the reply's
	// own names holds.
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cliIn(t, dir, "", "checkpoint", "--root", dir)
	cliIn(t, dir, "", "exec", "--root", dir, "--", "sh", "-c", `printf x > "$(printf "e\033[31mvil.txt")"; echo A > a.txt`)
	code, out, errb := cliIn(t, dir, "", "undo", "--root", dir, "--path", "a.txt")
	if code != exitRefused || !strings.Contains(errb, `[31mvil.txt`) {
		t.Errorf("undo --path a.txt of a command that changed another file too: exit %d %s%s", code, out, errb)
	}
	raw("a refused undo", out+errb)
}

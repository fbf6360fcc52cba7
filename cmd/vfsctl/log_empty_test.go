package main

import (
	"strings"
	"testing"
)

// vfsctl log with no journal printed its reason on stdout and exited 0, and 1 with
// --json. It exits 1 either way now, as show does, the reason on stderr without --json
// (docs/operators.md): a script's status does not hang on --json.
func TestLogWithoutJournalFailsAsShow(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"log"}, {"show", "1"}} {
		code, out, errb := cliIn(t, dir, "", append(args, "--root", dir)...)
		if code != exitRefused || out != "" || !strings.Contains(errb, "there is no journal in") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q: want exit 1, the reason on stderr only", args, code, out, errb)
		}
		code, out, _ = cliIn(t, dir, "", append(args, "--root", dir, "--json")...)
		if code != exitRefused || !strings.HasPrefix(out, `{"ok":false,"kind":"file_not_found"`) {
			t.Errorf("%q --json: exit %d, stdout %q", args, code, out)
		}
	}
}

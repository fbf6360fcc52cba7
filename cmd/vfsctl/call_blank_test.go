package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// vfsctl call skips a blank line without a reply, while its --help said that every
// line that is not a call object is answered with invalid_input: a runtime counting
// replies against lines waited for ever. The help says it now.
func TestCallHelpSaysBlankLinesAreSkipped(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	code, out, errb := cliIn(t, dir, "\n  \t\n"+`{"tool":"read_file","args":{"path":"a.txt"}}`+"\n", "call", "--root", dir)
	if code != exitOK || strings.Count(out, "\n") != 1 {
		t.Fatalf("two blank lines and a call: exit %d, want one reply: %s%s", code, out, errb)
	}
	cmd := exec.Command(os.Args[0], "call", "--help")
	cmd.Env = append(os.Environ(), "VFSCTL_TEST_RUN=1")
	b, err := cmd.Output()
	if help := strings.Join(strings.Fields(string(b)), " "); err != nil || !strings.Contains(help, "A blank line (spaces only) is skipped: it gets no reply") {
		t.Errorf("call --help does not say a blank line gets no reply: %v\n%s", err, b)
	}
}

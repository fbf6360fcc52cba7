package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --since and --until given as the same time ago are an empty window, refused as the
// same date given twice is: each read against its own clock reading, until came out a
// few microseconds after since, and the window listed nothing as a quiet journal.
func TestSameAgoWindowRefused(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("a\n"), 0o644)
	if code, out, errb := cliIn(t, dir, `{"tool":"read_file","args":{"path":"f.txt"}}`+"\n", "call", "--root", dir); code != exitOK {
		t.Fatalf("call: %d %s%s", code, out, errb)
	}
	for _, ago := range []string{"1d", "90m"} {
		code, out, errb := cliIn(t, dir, "", "log", "--since", ago, "--until", ago)
		if code != exitUsage || out != "" || !strings.Contains(errb, "is not after --since") {
			t.Errorf("log --since %s --until %s: exit %d, stdout %q, stderr %q; want refused as an empty window", ago, ago, code, out, errb)
		}
	}
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// VFSCTL_TRACE writes Go's execution trace of a call process, to see where a call
// waits; the calls are answered as without it.
func TestCallWritesRuntimeTrace(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	trace := filepath.Join(t.TempDir(), "call.trace")
	t.Setenv("VFSCTL_TRACE", trace)
	in := `{"id":1,"tool":"edit_file","args":{"path":"a.txt","edits":[{"oldText":"alpha","newText":"beta"}]}}` + "\n"
	code, out, errOut := runBounded(t, in, "call", "--root", dir, "--guard", "off")
	if code != exitOK || !strings.Contains(out, `"ok":true`) {
		t.Fatalf("exit %d, reply %s, stderr %s", code, out, errOut)
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatalf("no trace written: %v", err)
	}
	if !bytes.HasPrefix(data, []byte("go 1.")) || len(data) < 1000 {
		t.Errorf("%s is not a Go execution trace (%d bytes, begins %q)", trace, len(data), data[:min(len(data), 16)])
	}
}

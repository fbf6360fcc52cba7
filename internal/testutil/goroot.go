package testutil

import (
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// GOROOT is the Go installation whose sources tests read as real files, as
// `go env GOROOT` names it ("" when the go command is not found).
var GOROOT = sync.OnceValue(func() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
})

// GoSrcCopy copies GOROOT's src (about 12,800 entries of real code) into a new
// temporary folder and returns it: a large tree that benchmarks may change. tb is
// skipped where there is no go command or no cp.
func GoSrcCopy(tb testing.TB) string {
	tb.Helper()
	if GOROOT() == "" {
		tb.Skip("go env GOROOT: no go command")
	}
	if _, err := exec.LookPath("cp"); err != nil {
		tb.Skip("cp is not installed")
	}
	ws := filepath.Join(tb.TempDir(), "src")
	if out, err := exec.Command("cp", "-a", filepath.Join(GOROOT(), "src"), ws).CombinedOutput(); err != nil {
		tb.Fatalf("cp: %v %s", err, out)
	}
	return ws
}

package testutil

import (
	"os/exec"
	"strings"
	"sync"
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

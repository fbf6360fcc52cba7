package main

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Every vfsctl command is a process of its own, and each runs every package's
// initialisers: what vfsctl's own packages build there (regular expressions of the
// edit dialects and anchors, a page template) is paid by commands that never use it,
// an exec on every run. They build it on first use. The figure is the runtime's own
// account (GODEBUG=inittrace=1) of the heap that the packages of this module
// allocate as the process starts, read from a run of vfsctl version.
func TestStartBuildsLittle(t *testing.T) {
	cmd := exec.Command(os.Args[0], "version")
	cmd.Env = append(os.Environ(), "VFSCTL_TEST_RUN=1", "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("vfsctl version: %v\n%s", err, out)
	}
	line := regexp.MustCompile(`(?m)^init (github\.com/vfsctl/vfsctl/\S+) @.* (\d+) bytes, (\d+) allocs$`)
	total, seen := 0, 0
	var each []string
	for _, m := range line.FindAllStringSubmatch(string(out), -1) {
		if m[1] == "github.com/vfsctl/vfsctl/cmd/vfsctl" {
			continue // this test binary's package, its tests' variables included
		}
		n, _ := strconv.Atoi(m[2])
		total += n
		seen++
		each = append(each, m[1]+": "+m[2]+" bytes")
	}
	if seen == 0 {
		t.Fatalf("no init lines of vfsctl's packages in:\n%s", out)
	}
	if total > 40_000 {
		t.Errorf("vfsctl's packages allocate %d bytes as the process starts; want at most 40,000:\n%s", total, strings.Join(each, "\n"))
	}
}

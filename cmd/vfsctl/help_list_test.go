package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// vfsctl --help listed the commands with the summaries from column 12, so that
// "checkpoint" ran into its own; version was left out of the list, and
// vfsctl version --help printed the version. Every summary starts in one column now,
// version among them, and version --help prints its usage.
func TestHelpListsEveryCommandAligned(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"--help"}, nil, &out, &out); code != exitOK {
		t.Fatalf("--help: exit %d", code)
	}
	_, list, _ := strings.Cut(out.String(), "Commands:\n")
	list, _, _ = strings.Cut(list, "\n\n")
	column := -1
	var names []string
	for _, line := range strings.Split(list, "\n") {
		name := strings.Fields(line)[0]
		names = append(names, name)
		// The summary starts after the name and at least two spaces.
		at := len(line) - len(strings.TrimLeft(line[strings.Index(line, name)+len(name):], " "))
		if !strings.HasPrefix(line[at-2:], "  ") {
			t.Errorf("%q: the summary is not two spaces from the name", line)
		}
		if column == -1 {
			column = at
		} else if at != column {
			t.Errorf("%q: the summary starts at column %d, the first at %d", line, at, column)
		}
	}
	for _, want := range []string{"call", "checkpoint", "demo", "version"} {
		if !strings.Contains(" "+strings.Join(names, " ")+" ", " "+want+" ") {
			t.Errorf("--help does not list %s: %q", want, names)
		}
	}

	cmd := exec.Command(os.Args[0], "version", "--help")
	cmd.Env = append(os.Environ(), "VFSCTL_TEST_RUN=1")
	b, err := cmd.Output()
	if err != nil || !strings.HasPrefix(string(b), "Usage: vfsctl version") || strings.Contains(string(b), "guards:") {
		t.Errorf("version --help: %v\n%s", err, b)
	}
}

// vfsctl tools printed "vfsctl tools: guards: ..." on stderr every run, noise in
// a runtime's capture of a definitions dump (vfsctl version says it), and wrote the
// descriptions' < and > as \u003c and \u003e.
func TestToolsQuiet(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"tools", "--tools", "all"}, nil, &out, &errb); code != exitOK {
		t.Fatalf("tools: exit %d %s", code, errb.String())
	}
	if errb.Len() > 0 {
		t.Errorf("tools wrote on stderr: %q", errb.String())
	}
	if strings.Contains(out.String(), `\u003c`) || strings.Contains(out.String(), `\u003e`) || strings.Contains(out.String(), `\u0026`) {
		t.Errorf("tools escapes <, > or & in its definitions")
	}
}

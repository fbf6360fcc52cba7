package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/winetest"
)

// show and export gave a command's arguments as Go's HTML-safe JSON: && as
// \u0026\u0026, > as \u003e. They give them as typed now, the same value: decoding
// each output gives the argv that ran, a literal backslash-u0026 in it included.
func TestCommandArgsShownAsTyped(t *testing.T) {
	winetest.NeedPOSIXShell(t)
	dir := t.TempDir()
	script := `echo a && echo b > out.txt && cat < out.txt && printf '%s' '\u0026'`
	argv := []string{"sh", "-c", script}
	if code, out, errb := cliIn(t, dir, "", append([]string{"exec", "--root", dir, "--"}, argv...)...); code != 0 {
		t.Fatalf("exec: exit %d %s%s", code, out, errb)
	}
	// The argv in JSON as a person types it: the encoder's default escapes left out.
	plain := `"echo a && echo b > out.txt && cat < out.txt && printf '%s' '\\u0026'"`

	_, show, _ := cliIn(t, dir, "", "show", "1", "--root", dir)
	if !strings.Contains(show, "args     "+`{"argv":["sh","-c",`+plain) {
		t.Errorf("show 1: args not as typed:\n%s", show)
	}
	_, showJSON, _ := cliIn(t, dir, "", "show", "1", "--json", "--root", dir)
	_, export, _ := cliIn(t, dir, "", "export", "--root", dir)
	_, logJSON, _ := cliIn(t, dir, "", "log", "--json", "--root", dir)
	for _, c := range []struct{ name, out string }{{"show --json", showJSON}, {"export", export}, {"log --json", logJSON}} {
		if !strings.Contains(c.out, plain) || strings.Contains(c.out, `\u003e`) {
			t.Errorf("%s: the argv is not as typed:\n%s", c.name, c.out)
		}
		var got struct {
			Args struct {
				Argv []string `json:"argv"`
			} `json:"args"`
			Argv []string `json:"argv"` // log's
		}
		if err := json.Unmarshal([]byte(c.out), &got); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if !slices.Equal(got.Args.Argv, argv) && !slices.Equal(got.Argv, argv) {
			t.Errorf("%s: decodes to argv %q %q, not the argv that ran", c.name, got.Args.Argv, got.Argv)
		}
	}
}

package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/winetest"
)

// vfsctl exec of the default session (an operator's gofmt run by hand) was exported
// with origin model, so stats counted it among the models' calls. A runtime that
// names a model's session still records a model's command.
func TestExecOriginIsOperatorInTheDefaultSession(t *testing.T) {
	winetest.NeedPOSIXShell(t)
	dir := t.TempDir()
	for _, args := range [][]string{{"exec", "--root", dir, "--", "true"}, {"exec", "--root", dir, "--session", "agent", "--", "true"}} {
		if code, out, errb := cliIn(t, dir, "", args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errb)
		}
	}
	_, out, errb := cliIn(t, dir, "", "export", "--root", dir)
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct{ Session, Tool, Origin string }
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("export line %q: %v (%s)", line, err, errb)
		}
		if r.Tool == "exec" {
			got[r.Session] = r.Origin
		}
	}
	if got["operator"] != "operator" || got["agent"] != "model" {
		t.Errorf("origins of the exec records by session: %v, want operator: operator, agent: model", got)
	}
}

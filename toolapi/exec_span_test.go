package toolapi_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/internal/winetest"
	"github.com/vfsctl/vfsctl/toolapi"
)

// A command's span, from Engine.Exec as from run_command, carries what ran, how it
// ended and how many files it changed, beside the session, turn and transaction.
func TestCommandSpansCarryArgvExitAndFiles(t *testing.T) {
	winetest.NeedPOSIXShell(t)
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	root := testutil.Workspace(t, map[string]string{"a.txt": "a\n"})
	eng, err := toolapi.Open(root, toolapi.Options{TracerProvider: tp, Tools: "native,shell"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ctx := toolapi.WithTurn(context.Background(), "t1")
	res, err := eng.Exec(ctx, "conv", []string{"sh", "-c", "echo b > b.txt; echo c > c.txt; exit 5"}, toolapi.ExecOptions{})
	if err != nil || res.Code != 5 {
		t.Fatalf("Exec: %v %+v", err, res)
	}
	r := eng.Call(ctx, "conv", toolapi.RunCommand, json.RawMessage(`{"command": "echo d > d.txt"}`))
	if !r.OK {
		t.Fatalf("run_command: %s", r.Text)
	}
	spans := exp.GetSpans()
	if len(spans) != 2 {
		t.Fatalf("%d spans, want 2", len(spans))
	}
	for i, want := range []struct {
		name  string
		argv  []string
		code  int64
		exit  string
		files int64
	}{
		{"execute_tool exec", []string{"sh", "-c", "echo b > b.txt; echo c > c.txt; exit 5"}, 5, "exit 5", 2},
		{"execute_tool run_command", []string{"/bin/sh", "-c", "echo d > d.txt"}, 0, "exit 0", 1},
	} {
		s := spans[i]
		a := attrs(s)
		if s.Name != want.name {
			t.Errorf("span %d: %q, want %q", i, s.Name, want.name)
		}
		if got := a["process.command_args"].AsStringSlice(); !slices.Equal(got, want.argv) {
			t.Errorf("%s: process.command_args %q, want %q", want.name, got, want.argv)
		}
		if got := a["process.exit.code"].AsInt64(); got != want.code {
			t.Errorf("%s: process.exit.code %d, want %d", want.name, got, want.code)
		}
		if got := a["vfsctl.files_changed"].AsInt64(); got != want.files {
			t.Errorf("%s: vfsctl.files_changed %d, want %d", want.name, got, want.files)
		}
		wantString(t, a, "vfsctl.exit", want.exit)
		wantString(t, a, "vfsctl.session", "conv")
		wantString(t, a, "vfsctl.turn", "t1")
		if a["vfsctl.txn"].AsInt64() == 0 {
			t.Errorf("%s: no vfsctl.txn", want.name)
		}
	}
}

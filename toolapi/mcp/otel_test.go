package mcp

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/vfsctl/vfsctl/toolapi"
)

// TestSpanJoinsClientTrace: a tools/call whose _meta carries a W3C traceparent is
// traced as a child of the client's span; one without starts a trace of its own.
func TestSpanJoinsClientTrace(t *testing.T) {
	cs, exp := tracedSession(t)
	ctx := context.Background()

	const traceID, spanID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	args := map[string]any{"path": "a.txt"}
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "read_file", Arguments: args,
		Meta: sdk.Meta{"traceparent": "00-" + traceID + "-" + spanID + "-01"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "read_file", Arguments: args}); err != nil {
		t.Fatal(err)
	}
	spans := exp.GetSpans()
	if len(spans) != 2 {
		t.Fatalf("got %d spans, want 2", len(spans))
	}
	joined, own := spans[0], spans[1]
	if joined.Name != "execute_tool read_file" {
		t.Errorf("span %q", joined.Name)
	}
	if got := joined.SpanContext.TraceID().String(); got != traceID {
		t.Errorf("trace %s, want the client's %s", got, traceID)
	}
	if got := joined.Parent.SpanID().String(); got != spanID || !joined.Parent.IsRemote() {
		t.Errorf("parent %s (remote %v), want the client's span %s", got, joined.Parent.IsRemote(), spanID)
	}
	if own.Parent.IsValid() || own.SpanContext.TraceID().String() == traceID {
		t.Errorf("a call without traceparent has parent %v in trace %s", own.Parent.SpanID(), own.SpanContext.TraceID())
	}
}

// tracedSession serves a workspace holding a.txt, traced into an in-memory exporter,
// to an in-memory client.
func tracedSession(t *testing.T) (*sdk.ClientSession, *tracetest.InMemoryExporter) {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	eng, err := toolapi.Open(dir, toolapi.Options{TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return serve(t, eng), exp
}

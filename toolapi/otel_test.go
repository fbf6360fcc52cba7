package toolapi_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/toolapi"
)

// tracedEngine opens an engine over files whose calls are recorded by an in-memory
// exporter, synchronously, so the spans are there when Call returns.
func tracedEngine(t testing.TB, files map[string]string) (*toolapi.Engine, *tracetest.InMemoryExporter, *sdktrace.TracerProvider, string) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	root := testutil.Workspace(t, files)
	eng, err := toolapi.Open(root, toolapi.Options{TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng, exp, tp, root
}

func attrs(s tracetest.SpanStub) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes {
		m[kv.Key] = kv.Value
	}
	return m
}

func wantString(t *testing.T, a map[attribute.Key]attribute.Value, key, want string) {
	t.Helper()
	if got := a[attribute.Key(key)]; got.Type() != attribute.STRING || got.AsString() != want {
		t.Errorf("%s = %v, want %q", key, got.String(), want)
	}
}

// TestTraceSuccessfulCall: an edit is one span named after GenAI's execute_tool,
// under the runtime's own span, with the tool, the call id, the session, the path and
// the transaction number the reply carries, and no error.
func TestTraceSuccessfulCall(t *testing.T) {
	eng, exp, tp, root := tracedEngine(t, map[string]string{"app.py": "x = 1\n"})
	ctx, parent := tp.Tracer("runtime").Start(context.Background(), "invoke_agent")
	res := eng.Call(toolapi.WithCallID(ctx, "toolu_01"), "s1", "edit_file",
		json.RawMessage(`{"path": "app.py", "edits": [{"oldText": "x = 1", "newText": "x = 2"}]}`))
	parent.End()
	if !res.OK || res.Txn == nil {
		t.Fatalf("edit refused: %+v", res)
	}
	spans := exp.GetSpans()
	if len(spans) != 2 {
		t.Fatalf("got %d spans, want the call's and the runtime's", len(spans))
	}
	s := spans[0]
	if s.Name != "execute_tool edit_file" || s.SpanKind != trace.SpanKindInternal {
		t.Errorf("span %q of kind %v, want \"execute_tool edit_file\", internal", s.Name, s.SpanKind)
	}
	if s.Parent.SpanID() != parent.SpanContext().SpanID() || s.SpanContext.TraceID() != parent.SpanContext().TraceID() {
		t.Errorf("the call's span is not a child of the runtime's span")
	}
	a := attrs(s)
	wantString(t, a, "gen_ai.operation.name", "execute_tool")
	wantString(t, a, "gen_ai.tool.name", "edit_file")
	wantString(t, a, "gen_ai.tool.type", "function")
	wantString(t, a, "gen_ai.tool.call.id", "toolu_01")
	wantString(t, a, "vfsctl.session", "s1")
	if got := a["vfsctl.paths"].AsStringSlice(); !slices.Equal(got, []string{"app.py"}) {
		t.Errorf("vfsctl.paths = %q, want [app.py]", got)
	}
	if got := a["vfsctl.txn"]; got.Type() != attribute.INT64 || got.AsInt64() != *res.Txn {
		t.Errorf("vfsctl.txn = %v, want %d as the reply says", got.String(), *res.Txn)
	}
	if _, ok := a["error.type"]; ok {
		t.Errorf("a successful call has error.type %v", a["error.type"].String())
	}
	if s.Status.Code != codes.Unset {
		t.Errorf("status %v, want unset", s.Status)
	}
	if testutil.ReadFile(t, filepath.Join(root, "app.py")) != "x = 2\n" {
		t.Errorf("the traced call did not edit the file")
	}
}

// TestTraceRefusedCall: a refusal's span carries its kind as error.type and has
// status error; the file's text, which the reply quotes, stays out of the span.
func TestTraceRefusedCall(t *testing.T) {
	eng, exp, _, _ := tracedEngine(t, map[string]string{"a.txt": "secret alpha\n", "b.txt": "beta\n"})
	res := eng.Call(context.Background(), "s2", "apply_changes", json.RawMessage(
		`{"changes": [{"path": "a.txt", "edits": [{"oldText": "secret alpah", "newText": "x"}]}, {"path": "b.txt", "edits": [{"oldText": "beta", "newText": "gamma"}]}]}`))
	if res.OK || res.Kind == nil || *res.Kind != "text_not_found" {
		t.Fatalf("want text_not_found, got %+v", res)
	}
	if !strings.Contains(res.Text, "secret alpha") {
		t.Fatalf("the reply no longer quotes the file, so this test checks nothing: %s", res.Text)
	}
	spans := exp.GetSpans()
	if len(spans) != 1 {
		t.Fatalf("got %d spans, want 1", len(spans))
	}
	s := spans[0]
	if s.Name != "execute_tool apply_changes" {
		t.Errorf("span %q", s.Name)
	}
	a := attrs(s)
	wantString(t, a, "error.type", "text_not_found")
	wantString(t, a, "vfsctl.kind", "text_not_found")
	if _, ok := a["gen_ai.tool.call.id"]; ok {
		t.Errorf("a call without an id has gen_ai.tool.call.id %v", a["gen_ai.tool.call.id"].String())
	}
	if got := a["vfsctl.paths"].AsStringSlice(); !slices.Equal(got, []string{"a.txt", "b.txt"}) {
		t.Errorf("vfsctl.paths = %q, want [a.txt b.txt]", got)
	}
	if got := a["vfsctl.txn"]; res.Txn == nil || got.AsInt64() != *res.Txn {
		t.Errorf("vfsctl.txn = %v, want the refusal's journal number %v", got.String(), res.Txn)
	}
	if s.Status.Code != codes.Error {
		t.Errorf("status %v, want error", s.Status)
	}
	for _, kv := range s.Attributes {
		if strings.Contains(kv.Value.String(), "secret") {
			t.Errorf("attribute %s quotes the file: %s", kv.Key, kv.Value.String())
		}
	}
	if strings.Contains(s.Status.Description, "secret") {
		t.Errorf("status quotes the file: %s", s.Status.Description)
	}
}

// TestTraceUnknownTool: a tool name that is not a name (a model's garbage) leaves the
// span name plain and is kept short in gen_ai.tool.name.
func TestTraceUnknownTool(t *testing.T) {
	eng, exp, _, _ := tracedEngine(t, nil)
	name := "read file " + strings.Repeat("x", 1000)
	res := eng.Call(context.Background(), "s", name, json.RawMessage(`{}`))
	if res.OK || res.Kind == nil || *res.Kind != "unknown_tool" {
		t.Fatalf("want unknown_tool, got %+v", res)
	}
	spans := exp.GetSpans()
	if len(spans) != 1 || spans[0].Name != "execute_tool" {
		t.Fatalf("spans %v, want one named execute_tool", spans)
	}
	a := attrs(spans[0])
	wantString(t, a, "error.type", "unknown_tool")
	if got := a["gen_ai.tool.name"].AsString(); !strings.HasPrefix(name, got) || len(got) == 0 || len(got) > 256 {
		t.Errorf("gen_ai.tool.name has %d bytes, want the name's first 256 at most", len(got))
	}
}

// TestNoTracerProviderNoSpans: without Options.TracerProvider nothing is traced, even
// when the program has installed a global provider.
func TestNoTracerProviderNoSpans(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev); tp.Shutdown(context.Background()) })

	eng, err := toolapi.Open(testutil.Workspace(t, map[string]string{"a.txt": "a\n"}), toolapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if res := eng.Call(context.Background(), "s", "read_file", json.RawMessage(`{"path": "a.txt"}`)); !res.OK {
		t.Fatalf("read refused: %+v", res)
	}
	if n := len(exp.GetSpans()); n != 0 {
		t.Errorf("got %d spans without a tracer provider, want none", n)
	}
}

// BenchmarkCall measures a read_file call untraced and traced into memory.
func BenchmarkCall(b *testing.B) {
	files := map[string]string{"a.txt": strings.Repeat("line\n", 100)}
	args := json.RawMessage(`{"path": "a.txt"}`)
	run := func(b *testing.B, eng *toolapi.Engine) {
		ctx := toolapi.WithCallID(context.Background(), "call_1")
		for b.Loop() {
			if res := eng.Call(ctx, "bench", "read_file", args); !res.OK {
				b.Fatal(res.Text)
			}
		}
	}
	b.Run("off", func(b *testing.B) {
		eng, err := toolapi.Open(testutil.Workspace(b, files), toolapi.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer eng.Close()
		run(b, eng)
	})
	b.Run("on", func(b *testing.B) {
		eng, exp, _, _ := tracedEngine(b, files)
		run(b, eng)
		if len(exp.GetSpans()) == 0 {
			b.Fatal("no spans recorded")
		}
	})
}

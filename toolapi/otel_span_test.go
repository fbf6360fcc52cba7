package toolapi

import (
	"context"
	"encoding/json"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// BenchmarkSpan measures what tracing adds to one call, without the call's own work
// (the journal's, about a millisecond, which hides it in BenchmarkCall).
func BenchmarkSpan(b *testing.B) {
	args := json.RawMessage(`{"path": "src/app.py", "edits": [{"oldText": "a", "newText": "b"}]}`)
	seq := int64(42)
	run := func(context.Context) Result { return Result{OK: true, Tool: EditFile, Txn: &seq} }
	ctx := WithCallID(context.Background(), "call_1")
	b.Run("off", func(b *testing.B) {
		e := &Engine{}
		for b.Loop() {
			if e.tracer != nil {
				b.Fatal("traced")
			}
			run(ctx)
		}
	})
	b.Run("on", func(b *testing.B) {
		exp := tracetest.NewInMemoryExporter()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
		defer tp.Shutdown(context.Background())
		tr := tp.Tracer(tracerName)
		for i := 0; b.Loop(); i++ {
			traceCall(ctx, tr, "bench", EditFile, args, run)
			if i%1024 == 0 {
				exp.Reset() // keep memory flat
			}
		}
	})
}

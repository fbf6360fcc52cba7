package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/vfsctl/vfsctl/toolapi"
)

// flushTimeout bounds how long a command waits at exit for its spans to be sent.
const flushTimeout = 5 * time.Second

// tracing sets up the export of tool-call spans over OTLP/HTTP when the standard
// OpenTelemetry environment asks for it: OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT set, OTEL_SDK_DISABLED not true and
// OTEL_TRACES_EXPORTER not none. The exporter reads the rest of that environment
// (headers, timeout, TLS) itself. Otherwise the provider is nil and nothing is traced.
// flush sends what is left and must run before the process exits.
func tracing(cmd string, stderr io.Writer) (tp trace.TracerProvider, flush func()) {
	flush = func() {}
	if strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")), "true") ||
		strings.TrimSpace(os.Getenv("OTEL_TRACES_EXPORTER")) == "none" ||
		os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
		return nil, flush
	}
	protocol := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if protocol == "" {
		protocol = os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	if protocol != "" && protocol != "http/protobuf" {
		fmt.Fprintf(stderr, "vfsctl %s: tracing is off: spans are exported as OTLP http/protobuf only, not %s\n", cmd, protocol)
		return nil, flush
	}
	// The SDK reports a failed export through the global handler, by default a log
	// line without the command's name.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		fmt.Fprintf(stderr, "vfsctl %s: tracing: %v\n", cmd, err)
	}))
	ctx := context.Background()
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl %s: tracing is off: %v\n", cmd, err)
		return nil, flush
	}
	// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, read after the default, win.
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "vfsctl")),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv())
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl %s: tracing: %v\n", cmd, err)
		if res == nil {
			res = resource.Default()
		}
	}
	sdk := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return sdk, func() {
		ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
		defer cancel()
		if err := sdk.Shutdown(ctx); err != nil {
			fmt.Fprintf(stderr, "vfsctl %s: tracing: spans not exported: %v\n", cmd, err)
		}
	}
}

// callContext is the context of one `vfsctl call` line: the line's "id" as the
// span's gen_ai.tool.call.id, under the runtime's span when it passes one in the
// TRACEPARENT and TRACESTATE environment variables (W3C trace context).
func callContext(id json.RawMessage) context.Context {
	ctx := context.Background()
	if tp := os.Getenv("TRACEPARENT"); tp != "" {
		ctx = propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{"traceparent": tp, "tracestate": os.Getenv("TRACESTATE")})
	}
	if len(id) == 0 {
		return ctx
	}
	var s string
	if json.Unmarshal(id, &s) != nil {
		s = string(id) // a number, as sent
	}
	return toolapi.WithCallID(ctx, s)
}

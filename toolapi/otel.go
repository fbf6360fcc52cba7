package toolapi

import (
	"context"
	"encoding/json"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Tracing. With Options.TracerProvider set, every Engine.Call is one span that follows
// OpenTelemetry's GenAI semantic conventions for tool execution, so that it nests
// under the agent runtime's own spans (the parent is taken from the call's context).
// The keys are spelled out here rather than taken from a semconv package: the GenAI
// conventions are still in development and move between semconv versions.
const (
	tracerName = "github.com/vfsctl/vfsctl/toolapi"

	keyOperation = attribute.Key("gen_ai.operation.name")
	keyToolName  = attribute.Key("gen_ai.tool.name")
	keyToolType  = attribute.Key("gen_ai.tool.type")
	keyCallID    = attribute.Key("gen_ai.tool.call.id")
	keyErrorType = attribute.Key("error.type")

	keySession = attribute.Key("vfsctl.session")
	keyTxn     = attribute.Key("vfsctl.txn")
	keyPaths   = attribute.Key("vfsctl.paths")
	keyKind    = attribute.Key("vfsctl.kind")
	keyTurn    = attribute.Key("vfsctl.turn")

	// A command's (vfsctl exec, Engine.Exec, run_command): OpenTelemetry's process
	// attributes, and how it ended and what it changed as vfsctl records them.
	keyCommandArgs  = attribute.Key("process.command_args")
	keyExitCode     = attribute.Key("process.exit.code")
	keyExit         = attribute.Key("vfsctl.exit")
	keyFilesChanged = attribute.Key("vfsctl.files_changed")
)

// maxSpanArgs bounds the arguments of a command a span keeps.
const maxSpanArgs = 32

// Bounds on what a span takes from a call: an apply_changes call may name many paths,
// and a tool name or call id is whatever the runtime sent.
const (
	maxSpanPaths = 64
	maxSpanValue = 256
)

type callIDKey struct{}

// WithCallID returns a context carrying the runtime's id for one tool call (the
// model's tool_use or tool_call id), which the call's span records as
// gen_ai.tool.call.id. `vfsctl call` passes the "id" of each line.
func WithCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callIDKey{}, id)
}

// traceCall runs one call (run) inside a span of tr named "execute_tool <tool>". A
// refusal sets error.type and vfsctl.kind to its kind and the span's status to error,
// described by the kind alone: the reply's text may quote lines of the file, and file
// content stays out of traces.
func traceCall(ctx context.Context, tr trace.Tracer, session, tool string, args json.RawMessage, run func(context.Context) Result) Result {
	attrs := []attribute.KeyValue{
		keyOperation.String("execute_tool"),
		keyToolName.String(clip(tool)),
		keyToolType.String("function"),
		keySession.String(session),
	}
	if id, _ := ctx.Value(callIDKey{}).(string); id != "" {
		attrs = append(attrs, keyCallID.String(clip(id)))
	}
	if turn := TurnOf(ctx); turn != "" {
		attrs = append(attrs, keyTurn.String(clip(turn))) // the turn a rewind takes back
	}
	ctx, span := tr.Start(ctx, spanName(tool), trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	defer span.End()
	res := run(ctx)
	// The paths come from the call's one decoding, so they are set once it ran.
	if paths := res.paths; len(paths) > 0 {
		span.SetAttributes(keyPaths.StringSlice(paths[:min(len(paths), maxSpanPaths)]))
	}
	if res.Txn != nil {
		span.SetAttributes(keyTxn.Int64(*res.Txn))
	}
	if x := res.command; x != nil {
		args := make([]string, 0, min(len(x.argv), maxSpanArgs))
		for _, a := range x.argv[:min(len(x.argv), maxSpanArgs)] {
			args = append(args, clip(a))
		}
		span.SetAttributes(keyCommandArgs.StringSlice(args), keyExitCode.Int(x.code), keyExit.String(clip(x.exit)), keyFilesChanged.Int(x.files))
	}
	if !res.OK {
		kind := "io_error"
		if res.Kind != nil {
			kind = *res.Kind
		}
		span.SetAttributes(keyErrorType.String(kind), keyKind.String(kind))
		span.SetStatus(codes.Error, kind)
	}
	return res
}

// spanName is "execute_tool <tool>", or "execute_tool" alone when the name does not
// look like a tool's: a span name is for grouping, not for whatever a model typed.
func spanName(tool string) string {
	if len(tool) == 0 || len(tool) > 64 || strings.IndexFunc(tool, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.')
	}) >= 0 {
		return "execute_tool"
	}
	return "execute_tool " + tool
}

func clip(s string) string {
	if len(s) <= maxSpanValue {
		return s
	}
	return strings.ToValidUTF8(s[:maxSpanValue], "")
}

// Package mcp serves the vfsctl tools over the Model Context Protocol, with the
// official Go SDK: each tool with its input and output schema and annotations, a
// refused call as a tool result with isError and the same model-facing text as
// `vfsctl call`, and protocol errors (an unknown tool, a malformed request) as
// JSON-RPC errors. One MCP connection is one journal session, named after the client
// unless Options.Session names it; the initialize result and each tool result tell the
// client its name, and a call's params._meta "vfsctl/session" may name another.
// When the engine traces, a call whose params._meta carries W3C trace context
// (traceparent) is a span under the client's.
package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/propagation"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/toolapi"
)

// Options configure a server.
type Options struct {
	// Logger receives the server's log; it must not write to stdout, which carries
	// the protocol. nil logs nothing.
	Logger *slog.Logger
	// Version is the server version reported to clients.
	Version string
	// Session is the journal session of every connection (vfsctl serve --session), so
	// that a client that reconnects goes on with its session, reads included; ""
	// names each connection's after its client, mcp-<client>-<random id>.
	Session string
}

// NewServer returns an MCP server over eng's tools.
func NewServer(eng *toolapi.Engine, opts Options) *sdk.Server {
	srv, _ := newServer(eng, opts)
	return srv
}

func newServer(eng *toolapi.Engine, opts Options) (*sdk.Server, *server) {
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	// The tool list never changes while the server runs: no listChanged (the SDK's
	// default would promise notifications that never come). Logging as by default.
	caps := &sdk.ServerCapabilities{Logging: &sdk.LoggingCapabilities{}, Tools: &sdk.ToolCapabilities{}}
	srv := sdk.NewServer(&sdk.Implementation{Name: "vfsctl", Title: "vfsctl file tools", Version: version},
		&sdk.ServerOptions{Logger: opts.Logger, Instructions: instructionsFor(eng.Tools()), Capabilities: caps})
	s := &server{eng: eng, log: opts.Logger, served: map[string]bool{}, fixed: opts.Session}
	srv.AddReceivingMiddleware(s.tellSession)
	for _, t := range eng.Tools() {
		s.served[t.Name] = true
		srv.AddTool(&sdk.Tool{
			Name:         t.Name,
			Description:  t.Description,
			InputSchema:  t.InputSchema,
			OutputSchema: toolapi.OutputSchema,
			Annotations:  annotations(t.Name),
		}, s.handler(t.Name))
	}
	return srv, s
}

// Serve runs a server over transport until the client disconnects or ctx ends. Over
// NewTransport, a tools/call of a file tool runs on the goroutine that read it, and
// its reply is written before the next request is read; run_command, which may run
// for minutes, runs beside, with a context of its own that the client's
// notifications/cancelled ends, while other requests are answered. When ctx ends,
// a command still running is killed, and Serve returns once its end is recorded.
func Serve(ctx context.Context, eng *toolapi.Engine, t sdk.Transport, opts Options) error {
	srv, s := newServer(eng, opts)
	s.stop = ctx
	if ft, ok := t.(*transport); ok {
		ft.r.fast = s.fast(ctx, srv)
		ft.r.tooLarge = s.tooLarge(srv)
		var cancel context.CancelCauseFunc
		s.overdue, cancel = context.WithCancelCause(context.Background())
		defer cancel(nil)
		ft.r.overdue = func() {
			wait := DrainWait.String()
			if DrainWait == time.Minute {
				wait = "a minute"
			}
			cancel(errs.New(errs.InvalidInput, "", "the client closed its input and the call still ran %s later", wait))
		}
	}
	err := srv.Run(ctx, t)
	s.slow.Wait()
	return err
}

// instructionsFor is what the server tells a client about the tools it serves: only
// those, so that a model is never pointed to a tool the server refuses.
func instructionsFor(tools []toolapi.Tool) string {
	has := map[string]bool{}
	var names []string
	for _, t := range tools {
		has[t.Name] = true
		names = append(names, t.Name)
	}
	var rules []string
	if has["read_file"] && has["write_file"] {
		rules = append(rules, "read_file before write_file")
	}
	const forgiven = " (small differences in quotes, dashes, spaces and indentation are forgiven)"
	switch {
	case has["edit_file"]:
		rules = append(rules, "edit_file with exact oldText"+forgiven)
	case has[toolapi.TextEditor] || has[toolapi.TextEditorOld]:
		rules = append(rules, "str_replace with an old_str found once in the file"+forgiven)
	case has["replace_in_file"]:
		rules = append(rules, "replace_in_file with SEARCH/REPLACE blocks whose SEARCH text is found once"+forgiven)
	case has["apply_patch"]:
		rules = append(rules, "apply_patch with a V4A patch whose context is found once"+forgiven)
	case has["apply_diff"]:
		rules = append(rules, "apply_diff with a unified diff whose hunks' context is found (the @@ line numbers only choose among several places)"+forgiven)
	}
	undo := "every change is journaled, and an operator can undo it with vfsctl undo"
	switch {
	case has["undo_edit"]:
		undo = "every change is journaled and can be undone with undo_edit"
	case has[toolapi.TextEditorOld]:
		undo = "every change is journaled and can be undone with " + toolapi.TextEditorOld + "'s undo_edit command"
	}
	rules = append(rules, undo)
	text := "File tools for this workspace (" + strings.Join(names, ", ") + "): " + strings.Join(rules, "; ") + "."
	if len(tools) > 0 && !allReadOnly(tools) {
		text += " Changes are guarded: one that breaks a file's syntax or replaces code with a placeholder comment is refused unless the server runs with --guard warn or off (" + toolapi.GuardsActive() + ")."
	}
	return text
}

func allReadOnly(tools []toolapi.Tool) bool {
	for _, t := range tools {
		if !toolapi.HintsFor(t.Name).ReadOnly {
			return false
		}
	}
	return true
}

func annotations(name string) *sdk.ToolAnnotations {
	h := toolapi.HintsFor(name)
	return &sdk.ToolAnnotations{ReadOnlyHint: h.ReadOnly, DestructiveHint: &h.Destructive, IdempotentHint: h.Idempotent, OpenWorldHint: &h.OpenWorld}
}

type server struct {
	eng      *toolapi.Engine
	log      *slog.Logger
	sessions sync.Map // *sdk.ServerSession -> journal session name
	served   map[string]bool
	fixed    string // Options.Session
	// stop is Serve's context: its end ends the slow calls too, which slow counts.
	stop context.Context
	slow sync.WaitGroup
	// overdue ends, over NewTransport, when the input has ended and calls still run
	// DrainWait later: they are ended too, with the reason as its cause.
	overdue context.Context
}

// session is the journal session of an MCP connection: Options.Session, else one
// named after its client.
func (s *server) session(ss *sdk.ServerSession) string {
	if s.fixed != "" {
		return s.fixed
	}
	if v, ok := s.sessions.Load(ss); ok {
		return v.(string)
	}
	client := "client"
	if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil && p.ClientInfo.Name != "" {
		client = strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0 {
				return -1
			}
			return r
		}, p.ClientInfo.Name)
	}
	var b [4]byte
	rand.Read(b[:])
	name := "mcp-" + client + "-" + hex.EncodeToString(b[:])
	v, _ := s.sessions.LoadOrStore(ss, name)
	return v.(string)
}

// tellSession puts the connection's journal session in the result of initialize (or
// of server/discover, its stateless successor): in its _meta under MetaSession, for
// the runtime (vfsctl rewind --session S --turn T), and in its instructions.
func (s *server) tellSession(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		ss, _ := req.GetSession().(*sdk.ServerSession)
		if err != nil || ss == nil {
			return res, err
		}
		var meta *sdk.Meta
		var instructions *string
		switch r := res.(type) {
		case *sdk.InitializeResult:
			meta, instructions = &r.Meta, &r.Instructions
		case *sdk.DiscoverResult:
			meta, instructions = &r.Meta, &r.Instructions
		default:
			return res, err
		}
		name := s.session(ss)
		if *meta == nil {
			*meta = sdk.Meta{}
		}
		(*meta)[MetaSession] = name
		*instructions += " This connection's calls are journaled as session " + strconv.Quote(name) + "."
		return res, err
	}
}

func (s *server) handler(name string) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		if s.stop != nil && slowTool(name) {
			s.slow.Add(1)
			defer s.slow.Done()
			var cancel context.CancelCauseFunc
			ctx, cancel = context.WithCancelCause(ctx)
			defer cancel(nil)
			defer context.AfterFunc(s.stop, func() { cancel(context.Cause(s.stop)) })()
			if s.overdue != nil {
				defer context.AfterFunc(s.overdue, func() { cancel(context.Cause(s.overdue)) })()
			}
		}
		return s.call(ctx, s.session(req.Session), name, req.Params.Arguments, req.Params.Meta), nil
	}
}

// call runs one tool call, of the journal session its _meta names, else of session.
func (s *server) call(ctx context.Context, session, name string, args json.RawMessage, meta sdk.Meta) *sdk.CallToolResult {
	var res toolapi.Result
	session, err := sessionOf(meta, session)
	if err == nil {
		ctx, err = turnOf(callID(traceParent(ctx, meta), meta), meta)
	}
	if err != nil {
		kind := string(toolapi.KindOf(err)) // refused before it reached the tool: not journaled
		res = toolapi.Result{Tool: name, Kind: &kind, Text: err.Error()}
	} else {
		res = s.eng.Call(ctx, session, name, args)
	}
	if s.log != nil {
		kind := ""
		if res.Kind != nil {
			kind = *res.Kind
		}
		s.log.Info("call", "tool", name, "session", session, "ok", res.OK, "kind", kind)
	}
	return &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: res.Text}},
		StructuredContent: map[string]any{"ok": res.OK, "kind": res.Kind, "txn": res.Txn, "session": session},
		IsError:           !res.OK,
	}
}

// slowTool reports whether a tool may run for long (run_command): it is not run on
// the reading goroutine, which would read neither its cancellation nor a ping until
// it ended, but handed to the SDK, which runs it beside with a context that
// notifications/cancelled ends.
func slowTool(name string) bool { return name == toolapi.RunCommand }

// mrtrVersion is the first protocol version whose tool results carry a resultType
// (multi-round-trip requests, SEP-2322).
const mrtrVersion = "2026-07-28"

// fast returns the transport's callFast for srv: a tools/call of a served tool, once
// the connection is initialized, with nothing in its params but a name, arguments and
// _meta, is run here, its reply the one the SDK would have written. Anything else
// (an unknown tool, a call before initialization, params of another shape, _meta
// keys of the protocol's own) goes to the SDK, which answers it as before.
func (s *server) fast(ctx context.Context, srv *sdk.Server) callFast {
	return func(id json.RawMessage, frame []byte) ([]byte, bool) {
		var ss *sdk.ServerSession
		for c := range srv.Sessions() {
			ss = c
		}
		if ss == nil || ss.InitializeParams() == nil {
			return nil, false
		}
		var msg struct {
			Params map[string]json.RawMessage `json:"params"`
		}
		if json.Unmarshal(frame, &msg) != nil {
			return nil, false
		}
		var name string
		var meta sdk.Meta
		for k, v := range msg.Params {
			var err error
			switch k {
			case "name":
				err = json.Unmarshal(v, &name)
			case "_meta":
				err = json.Unmarshal(v, &meta)
			case "arguments":
			default:
				return nil, false
			}
			if err != nil {
				return nil, false
			}
		}
		if !s.served[name] || slowTool(name) {
			return nil, false
		}
		for k := range meta {
			if strings.HasPrefix(k, "io.modelcontextprotocol/") {
				return nil, false // the protocol's own keys (SEP-2575): the SDK reads them
			}
		}
		var rid any
		if json.Unmarshal(id, &rid) != nil {
			return nil, false
		}
		if meta == nil {
			meta = sdk.Meta{}
		}
		meta[metaRequestID] = rid // as withRequestID puts it for the SDK
		res := s.call(ctx, s.session(ss), name, msg.Params["arguments"], meta)
		// The result as the SDK writes it: with resultType for a client of the
		// protocol's multi-round-trip version or later (mrtrVersion).
		var result struct {
			Content           []sdk.Content `json:"content"`
			StructuredContent any           `json:"structuredContent,omitempty"`
			IsError           bool          `json:"isError,omitempty"`
			ResultType        string        `json:"resultType,omitempty"`
		}
		result.Content, result.StructuredContent, result.IsError = res.Content, res.StructuredContent, res.IsError
		if ss.InitializeParams().ProtocolVersion >= mrtrVersion {
			result.ResultType = "complete"
		}
		reply, err := json.Marshal(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  any             `json:"result"`
		}{"2.0", id, &result})
		if err != nil {
			return nil, false
		}
		return append(reply, '\n'), true
	}
}

// tooLarge returns the transport's journal of a tools/call refused for its size: the
// record of a refused call of the tool it names, in the session and with the turn its
// _meta gives, its arguments cut as vfsctl call's record of arguments over the size
// limit keeps them. A frame that names no tool served is kept, cut, as a call of tool
// "unknown": the name it sends may be anything, of any length, and the journal's
// tools (vfsctl stats' tables) are those served. It returns the record's number and
// the session it is of. Nothing is journaled before a client connected (no session to
// name), nor for a call whose _meta names a session or a turn that a call within the
// limit would be refused for, unjournaled, or one that cannot be read (not an object,
// or over 64 KiB once its long strings are cut), or whose session or turn was cut
// with them (escapes make a valid name long as sent): the session it names is not known,
// and a record in another would be missed by a rewind of that one. why says so.
func (s *server) tooLarge(srv *sdk.Server) func(call *frameScan, size int, err error) (*int64, string, string) {
	return func(call *frameScan, size int, err error) (*int64, string, string) {
		var ss *sdk.ServerSession
		for c := range srv.Sessions() {
			ss = c
		}
		if ss == nil {
			return nil, "", ""
		}
		ctx, tool, args := context.Background(), "unknown", call.Frame()
		if name := call.Tool(); s.served[name] {
			tool = name
			args, size = call.Args()
		}
		var meta sdk.Meta
		if m := call.MetaRead(); m != nil && json.Unmarshal(m, &meta) != nil {
			return nil, "", "Its params._meta could not be read (it is not a JSON object, or is over 64 KiB with its long strings cut), so the session it names is not known: the call was not journaled."
		}
		if call.Meta() == nil {
			// Read cut, by raw length: a name sent with escapes may be valid once
			// decoded yet cut, and what is left of it would name another session or turn.
			for _, key := range []string{MetaSession, MetaTurn} {
				if v, ok := meta[key].(string); ok && toolapi.WasCut(v) {
					return nil, "", "Its params._meta is over 64 KiB and its " + strconv.Quote(key) + " was too long as sent to be read whole, so the session or turn it names is not known: the call was not journaled."
				}
			}
		}
		session, merr := sessionOf(meta, s.session(ss))
		if merr == nil {
			ctx, merr = turnOf(ctx, meta)
		}
		if merr != nil {
			return nil, "", "Also, " + merr.Error() + " It was not journaled."
		}
		res := s.eng.RecordCut(ctx, session, tool, args, size, err)
		if s.log != nil {
			s.log.Info("call", "tool", tool, "session", session, "ok", false, "kind", "too_large")
		}
		return res.Txn, session, ""
	}
}

// MetaSession is the params._meta key of the journal session a call belongs to,
// when it is not the connection's: a string of at most MaxSession bytes without NUL,
// as vfsctl call --session takes it. A call with anything else there is refused, as
// one with a bad turn label is. The initialize result's _meta carries the
// connection's session under the same key.
const MetaSession = "vfsctl/session"

// MaxSession bounds a session name.
const MaxSession = 200

// ValidSession reports whether name may name a journal session.
func ValidSession(name string) bool {
	return name != "" && len(name) <= MaxSession && !strings.ContainsRune(name, 0)
}

// sessionOf is the session a call's _meta names (MetaSession), else def.
func sessionOf(meta sdk.Meta, def string) (string, error) {
	v, ok := meta[MetaSession]
	if !ok || v == nil {
		return def, nil
	}
	if name, ok := v.(string); ok && ValidSession(name) {
		return name, nil
	}
	return def, toolapi.NewError(toolapi.InvalidInput, "params._meta %q must be a session name: a string of 1 to %d bytes without NUL (null: the connection's, %q); the call was not run.", MetaSession, MaxSession, def)
}

// MetaTurn is the params._meta key of the runtime's turn label, journaled with the
// call (see toolapi.WithTurn): a string, or a whole number. A call with any other
// value there is refused, as vfsctl call refuses it: a label dropped would leave the
// runtime unable to rewind to that turn.
const MetaTurn = "vfsctl/turn"

func turnOf(ctx context.Context, meta sdk.Meta) (context.Context, error) {
	v, ok := meta[MetaTurn]
	if !ok {
		return ctx, nil
	}
	t, ok := toolapi.TurnLabel(v)
	if !ok {
		return ctx, toolapi.NewError(toolapi.InvalidInput, "params._meta %q must be %s; the call was not run.", MetaTurn, toolapi.TurnRule)
	}
	if t == "" {
		return ctx, nil
	}
	return toolapi.WithTurn(ctx, t), nil
}

// traceParent puts the client's span in ctx when the request carries W3C trace
// context in params._meta (traceparent, tracestate), as OpenTelemetry's MCP
// conventions propose, so that a traced call's span joins the client's trace.
func traceParent(ctx context.Context, meta sdk.Meta) context.Context {
	tp, _ := meta["traceparent"].(string)
	if tp == "" {
		return ctx
	}
	ts, _ := meta["tracestate"].(string)
	return propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{"traceparent": tp, "tracestate": ts})
}

// MetaCallID is the params._meta key of the runtime's id for a tool call (the model's
// tool_use or tool_call id), which the call's span records as gen_ai.tool.call.id.
const MetaCallID = "vfsctl/call_id"

// callID puts the call's id in ctx for its span: the runtime's, from params._meta,
// else the JSON-RPC request's id (metaRequestID, put there by NewTransport).
func callID(ctx context.Context, meta sdk.Meta) context.Context {
	for _, key := range []string{MetaCallID, metaRequestID} {
		switch v := meta[key].(type) {
		case string:
			if v != "" {
				return toolapi.WithCallID(ctx, v)
			}
		case float64:
			return toolapi.WithCallID(ctx, strconv.FormatFloat(v, 'f', -1, 64))
		}
	}
	return ctx
}

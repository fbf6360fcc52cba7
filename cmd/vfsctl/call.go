package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/vfsctl/vfsctl/toolapi"
	"github.com/vfsctl/vfsctl/toolapi/mcp"
	"go.opentelemetry.io/otel/propagation"
)

type callCmd struct {
	common
	session, guard, tools string
	durability            string
	verbose               bool
	intr                  *interrupts // ends the running call on SIGINT, SIGTERM, SIGHUP
}

func (c *callCmd) Name() string    { return "call" }
func (c *callCmd) Summary() string { return "run tool calls read as JSON lines from stdin" }

const callUsage = `Usage: vfsctl call [--root DIR] [--session ID] [--wait DURATION] [--guard MODE] [--tools SET] [--durability MODE]

Reads tool calls from stdin, one JSON object a line: {"tool": NAME, "args": {...}},
with an optional "id" (a string or number, of valid UTF-8 text) and an optional "turn" (a string or a whole number, null for none: the
runtime's label of the conversation turn, journaled with the call; vfsctl rewind
takes a session back to before one), and an optional "traceparent" (and "tracestate"):
the W3C trace context of the runtime's span for this call, in place of TRACEPARENT's
(one that is not valid is ignored). Prints one JSON line per call: {"id",
"ok", "tool", "kind", "text", "txn"}, where id echoes the call's, kind is null on
success and text is what the model reads. A line that is not such an object
is answered with kind invalid_input, and the next line is read. A blank line (spaces
only) is skipped: it gets no reply and is not journaled.

--tools chooses the tools the calls may use (see vfsctl tools --help): native by
default, anthropic for the text editor tool, search-replace for replace_in_file,
codex for apply_patch, gemini for Gemini CLI's tools, hashline for edit_lines
on anchored lines, udiff for apply_diff (unified diffs).

Exit status: 0 when every call succeeded, 1 when any was refused, 2 on a usage error.

Example:
  echo '{"tool": "edit_file", "args": {"path": "app.js", "edits": [{"oldText": "foo()", "newText": "bar()"}]}}' | vfsctl call
`

func (c *callCmd) ParseFlags(args []string) error {
	fs := newFlagSet("call", callUsage)
	c.declare(fs, flagRoot, flagWait)
	fs.BoolVar(&c.verbose, "verbose", false, "say on stderr which root and journal are used (said anyway when the root is a folder above the current one)")
	fs.StringVar(&c.session, "session", "", "session the calls belong to; write_file needs a read by the same session (default: a new one)")
	fs.StringVar(&c.tools, "tools", "native", "the tools offered: native, codex, anthropic, search-replace, gemini, hashline, udiff, shell (run_command: add it, e.g. native,shell), all (every file tool), or a comma-separated list of tool and set names; a call of another tool is unknown_tool")
	fs.StringVar(&c.durability, "durability", "file", "when a change is acknowledged: file (every file it wrote is synced) or journal (its journal record is synced; files are synced in batches and rolled forward from the journal after a crash)")
	fs.StringVar(&c.guard, "guard", "refuse", "a change that breaks a file's syntax or puts a placeholder comment for real lines: refuse, warn (apply it and say so) or off")
	return fs.parse(args)
}

// maxLine bounds one call line: the largest arguments plus room for the envelope.
const maxLine = 64<<20 + 4096

func (c *callCmd) Run(stdin io.Reader, stdout, stderr io.Writer) int {
	if strings.ContainsRune(c.session, 0) || len(c.session) > 200 {
		fmt.Fprintf(stderr, "vfsctl call: --session must be at most 200 bytes, without NUL\n")
		return exitUsage
	}
	root, err := serveRoot("call", c.root, c.verbose, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl call: %v\n", err)
		return exitUsage
	}
	mode, err := toolapi.ParseGuardMode(c.guard)
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl call: --guard: %v\n", err)
		return exitUsage
	}
	durability, err := toolapi.ParseDurability(c.durability)
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl call: --durability: %v\n", err)
		return exitUsage
	}
	defer runtimeTrace("call", stderr)()
	tp, flush := tracing("call", stderr)
	defer flush()
	c.root = root
	eng, err := c.openWith(toolapi.Options{Holder: "vfsctl call", Guard: mode, Tools: c.tools, Durability: durability, TracerProvider: tp})
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl call: %v\n", err)
		return exitUsage
	}
	defer eng.Close()
	session := c.session
	if session == "" {
		session = newSessionID()
	}
	in := bufio.NewReaderSize(stdin, 1<<16)
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	// Lines are read and answered on a goroutine of their own, each answered before
	// the next is read: a read of stdin left waiting while a call runs holds a
	// processor in a system call, which the runtime takes back each time, waking
	// threads. Run waits for the end of the input or a signal, so that a signal while
	// no call runs ends vfsctl at once; one during a call ends that call (its
	// command's group is killed and its end recorded), which replies first.
	c.intr = watchInterrupts("vfsctl call")
	defer c.intr.stop()
	var answering sync.Mutex // held while a line is answered
	done := make(chan int, 1)
	go func() {
		code := exitOK
		for first := true; ; first = false {
			line, cut, err := readLine(in, maxLine, first)
			answering.Lock()
			if c.intr.ctx.Err() != nil {
				answering.Unlock()
				return // the signal came while the line was read: Run ends
			}
			if len(bytes.TrimSpace(line)) > 0 || cut != nil {
				res := c.answer(eng, session, line, cut)
				if !res.OK {
					code = exitRefused
				}
				enc.Encode(res)
				out.Flush()
			}
			answering.Unlock()
			if err != nil {
				if err != io.EOF {
					fmt.Fprintf(stderr, "vfsctl call: reading stdin: %v\n", err)
					code = exitUsage
				}
				done <- code
				return
			}
		}
	}()
	select {
	case code := <-done:
		if c.intr.ctx.Err() != nil {
			return c.intr.status()
		}
		return code
	case <-c.intr.ctx.Done():
		// The running call, if any, ends and replies; no line is answered after.
		answering.Lock()
		return c.intr.status()
	}
}

// answer is the reply to one line: a call's result, or the refusal of a line that was
// no call, journaled as such for failure analytics; cut is a line too long to hold,
// read on the way.
func (c *callCmd) answer(eng *toolapi.Engine, session string, line []byte, cut *lineCut) (res toolapi.Result) {
	defer func() {
		if !utf8.Valid(res.ID) {
			res.ID = nil // a refused line's id (cut, too deep): the reply stays UTF-8
		}
	}()
	if cut != nil {
		return cutCall(eng, session, cut)
	}
	res, ran := c.one(eng, session, line)
	if ran {
		return res
	}
	kind := toolapi.InvalidInput
	if res.Kind != nil {
		kind = toolapi.Kind(*res.Kind)
	}
	id, tool := res.ID, res.Tool
	res = eng.RecordUnparsed(session, bytes.TrimSpace(line), toolapi.NewError(kind, "%s", res.Text))
	res.ID, res.Tool = id, tool
	return res
}

// one decodes the envelope of one line and runs the call; ran says whether it did (a
// call the journal could not record has no number, but it ran).
func (c *callCmd) one(eng *toolapi.Engine, session string, line []byte) (res toolapi.Result, ran bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' || !json.Valid(line) {
		if msg, id := mcp.TooDeep(line); msg != "" {
			// encoding/json gives up past 10000 levels; the line may be a call all
			// the same, whose id the reply must carry.
			r := refusal("", toolapi.NewError(toolapi.InvalidInput, "%s", msg))
			r.ID = id
			return r, false
		}
		return refusal("", toolapi.NewError(toolapi.InvalidInput, `The line is not a JSON object. Send {"tool": NAME, "args": {...}} on one line.`)), false
	}
	// Split without a copy: the arguments may be tens of megabytes.
	env := toolapi.Fields(line)
	id := env["id"]
	if len(id) > 0 && id[0] != '"' && (id[0] < '0' || id[0] > '9') && id[0] != '-' {
		return refusal("", toolapi.NewError(toolapi.InvalidInput, `The line's "id" must be a string or a number, echoed in the reply.`)), false
	}
	if !utf8.Valid(id) {
		// Echoed as sent, it would make the reply no UTF-8, which strict readers of
		// JSON refuse whole: the reply goes without it, and the call is not run.
		return refusal("", toolapi.NewError(toolapi.InvalidInput, `The line's "id" holds bytes that are not UTF-8, which the reply could not carry as sent; it was not run, and this reply has no id. Send an id of valid text.`)), false
	}
	withID := func(r toolapi.Result) toolapi.Result { r.ID = id; return r }
	// The line decoded above, so it is valid JSON: not validated a third time. A key
	// named twice inside the arguments is the tool's to refuse; one of the line's own
	// is looked for only when some key is named twice (a slower scan of the line).
	if k, _ := toolapi.DuplicateKeyValid(line); k != "" {
		if k := mcp.TwiceNamed(line); k != "" {
			return withID(refusal("", namedTwice(k))), false
		}
	}
	var tool string
	if raw, ok := env["tool"]; !ok || json.Unmarshal(raw, &tool) != nil {
		return withID(refusal("", toolapi.NewError(toolapi.InvalidInput, `The line has no "tool" string. Send {"tool": NAME, "args": {...}}.`))), false
	}
	for k := range env {
		if k != "tool" && k != "args" && k != "id" && k != "turn" && k != "traceparent" && k != "tracestate" {
			return withID(refusal(tool, toolapi.NewError(toolapi.InvalidInput, `The line has an unknown field %q. Send only {"tool": NAME, "args": {...}, "id": ID, "turn": TURN}, and "traceparent" and "tracestate" to trace it.`, k))), false
		}
	}
	ctx := lineTrace(callContext(id), env["traceparent"], env["tracestate"])
	if raw, ok := env["turn"]; ok {
		var v any
		json.Unmarshal(raw, &v)
		turn, ok := toolapi.TurnLabel(v)
		if !ok {
			return withID(refusal(tool, toolapi.NewError(toolapi.InvalidInput, `The line's "turn" must be %s.`, toolapi.TurnRule))), false
		}
		if turn != "" {
			ctx = toolapi.WithTurn(ctx, turn)
		}
	}
	if c.intr != nil {
		var stop func()
		ctx, stop = c.intr.bind(ctx)
		defer stop()
	}
	return withID(eng.Call(ctx, session, tool, env["args"])), true
}

// lineTrace puts the line's own trace context (W3C "traceparent" and "tracestate"
// strings) in ctx, in place of TRACEPARENT's: a runtime's long-lived process parents
// each call under its own span. One that is not a string or not a valid traceparent
// is ignored (the call is traced as without it): tracing never decides whether a
// call runs.
func lineTrace(ctx context.Context, tp, ts json.RawMessage) context.Context {
	var parent, state string
	if json.Unmarshal(tp, &parent) != nil || parent == "" {
		return ctx
	}
	json.Unmarshal(ts, &state)
	// Extract leaves ctx as it is when parent is not a valid traceparent.
	return propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{"traceparent": parent, "tracestate": state})
}

// namedTwice is the refusal of a line that names k, a member of its envelope, twice.
func namedTwice(k string) error {
	return toolapi.NewError(toolapi.InvalidInput, `The line names %q twice. Send {"tool": NAME, "args": {...}} with each field once.`, k)
}

// refusal is the result of a line refused before it reached a tool.
func refusal(tool string, err error) toolapi.Result {
	k := string(toolapi.KindOf(err))
	return toolapi.Result{Tool: tool, Kind: &k, Text: err.Error()}
}

// lineCut is a call line over maxLine bytes, read without being held: what the reply
// and the journal need of it, and its size.
type lineCut struct {
	*mcp.CutLine
	size int
}

// cutCall refuses a call line too large to hold, under its id and tool, and journals
// it as serve journals a tools/call over its frame limit: a call of its tool refused
// too_large, in its turn, its arguments' long strings cut and their size as sent. A
// line that names no tool served is kept, cut, as a call of tool "unknown" (the name
// as sent may be anything, of any length). A line that names its tool (or id, args,
// turn) twice is refused and journaled as the same line within the limit is: it names
// no one call, and the journal is not to pick one of its tools.
func cutCall(eng *toolapi.Engine, session string, cut *lineCut) toolapi.Result {
	if k := cut.Twice(); k != "" {
		res := eng.RecordUnparsed(session, cut.Line(), namedTwice(k))
		res.ID = cut.ID()
		return res
	}
	err := toolapi.NewError(toolapi.TooLarge, "This call line is %d bytes; lines over %d bytes (64 MiB) are refused unread and nothing was run. "+
		"Send less in one call: edit_file with only the lines that change, or a large file in parts (create_file, then edit_file).", cut.size, maxLine)
	tool, args, size := "unknown", cut.Line(), cut.size
	for _, t := range eng.Tools() {
		if t.Name == cut.Tool() {
			tool = t.Name
			args, size = cut.Args()
		}
	}
	ctx := context.Background()
	var v any
	if json.Unmarshal(cut.Turn(), &v) == nil {
		if turn, ok := toolapi.TurnLabel(v); ok && turn != "" {
			ctx = toolapi.WithTurn(ctx, turn)
		}
	}
	res := eng.RecordCut(ctx, session, tool, args, size, err)
	res.ID, res.Tool = cut.ID(), cut.Tool()
	return res
}

// readLine reads one line of at most limit bytes, the first of the input without a
// byte order mark (a file saved by Notepad or PowerShell: no part of the JSON). A
// longer line is read on to its end without being held, into cut.
func readLine(r *bufio.Reader, limit int, first bool) (line []byte, cut *lineCut, err error) {
	for {
		chunk, e := r.ReadSlice('\n')
		if first {
			// The first read holds the mark whole: it ends only at a newline, a full
			// buffer or the end of the input.
			chunk, first = bytes.TrimPrefix(chunk, []byte("\ufeff")), false
		}
		if cut == nil && len(line)+len(chunk) > limit {
			cut = &lineCut{CutLine: mcp.NewCutLine(), size: len(line)}
			cut.Write(line)
			line = nil
		}
		if cut != nil {
			cut.Write(chunk)
			cut.size += len(chunk)
		} else {
			if len(line)+len(chunk) > cap(line) {
				// Double: append grows a large slice by a quarter, which for a line
				// of 40 MB allocates five times that on the way. Never past the
				// limit: a line over it is not kept.
				line = append(make([]byte, 0, min(2*(len(line)+len(chunk)), limit)), line...)
			}
			line = append(line, chunk...)
		}
		if e == bufio.ErrBufferFull {
			continue
		}
		if cut != nil && e == nil {
			cut.size-- // the newline ends the line, and is no part of it
		}
		return line, cut, e
	}
}

package toolapi

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/vfsctl/vfsctl/internal/guard"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/txn"
	"github.com/vfsctl/vfsctl/vfs"
)

// Options configure an Engine opened on a workspace root. The zero value is usable.
type Options struct {
	// JournalPath is the journal file; "" means <root>/.vfsctl/journal.db.
	JournalPath string
	// Wait bounds how long a call waits for another process's turn on the journal
	// before it is refused as busy; 0 means DefaultWait, and a negative Wait does not
	// wait. It bounds too how long an exec waits for another to end (ExecStart).
	Wait time.Duration
	// Holder names this process in the busy errors other processes report, e.g.
	// "my-agent"; "" means the program's name.
	Holder string
	// Origin names who makes the calls of Call in the journal; "" means "model".
	// vfsctl stats counts every origin but "operator" as a model's calls.
	Origin string
	// MaxFileSize bounds the files read and edited; 0 means vfs.DefaultMaxFileSize.
	MaxFileSize int64
	// Reserved lists folder names no tool touches at any depth; nil means .git and
	// .vfsctl. An empty, non-nil slice reserves nothing: then a model can write
	// .git/hooks, which runs code on the next git command.
	Reserved []string
	// Linger keeps the journal open between calls that follow each other within it,
	// instead of opening it per call; another process that queues for the journal
	// ends it at once. 0 means DefaultLinger; a negative value closes the journal
	// after every call.
	Linger time.Duration
	// Guard says what an edit that breaks a file's syntax, or replaces code with a
	// placeholder comment, does: "" or GuardRefuse refuses the call (the default),
	// GuardWarn applies it and says what broke, GuardOff checks nothing.
	Guard GuardMode
	// Tools chooses the tools a model is offered and may call: "" or "native" (the
	// default: read_file, edit_file, ...), "codex", "anthropic" (the text editor tool),
	// "search-replace" (replace_in_file), "gemini" (Gemini CLI's replace, write_file,
	// read_file, list_directory, glob and search_file_content), "hashline" (read_file
	// with anchors and edit_lines), "udiff" (apply_diff, unified diffs, with the
	// reading tools), "all" (every tool; the
	// native read_file and write_file), or a comma-separated list of tool and
	// set names. A call of a tool outside the set is refused as unknown_tool.
	Tools string
	// MaxCharacters bounds what one view of the text editor tool shows (its
	// declaration's max_characters); 0 means DefaultMaxCharacters.
	MaxCharacters int
	// Durability says when a call that changes files is acknowledged: "" or
	// DurableFile once every file it wrote is synced (each file fsynced, renamed, its
	// folder fsynced); DurableJournal once its journal record is synced, the files
	// written without fsync and synced in batches (every 256 calls, after a second,
	// and at Close), and rolled forward from the journal by the next open after a
	// power loss. See docs/journal.md, "Durability modes".
	Durability Durability
	// TracerProvider, when set, gets one span per Call, named "execute_tool <tool>"
	// after OpenTelemetry's GenAI conventions for tool execution (see WithCallID).
	// nil traces nothing and costs nothing: the global provider is not consulted, so
	// pass otel.GetTracerProvider() to use it.
	TracerProvider trace.TracerProvider
	// OnSettle, if set, is told of each call recovery settled when the journal was
	// opened after a crash or a kill, and what became of it.
	OnSettle func(Settled)
}

// DefaultWait is how long a call waits for another process's turn on the journal
// when Options.Wait is 0.
const DefaultWait = journal.DefaultWait

// DefaultLinger is how long the journal stays open after a call when Options.Linger
// is 0: long enough to span a model's turn between two calls, so that a runtime's
// calls do not each open the journal again (an open, with its first synced write,
// costs more than an edit: measured 1.7 ms more per call on tmpfs, 4 to 7 ms on
// disk). Another vfsctl queues for the journal and gets it within 10 ms; only a
// program that opens the bbolt file without the queue waits this long.
const DefaultLinger = 5 * time.Second

// ParseGuardMode reads a guard mode as a flag gives it: refuse, warn or off ("" is
// refuse).
func ParseGuardMode(s string) (GuardMode, error) { return guard.ParseMode(s) }

// GuardsActive says which guards this build runs: every build guards placeholders
// and the syntax of the languages its parsers cover (tree-sitter needs cgo).
func GuardsActive() string {
	return fmt.Sprintf("guards: placeholders; syntax of %s (%s)", strings.Join(guard.Active(), ", "), guard.Backend())
}

// Durability is when a call that changes files is acknowledged.
type Durability = txn.Durability

// The durability modes.
const (
	DurableFile    Durability = txn.DurableFile
	DurableJournal Durability = txn.DurableJournal
)

// ParseDurability reads a durability mode as a flag gives it: file or journal ("" is
// file).
func ParseDurability(s string) (Durability, error) { return txn.ParseDurability(s) }

// GuardMode is a guard's mode.
type GuardMode = guard.Mode

// The guard's modes.
const (
	GuardRefuse GuardMode = guard.Refuse
	GuardWarn   GuardMode = guard.Warn
	GuardOff    GuardMode = guard.Off
)

// Engine is the one entry point to vfsctl: an agent runtime written in Go, vfsctl call,
// vfsctl serve and every operator's command open one on a workspace root and use it.
// It offers:
//
//   - the model's tools: Tools, Call, RecordUnparsed;
//   - an operator's undo and redo: Undo, Redo, Revert (one path for all three);
//   - a session taken back to before one of its turns (labelled by WithTurn): Rewind,
//     RewindTurns;
//   - the journal, read: HasJournal, Log, Show, Stats, Export, Replayer;
//   - the journal, checked and taken over: Fsck, Adopt;
//   - paths as the journal keys them: ResolvePath, CanonicalPath; and Root, Close.
//
// It is safe for concurrent use: calls on one file run one after another, calls on
// different files at once. The journal is held only while work runs, so another
// process (an operator's vfsctl log while a runtime serves) can use it in between.
type Engine struct {
	api    *dispatcher
	tracer trace.Tracer // nil: calls are not traced
	fs     *vfs.FS      // the root Open opened, which Close lets go of; nil for OpenTxn's
}

// Open returns an Engine over the directory root. The journal is opened (and, after a
// crash, recovered) when the first call begins, and held only while calls run.
func Open(root string, opts Options) (*Engine, error) {
	tools, err := selectTools(opts.Tools)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("workspace root: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("workspace root %s is not a directory", root)
	}
	fs, err := vfs.Open(root, vfs.Options{Reserved: opts.Reserved, MaxFileSize: opts.MaxFileSize})
	if err != nil {
		return nil, err
	}
	linger := opts.Linger
	switch {
	case linger == 0:
		linger = DefaultLinger
	case linger < 0:
		linger = 0
	}
	eng, err := txn.Open(fs, txn.Options{JournalPath: opts.JournalPath, Wait: opts.Wait, Holder: opts.Holder, Guard: opts.Guard, Linger: linger, Durability: opts.Durability, OnSettle: opts.OnSettle})
	if err != nil {
		fs.Close()
		return nil, err
	}
	e := over(eng, opts, tools)
	e.fs = fs
	return e, nil
}

// OpenTxn returns an Engine over a transaction engine the caller opened, on a
// filesystem of its own (a test's fault-injecting or crash-recording one). Only the
// options of the tool layer apply (Origin, Tools, MaxCharacters, TracerProvider); the
// others were the caller's to give txn.Open.
func OpenTxn(eng *txn.Engine, opts Options) (*Engine, error) {
	tools, err := selectTools(opts.Tools)
	if err != nil {
		return nil, err
	}
	return over(eng, opts, tools), nil
}

// over is the Engine of the tools chosen over eng.
func over(eng *txn.Engine, opts Options, tools []*toolDef) *Engine {
	api := newDispatcher(eng)
	api.origin = opts.Origin
	api.maxChars = opts.MaxCharacters
	api.tools = tools
	api.set = toolSetName(opts.Tools)
	e := &Engine{api: api}
	if opts.TracerProvider != nil {
		e.tracer = opts.TracerProvider.Tracer(tracerName)
	}
	return e
}

// Tools returns the definitions of the tools Options.Tools chose, to hand to a model.
func (e *Engine) Tools() []Tool { return definitionsOf(e.api.tools) }

// Call runs tool call name with its raw JSON arguments for session (the unit that
// write_file's read rule and undo_edit work by: one conversation, one session). The
// Result holds the text the model reads, the stable error kind of a refusal, and the
// journal's number for the call. It never panics. A context cancelled before the call
// commits stops it with nothing written. With a TracerProvider, the call is a span
// under the one ctx carries.
func (e *Engine) Call(ctx context.Context, session, name string, args json.RawMessage) Result {
	if e.tracer != nil {
		return traceCall(ctx, e.tracer, session, name, args, func(ctx context.Context) Result {
			return e.api.CallContext(ctx, session, name, args)
		})
	}
	return e.api.CallContext(ctx, session, name, args)
}

// RecordUnparsed journals a line that could not be read as a call (tool "unknown",
// kind invalid_input), byte for byte up to 64 KiB, and returns its result.
func (e *Engine) RecordUnparsed(session string, line []byte, err error) Result {
	return e.api.RecordUnparsed(session, line, err)
}

// ArgsCutter cuts a JSON text as it is read, as the journal cuts the arguments of a
// call refused for their size: each string over 512 bytes cut to its start, with its
// length as sent.
type ArgsCutter = txn.ArgsCutter

// NewArgsCutter returns an ArgsCutter that keeps at most max bytes.
func NewArgsCutter(max int) *ArgsCutter { return txn.NewArgsCutter(max) }

// WasCut reports whether s, a string an ArgsCutter kept, was cut: it ends with the
// note of its length as sent.
func WasCut(s string) bool { return txn.WasCut(s) }

// RecordCut journals a call of tool refused with err before it was read for its size
// (`vfsctl serve`'s request over 16 MiB): size bytes of arguments were sent, and args
// is what an ArgsCutter kept of them, of which the record keeps 64 KiB, as a call
// refused for arguments over the file size limit keeps them. It returns the result.
func (e *Engine) RecordCut(ctx context.Context, session, tool string, args []byte, size int, err error) Result {
	return e.api.RecordCut(ctx, session, tool, args, size, err)
}

// Root is the workspace root the engine was opened on, as an absolute path.
func (e *Engine) Root() string { return e.api.eng.FS().Dir() }

// HasJournal reports whether the workspace's journal exists yet: the first call creates
// it, and the operator's methods read it without creating one.
func (e *Engine) HasJournal() bool { return e.api.eng.HasJournal() }

// Close stores what the engine still holds for the journal (the records of its last
// calls as they measured them) and releases it; the journal is held only while calls
// run. It may wait for another process's turn on the journal, as a call does. An
// Engine of Open lets go of its root's handle too (on Windows a folder held open
// cannot be removed); it is not to be used after.
func (e *Engine) Close() error {
	err := e.api.eng.Close()
	if e.fs != nil {
		e.fs.Close()
	}
	return err
}

// toolSetName is the tool set spec as the journal keeps it: trimmed, the default
// named.
func toolSetName(spec string) string {
	if spec = strings.TrimSpace(spec); spec == "" {
		return setNative
	}
	return spec
}

// Settled is a call recovery settled on open (a crash or a kill left it pending), and
// what became of it.
type Settled = txn.Settled

package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/vfsctl/vfsctl/toolapi"
	"github.com/vfsctl/vfsctl/toolapi/mcp"
)

type serveCmd struct {
	common
	logFile, guard, tools string
	session               string
	durability            string
	verbose               bool
}

func (c *serveCmd) Name() string    { return "serve" }
func (c *serveCmd) Summary() string { return "serve the tools over MCP on stdin and stdout" }

const serveUsage = `Usage: vfsctl serve [--root DIR] [--session ID] [--log FILE] [--wait DURATION] [--guard MODE] [--tools SET] [--durability MODE]

Serves the file tools over the Model Context Protocol on stdin and stdout, for an MCP
client (an agent runtime, an IDE) that starts it as a child process. One connection is
one journal session: --session, else one named after the client (mcp-CLIENT-ID). The
initialize result's _meta "vfsctl/session" and each tool result's structuredContent
"session" say which; a call's params._meta "vfsctl/session" puts it in another. Pass
the same --session when the client starts serve again, and the conversation goes on
in one session (what it read counts for write_file; vfsctl rewind takes its turns
back). Refused calls are tool results with isError and the same text as vfsctl
call; an unknown tool or a malformed request is a JSON-RPC error. A request over 16
MiB, or nested deeper than 128 levels, is refused unread (too_large, invalid_input)
and the connection goes on; a tools/call over 16 MiB is journaled as refused, in the
session its _meta names, its arguments' long strings cut, as vfsctl call journals a
call over the size limit (not when its _meta cannot be read, or names a session or
turn a call is refused for: the reply says so). When stdin ends, every call already
sent is answered before serve exits; a run_command still running a minute later is
killed, and its reply says so and what it changed. The log goes to stderr, or to
--log; never to stdout.

--tools chooses the tools served (see vfsctl tools --help), each with its schema.

Example client configuration:
  {"mcpServers": {"files": {"command": "vfsctl", "args": ["serve", "--root", "/path/to/workspace"]}}}
`

func (c *serveCmd) ParseFlags(args []string) error {
	fs := newFlagSet("serve", serveUsage)
	c.declare(fs, flagRoot, flagWait)
	fs.StringVar(&c.session, "session", "", "the journal session of the connection; write_file needs a read by the same session (default: one named after the client)")
	fs.BoolVar(&c.verbose, "verbose", false, "say on stderr which root and journal are used (said anyway when the root is a folder above the current one)")
	fs.StringVar(&c.logFile, "log", "", "append the log to this file instead of stderr")
	fs.StringVar(&c.tools, "tools", "native", "the tools offered: native, codex, anthropic, search-replace, gemini, hashline, udiff, shell (run_command: add it, e.g. native,shell), all (every file tool), or a comma-separated list of tool and set names; a call of another tool is unknown_tool")
	fs.StringVar(&c.durability, "durability", "file", "when a change is acknowledged: file (every file it wrote is synced) or journal (its journal record is synced; files are synced in batches and rolled forward from the journal after a crash)")
	fs.StringVar(&c.guard, "guard", "refuse", "a change that breaks a file's syntax or puts a placeholder comment for real lines: refuse, warn (apply it and say so) or off")
	return fs.parse(args)
}

func (c *serveCmd) Run(_ io.Reader, _, stderr io.Writer) int {
	if c.session != "" && !mcp.ValidSession(c.session) {
		fmt.Fprintf(stderr, "vfsctl serve: --session must be at most %d bytes, without NUL\n", mcp.MaxSession)
		return exitUsage
	}
	root, err := serveRoot("serve", c.root, c.verbose, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl serve: %v\n", err)
		return exitUsage
	}
	logw := stderr
	if c.logFile != "" {
		f, err := os.OpenFile(c.logFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "vfsctl serve: %v\n", err)
			return exitUsage
		}
		defer f.Close()
		logw = f
	}
	mode, err := toolapi.ParseGuardMode(c.guard)
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl serve: --guard: %v\n", err)
		return exitUsage
	}
	durability, err := toolapi.ParseDurability(c.durability)
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl serve: --durability: %v\n", err)
		return exitUsage
	}
	defer runtimeTrace("serve", logw)()
	tp, flush := tracing("serve", logw)
	defer flush()
	c.root = root
	eng, err := c.openWith(toolapi.Options{Holder: "vfsctl serve", Guard: mode, Tools: c.tools, Durability: durability, TracerProvider: tp})
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl serve: %v\n", err)
		return exitUsage
	}
	defer eng.Close()
	// A signal ends the server; a command run_command runs is killed and its end
	// recorded first.
	intr := watchInterrupts("vfsctl serve")
	defer intr.stop()
	ctx := intr.ctx
	logger := slog.New(slog.NewTextHandler(logw, nil))
	logger.Info("serving", "root", root)
	if err := mcp.Serve(ctx, eng, mcp.NewTransport(os.Stdin, os.Stdout, logger), mcp.Options{Logger: logger, Version: toolapi.Version(), Session: c.session}); err != nil && ctx.Err() == nil {
		logger.Error("serve", "err", err)
		return exitRefused
	}
	return exitOK
}

package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/vfsctl/vfsctl/toolapi"
)

// execCmd is `vfsctl exec -- CMD ARGS...`.
type execCmd struct {
	common
	session, turn string
	timeout       time.Duration
	argv          []string
	flags         *flag.FlagSet // exec's flags, for usageFailed's look-up
}

func (c *execCmd) Name() string    { return "exec" }
func (c *execCmd) Summary() string { return "run a command and journal what it changed" }

const execUsage = `Usage: vfsctl exec [--root DIR] [--session S] [--turn T] [--timeout D] [--json] [--] CMD ARGS...

Runs CMD in the current folder (inside the workspace) with stdin, stdout and stderr
passed through, and journals what it changed in the workspace as one record of tool
exec: per file created, changed or deleted, both contents (a text file's change by
its lines); folders and symlinks made, removed or retargeted; changed modes. FIFOs
and other kinds are named in notes and never opened. Before it starts, what changed since
vfsctl last looked that no call made (an editor, a formatter) is journaled first,
as a record of tool outside, so that it is never taken for the command's.
vfsctl undo N, redo and rewind take an exec record back like any call. If vfsctl
is killed while the command runs, the next vfsctl command in the workspace records
what changed since the command began as its changes, in state unknown.
The record's origin is operator in the session operator (the default), so that
stats does not count an operator's command among the models' calls; model in any
other session (a runtime running a model's command).
One command runs at a time in a workspace: while another exec runs, vfsctl exec
waits for it as long as --wait (0: not at all), then refuses naming it, and runs
nothing (what two commands change at once could not be told apart). Once the
command ended, what it changed is recorded waiting for the journal as long as
--wait and at least 10s: the command ran, and giving up would leave its changes
to the next look, as outside.

vfsctl does not sandbox the command: what it may reach is the caller's business;
vfsctl records what it changed inside the root (.gitignore'd paths, .git and
.vfsctl left out). Files over 16 MB are recorded by hash only. An undo of the
command removes one it created, and puts back the prior content of a small file
it grew past 16 MB, while each is still the file the command left; it refuses a
change to a file that was over 16 MB already, unless given --skip-unrestorable,
which takes back the rest and leaves that file as it is. A workspace of
more than 100000 entries is refused: list what to leave out in .gitignore; what
the exec changed is then journaled by the next look that can walk, as outside.

--json prints vfsctl's summary as one JSON line on stdout after the command's own
output: {"ok", "text", "txn", "exit", "code", "outside", "files": [{"path", "op"}],
"notes"}. ok is true when the run is journaled, whatever its status: a command that
exits 1, or one that did not start (exit "not started: ...", code 126 or 127). A
failure of vfsctl's own, a usage error included, is {"ok": false, "kind", "text"}.

Exit status, as env and timeout give theirs: the command's; 124 when --timeout
killed it; 125 when vfsctl itself failed: a usage error (an unknown flag, a --timeout
without its unit, no command) or the journal, and the command was not run, or what
it changed was not recorded (it says which, e.g. when the command removed .vfsctl);
126 when the command was found but could not be run (not executable, a folder); 127
when it was not found; 128+N when a signal N ended it. A command that did not start
is journaled, and its text says so.

vfsctl's flags come before CMD: what follows CMD is its own, a "--" included.
Put -- before a CMD that starts with -.

Examples:
  vfsctl exec --session agent-1 --turn t3 -- gofmt -w .
  vfsctl exec --timeout 2m -- npm install
`

func (c *execCmd) ParseFlags(args []string) error {
	fs := newFlagSet("exec", execUsage)
	c.declare(fs, flagRoot, flagWait, flagJSON)
	fs.StringVar(&c.session, "session", defaultExecSession, "the session the record belongs to (its origin is operator in session operator, model in any other)")
	fs.StringVar(&c.turn, "turn", "", "the runtime's turn label")
	fs.Var(timeoutFlag{&c.timeout}, "timeout", "kill the command's process group after this long, a `duration` such as 30s or 2m (0: never)")
	c.flags = fs.FlagSet
	// Flags end at "--" or at the command's name, where the flag package stops: what
	// follows is the command's, its own flags and a "--" of its own included.
	if err := fs.FlagSet.Parse(args); err != nil {
		return fs.parse(args) // prints the help, or says what is wrong
	}
	// A value that is itself one of exec's flags is a flag whose value was left out
	// ("--session --json sh"): the flag package would take it as the value.
	for _, name := range []string{"session", "turn", flagRoot} {
		if f := fs.Lookup(name); f != nil && c.isFlag(f.Value.String()) {
			return fmt.Errorf("--%s is given %s, one of exec's flags: give --%s its value before the next flag (--%s NAME)", name, f.Value.String(), name, name)
		}
	}
	c.argv = fs.Args()
	if len(c.argv) == 0 {
		return fmt.Errorf("no command given: vfsctl exec [flags] [--] CMD ARGS... (see --help)")
	}
	if c.session == "" {
		return fmt.Errorf("--session is empty: an exec record belongs to a session (the default is operator)")
	}
	if _, ok := toolapi.TurnLabel(c.turn); c.turn != "" && !ok {
		return fmt.Errorf("--turn must be %s", toolapi.TurnRule)
	}
	return nil
}

// usageFailed reports a usage error as every failure of vfsctl's own that leaves the
// command not run: exit 125, never a status the command itself could have given (2
// is grep's, make's, a shell builtin's), and with --json the {ok: false} line a
// runtime parses. --json is looked for among exec's arguments itself: the parse
// stopped at the error, perhaps before it. It is looked for up to "--" or the
// command's name: an argument not a flag, nor the value of the flag before it. An
// unknown flag is taken as taking no value: the argument after it may be the
// command's name, and a --json after that is the command's.
func (c *execCmd) usageFailed(args []string, stdout, stderr io.Writer, err error) int {
	asJSON, value := false, false
	for _, a := range args {
		if value { // the flag before's, even if it starts with "-"
			value = false
			continue
		}
		if a == "--" || a == "-" || !strings.HasPrefix(a, "-") {
			break
		}
		name, val, hasVal := strings.Cut(flagName(a), "=")
		if name == flagJSON {
			b, perr := strconv.ParseBool(val)
			asJSON = !hasVal || (perr == nil && b)
			continue
		}
		value = !hasVal && c.takesValue(name)
	}
	refused(stdout, stderr, asJSON, "vfsctl exec", toolapi.InvalidInput, err.Error()+"; the command was not run")
	return exitVfsctl
}

// flagName is a, an argument that starts with "-", without the one or two dashes the
// flag package takes; "---json" keeps a dash and so names no flag.
func flagName(a string) string {
	a = strings.TrimPrefix(a, "-")
	return strings.TrimPrefix(a, "-")
}

// isFlag reports whether a is "--" or one of exec's flags (-json, --timeout=2m).
func (c *execCmd) isFlag(a string) bool {
	if a == "--" {
		return true
	}
	if !strings.HasPrefix(a, "-") || c.flags == nil {
		return false
	}
	name, _, _ := strings.Cut(flagName(a), "=")
	return name != "" && c.flags.Lookup(name) != nil
}

// takesValue reports whether exec's flag name takes the next argument as its value:
// a flag of exec's that is not boolean.
func (c *execCmd) takesValue(name string) bool {
	if c.flags == nil {
		return false
	}
	f := c.flags.Lookup(name)
	if f == nil {
		return false
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}

// timeoutFlag is --timeout: a duration of 0 (no timeout) or more, its unit given.
type timeoutFlag struct{ d *time.Duration }

func (f timeoutFlag) String() string {
	if f.d == nil {
		return "0s"
	}
	return f.d.String()
}

func (f timeoutFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("not a duration with its unit, such as 30s or 2m")
	}
	if d < 0 {
		return fmt.Errorf("%s is negative; send 0 (no timeout) or more", s)
	}
	*f.d = d
	return nil
}

// defaultExecSession is the session of an exec given no --session: the operator's.
const defaultExecSession = "operator"

// exitVfsctl is the exit status when vfsctl itself failed, as env and timeout use it.
const exitVfsctl = 125

func (c *execCmd) Run(stdin io.Reader, stdout, stderr io.Writer) int {
	tp, flush := tracing("exec", stderr)
	defer flush()
	// A command of the default session is the operator's own (a gofmt run by hand);
	// a runtime names the session of the model whose command it runs.
	origin := ""
	if c.session == defaultExecSession {
		origin = toolapi.OriginOperator
	}
	eng, err := c.openWith(toolapi.Options{Holder: "vfsctl exec", TracerProvider: tp, Origin: origin})
	if err != nil {
		refused(stdout, stderr, c.json, "vfsctl exec", toolapi.KindOf(err), toolapi.NotRunSaid(err).Error())
		return exitVfsctl
	}
	defer eng.Close()
	cwd, _ := os.Getwd()
	// Compared resolved: --root and the current folder may name the same folder by
	// different paths (one through a symlink, /tmp and /private/tmp on macOS).
	rel, err := filepath.Rel(realPath(eng.Root()), realPath(cwd))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		refused(stdout, stderr, c.json, "vfsctl exec", toolapi.Kind("path_outside_root"), fmt.Sprintf("the current folder %s is outside the workspace %s; the command was not run: cd into the workspace, or give --root the folder it runs in", cwd, eng.Root()))
		return exitVfsctl
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	ctx := toolapi.WithTurn(callContext(nil), c.turn) // under the runtime's span, from TRACEPARENT
	out := io.Writer(stdout)
	var last *lastByte
	if c.json { // the summary line must start a line of its own
		last = &lastByte{w: stdout}
		out = last
	}
	res, err := eng.Exec(ctx, c.session, c.argv, toolapi.ExecOptions{Cwd: filepath.ToSlash(rel), Timeout: c.timeout,
		Stdin: stdin, Stdout: out, Stderr: stderr, Signals: sigs})
	if err != nil {
		refused(stdout, stderr, c.json, "vfsctl exec", toolapi.KindOf(err), err.Error())
		return exitVfsctl
	}
	summary := fmt.Sprintf("call %d: %s, %s changed", res.Seq, res.Exit, plural(len(res.Files), "file"))
	if res.NotStarted != "" {
		summary = fmt.Sprintf("call %d: the command did not start (%s): exit status %d, %s changed", res.Seq, res.NotStarted, res.Code, plural(len(res.Files), "file"))
	}
	if c.json {
		if last.n > 0 && last.b != '\n' {
			fmt.Fprintln(stdout)
		}
		printExecJSON(stdout, res, summary)
		return res.Code
	}
	if res.Outside != nil && res.Outside.Seq != 0 {
		fmt.Fprintf(stderr, "vfsctl exec: changes made outside vfsctl since its last look were journaled first as call %d\n", res.Outside.Seq)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(stderr, "vfsctl exec: %s\n", escaped(n))
	}
	fmt.Fprintf(stderr, "vfsctl exec: %s\n", summary)
	return res.Code
}

// lastByte passes a command's output on and keeps its last byte.
type lastByte struct {
	w io.Writer
	b byte
	n int64
}

func (l *lastByte) Write(p []byte) (int, error) {
	if len(p) > 0 {
		l.b, l.n = p[len(p)-1], l.n+int64(len(p))
	}
	return l.w.Write(p)
}

// execFile is a file an exec changed, as --json lists it (vfsctl show N has its diff).
type execFile struct {
	Path string `json:"path"`
	Op   string `json:"op"`
}

// printExecJSON prints the exec's summary as one JSON line after the command's own
// output, in the shape of the other commands' --json: ok, text, txn, then what is the
// exec's own.
func printExecJSON(w io.Writer, res *toolapi.ExecResult, text string) {
	out := struct {
		OK      bool       `json:"ok"`
		Text    string     `json:"text"`
		Txn     uint64     `json:"txn"`
		Exit    string     `json:"exit"`
		Code    int        `json:"code"`
		Outside uint64     `json:"outside,omitempty"` // the record of outside changes journaled first
		Files   []execFile `json:"files"`
		Notes   []string   `json:"notes,omitempty"`
	}{OK: true, Text: text, Txn: res.Seq, Exit: res.Exit, Code: res.Code, Notes: res.Notes, Files: []execFile{}}
	if res.Outside != nil {
		out.Outside = res.Outside.Seq
	}
	for _, f := range res.Files {
		out.Files = append(out.Files, execFile{f.Path, string(f.Op)})
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(out)
}

// checkpointCmd is `vfsctl checkpoint`.
type checkpointCmd struct {
	common
}

func (c *checkpointCmd) Name() string { return "checkpoint" }
func (c *checkpointCmd) Summary() string {
	return "journal what changed outside vfsctl since it last looked"
}

const checkpointUsage = `Usage: vfsctl checkpoint [--root DIR] [--json]

Walks the workspace and journals, as one record of tool outside, what changed since
vfsctl last looked that no call made (an editor, a formatter, a command run
elsewhere). A runtime runs it when a turn starts, so that a later rewind of the turn
never takes those changes for the turn's. The first checkpoint of a workspace only
takes the snapshot. A rewind never reverts an outside record; vfsctl undo N does.
While a command run by vfsctl exec (or run_command) runs, it journals nothing and
says so: what changed since the command began is the command's, recorded when it
ends. What it could not see (a file it could not read, an exclude file it could not
use) it notes each time, when nothing changed too.

Example:
  vfsctl checkpoint
`

func (c *checkpointCmd) ParseFlags(args []string) error {
	fs := newFlagSet("checkpoint", checkpointUsage)
	c.declare(fs, flagRoot, flagWait, flagJSON)
	return fs.parse(args)
}

func (c *checkpointCmd) Run(_ io.Reader, stdout, stderr io.Writer) int {
	eng, err := c.open("vfsctl checkpoint")
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl checkpoint: %v\n", err)
		return exitUsage
	}
	defer eng.Close()
	look, err := eng.Checkpoint(toolapi.LookOptions{})
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl checkpoint: %v\n", err)
		return exitRefused
	}
	var text string
	switch {
	case len(look.Running) > 0:
		// An exec runs: what changed since it began is its, recorded at its end.
		var says []string
		for _, n := range look.Notes {
			says = append(says, strings.ToUpper(n[:1])+n[1:]+".")
		}
		text = escaped(strings.Join(says, " "))
	case look.First:
		text = "The workspace's first snapshot was taken; nothing to journal."
	case look.Seq == 0:
		text = "Nothing changed outside vfsctl."
	default:
		text = fmt.Sprintf("Call %d journaled %s changed outside vfsctl.", look.Seq, plural(len(look.Files), "file"))
	}
	if c.json { // the shape of exec --json
		out := struct {
			OK      bool       `json:"ok"`
			Text    string     `json:"text"`
			Txn     uint64     `json:"txn"`
			First   bool       `json:"first"`
			Files   []execFile `json:"files"`
			Entries []string   `json:"entries"`
			Notes   []string   `json:"notes"`
			Running []uint64   `json:"running"` // the execs running, whose records will hold what changed
		}{OK: true, Text: text, Txn: look.Seq, First: look.First, Files: []execFile{}, Entries: []string{}, Notes: []string{}, Running: []uint64{}}
		out.Running = append(out.Running, look.Running...)
		for _, f := range look.Files {
			out.Files = append(out.Files, execFile{f.Path, string(f.Op)})
		}
		for _, en := range look.Entries {
			out.Entries = append(out.Entries, toolapi.EntryText(en))
		}
		out.Notes = append(out.Notes, look.Notes...)
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.Encode(out)
		return exitOK
	}
	fmt.Fprintln(stdout, text)
	if len(look.Running) == 0 { // else the text is the notes
		// What the look could not see is said even when nothing was journaled.
		for _, n := range look.Notes {
			fmt.Fprintf(stdout, "note: %s\n", escaped(n))
		}
	}
	return exitOK
}

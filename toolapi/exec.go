package toolapi

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/txn"
)

// LookOptions bound a look at the workspace (txn.LookOptions).
type LookOptions = txn.LookOptions

// Look is what a look at the workspace journaled (txn.Look).
type Look = txn.Look

// ExecArgs are what an exec record keeps of its command: argv and folder.
type ExecArgs = txn.ExecArgs

// Checkpoint journals, as one record of tool "outside", what changed in the
// workspace since its last look that no call made (an editor, a formatter on save),
// and brings the journal's snapshot up to date. A runtime calls it when a turn starts.
func (e *Engine) Checkpoint(o LookOptions) (*Look, error) {
	return e.api.eng.CheckpointOutside(o)
}

// ExecStart journals outside changes, then writes a pending record of tool "exec"
// for a command about to run; End records what the command changed.
func (e *Engine) ExecStart(session, turn string, args ExecArgs, o LookOptions) (*txn.Exec, error) {
	// As txn's BeginExec, with the engine's origin: an operator's command is no
	// model's call in the figures of stats.
	raw, _ := json.Marshal(args)
	c, err := e.api.eng.BeginRead(context.Background(), session, txn.ToolExec, raw)
	if err != nil {
		return nil, err
	}
	c.SetTurn(turn)
	c.SetOrigin(e.api.origin)
	return e.api.eng.StartExec(c, o)
}

// Observe runs fn, a runtime's own way of running a command, between two looks at the
// workspace: outside changes first as their own record, then what changed while fn
// ran as one record of tool exec with argv [label], in the turn WithTurn gave ctx.
// fn's error is recorded as how it ended and returned.
func (e *Engine) Observe(ctx context.Context, session, label string, fn func() error) (*Look, error) {
	x, err := e.ExecStart(session, TurnOf(ctx), ExecArgs{Argv: []string{label}, Cwd: "."}, LookOptions{})
	if err != nil {
		return nil, err
	}
	ferr := fn()
	how := "exit 0"
	if ferr != nil {
		how = "error: " + ferr.Error()
	}
	look, err := x.End(how)
	if err != nil {
		return nil, err
	}
	return look, ferr
}

// ExecOptions say how Exec runs a command. vfsctl does not sandbox it: the command
// runs with this process's rights and reaches whatever they reach; vfsctl records
// what it changed inside the root.
type ExecOptions struct {
	// Cwd is the folder the command runs in, relative to the root ("" is the root);
	// a folder outside the root, or in .git or .vfsctl, is refused.
	Cwd string
	// Timeout kills the command's process group after this long; 0 never.
	Timeout time.Duration
	// Stdin, Stdout and Stderr are the command's; nil is the null device.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Env is the command's environment; nil is this process's.
	Env []string
	// Signals, if set, are sent on to the command's process group as they come (a
	// CLI forwards its Ctrl-C).
	Signals <-chan os.Signal
	// Look bounds the looks before and after.
	Look LookOptions
	// cmdLine, where set, is the command line the process gets as it is, on Windows
	// (run_command's cmd.exe parses its own line, not as Go quotes argv).
	cmdLine string
	started func(pid int) // told the command's process once it started
}

// ExecResult is how a command ended and what it changed.
type ExecResult struct {
	Seq  uint64 // the exec's record
	Code int    // exit status: the command's, 124 when the timeout or ctx killed it, 126 or 127 when it did not start (notStarted), 128+N when signal N ended it
	Exit string // how it ended, as the record says it: "exit 0", "signal killed", ...
	// NotStarted is why the command could not be started (no such program, not
	// executable, a folder that went away), "" when it started: then Exit is
	// "not started: " and this, and Code 125, 126 or 127.
	NotStarted string
	// Files are what it changed (as the record keeps them), Notes what else the look
	// found (symlinks, modes, limits met).
	Files []journal.File
	Notes []string
	// Outside is the look before the command, which journaled outside changes as
	// their own record (Outside.Seq, 0 when there were none).
	Outside *Look
}

// Exec runs argv in the workspace and journals what it changed, as one record of tool
// exec for session (origin model, in the turn WithTurn gave ctx): outside changes are
// journaled first as their own record, then the record is written pending, the
// command runs in its own process group, and the record gets how it ended and, per
// path, what it changed. A cancelled ctx or the timeout kills the process group. The
// error is vfsctl's own (the journal, a refused folder); a command that fails is a
// result with its code.
func (e *Engine) Exec(ctx context.Context, session string, argv []string, o ExecOptions) (*ExecResult, error) {
	if e.tracer == nil {
		return e.exec(ctx, session, argv, o)
	}
	// One span, as a tool call's, named "execute_tool exec".
	var res *ExecResult
	var err error
	traceCall(ctx, e.tracer, session, txn.ToolExec, nil, func(ctx context.Context) Result {
		res, err = e.exec(ctx, session, argv, o)
		if err != nil {
			return fail(txn.ToolExec, err)
		}
		seq := int64(res.Seq)
		return Result{OK: true, Tool: txn.ToolExec, Txn: &seq, paths: changedPaths(res.Files),
			command: &commandTrace{argv: argv, code: res.Code, exit: res.Exit, files: len(res.Files)}}
	})
	return res, err
}

// changedPaths are the paths of files.
func changedPaths(files []journal.File) []string {
	var p []string
	for _, f := range files {
		p = append(p, f.Path)
	}
	return p
}

func (e *Engine) exec(ctx context.Context, session string, argv []string, o ExecOptions) (*ExecResult, error) {
	if len(argv) == 0 {
		return nil, errs.New(errs.InvalidInput, "", "No command given: send argv with the program first, e.g. [\"go\", \"test\", \"./...\"].")
	}
	dir, err := e.api.execFolder(o.Cwd)
	if err != nil {
		return nil, err
	}
	x, err := e.ExecStart(session, TurnOf(ctx), execArgs(argv, dir), o.Look)
	if err != nil {
		if errors.Is(err, txn.ErrNotRun) {
			return nil, err // it says so already
		}
		return nil, NotRunSaid(err)
	}
	return e.api.runExec(ctx, x, argv, dir, o)
}

// NotRunSaid is err, which left a command not run, saying so: after a sentence, as
// one more; else after a semicolon.
func NotRunSaid(err error) error {
	if strings.HasSuffix(err.Error(), ".") {
		return errs.Suffixed(err, " The command was not run.")
	}
	return errs.Suffixed(err, "; the command was not run")
}

// execArgs are the arguments an exec record keeps of argv run in dir: argv exact in
// ArgvBase64 too when an argument is not UTF-8.
func execArgs(argv []string, dir string) ExecArgs {
	a := ExecArgs{Argv: argv, Cwd: dir}
	for _, arg := range argv {
		if !utf8.ValidString(arg) {
			for _, arg := range argv {
				a.ArgvBase64 = append(a.ArgvBase64, base64.StdEncoding.EncodeToString([]byte(arg)))
			}
			break
		}
	}
	return a
}

// execFolder is the folder a command may run in: cwd resolved inside the root, a
// folder that exists ("." for the root).
func (a *dispatcher) execFolder(cwd string) (string, error) {
	if cwd == "" {
		return ".", nil
	}
	dir, err := a.folder(cwd)
	if errs.KindOf(err) == errs.PathOutsideRoot {
		// The resolver's advice is an edit's ("Edit files inside it"); a command runs.
		return "", errs.Wrap(errs.PathOutsideRoot, cwd, err, "cwd %s leads outside the workspace (through a symlink, or ..), and a command runs only in a folder inside it; nothing was run. Send cwd as a folder of the workspace, relative to its root, or leave it out to run in the root.", cwd)
	}
	if err != nil {
		return "", err
	}
	return dir, nil
}

// runExec runs the command of x, begun, in dir and writes its end.
func (a *dispatcher) runExec(ctx context.Context, x *txn.Exec, argv []string, dir string, o ExecOptions) (*ExecResult, error) {
	o.started = func(pid int) { x.Started(pid) } // its group, should vfsctl stop (txn/running.go)
	r := runCommand(ctx, argv, filepath.Join(a.eng.FS().Dir(), filepath.FromSlash(dir)), o)
	look, err := x.End(r.how)
	if err != nil {
		// err is a sentence of its own (the journal gone), or a Go error's clause.
		sep := ": "
		if m := err.Error(); m != "" && unicode.IsUpper(rune(m[0])) {
			sep = ". "
		}
		return nil, fmt.Errorf("The command ended (%s) but what it changed could not be journaled%s%w", r.how, sep, err)
	}
	return &ExecResult{Seq: x.Seq(), Code: r.code, Exit: r.how, NotStarted: r.notStarted, Files: look.Files, Notes: append(r.notes, look.Notes...), Outside: x.Outside}, nil
}

// Exit statuses of a command that did not end by itself, as env and timeout use them.
const (
	ExitTimeout     = 124
	ExitOwnFailure  = 125 // vfsctl could not run it: its own failure
	ExitNotRunnable = 126 // found, but not runnable (not executable, a folder, not a program)
	ExitNotStarted  = 127 // not found
)

// startFailure is the exit status of a command that could not be started: 127 when
// there is no such program, 126 when there is one that cannot be run, as env and
// timeout tell them apart.
func startFailure(err error) int {
	var pe *os.PathError
	switch {
	case errors.As(err, &pe) && pe.Op != "fork/exec":
		return ExitOwnFailure // the folder it was to run in (chdir), not the program
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, os.ErrNotExist):
		return ExitNotStarted
	}
	return ExitNotRunnable
}

// notStarted is how a command that could not be started ended, with status code.
func notStarted(code int, err error) ended {
	why := err.Error()
	if why == "" {
		why = "an unknown failure" // never "": it tells that the command did not start
	}
	return ended{code: code, how: "not started: " + why, notStarted: why}
}

// outputGrace is how long the output of a command that ended is still read: a
// process it left behind (`cmd &`, a daemon) may hold the pipe open for ever.
const outputGrace = 500 * time.Millisecond

// whyEnded says why ctx ended, in the words of a record: Go's "context canceled"
// says nothing to whoever reads the log.
func whyEnded(ctx context.Context) string {
	switch cause := context.Cause(ctx); cause {
	case context.Canceled:
		return "the caller cancelled the call"
	case context.DeadlineExceeded:
		return "the caller's deadline passed"
	default:
		return cause.Error()
	}
}

// ended is how a command ended: its exit status, how the record says it, notes for
// the caller, and, for one that did not start, why.
type ended struct {
	code       int
	how        string
	notes      []string
	notStarted string
}

// runCommand runs argv in dir, in a group of its own (a process group; on Windows
// a job object) that its children join, sending o.Signals on to it, killing the
// group at the timeout or when ctx ends. It returns the exit status and how the
// command ended, as the record says it, and notes for the caller: a process that the
// command left behind holding its output open, whose output was cut.
func runCommand(ctx context.Context, argv []string, dir string, o ExecOptions) ended {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, o.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = o.Stdin, o.Stdout, o.Stderr
	if o.cmdLine != "" {
		setCmdLine(cmd, o.cmdLine)
	}
	cmd.WaitDelay = outputGrace // for a Stdin that is not a file
	// Output to a writer that is not a file is read here, not by exec.Cmd, whose Wait
	// waits for the pipe to close: after the command ends it is read for outputGrace
	// more, then cut.
	outs, err := pipeOutputs(cmd)
	if err != nil { // vfsctl's own: no pipe for the output
		return notStarted(ExitOwnFailure, err)
	}
	g, err := startGroup(cmd)
	outs.started()
	if err != nil {
		outs.cut()
		return notStarted(startFailure(err), err)
	}
	if o.started != nil {
		// Recording the group takes the journal, which may wait: beside, so that the
		// timeout, signals and cancellation below reach the command meanwhile; the
		// command's end waits for it.
		recorded := make(chan struct{})
		go func(pid int) { defer close(recorded); o.started(pid) }(cmd.Process.Pid)
		defer func() { <-recorded }()
	}
	defer g.close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var timer <-chan time.Time
	if o.Timeout > 0 {
		t := time.NewTimer(o.Timeout)
		defer t.Stop()
		timer = t.C
	}
	killed := ""
	for {
		select {
		case s := <-o.Signals:
			g.signal(s)
		case <-timer:
			killed = fmt.Sprintf("killed after the timeout of %s", o.Timeout)
			g.kill()
			timer = nil
		case <-ctx.Done():
			if killed == "" {
				killed = "killed: " + whyEnded(ctx)
			}
			g.kill()
			ctx = context.Background() // once
		case err := <-done:
			var notes []string
			if !outs.drained(outputGrace) {
				notes = append(notes, fmt.Sprintf("A process the command started kept its output open after the command ended (it runs in the background, or in a session of its own): the output was read for %s more, then cut. That process was left running; what it changes from now on is not this call's.", outputGrace))
			}
			var ee *exec.ExitError
			switch {
			case err == nil:
				return ended{code: 0, how: "exit 0", notes: notes}
			case errors.As(err, &ee):
				code, how := exitOf(ee, killed)
				return ended{code: code, how: how, notes: notes}
			}
			// Output that could not be copied (a closed pipe) after the command ended.
			if cmd.ProcessState != nil && cmd.ProcessState.Exited() {
				return ended{code: cmd.ProcessState.ExitCode(), how: fmt.Sprintf("exit %d (%v)", cmd.ProcessState.ExitCode(), err), notes: notes}
			}
			return ended{code: ExitOwnFailure, how: fmt.Sprintf("wait failed: %v", err), notes: notes}
		}
	}
}

// outputs are the pipes that carry a command's output to writers that are not files.
type outputs struct {
	child []*os.File // the ends the command writes, closed here once it started
	read  []*os.File
	wg    sync.WaitGroup
}

// pipeOutputs gives cmd a pipe for each of its Stdout and Stderr that is not a file
// (one for both when they are the same writer), copied to it as the command writes.
func pipeOutputs(cmd *exec.Cmd) (*outputs, error) {
	o := &outputs{}
	pipe := func(w io.Writer) (io.Writer, error) {
		if _, ok := w.(*os.File); ok || w == nil {
			return w, nil
		}
		r, pw, err := os.Pipe()
		if err != nil {
			o.cut()
			return nil, err
		}
		o.child, o.read = append(o.child, pw), append(o.read, r)
		o.wg.Add(1)
		go func() {
			defer o.wg.Done()
			io.Copy(w, r)
		}()
		return pw, nil
	}
	same := cmd.Stdout == cmd.Stderr
	var err error
	if cmd.Stdout, err = pipe(cmd.Stdout); err != nil {
		return nil, err
	}
	if same {
		cmd.Stderr = cmd.Stdout
	} else if cmd.Stderr, err = pipe(cmd.Stderr); err != nil {
		return nil, err
	}
	return o, nil
}

// started closes this process's copy of the command's ends: the pipes then close
// when the command and whatever it started have closed theirs.
func (o *outputs) started() {
	for _, f := range o.child {
		f.Close()
	}
	o.child = nil
}

// drained waits at most grace for the output to be read to its end; when it was not
// (a process the command started holds a pipe open), it stops reading and says so.
func (o *outputs) drained(grace time.Duration) bool {
	done := make(chan struct{})
	go func() { o.wg.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(grace):
	}
	o.cut()
	<-done
	return false
}

// cut stops reading and waits for the copies to end: a copy into a buffer touches it
// even when nothing comes (bytes.Buffer.ReadFrom grows it first), and the caller reads
// that buffer next.
func (o *outputs) cut() {
	o.started()
	for _, f := range o.read {
		f.Close()
	}
	o.wg.Wait()
}

// CommandArgv is the command a command's record ran (tool exec, run_command), from its
// arguments: run_command's as this system's shell runs it (shellArgv); nil for other records, and for one
// whose arguments do not decode.
func CommandArgv(r *Record) []string {
	switch r.Tool {
	case txn.ToolExec:
		var a ExecArgs
		if json.Unmarshal([]byte(r.Args), &a) != nil {
			return nil
		}
		if exact, ok := argvExact(a); ok {
			return exact
		}
		return a.Argv
	case RunCommand:
		var a struct {
			Command string `json:"command"`
		}
		if json.Unmarshal([]byte(r.Args), &a) != nil || a.Command == "" {
			return nil
		}
		return shellArgv(a.Command)
	}
	return nil
}

// argvExact is a's argv byte for byte from ArgvBase64, when it has one argument for
// each of Argv's that decodes.
func argvExact(a ExecArgs) ([]string, bool) {
	if len(a.ArgvBase64) == 0 || len(a.ArgvBase64) != len(a.Argv) {
		return nil, false
	}
	out := make([]string, len(a.ArgvBase64))
	for i, b := range a.ArgvBase64 {
		arg, err := base64.StdEncoding.DecodeString(b)
		if err != nil {
			return nil, false
		}
		out[i] = string(arg)
	}
	return out, true
}

// CommandLine is how listings show a command's record: the argv as a shell reads it back,
// or run_command's command line as sent; "" for other records.
func CommandLine(r *Record) string {
	argv := CommandArgv(r)
	if r.Tool == RunCommand && len(argv) >= 3 {
		return argv[len(argv)-1] // sh -c LINE, or cmd.exe /d /s /c LINE
	}
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = shellQuote(a)
	}
	return strings.Join(quoted, " ")
}

// shellQuote is a as a POSIX shell reads it back: as it is when it holds only
// characters no shell treats specially, else in single quotes, so that a command
// line shown can be told apart from another and run again (sh -c 'echo y >> x').
func shellQuote(a string) string {
	if a != "" && strings.IndexFunc(a, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./_-", r))
	}) < 0 {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}

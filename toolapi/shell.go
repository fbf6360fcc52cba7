package toolapi

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/txn"
)

// The tool set "shell": run_command, a command run with /bin/sh -c in the workspace
// (cmd.exe /c on Windows: shell_unix.go, shell_windows.go)
// and journaled as what it changed there. No default set has it, nor "all": a runtime
// asks for it (--tools native,shell). vfsctl does not sandbox the command.

// RunCommand is the shell set's tool.
const RunCommand = "run_command"

// Bounds of run_command.
const (
	// DefaultCommandTimeout is a command's time when timeoutMs is not sent;
	// MaxCommandTimeout the most a call may ask for.
	DefaultCommandTimeout = 2 * time.Minute
	MaxCommandTimeout     = 10 * time.Minute
	// MaxCommandOutput bounds what the reply shows of stdout and of stderr: the first
	// and the last half of it, the middle cut and said to be.
	MaxCommandOutput = 32 << 10
)

var runCommandDef = &toolDef{
	name: RunCommand,
	desc: "Run a shell command in the workspace with " + shellName + " (stdin is empty). The reply gives its exit status, stdout and stderr " +
		"(each cut to its first and last 16 KB when longer, saying so) and the files it changed in the workspace, with a diffstat. " +
		"What it changes in the workspace is journaled, so undo and rewind take it back; it is not sandboxed, and what it does elsewhere is not undone. " +
		"Edit files with the file tools, not with sed or echo: their refusals say what went wrong.",
	args: objectDef{fields: []argDef{
		{name: "command", typ: tString, required: true, min: 1, desc: "The command line, as " + shellName + " takes it, e.g. \"go test ./...\"."},
		{name: "cwd", typ: tString, path: true, defDoc: "the workspace root", desc: "The folder to run it in, relative to the workspace root."},
		{name: "timeoutMs", typ: tInteger, min: 1, def: int(DefaultCommandTimeout / time.Millisecond), aliases: []string{"timeout_ms", "timeout"},
			desc: fmt.Sprintf("Kill the command after this many milliseconds (at most %d).", MaxCommandTimeout/time.Millisecond)},
	}},
	shape: `{"command": "go test ./..."}`,
	op:    journal.OpRead,
	needs: needs{write: true, command: true},
	sets:  []string{setShell},
	run:   (*dispatcher).runCommand,
}

func (a *dispatcher) runCommand(c *txn.Call, _ string, in *input) (string, error) {
	command := in.str("command")
	if strings.IndexByte(command, 0) >= 0 {
		return "", errs.New(errs.InvalidInput, "", "run_command.command contains a NUL byte, which no shell command can hold. Send the command as text.")
	}
	if strings.TrimSpace(command) == "" {
		// The shell would run nothing and exit 0: a reply that says the command succeeded.
		return "", errs.New(errs.InvalidInput, "", "run_command.command is blank: there is nothing to run, and nothing was. Send the command line, e.g. \"go test ./...\".")
	}
	timeout := DefaultCommandTimeout
	if in.sent("timeoutMs") {
		timeout = time.Duration(in.num("timeoutMs")) * time.Millisecond
	}
	if timeout > MaxCommandTimeout {
		return "", errs.New(errs.InvalidInput, "", "run_command.timeoutMs is %d; the most is %d (%s). Send a smaller timeoutMs, or run the command in the background and look at its output later.",
			in.num("timeoutMs"), MaxCommandTimeout/time.Millisecond, MaxCommandTimeout)
	}
	dir, err := a.execFolder(in.str("cwd"))
	if err != nil {
		return "", err
	}
	x, err := a.eng.StartExec(c, LookOptions{})
	if err != nil {
		return "", err
	}
	argv := shellArgv(command)
	stdout, stderr := newBounded(MaxCommandOutput), newBounded(MaxCommandOutput)
	res, err := a.runExec(c.Context(), x, argv, dir, ExecOptions{Timeout: timeout, Stdout: stdout, Stderr: stderr, cmdLine: shellLine(command)})
	if err != nil {
		msg := strings.TrimSuffix(err.Error(), ".")
		if r, n := utf8.DecodeRuneInString(msg); n > 0 {
			msg = string(unicode.ToUpper(r)) + msg[n:] // it starts the reply
		}
		if errors.Is(err, txn.ErrNotRecorded) {
			return "", errs.Wrap(errs.IOError, "", err, "%s.", msg) // it says what became of the change
		}
		return "", errs.Wrap(errs.IOError, "", err, "%s. The command ran; what it changed is recorded by the next look at the workspace.", msg)
	}
	in.command = &commandTrace{argv: argv, code: res.Code, exit: res.Exit, files: len(res.Files)}
	return commandReply(res, dir, timeout, stdout, stderr), nil
}

// commandReply is run_command's reply: how the command ended, its output, the files
// it changed.
func commandReply(res *ExecResult, dir string, timeout time.Duration, stdout, stderr *bounded) string {
	var b strings.Builder
	where := ""
	if dir != "." {
		where = ", in " + dir + "/"
	}
	switch {
	case res.NotStarted != "":
		// Nothing ran, so there is no output to show: only why, and the status.
		fmt.Fprintf(&b, "The command did not start: %s; nothing was run (exit status %d; call %d%s).\n", strings.TrimSuffix(res.NotStarted, "."), res.Code, res.Seq, where)
	case res.Code == ExitTimeout && strings.HasPrefix(res.Exit, "killed after the timeout"):
		fmt.Fprintf(&b, "The command was killed after its timeout of %s (exit status %d; call %d%s).\n", timeout, res.Code, res.Seq, where)
	case strings.HasPrefix(res.Exit, "exit "):
		fmt.Fprintf(&b, "Exit status %d (call %d%s).\n", res.Code, res.Seq, where)
	default:
		fmt.Fprintf(&b, "The command ended: %s (exit status %d; call %d%s).\n", res.Exit, res.Code, res.Seq, where)
	}
	for _, s := range []struct {
		name string
		out  *bounded
	}{{"stdout", stdout}, {"stderr", stderr}} {
		if res.NotStarted != "" && s.out.total == 0 {
			continue
		}
		if s.out.total == 0 {
			fmt.Fprintf(&b, "%s: (empty)\n", s.name)
			continue
		}
		fmt.Fprintf(&b, "%s:\n%s", s.name, s.out.text(s.name))
		if !strings.HasSuffix(b.String(), "\n") {
			b.WriteString("\n")
		}
	}
	if len(res.Files) == 0 {
		b.WriteString("It changed no file in the workspace.")
	} else {
		fmt.Fprintf(&b, "It changed %s in the workspace:\n%s", plural(len(res.Files), "file"), strings.TrimSuffix(diffstat(res.Files), "\n"))
	}
	for _, n := range res.Notes {
		b.WriteString("\nNote: " + n)
	}
	return strings.TrimRight(b.String(), "\n")
}

// diffstat is one line per file: its path, the lines added and removed, and what
// else happened to it (created, deleted, binary, its bits).
func diffstat(files []journal.File) string {
	width := 0
	for _, f := range files {
		width = max(width, len(f.Path))
	}
	var b strings.Builder
	for _, f := range files {
		added, removed := diffLines(f.Diff)
		var what []string
		switch {
		case f.Op == journal.OpCreate:
			what = append(what, "created")
		case f.Op == journal.OpDelete:
			what = append(what, "deleted")
		}
		switch {
		case f.Before != "" && f.Before == f.After:
			what = append(what, fmt.Sprintf("mode %04o -> %04o", f.BeforeMode&0o7777, f.AfterMode&0o7777))
		case f.Diff == "":
			what = append(what, "binary or too large to diff")
		default:
			what = append([]string{fmt.Sprintf("+%d -%d", added, removed)}, what...)
		}
		fmt.Fprintf(&b, "  %-*s | %s\n", width, f.Path, strings.Join(what, ", "))
	}
	return b.String()
}

// diffLines counts the added and removed lines of a unified diff.
func diffLines(diff string) (added, removed int) {
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
}

// bounded keeps the first and the last half of max bytes written to it, and counts
// them all.
type bounded struct {
	half       int
	head, tail []byte
	total      int64
}

func newBounded(max int) *bounded { return &bounded{half: max / 2} }

func (w *bounded) Write(p []byte) (int, error) {
	n0 := len(p)
	w.total += int64(n0)
	if n := min(w.half-len(w.head), len(p)); n > 0 {
		w.head = append(w.head, p[:n]...)
		p = p[n:]
	}
	w.tail = append(w.tail, p...)
	if len(w.tail) > 2*w.half {
		w.tail = append(w.tail[:0], w.tail[len(w.tail)-w.half:]...)
	}
	return n0, nil
}

// text is what was written, with the middle cut out and said to be when it was over
// the bound; bytes that are not UTF-8 are shown as U+FFFD.
func (w *bounded) text(name string) string {
	tail := w.tail
	if len(tail) > w.half {
		tail = tail[len(tail)-w.half:]
	}
	cut := w.total - int64(len(w.head)) - int64(len(tail))
	if cut <= 0 {
		return strings.ToValidUTF8(string(w.head)+string(tail), "\uFFFD")
	}
	head, tail := trimRunes(w.head, tail)
	return fmt.Sprintf("%s\n[... %d bytes of %s cut here: %d in all, the first %d and the last %d shown ...]\n%s",
		strings.ToValidUTF8(string(head), "\uFFFD"), w.total-int64(len(head))-int64(len(tail)), name, w.total, len(head), len(tail),
		strings.ToValidUTF8(string(tail), "\uFFFD"))
}

// trimRunes drops a character split by the cut: the end of head, the start of tail.
func trimRunes(head, tail []byte) ([]byte, []byte) {
	for i := 0; i < utf8.UTFMax && len(head) > 0; i++ {
		if r, _ := utf8.DecodeLastRune(head); r != utf8.RuneError {
			break
		}
		head = head[:len(head)-1]
	}
	for i := 0; i < utf8.UTFMax && len(tail) > 0 && !utf8.RuneStart(tail[0]); i++ {
		tail = tail[1:]
	}
	return head, tail
}

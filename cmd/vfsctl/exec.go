package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
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
}

func (c *execCmd) Name() string    { return "exec" }
func (c *execCmd) Summary() string { return "run a command and journal what it changed" }

const execUsage = `Usage: vfsctl exec [--root DIR] [--session S] [--turn T] [--timeout D] -- CMD ARGS...

Runs CMD in the current folder with stdin, stdout and stderr passed through, and
journals what it changed in the workspace as one record of tool exec: per file
created, changed or deleted, both contents (a text file's change by its lines);
folders and symlinks made, removed or retargeted; changed modes. FIFOs and other
kinds are named in notes and never opened. Before it starts, what changed since
vfsctl last looked that no call made (an editor, a formatter) is journaled first,
as a record of tool outside, so that it is never taken for the command's.
vfsctl undo N, redo and rewind take an exec record back like any call.

vfsctl does not sandbox the command: what it may reach is the caller's business;
vfsctl records what it changed inside the root (.gitignore'd paths, .git and
.vfsctl left out). Files over 16 MB are recorded by hash only and cannot be
restored; a workspace of more than 100000 entries is refused.

Exit status: the command's; 124 when --timeout killed it, 125 when vfsctl itself
failed (the command was not run, or what it changed was not recorded: it says
which, e.g. when the command removed .vfsctl), 128+N when a signal N ended it.

Examples:
  vfsctl exec --session agent-1 --turn t3 -- gofmt -w .
  vfsctl exec --timeout 2m -- npm install
`

func (c *execCmd) ParseFlags(args []string) error {
	fs := newFlagSet("exec", execUsage)
	c.declare(fs, flagRoot, flagWait, flagJSON)
	fs.StringVar(&c.session, "session", "operator", "the session the record belongs to")
	fs.StringVar(&c.turn, "turn", "", "the runtime's turn label")
	fs.DurationVar(&c.timeout, "timeout", 0, "kill the command's process group after this long (0: never)")
	// Flags end at "--" or at the command's name: its own flags are its.
	flags, argv := args, []string(nil)
	for i, a := range args {
		if a == "--" {
			flags, argv = args[:i], args[i+1:]
			break
		}
	}
	if err := fs.parse(flags); err != nil {
		return err
	}
	c.argv = append(fs.Args(), argv...)
	if len(c.argv) == 0 {
		return fmt.Errorf("no command given: vfsctl exec [flags] -- CMD ARGS... (see --help)")
	}
	return nil
}

// exitVfsctl is the exit status when vfsctl itself failed, as env and timeout use it.
const exitVfsctl = 125

func (c *execCmd) Run(stdin io.Reader, stdout, stderr io.Writer) int {
	eng, err := c.open("vfsctl exec")
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl exec: %v\n", err)
		return exitVfsctl
	}
	defer eng.Close()
	cwd, _ := os.Getwd()
	rel := "."
	if r, err := filepath.Rel(eng.Root(), cwd); err == nil {
		rel = filepath.ToSlash(r)
	}
	x, err := eng.ExecStart(c.session, c.turn, toolapi.ExecArgs{Argv: c.argv, Cwd: rel}, toolapi.LookOptions{})
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl exec: %v; the command was not run\n", err)
		return exitVfsctl
	}
	if x.Outside != nil && x.Outside.Seq != 0 {
		fmt.Fprintf(stderr, "vfsctl exec: changes made outside vfsctl since its last look were journaled first as call %d\n", x.Outside.Seq)
	}
	code, how := runCommand(c.argv, c.timeout, stdin, stdout, stderr)
	look, err := x.End(how)
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl exec: the command ended (%s) but what it changed could not be journaled: %v\n", how, err)
		return exitVfsctl
	}
	for _, n := range look.Notes {
		fmt.Fprintf(stderr, "vfsctl exec: %s\n", n)
	}
	fmt.Fprintf(stderr, "vfsctl exec: call %d: %s, %s changed\n", x.Seq(), how, plural(len(look.Files), "file"))
	return code
}

// runCommand runs argv in its own process group, forwarding Ctrl-C and a terminate
// request to it, killing the group at the timeout. It returns the exit status for
// vfsctl and how the command ended, as the record says it.
func runCommand(argv []string, timeout time.Duration, stdin io.Reader, stdout, stderr io.Writer) (int, string) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return 127, fmt.Sprintf("not started: %v", err)
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	timedOut := false
	for {
		select {
		case s := <-sigs:
			syscall.Kill(-cmd.Process.Pid, s.(syscall.Signal))
		case <-timer:
			timedOut = true
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		case err := <-done:
			var ee *exec.ExitError
			switch {
			case err == nil:
				return 0, "exit 0"
			case errors.As(err, &ee):
				st := ee.Sys().(syscall.WaitStatus)
				if st.Signaled() {
					if timedOut {
						return 124, fmt.Sprintf("killed after the timeout of %s", timeout)
					}
					return 128 + int(st.Signal()), "signal " + st.Signal().String()
				}
				return st.ExitStatus(), fmt.Sprintf("exit %d", st.ExitStatus())
			}
			return exitVfsctl, fmt.Sprintf("wait failed: %v", err)
		}
	}
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
	if c.json {
		json.NewEncoder(stdout).Encode(look)
		return exitOK
	}
	switch {
	case look.First:
		fmt.Fprintln(stdout, "The workspace's first snapshot was taken; nothing to journal.")
	case look.Seq == 0:
		fmt.Fprintln(stdout, "Nothing changed outside vfsctl.")
	default:
		fmt.Fprintf(stdout, "Call %d journaled %s changed outside vfsctl.\n", look.Seq, plural(len(look.Files), "file"))
	}
	return exitOK
}

// Command vfsctl is the transactional edit engine for the file tools of LLM agents.
//
//	vfsctl call        run tool calls read as JSON lines from stdin
//	vfsctl serve       serve the tools over MCP on stdin and stdout
//	vfsctl log         list journaled calls
//	vfsctl show        show one journaled call
//	vfsctl undo        revert a journaled change as a new transaction
//	vfsctl redo        re-apply what an undo reverted
//	vfsctl rewind      put a session's files back as they were before one of its turns
//	vfsctl exec        run a command and journal what it changed
//	vfsctl checkpoint  journal what changed outside vfsctl since it last looked
//	vfsctl replay      run recorded calls again through today's engine, in memory
//	vfsctl fsck        check the journal against the disk and itself
//	vfsctl stats       what models get wrong: failures, rescues, recovery, padding
//	vfsctl export      write the journal's records as JSON lines for a warehouse
//	vfsctl adopt       make a journal that was copied or checked in this workspace's own
//	vfsctl tools       print the tool definitions (JSON Schema)
//	vfsctl demo        show what vfsctl does with sloppy calls, in a scratch workspace
//	vfsctl version     print the version of vfsctl and of Go, and the guards it runs
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/vfsctl/vfsctl/toolapi"
)

// command is one subcommand: it parses its own flags and runs.
type command interface {
	Name() string
	Summary() string
	ParseFlags(args []string) error
	Run(stdin io.Reader, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{&callCmd{}, &serveCmd{}, &logCmd{}, &showCmd{}, &undoCmd{}, &undoCmd{redo: true}, &rewindCmd{}, &execCmd{}, &checkpointCmd{}, &replayCmd{}, &fsckCmd{}, &statsCmd{}, &exportCmd{}, &adoptCmd{}, &toolsCmd{}, &demoCmd{}, &versionCmd{}}
}

// Exit codes.
const (
	exitOK      = 0
	exitRefused = 1
	exitUsage   = 2
)

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "--version", "-version":
		args = []string{"version"}
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			return run([]string{args[1], "--help"}, stdin, stdout, stderr)
		}
		usage(stdout)
		return exitOK
	}
	for _, c := range commands() {
		if c.Name() != args[0] {
			continue
		}
		if err := c.ParseFlags(args[1:]); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return exitOK
			}
			// exec's status is its command's: its own usage error must not look like one.
			if u, ok := c.(interface {
				usageFailed(args []string, stdout, stderr io.Writer, err error) int
			}); ok {
				return u.usageFailed(args[1:], stdout, stderr, err)
			}
			fmt.Fprintf(stderr, "vfsctl %s: %v\n", c.Name(), err)
			return exitUsage
		}
		if s, ok := c.(interface{ setStderr(io.Writer) }); ok {
			s.setStderr(stderr)
		}
		return c.Run(stdin, stdout, stderr)
	}
	fmt.Fprintf(stderr, "vfsctl: unknown command %q\n\n", args[0])
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, `vfsctl is a transactional edit engine for the file tools of LLM agents: models call
read_file, edit_file, create_file and write_file through it, and it refuses every call
that could edit the wrong place, with a message that says what to send instead.

Usage:
  vfsctl <command> [flags]

Commands:`)
	width := 0
	for _, c := range commands() {
		width = max(width, len(c.Name()))
	}
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.Name(), c.Summary())
	}
	fmt.Fprintln(w, `
Run 'vfsctl <command> --help' for a command's flags and an example.`)
}

// flagSet is a command's flags with its usage text.
type flagSet struct {
	*flag.FlagSet
	usage string
}

func newFlagSet(name, usage string) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parse errors are reported once, by run
	return &flagSet{FlagSet: fs, usage: usage}
}

// positional parses flags that may come before or after the positional arguments
// ("show 42 --json", "show --json 42") and returns those arguments.
func (fs *flagSet) positional(args []string) ([]string, error) {
	var rest []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return nil, fs.parse(args) // prints help or returns the error
		}
		if fs.NArg() == 0 {
			break
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
	return rest, nil
}

// parse parses flags, printing the usage text and the flags on -h, and rejecting stray
// arguments.
func (fs *flagSet) parse(args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(os.Stdout, fs.usage)
			n := 0
			fs.VisitAll(func(*flag.Flag) { n++ })
			if n > 0 {
				fmt.Fprintln(os.Stdout, "\nFlags:")
				fs.SetOutput(os.Stdout)
				fs.PrintDefaults()
			}
		}
		// "show -1": a negative number is read as a flag; say what it is instead.
		if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok && name != "" && strings.Trim(name, "0123456789") == "" {
			return fmt.Errorf("\"-%s\" is not a call number: calls are numbered from 1 (vfsctl log lists them)", name)
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (see --help)", fs.Arg(0))
	}
	return nil
}

// versionCmd is `vfsctl version`.
type versionCmd struct{}

func (c *versionCmd) Name() string { return "version" }
func (c *versionCmd) Summary() string {
	return "print the version of vfsctl and of Go, and the guards this build runs"
}

const versionUsage = `Usage: vfsctl version

Prints vfsctl's version and the Go version it was built with, then the guards this
build runs: placeholder comments always, and the syntax of the languages its parsers
cover (tree-sitter's need a build with cgo). Also vfsctl --version.

Example:
  vfsctl version
`

func (c *versionCmd) ParseFlags(args []string) error {
	return newFlagSet("version", versionUsage).parse(args)
}

func (c *versionCmd) Run(_ io.Reader, stdout, _ io.Writer) int {
	fmt.Fprintf(stdout, "vfsctl %s %s\n%s\n", toolapi.Version(), runtime.Version(), toolapi.GuardsActive())
	return exitOK
}

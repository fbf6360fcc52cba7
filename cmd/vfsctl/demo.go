package main

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"

	"github.com/vfsctl/vfsctl/toolapi"
)

//go:embed demo
var demoFiles embed.FS

type demoCmd struct {
	common
	keep bool
}

func (c *demoCmd) Name() string { return "demo" }
func (c *demoCmd) Summary() string {
	return "show what vfsctl does with sloppy calls, in a scratch workspace"
}

const demoUsage = `Usage: vfsctl demo [--json] [--keep]

Makes a scratch workspace holding four small files (a JavaScript file with a curly-quoted
comment and trailing spaces, a CRLF settings file, a tab-indented Go file, notes), then
plays two turns of a conversation and shows each reply the model reads, with the diffs:

  turn 1   the calls a real model sends, sloppy ones included: what was applied, what
           was refused and why;
  then     an operator's undo of one call;
  turn 2   an apply_patch call (a Codex model's V4A patch) and an edit, then a rewind
           of the turn, as a user asks "go back to before my last request";
  last     vfsctl log and vfsctl stats of the workspace's journal.

Nothing outside the scratch workspace is touched. It is removed at the end, or when
the demo is cut short (demo | head, Ctrl-C), unless --keep leaves it to explore with
the other commands (log, show, undo, stats), which it prints as you started vfsctl.

Example:
  go run ./cmd/vfsctl demo --keep
`

func (c *demoCmd) ParseFlags(args []string) error {
	fs := newFlagSet("demo", demoUsage)
	c.declare(fs, flagJSON)
	fs.BoolVar(&c.keep, "keep", false, "keep the scratch workspace and print its path")
	return fs.parse(args)
}

// demoStep is one step of the demo: a model's tool call, or an operator's command
// (undo, rewind) when op is set.
type demoStep struct {
	part  string // a heading printed before the step, where a new part begins
	name  string // names the call, for a later undo of it
	title string
	turn  string // the user's request the call answers, as a runtime labels it
	tool  string
	args  string
	op    string // "undo" (of the call named target) or "rewind" (of turn target)
	// target is the call an undo reverts, or the turn a rewind goes back to before.
	target string
	before func(dir string)        // run before the step
	after  func(dir string) string // an extra check shown after the reply
}

// demoOutcome is what a step did, a model's call or an operator's command alike.
type demoOutcome struct {
	ok   bool
	kind string
	txn  uint64
	text string
}

func demoSteps() []demoStep {
	steps := []demoStep{
		{part: "Turn 1: the user asks for a few fixes, and the model calls the tools.",
			title: "The model reads app.js first.",
			tool:  "read_file", args: `{"path": "app.js"}`},
		{title: "It types curly quotes where the file has straight ones, drops the line's trailing spaces, and adds text in its curly quotes.",
			tool: "edit_file", args: `{"path": "app.js", "edits": [{"oldText": "console.log(“Goodbye, ” + name + “!”);", "newText": "console.log(“See you, ” + name + “!”, “(bye)”);"}]}`,
			after: func(dir string) string {
				l := lineOf(dir, "app.js", "See you")
				return fmt.Sprintf("the line on disk is now %q: the file's straight quotes, also in the added text, and its trailing spaces", l)
			}},
		{title: "It sends a snippet that occurs twice.",
			tool: "edit_file", args: `{"path": "app.js", "edits": [{"oldText": "  return true;", "newText": "  return name.length > 0;"}]}`},
		{title: "It retries with surrounding lines, using the old_string/new_string names of another tool.",
			tool: "edit_file", args: `{"path": "app.js", "edits": [{"old_string": "function greet(name) {\n  console.log(greeting + \", \" + name + \"!\");\n  return true;", "new_string": "function greet(name) {\n  console.log(greeting + \", \" + name + \"!\");\n  return name.length > 0;"}]}`},
		{title: "It sends two edits that touch the same line.",
			tool: "edit_file", args: `{"path": "app.js", "edits": [{"oldText": "const greeting = \"Hello\";", "newText": "const greeting = \"Hi\";"}, {"oldText": "\"Hello\"", "newText": "\"Hey\""}]}`},
		{title: "It pastes the line-number gutter of read_file into oldText.",
			tool: "edit_file", args: `{"path": "app.js", "edits": [{"oldText": "     2\tconst greeting = \"Hello\";", "newText": "const greeting = \"Hi\";"}]}`},
		{name: "crlf", title: "It edits a CRLF file with LF line breaks.",
			tool: "edit_file", args: `{"path": "settings.ini", "edits": [{"oldText": "port = 8080\nhost = localhost\n", "newText": "port = 9090\nhost = 0.0.0.0\ntimeout = 30\n"}]}`,
			after: func(dir string) string {
				b, _ := os.ReadFile(filepath.Join(dir, "settings.ini"))
				return fmt.Sprintf("%d of %d lines on disk end in CRLF", bytes.Count(b, []byte("\r\n")), bytes.Count(b, []byte("\n")))
			}},
		{title: "It indents with spaces in a file indented with tabs.",
			tool: "edit_file", args: `{"path": "main.go", "edits": [{"oldText": "    for i := 0; i < 3; i++ {\n        fmt.Println(i)\n    }", "newText": "    for i := 0; i < 3; i++ {\n        fmt.Println(i)\n        fmt.Println(i * i)\n    }"}]}`,
			after: func(dir string) string {
				return fmt.Sprintf("the new line on disk is %q: tabs, like the rest of the file", lineOf(dir, "main.go", "i * i"))
			}},
		{title: "It sends an edit that changes nothing.",
			tool: "edit_file", args: `{"path": "main.go", "edits": [{"oldText": "import \"fmt\"", "newText": "import \"fmt\""}]}`},
		{title: "It tries to overwrite a file it never read.",
			tool: "write_file", args: `{"path": "notes.md", "content": "# Notes\n"}`},
		{title: "It reads the file, as told.",
			tool: "read_file", args: `{"path": "notes.md"}`},
		{title: "Now the whole-file write goes through.",
			tool: "write_file", args: `{"path": "notes.md", "content": "# Notes\n\n- ship v2\n- write the changelog\n"}`},
		{title: "It misspells a path.",
			tool: "edit_file", args: `{"path": "app.ts", "edits": [{"oldText": "greet", "newText": "welcome"}]}`},
		{title: "It reaches outside the workspace.",
			tool: "edit_file", args: `{"path": "../../etc/passwd", "edits": [{"oldText": "root", "newText": "toor"}]}`},
	}
	for i := range steps {
		steps[i].turn = "1"
	}
	var beforeTurn2 map[string][]byte
	return append(steps,
		demoStep{part: "An operator takes one call back.",
			title: "The user did not want the settings change: undo that one call.",
			op:    "undo", target: "crlf",
			after: func(dir string) string {
				orig, _ := demoFiles.ReadFile("demo/settings.ini")
				now, _ := os.ReadFile(filepath.Join(dir, "settings.ini"))
				if !bytes.Equal(orig, now) {
					return "settings.ini on disk is NOT as it was before the edit"
				}
				return "settings.ini on disk is byte for byte as it was before the edit, CRLF line breaks and all"
			}},
		demoStep{part: "Turn 2: the user asks for a welcome message and a changelog; a Codex model answers in its own dialect.",
			name: "patch", turn: "2",
			title: "It sends a V4A patch (apply_patch): an anchor, context in curly quotes, and a new file.",
			tool:  "apply_patch", args: `{"input": "*** Begin Patch\n*** Update File: app.js\n@@ function greet(name) {\n-  console.log(greeting + “, ” + name + “!”);\n+  console.log(greeting + “, ” + name + “! Welcome back.”);\n*** Add File: CHANGELOG.md\n+# Changelog\n+\n+- greet welcomes users back\n*** End Patch"}`,
			before: func(dir string) { beforeTurn2 = demoSnapshot(dir) }},
		demoStep{turn: "2",
			title: "It notes the change.",
			tool:  "edit_file", args: `{"path": "notes.md", "edits": [{"oldText": "- write the changelog", "newText": "- write the changelog\n- tell users about the welcome"}]}`},
		demoStep{part: "The user says: go back to before my last request.", name: "rewind",
			title: "Rewind turn 2: every change it made, newest first, as one transaction.",
			op:    "rewind", target: "2",
			after: func(dir string) string {
				now := demoSnapshot(dir)
				for _, f := range []string{"app.js", "notes.md", "CHANGELOG.md"} {
					if !bytes.Equal(now[f], beforeTurn2[f]) || (now[f] == nil) != (beforeTurn2[f] == nil) {
						return f + " on disk is NOT as it was before turn 2"
					}
				}
				return "app.js and notes.md on disk are byte for byte as before turn 2, and CHANGELOG.md is gone"
			}},
	)
}

// demoSnapshot reads the demo's files as they are on disk; a missing one is nil.
func demoSnapshot(dir string) map[string][]byte {
	snap := map[string][]byte{}
	for _, f := range []string{"app.js", "notes.md", "CHANGELOG.md", "settings.ini", "main.go"} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err == nil {
			snap[f] = b
		}
	}
	return snap
}

func lineOf(dir, file, needle string) string {
	b, _ := os.ReadFile(filepath.Join(dir, file))
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if strings.Contains(l, needle) {
			return l
		}
	}
	return ""
}

func (c *demoCmd) Run(_ io.Reader, stdout, stderr io.Writer) int {
	dir, err := os.MkdirTemp("", "vfsctl-demo-")
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl demo: %v\n", err)
		return exitUsage
	}
	if !c.keep {
		defer os.RemoveAll(dir)
	}
	// Cut short, by a reader gone (demo | head: SIGPIPE) or by a signal, the demo
	// removes its workspace too, once the engine is between two steps.
	var busy sync.Mutex // held while the engine works in dir
	stopped := make(chan struct{})
	defer close(stopped)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGPIPE, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	go func() {
		select {
		case s := <-sigs:
			busy.Lock()
			if c.keep {
				fmt.Fprintf(stderr, "vfsctl demo: stopped by %v; the workspace is kept at %s\n", s, dir)
			} else {
				os.RemoveAll(dir)
			}
			status := exitRefused
			if n, ok := s.(syscall.Signal); ok {
				status = 128 + int(n)
			}
			os.Exit(status)
		case <-stopped:
		}
	}()
	// What the engine does is done under busy, the writes outside it, so that a signal
	// never waits on a full pipe.
	busy.Lock()
	var eng *toolapi.Engine
	err = writeDemoFiles(dir)
	if err == nil {
		// The native tools, and apply_patch for the Codex model of turn 2.
		eng, err = toolapi.Open(dir, toolapi.Options{Holder: "vfsctl demo", Tools: "native,apply_patch"})
	}
	busy.Unlock()
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl demo: %v\n", err)
		return exitUsage
	}
	defer eng.Close()
	w := &demoWriter{w: stdout} // a write that fails (a closed stdout) ends the demo
	if !c.json {
		fmt.Fprintf(w, "vfsctl demo: a scratch workspace, %s, holds app.js, settings.ini (CRLF), main.go (tabs) and notes.md.\n", dir)
		fmt.Fprintln(w, "Each step is one tool call as a model sends it, or an operator's command; below it, the reply.")
	}
	applied, refused := 0, 0
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	txnOf := map[string]uint64{}
	ctx := context.Background()
	for i, s := range demoSteps() {
		if w.err != nil {
			return w.failed(stderr)
		}
		busy.Lock()
		if s.before != nil {
			s.before(dir)
		}
		var out demoOutcome
		var reply any
		command := ""
		switch s.op {
		case "undo":
			seq := txnOf[s.target]
			command = fmt.Sprintf("vfsctl undo %d", seq)
			rep := eng.Revert(ctx, toolapi.UndoRequest{Seq: seq, FirstAdvice: forOperator})
			out, reply = demoOutcome{rep.OK, rep.Kind, rep.Txn, rep.Text}, rep
		case "rewind":
			command = "vfsctl rewind --session demo --turn " + s.target
			rep := eng.RewindTurns(ctx, toolapi.RewindRequest{Session: "demo", Turn: s.target, FirstAdvice: forRewind})
			out, reply = demoOutcome{rep.OK, rep.Kind, rep.Txn, rep.Text}, rep
		default:
			res := eng.Call(toolapi.WithTurn(ctx, s.turn), "demo", s.tool, json.RawMessage(s.args))
			out, reply = demoOutcome{ok: res.OK, kind: deref(res.Kind), text: res.Text}, res
			if res.Txn != nil {
				out.txn = uint64(*res.Txn)
			}
			if res.OK {
				applied++
			} else {
				refused++
			}
		}
		if s.name != "" {
			txnOf[s.name] = out.txn
		}
		var check string
		if s.after != nil && out.ok {
			check = s.after(dir)
		}
		busy.Unlock()
		if c.json {
			step := map[string]any{"step": i + 1, "title": s.title, "result": reply, "check": check}
			if command != "" {
				step["command"] = command
			} else {
				step["tool"], step["args"], step["turn"] = s.tool, json.RawMessage(s.args), s.turn
			}
			enc.Encode(step)
		} else {
			writeStep(w, i+1, s, command, out, check)
		}
	}
	busy.Lock()
	st, err := eng.Stats(toolapi.Query{})
	recs, cerr := eng.Calls(toolapi.Query{})
	busy.Unlock()
	if err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl demo: %v\n", err)
		return exitRefused
	}
	if c.json {
		enc.Encode(map[string]any{"stats": st})
		if w.err != nil {
			return w.failed(stderr)
		}
		return exitOK
	}
	fmt.Fprintf(w, "\nThe model made %d calls: %d applied, %d refused with a reason and nothing written.\n", applied+refused, applied, refused)
	fmt.Fprintln(w, "\nEvery call is in the workspace journal, refusals and the operator's included (vfsctl log):")
	writeLogTable(w, recs)
	fmt.Fprintln(w, "\nWhat the model got wrong, and what was forgiven (vfsctl stats):")
	fmt.Fprintln(w)
	(&statsCmd{}).text(w, st)
	vfsctl := invokedAs()
	if c.keep {
		fmt.Fprintf(w, "\nThe workspace is kept at %s. Explore it:\n", dir)
		for _, cmd := range []string{
			"log --turn 2",                                                // the calls of turn 2
			fmt.Sprintf("show %d", txnOf["patch"]),                        // the patch as received, and its diffs
			fmt.Sprintf("undo %d --dry-run", txnOf["rewind"]),             // what undoing the rewind would bring back
			"stats --html " + shellWord(filepath.Join(dir, "stats.html")), // the figures as charts
		} {
			fmt.Fprintf(w, "  %s %s --root %s\n", vfsctl, cmd, shellWord(dir))
		}
	} else {
		fmt.Fprintf(w, "\nThe workspace was removed; %s demo --keep leaves it to explore with log, show, undo and stats.\n", vfsctl)
	}
	if w.err != nil {
		return w.failed(stderr)
	}
	return exitOK
}

// demoWriter is the demo's stdout: it keeps the first write error, and writes nothing
// after one.
type demoWriter struct {
	w   io.Writer
	err error
}

// failed says why the demo stopped and gives its exit status: a reader gone (demo |
// head) is no news to whoever cut the output, and ends it as SIGPIPE would.
func (d *demoWriter) failed(stderr io.Writer) int {
	if errors.Is(d.err, syscall.EPIPE) {
		return 128 + int(syscall.SIGPIPE)
	}
	fmt.Fprintf(stderr, "vfsctl demo: %v\n", d.err)
	return exitRefused
}

func (d *demoWriter) Write(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	n, err := d.w.Write(p)
	d.err = err
	return n, err
}

// invokedAs is this vfsctl as the user runs it, for the commands the demo suggests:
// a binary go run built (in a go-build folder: the build cache, or a temporary one)
// is run again by go run; any other by the name it was started by.
func invokedAs() string {
	exe, _ := os.Executable()
	version, pkg := "", "github.com/vfsctl/vfsctl/cmd/vfsctl"
	if bi, ok := debug.ReadBuildInfo(); ok {
		version = bi.Main.Version
		if bi.Path != "" {
			pkg = bi.Path
		}
	}
	return commandFor(exe, os.Args[0], pkg, version)
}

// commandFor is invokedAs of the executable exe started as arg0, built from the
// package pkg at version ("(devel)" in a source tree).
func commandFor(exe, arg0, pkg, version string) string {
	for _, part := range strings.Split(filepath.ToSlash(exe), "/") {
		if strings.HasPrefix(part, "go-build") {
			if version == "" || version == "(devel)" {
				return "go run ./cmd/vfsctl" // from the source tree
			}
			return "go run " + pkg + "@" + version
		}
	}
	if arg0 == "" {
		return "vfsctl"
	}
	return shellWord(arg0)
}

// shellWord is s as one word of the user's shell: as it is when that is one, else
// quoted: in double quotes on Windows, as cmd reads them (PowerShell runs a quoted
// program only after "&"), in single quotes elsewhere.
func shellWord(s string) string {
	if runtime.GOOS == "windows" {
		if s == "" || strings.ContainsAny(s, " \t&|<>^()%!;,'\"`$") {
			return `"` + s + `"`
		}
		return s
	}
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+./:@%=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// writeStep writes step n for a person: the call or command, and its reply.
func writeStep(w io.Writer, n int, s demoStep, command string, out demoOutcome, check string) {
	if s.part != "" {
		fmt.Fprintf(w, "\n== %s\n", s.part)
	}
	fmt.Fprintf(w, "\n[%d] %s\n", n, s.title)
	if command != "" {
		fmt.Fprintf(w, "    run:  %s\n", command)
	} else {
		fmt.Fprintf(w, "    call: %s %s\n", s.tool, compact(s.args))
	}
	status := "refused: " + out.kind
	if out.ok {
		status = "ok"
		if out.txn != 0 {
			status += fmt.Sprintf(" (txn %d)", out.txn)
		}
	}
	fmt.Fprintf(w, "    => %s\n", status)
	for _, l := range strings.Split(strings.TrimRight(out.text, "\n"), "\n") {
		fmt.Fprintf(w, "       %s\n", l)
	}
	if check != "" {
		fmt.Fprintf(w, "    check: %s\n", check)
	}
}

func writeDemoFiles(dir string) error {
	return fs.WalkDir(demoFiles, "demo", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := demoFiles.ReadFile(p)
		if err != nil {
			return err
		}
		// Files carry a .txt suffix where their real name would make Go build them.
		name := strings.TrimSuffix(strings.TrimPrefix(p, "demo/"), ".txt")
		return os.WriteFile(filepath.Join(dir, name), b, 0o644)
	})
}

func compact(s string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(s)) != nil {
		return s
	}
	out := b.String()
	if len(out) > 160 {
		out = out[:157] + "..."
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

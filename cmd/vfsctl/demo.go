package main

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

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
comment and trailing spaces, a CRLF settings file, a tab-indented Go file, notes), then sends
the tool calls a real model sends, sloppy ones included, and shows each reply: what was
applied, what was refused and why, with the diffs. Nothing outside the scratch
workspace is touched.

Example:
  go run ./cmd/vfsctl demo
`

func (c *demoCmd) ParseFlags(args []string) error {
	fs := newFlagSet("demo", demoUsage)
	c.declare(fs, flagJSON)
	fs.BoolVar(&c.keep, "keep", false, "keep the scratch workspace and print its path")
	return fs.parse(args)
}

type demoStep struct {
	title string
	tool  string
	args  string
	after func(dir string) string // an extra check shown after the reply
}

func demoSteps() []demoStep {
	return []demoStep{
		{title: "The model reads app.js first.",
			tool: "read_file", args: `{"path": "app.js"}`},
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
		{title: "It edits a CRLF file with LF line breaks.",
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
	if err := writeDemoFiles(dir); err != nil {
		fmt.Fprintf(stderr, "vfsctl demo: %v\n", err)
		return exitUsage
	}
	eng, err := toolapi.Open(dir, toolapi.Options{Holder: "vfsctl demo"})
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl demo: %v\n", err)
		return exitUsage
	}
	defer eng.Close()
	w := stdout
	if !c.json {
		fmt.Fprintln(w, "vfsctl demo: a scratch workspace holds app.js, settings.ini (CRLF), main.go (tabs) and notes.md.")
		fmt.Fprintln(w, "Each step is one tool call as a model sends it; below it, the reply the model reads.")
	}
	applied, refused := 0, 0
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i, s := range demoSteps() {
		res := eng.Call(context.Background(), "demo", s.tool, json.RawMessage(s.args))
		if res.OK {
			applied++
		} else {
			refused++
		}
		var check string
		if s.after != nil && res.OK {
			check = s.after(dir)
		}
		if c.json {
			enc.Encode(map[string]any{"step": i + 1, "title": s.title, "tool": s.tool,
				"args": json.RawMessage(s.args), "result": res, "check": check})
		} else {
			writeStep(w, i+1, s, res, check)
		}
	}
	if !c.json {
		fmt.Fprintf(w, "\n%d calls: %d applied, %d refused with a reason and nothing written.\n", applied+refused, applied, refused)
		fmt.Fprintln(w, "\nEvery call is in the workspace journal, refusals included (vfsctl log):")
		recs, err := eng.Calls(toolapi.Query{})
		if err != nil {
			fmt.Fprintf(stderr, "vfsctl demo: %v\n", err)
			return exitRefused
		}
		writeLogTable(w, recs)
		if c.keep {
			fmt.Fprintf(w, "\nThe workspace is kept at %s (try: vfsctl show 2 --root %s)\n", dir, dir)
		}
	}
	return exitOK
}

// writeStep writes step n for a person: the call, and the reply the model reads.
func writeStep(w io.Writer, n int, s demoStep, res toolapi.Result, check string) {
	fmt.Fprintf(w, "\n[%d] %s\n", n, s.title)
	fmt.Fprintf(w, "    call: %s %s\n", s.tool, compact(s.args))
	status := "refused: " + deref(res.Kind)
	if res.OK {
		status = "ok"
		if res.Txn != nil {
			status += fmt.Sprintf(" (txn %d)", *res.Txn)
		}
	}
	fmt.Fprintf(w, "    => %s\n", status)
	for _, l := range strings.Split(strings.TrimRight(res.Text, "\n"), "\n") {
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

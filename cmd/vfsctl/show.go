package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vfsctl/vfsctl/toolapi"
)

type showCmd struct {
	common
	seq uint64
}

func (c *showCmd) Name() string    { return "show" }
func (c *showCmd) Summary() string { return "show one journaled call: the call, the outcome, the diff" }

const showUsage = `Usage: vfsctl show N [--json]

Shows call N of the workspace journal (the seq that vfsctl log and vfsctl call print):
its arguments as received, its outcome, and per file the content hashes, how each
edit matched, and the diff. With --json, the whole record, in the shape of every JSON
output (log --json, export): time in RFC 3339 with microseconds, duration_ms with a
fraction, args as the object sent, paths relative to the root.

Example:
  vfsctl show 42
`

func (c *showCmd) ParseFlags(args []string) error {
	fs := newFlagSet("show", showUsage)
	c.declare(fs, flagRoot, flagWait, flagJSON)
	// The call number may come before or after the flags.
	rest, err := fs.positional(args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return fmt.Errorf("give one call number (see --help)")
	}
	n, err := strconv.ParseUint(rest[0], 10, 64)
	if err != nil || n == 0 {
		return fmt.Errorf("%q is not a call number", rest[0])
	}
	c.seq = n
	return nil
}

func (c *showCmd) Run(_ io.Reader, stdout, stderr io.Writer) int {
	eng, err := c.open("vfsctl show")
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl show: %v\n", err)
		return exitUsage
	}
	defer eng.Close()
	if !eng.HasJournal() {
		return refused(stdout, stderr, c.json, "vfsctl show", toolapi.Kind("file_not_found"), fmt.Sprintf("there is no journal in %s yet (the first tool call creates it)", eng.Root()))
	}
	r, last, err := eng.Show(c.seq)
	if err != nil {
		return refused(stdout, stderr, c.json, "vfsctl show", toolapi.KindOf(err), err.Error())
	}
	if r == nil {
		return refused(stdout, stderr, c.json, "vfsctl show", toolapi.InvalidInput, fmt.Sprintf("there is no call %d (the journal holds 1 to %d)", c.seq, last))
	}
	if c.json {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		enc.Encode(toolapi.RecordJSON(r))
		return exitOK
	}
	writeRecord(stdout, r)
	return exitOK
}

// writeRecord writes a record for a person: the call, its outcome, and per file the
// hashes, how each edit matched, and the diff.
func writeRecord(w io.Writer, r *toolapi.Record) {
	fmt.Fprintf(w, "call %d: %s, %s\n", r.Seq, r.Tool, r.State)
	fmt.Fprintf(w, "time     %s (%s)\n", r.Time.Local().Format("2006-01-02 15:04:05.000"), r.Duration.Round(10*time.Microsecond))
	fmt.Fprintf(w, "session  %s\n", oneLine(r.Session))
	if r.Turn != "" {
		fmt.Fprintf(w, "turn     %s\n", oneLine(r.Turn))
	}
	if len(r.Reverts) > 0 {
		fmt.Fprintf(w, "reverts  calls %s\n", strings.Trim(fmt.Sprint(r.Reverts), "[]"))
	}
	if line := toolapi.CommandLine(r); line != "" {
		fmt.Fprintf(w, "command  %s\n", oneLine(line))
	}
	if r.Exit != "" {
		fmt.Fprintf(w, "ended    %s\n", r.Exit)
	}
	switch {
	case r.ArgsBlob != "":
		fmt.Fprintf(w, "args     (%d bytes, kept as blob %s)\n", r.ArgsSize, r.ArgsBlob[:12])
	case len(r.Args) > 0:
		fmt.Fprintf(w, "args     %s\n", escaped(compact(string(toolapi.PlainJSON([]byte(r.Args))))))
		for _, f := range patchArgs(r.Tool, r.Args) {
			fmt.Fprintf(w, "%-8s |%s\n", f[0], strings.ReplaceAll(strings.TrimSuffix(f[1], "\n"), "\n", "\n         |"))
		}
	}
	if r.State == toolapi.StateFailed {
		fmt.Fprintf(w, "refused  %s: %s\n", r.Kind, r.Message)
	}
	for _, f := range r.Files {
		after := "(unchanged)"
		if f.Op == toolapi.OpDelete {
			after = "(removed)"
		}
		fmt.Fprintf(w, "file     %s  %s  %s -> %s", oneLine(f.Path), f.Op, short(f.Before, "(none)"), short(f.After, after))
		if f.BeforeMode != 0 && f.AfterMode != 0 && f.BeforeMode != f.AfterMode {
			fmt.Fprintf(w, "  mode %04o -> %04o", f.BeforeMode&0o7777, f.AfterMode&0o7777)
		}
		if f.BeforeBlob {
			fmt.Fprint(w, "  [prior content kept]")
		}
		fmt.Fprintln(w)
		for _, e := range f.Edits {
			how := e.Tier
			if len(e.Folded) > 0 {
				how += " (" + strings.Join(e.Folded, ", ") + ")"
			}
			if e.Gutter {
				how += ", gutter stripped"
			}
			fmt.Fprintf(w, "         edits[%d]: %s, context %s / %s\n", e.Index, how, plural(e.ContextLines, "line"), plural(e.ContextBytes, "byte"))
		}
		if f.Diff != "" {
			fmt.Fprint(w, quoteNames(f.Diff, []string{f.Path}))
		}
		if f.DiffError != "" {
			fmt.Fprintf(w, "(the diff cannot be shown: %s)\n", f.DiffError)
		}
	}
	for _, en := range r.Entries {
		before, after := false, false // a file at the entry's path, before or after
		for _, f := range r.Files {
			if f.Path == en.Path && f.Op.Changes() {
				before, after = f.Before != "", f.After != "" // a deletion has no After
			}
		}
		fmt.Fprintf(w, "entry    %s\n", oneLine(toolapi.EntryTextFiles(en, before, after)))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note     %s\n", escaped(n))
	}
}

func short(h, none string) string {
	if h == "" {
		return none
	}
	return h[:12]
}

func plural(n int, what string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// patchArgs returns the string arguments of an apply_patch or apply_diff call that
// span lines, name and value, so that show prints the patch as it reads rather than
// as one JSON line cut short: the input, an operation's diff, or a bare string
// argument (named input or diff, as the tool reads it).
func patchArgs(tool, args string) [][2]string {
	name := "input"
	switch tool {
	case toolapi.ApplyPatch:
	case toolapi.ApplyDiff:
		name = "diff"
	default:
		return nil
	}
	var bare string
	if json.Unmarshal([]byte(args), &bare) == nil {
		if strings.Contains(bare, "\n") {
			return [][2]string{{name, bare}}
		}
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &m) != nil {
		return nil
	}
	var out [][2]string
	var add func(prefix string, m map[string]json.RawMessage)
	add = func(prefix string, m map[string]json.RawMessage) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			var s string
			var sub map[string]json.RawMessage
			switch {
			case json.Unmarshal(m[k], &s) == nil && strings.Contains(s, "\n"):
				out = append(out, [2]string{prefix + k, s})
			case prefix == "" && json.Unmarshal(m[k], &sub) == nil:
				add(k+".", sub)
			}
		}
	}
	add("", m)
	return out
}

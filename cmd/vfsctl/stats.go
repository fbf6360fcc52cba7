package main

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/mattn/go-isatty"

	"github.com/vfsctl/vfsctl/toolapi"
)

type statsCmd struct {
	common
	session, path string
	html          string
	color         bool // set by Run: stdout is a terminal and NO_COLOR is unset
}

func (c *statsCmd) Name() string { return "stats" }
func (c *statsCmd) Summary() string {
	return "what models get wrong: failures, rescues, recovery, padding"
}

const statsUsage = `Usage: vfsctl stats [--since T] [--until T] [--session S] [--path P] [--json] [--html FILE]

Reads the journal in one pass and reports what the models that used this workspace got
wrong and what vfsctl did about it. It counts the calls of models; an operator's
(vfsctl undo, vfsctl redo) are counted apart, by origin. States are named as vfsctl log
names them (committed, failed, rolled_back, unknown, pending; dry runs within committed).
  - calls by tool and state;
  - failures by kind, each with its share and one real example;
  - rescues: edits that matched only through a fold (curly quotes, dashes, special
    spaces, trailing whitespace, indentation, spaces for tabs, zero-width
    characters, a copied BOM, a pasted gutter, U+FFFD for invalid bytes), per tool;
  - recovery after refusal: of the refused calls of any tool that changes files, how
    many a later successful call on the same path in the same session followed, after
    how many refusals, and which kinds were never recovered;
  - context padding: median and p90 of the unchanged lines and bytes (in steps of 16)
    models send around their changes;
  - tables per session and per day.

--json prints all of it for scripts (every list present, [] when empty); --html FILE
writes one self-contained page with the figures as charts and the per-tool and
per-session tables (no network, no scripts).

Example:
  vfsctl stats --since 7d --html stats.html
`

func (c *statsCmd) ParseFlags(args []string) error {
	fs := newFlagSet("stats", statsUsage)
	c.declare(fs, flagRoot, flagWait, flagJSON, flagSince, flagUntil)
	fs.StringVar(&c.session, "session", "", "calls of this session")
	fs.StringVar(&c.path, "path", "", "calls that named this path")
	fs.StringVar(&c.html, "html", "", "also write the figures as a self-contained HTML page to FILE")
	return fs.parse(args)
}

func (c *statsCmd) Run(_ io.Reader, stdout, stderr io.Writer) int {
	q := toolapi.Query{Session: c.session}
	if err := c.window(&q); err != nil {
		fmt.Fprintf(stderr, "vfsctl stats: %v\n", err)
		return exitUsage
	}
	eng, err := c.open("vfsctl stats")
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl stats: %v\n", err)
		return exitUsage
	}
	defer eng.Close()
	if c.path != "" {
		if q.Path, err = canonical(eng, c.path); err != nil {
			fmt.Fprintf(stderr, "vfsctl stats: --path: %v\n", err)
			return exitUsage
		}
	}
	st, err := eng.Stats(q)
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl stats: %v%s\n", err, waitHint(err))
		return exitRefused
	}
	if c.html != "" {
		if err := writeStatsFile(c.html, st); err != nil {
			fmt.Fprintf(stderr, "vfsctl stats: --html: %v\n", err)
			return exitRefused
		}
	}
	if c.json {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.Encode(st)
		return exitOK
	}
	if f, ok := stdout.(*os.File); ok && isatty.IsTerminal(f.Fd()) && os.Getenv("NO_COLOR") == "" {
		c.color = true
	}
	c.text(stdout, st)
	return exitOK
}

// writeStatsFile writes the page of writeStatsHTML to a file of that name.
func writeStatsFile(name string, st *toolapi.Stats) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	err = writeStatsHTML(f, st)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (c *statsCmd) heading(w io.Writer, s string) {
	if c.color {
		fmt.Fprintf(w, "\n\x1b[1m%s\x1b[0m\n", s)
		return
	}
	fmt.Fprintf(w, "\n%s\n", s)
}

func pct(part, whole int) string {
	if whole == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(part)/float64(whole))
}

// tools is a table of calls by tool on the stats page.
type tools struct {
	ID   string
	Rows []toolapi.ToolCount
}

// Names lists the table's tools, as a heading names them.
func (t tools) Names() string {
	var names []string
	for _, r := range t.Rows {
		names = append(names, r.Tool)
	}
	return strings.Join(names, ", ")
}

// text writes the figures for a person: the totals, then one section a figure.
func (c *statsCmd) text(w io.Writer, st *toolapi.Stats) {
	fmt.Fprintf(w, "%s, %d failed (%s)\n", plural(st.Calls, "call"), st.Failed, pct(st.Failed, st.Calls))
	ops := toolapi.ToolCount{}
	for _, t := range st.OperatorByTool {
		ops.Calls, ops.Failed = ops.Calls+t.Calls, ops.Failed+t.Failed
	}
	if ops.Calls > 0 {
		calls := "calls"
		if ops.Calls == 1 {
			calls = "call"
		}
		fmt.Fprintf(w, "not counted: %d operator %s (%s), %d failed\n", ops.Calls, calls, tools{Rows: st.OperatorByTool}.Names(), ops.Failed)
	}
	if st.Calls == 0 {
		return
	}
	c.failures(w, st)
	c.commands(w, st)
	c.rescuesAndRecovery(w, st)
	c.heading(w, "Context padding (unchanged text around a change)")
	p := st.Padding
	fmt.Fprintf(w, "%d edits: lines median %d, p90 %d; bytes median %d, p90 %d\n", p.Edits, p.LinesP50, p.LinesP90, p.BytesP50, p.BytesP90)
	for _, g := range []struct {
		title string
		rows  []toolapi.GroupCount
	}{{"Per session", st.Sessions}, {"Per day", st.Days}} {
		c.heading(w, g.title)
		var rows [][]string
		for _, r := range g.rows {
			rows = append(rows, []string{oneLine(r.Key), fmt.Sprint(r.Calls), fmt.Sprint(r.Failed), fmt.Sprint(r.Rescued)})
		}
		writeTable(w, "KEY\tCALLS\tFAILED\tRESCUED EDITS", rows)
	}
}

// failures writes the calls by tool, the failures by kind and the guards' refusals.
func (c *statsCmd) failures(w io.Writer, st *toolapi.Stats) {
	c.heading(w, "Calls by tool")
	var rows [][]string
	for _, t := range st.ByTool {
		rows = append(rows, toolRow(t))
	}
	writeTable(w, toolHead, rows)

	c.heading(w, "Failures by kind")
	rows = nil
	for _, k := range st.ByKind {
		rows = append(rows, []string{k.Kind, fmt.Sprint(k.Count), fmt.Sprintf("%.1f%%", 100*k.Share), fmt.Sprintf("call %d: %s", k.Example.Seq, clip(escaped(k.Example.Message), 90))})
	}
	writeTable(w, "KIND\tCOUNT\tSHARE\tEXAMPLE", rows)

	c.heading(w, "Failures by tool and kind")
	rows = nil
	for _, t := range st.ByTool {
		for _, k := range slices.Sorted(maps.Keys(t.Kinds)) {
			rows = append(rows, []string{t.Tool, k, fmt.Sprint(t.Kinds[k])})
		}
	}
	writeTable(w, "TOOL\tKIND\tCOUNT", rows)

	if len(st.Guards) > 0 {
		c.heading(w, "Guard refusals by language")
		rows = nil
		for _, g := range st.Guards {
			rows = append(rows, []string{g.Kind, g.Language, fmt.Sprint(g.Count)})
		}
		writeTable(w, "KIND\tLANGUAGE\tCALLS", rows)
	}
}

// rescuesAndRecovery writes what the folds rescued and what models did after a refusal.
func (c *statsCmd) rescuesAndRecovery(w io.Writer, st *toolapi.Stats) {
	c.heading(w, "Rescues (edits matched only through a fold)")
	var rows [][]string
	for _, r := range st.Rescues {
		rows = append(rows, []string{r.Fold, r.Tool, fmt.Sprint(r.Edits)})
	}
	if len(rows) == 0 {
		fmt.Fprintln(w, "none")
	} else {
		writeTable(w, "FOLD\tTOOL\tEDITS", rows)
	}

	c.heading(w, "Recovery after refusal")
	rec := st.Recovery
	fmt.Fprintf(w, "%d refusals of a change to a path, %d followed by a success on that path in the same session (%s)\n",
		rec.Refused, rec.Recovered, pct(rec.Recovered, rec.Refused))
	fmt.Fprintf(w, "refusals before the success: 1: %d, 2: %d, 3 or more: %d\n", rec.Attempts["1"], rec.Attempts["2"], rec.Attempts["3+"])
	if len(rec.NeverByKind) > 0 {
		var never []string
		for k, n := range rec.NeverByKind {
			never = append(never, fmt.Sprintf("%s %d", k, n))
		}
		sort.Strings(never)
		fmt.Fprintf(w, "never recovered: %s\n", strings.Join(never, ", "))
	}
}

// writeTable writes rows under head, in aligned columns.
func writeTable(w io.Writer, head string, rows [][]string) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, head)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
}

// toolHead and toolRow are the columns of a tool's counts, in the state names of
// vfsctl log.
const toolHead = "TOOL\tCALLS\tCOMMITTED\tFAILED\tROLLED BACK\tUNKNOWN\tPENDING\tDRY RUN"

func toolRow(t toolapi.ToolCount) []string {
	return []string{t.Tool, fmt.Sprint(t.Calls), fmt.Sprint(t.Committed), fmt.Sprint(t.Failed), fmt.Sprint(t.RolledBack),
		fmt.Sprint(t.Unknown), fmt.Sprint(t.Pending), fmt.Sprint(t.DryRun)}
}

// bar is one bar of a chart.
type bar struct {
	Label string
	Value int
	Y     int
	W     int
}

type chart struct {
	Title  string
	Bars   []bar
	Height int
}

func newChart(title string, labels []string, values []int) chart {
	mx := 1
	for _, v := range values {
		mx = max(mx, v)
	}
	c := chart{Title: title, Height: 24*len(values) + 8}
	for i, v := range values {
		c.Bars = append(c.Bars, bar{Label: labels[i], Value: v, Y: 24*i + 4, W: max(1, 420*v/mx)})
	}
	return c
}

// statsPage is parsed when stats --html first needs it, not as every command starts.
var statsPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("stats").Parse(statsHTML))
})

const statsHTML = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"/><title>vfsctl stats</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.1em; margin-top: 1.6em; }
table { border-collapse: collapse; } td, th { padding: 2px 10px; text-align: left; border-bottom: 1px solid #ddd; }
svg text { font: 12px system-ui, sans-serif; } .bar { fill: #4a7bd0; }
</style></head><body>
<h1>What models got wrong</h1>
<p>{{.S.Calls}} calls, {{.S.Failed}} failed.</p>
{{range .Charts}}<h2>{{.Title}}</h2>
<svg xmlns="http://www.w3.org/2000/svg" width="760" height="{{.Height}}" role="img" aria-label="{{.Title}}">
{{range .Bars}}<text x="0" y="{{.Y}}" dy="14">{{.Label}}</text><rect class="bar" x="230" y="{{.Y}}" width="{{.W}}" height="18"/><text x="{{.W}}" y="{{.Y}}" dx="236" dy="14">{{.Value}}</text>
{{end}}</svg>
{{end}}<h2>Calls by tool</h2>
{{template "tools" .Tools}}
<h2>Per session</h2>
<table id="by_session"><tr><th>session</th><th>calls</th><th>failed</th><th>rescued edits</th></tr>
{{range .S.Sessions}}<tr><td>{{.Key}}</td><td>{{.Calls}}</td><td>{{.Failed}}</td><td>{{.Rescued}}</td></tr>
{{end}}</table>
{{if .Operators.Rows}}<h2>Operator calls ({{.Operators.Names}}), not counted above</h2>
{{template "tools" .Operators}}
{{end}}<h2>Failures by kind, with an example each</h2>
<table><tr><th>kind</th><th>count</th><th>example</th></tr>
{{range .S.ByKind}}<tr><td>{{.Kind}}</td><td>{{.Count}}</td><td>call {{.Example.Seq}}: {{.Example.Message}}</td></tr>
{{end}}</table>
<h2>Recovery after refusal</h2>
<p>{{.S.Recovery.Refused}} refused changes; {{.S.Recovery.Recovered}} followed by a success on the same path in the same session.</p>
<h2>Context padding</h2>
<p>{{.S.Padding.Edits}} edits: unchanged lines median {{.S.Padding.LinesP50}}, p90 {{.S.Padding.LinesP90}}; bytes median {{.S.Padding.BytesP50}}, p90 {{.S.Padding.BytesP90}}.</p>
</body></html>
{{define "tools"}}<table id="{{.ID}}"><tr><th>tool</th><th>calls</th><th>committed</th><th>failed</th><th>rolled back</th><th>unknown</th><th>pending</th><th>dry run</th></tr>
{{range .Rows}}<tr><td>{{.Tool}}</td><td>{{.Calls}}</td><td>{{.Committed}}</td><td>{{.Failed}}</td><td>{{.RolledBack}}</td><td>{{.Unknown}}</td><td>{{.Pending}}</td><td>{{.DryRun}}</td></tr>
{{end}}</table>{{end}}`

// writeStatsHTML writes one self-contained page: inline SVG charts, no scripts, no
// fonts or styles from elsewhere.
func writeStatsHTML(w io.Writer, st *toolapi.Stats) error {
	var charts []chart
	var l []string
	var v []int
	for _, k := range st.ByKind {
		l, v = append(l, k.Kind), append(v, k.Count)
	}
	charts = append(charts, newChart("Failures by kind", l, v))
	l, v = nil, nil
	for _, r := range st.Rescues {
		l, v = append(l, r.Fold+" ("+r.Tool+")"), append(v, r.Edits)
	}
	charts = append(charts, newChart("Rescues by fold", l, v))
	l, v = nil, nil
	for _, d := range st.Days {
		l, v = append(l, d.Key), append(v, d.Calls)
	}
	charts = append(charts, newChart("Calls per day", l, v))
	return statsPage().Execute(w, struct {
		S                *toolapi.Stats
		Charts           []chart
		Tools, Operators tools
	}{st, charts, tools{"by_tool", st.ByTool}, tools{"operator_by_tool", st.OperatorByTool}})
}

// commands writes the commands run through vfsctl by how they ended, with the files
// they changed.
func (c *statsCmd) commands(w io.Writer, st *toolapi.Stats) {
	cs := st.Commands
	if cs.Runs == 0 {
		return
	}
	c.heading(w, "Commands (vfsctl exec, run_command) by how they ended")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ENDED\tRUNS\tFILES CHANGED")
	for _, e := range cs.ByExit {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", e.Exit, e.Runs, e.FilesChanged)
	}
	tw.Flush()
	fmt.Fprintf(w, "%s, %s changed; runs by files changed: none %d, 1: %d, 2-10: %d, 11 or more: %d\n",
		plural(cs.Runs, "run"), plural(cs.FilesChanged, "file"), cs.ByFiles["0"], cs.ByFiles["1"], cs.ByFiles["2-10"], cs.ByFiles["11+"])
}

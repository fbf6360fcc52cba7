package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/vfsctl/vfsctl/journal"
)

type exportCmd struct {
	root         string
	since, until string
	wait         time.Duration
}

func (c *exportCmd) Name() string { return "export" }
func (c *exportCmd) Summary() string {
	return "write the journal's records as JSON lines for a warehouse"
}

// ExportSchema names the shape of exported lines; it changes only with a new number.
const ExportSchema = "vfsctl.export/1"

const exportUsage = `Usage: vfsctl export [--since T] [--until T]

Writes the journal's records to stdout as JSON lines, oldest first, one object per
call, in the versioned schema vfsctl.export/1 (see the README), so that the journals of
a fleet of workspaces can be loaded into a warehouse that already exists: DuckDB's
read_json, ClickHouse's JSONEachRow, BigQuery.

Example:
  vfsctl export --since 30d > calls.jsonl
  duckdb -c "SELECT kind, count(*) FROM read_json('calls.jsonl') WHERE state = 'failed' GROUP BY kind ORDER BY 2 DESC"
`

func (c *exportCmd) ParseFlags(args []string) error {
	fs := newFlagSet("export", exportUsage)
	fs.StringVar(&c.root, "root", "", "workspace root (default: the nearest enclosing folder holding .vfsctl/, else the current one)")
	fs.StringVar(&c.since, "since", "", "calls at or after T (2026-12-01, 2026-12-01 05:42, or how long ago: 24h)")
	fs.StringVar(&c.until, "until", "", "calls before T")
	fs.DurationVar(&c.wait, "wait", journal.DefaultWait, "how long to wait while another process uses the journal")
	return fs.parse(args)
}

// exportLine is one call in schema vfsctl.export/1.
type exportLine struct {
	Schema     string           `json:"schema"`
	Seq        uint64           `json:"seq"`
	Time       string           `json:"time"`
	DurationMS float64          `json:"duration_ms"`
	Session    string           `json:"session"`
	Tool       string           `json:"tool"`
	State      string           `json:"state"`
	Kind       *string          `json:"kind"`
	Message    string           `json:"message"`
	DryRun     bool             `json:"dry_run"`
	Args       *string          `json:"args"` // as received; null when kept as a blob
	ArgsSize   int              `json:"args_size"`
	Undo       uint64           `json:"undo"`
	Redo       uint64           `json:"redo"`
	Files      []exportFile     `json:"files"`
	Refusal    *journal.Refusal `json:"refusal"`
	Notes      []string         `json:"notes"`
}

type exportFile struct {
	Path    string         `json:"path"`
	Op      string         `json:"op"`
	Before  string         `json:"before"`
	After   string         `json:"after"`
	Splices int            `json:"splices"`
	Edits   []journal.Edit `json:"edits"`
}

func (c *exportCmd) Run(_ io.Reader, stdout, stderr io.Writer) int {
	var q journal.Query
	var err error
	if q.Since, err = parseWhen(c.since); err != nil {
		fmt.Fprintf(stderr, "vfsctl export: --since: %v\n", err)
		return exitUsage
	}
	if q.Until, err = parseWhen(c.until); err != nil {
		fmt.Fprintf(stderr, "vfsctl export: --until: %v\n", err)
		return exitUsage
	}
	eng, err := openEngine(c.root, c.wait, "vfsctl export")
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl export: %v\n", err)
		return exitUsage
	}
	if !eng.HasJournal() {
		return exitOK
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	err = eng.View(func(t *journal.Tx) error {
		var werr error
		err := t.Each(q, func(r *journal.Record) bool {
			werr = enc.Encode(toExport(r))
			return werr == nil
		})
		if err == nil {
			err = werr
		}
		return err
	})
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl export: %v%s\n", err, waitHint(err))
		return exitRefused
	}
	return exitOK
}

func toExport(r *journal.Record) exportLine {
	l := exportLine{Schema: ExportSchema, Seq: r.Seq, Time: r.Time.UTC().Format(time.RFC3339Nano),
		DurationMS: float64(r.Duration.Microseconds()) / 1000, Session: r.Session, Tool: r.Tool, State: string(r.State),
		Message: r.Message, DryRun: r.DryRun(), ArgsSize: r.ArgsSize, Undo: r.Undo, Redo: r.Redo,
		Refusal: r.Refusal, Notes: r.Notes, Files: []exportFile{}}
	if r.Notes == nil {
		l.Notes = []string{}
	}
	if r.Kind != "" {
		k := r.Kind
		l.Kind = &k
	}
	if r.ArgsBlob == "" {
		a := r.Args
		l.Args = &a
	}
	for _, f := range r.Files {
		ef := exportFile{Path: f.Path, Op: string(f.Op), Before: f.Before, After: f.After, Splices: len(f.Splices), Edits: f.Edits}
		if ef.Edits == nil {
			ef.Edits = []journal.Edit{}
		}
		l.Files = append(l.Files, ef)
	}
	return l
}

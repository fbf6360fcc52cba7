package main

import (
	"fmt"
	"io"

	"github.com/vfsctl/vfsctl/toolapi"
)

type exportCmd struct{ common }

func (c *exportCmd) Name() string { return "export" }
func (c *exportCmd) Summary() string {
	return "write the journal's records as JSON lines for a warehouse"
}

const exportUsage = `Usage: vfsctl export [--since T] [--until T]

Writes the journal's records to stdout as JSON lines, oldest first, one object per
call, in the versioned schema ` + toolapi.ExportSchema + ` (see docs/operators.md), so that the journals of
a fleet of workspaces can be loaded into a warehouse that already exists: DuckDB's
read_json, ClickHouse's JSONEachRow, BigQuery.

A record the journal cannot read (damaged) is left out, and said so on stderr once
the others are written; the exit status is then 1.

Example:
  vfsctl export --since 30d > calls.jsonl
  duckdb -c "SELECT kind, count(*) AS failed FROM read_json('calls.jsonl') WHERE origin = 'model' AND state = 'failed' GROUP BY kind ORDER BY failed DESC, kind"
`

func (c *exportCmd) ParseFlags(args []string) error {
	fs := newFlagSet("export", exportUsage)
	c.declare(fs, flagRoot, flagWait, flagSince, flagUntil)
	return fs.parse(args)
}

func (c *exportCmd) Run(_ io.Reader, stdout, stderr io.Writer) int {
	q := toolapi.Query{SkipDamaged: true} // every readable call, then the exit status says what was left out
	if err := c.window(&q); err != nil {
		fmt.Fprintf(stderr, "vfsctl export: %v\n", err)
		return exitUsage
	}
	eng, err := c.open("vfsctl export")
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl export: %v\n", err)
		return exitUsage
	}
	defer eng.Close()
	if err := eng.Export(q, stdout); err != nil {
		fmt.Fprintf(stderr, "vfsctl export: %v%s\n", err, waitHint(err))
		return exitRefused
	}
	return exitOK
}

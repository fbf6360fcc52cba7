package main

import (
	"fmt"
	"io"

	"github.com/vfsctl/vfsctl/toolapi"
)

type exportCmd struct {
	common
	schema string
}

func (c *exportCmd) Name() string { return "export" }
func (c *exportCmd) Summary() string {
	return "write the journal's records as JSON lines for a warehouse"
}

const exportUsage = `Usage: vfsctl export [--since T] [--until T]
       vfsctl export --schema duckdb|clickhouse

Writes the journal's records to stdout as JSON lines, oldest first, one object per
call, in the versioned schema ` + toolapi.ExportSchema + ` (see docs/operators.md), so that the journals of
a fleet of workspaces can be loaded into a warehouse that already exists: DuckDB's
read_json, ClickHouse's JSONEachRow, BigQuery.

With --schema, prints instead the table of the schema in a warehouse's SQL, every
column's type given, and the command that loads an export into it: a load told the
types never infers them, so a column that is null in every line of one export (turn,
args_raw) or an object of other keys (args) keeps its type from file to file.

A record the journal cannot read (damaged) is left out, and said so on stderr once
the others are written; the exit status is then 1.

Example:
  vfsctl export --since 30d > calls.jsonl
  vfsctl export --schema duckdb > calls.sql
  duckdb calls.db < calls.sql
  duckdb calls.db -c "COPY calls FROM 'calls.jsonl' (FORMAT json)"
  duckdb calls.db -c "SELECT kind, count(*) AS failed FROM calls WHERE origin = 'model' AND state = 'failed' GROUP BY kind ORDER BY failed DESC, kind"
`

func (c *exportCmd) ParseFlags(args []string) error {
	fs := newFlagSet("export", exportUsage)
	c.declare(fs, flagRoot, flagWait, flagSince, flagUntil)
	fs.StringVar(&c.schema, "schema", "", "print the export's table for a warehouse: duckdb or clickhouse")
	return fs.parse(args)
}

func (c *exportCmd) Run(_ io.Reader, stdout, stderr io.Writer) int {
	if c.schema != "" {
		sql, err := toolapi.ExportSchemaSQL(c.schema)
		if err != nil {
			fmt.Fprintf(stderr, "vfsctl export: %v\n", err)
			return exitUsage
		}
		io.WriteString(stdout, sql)
		return exitOK
	}
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
	if !eng.HasJournal() {
		// Said, not an empty stream: a job exporting from the wrong folder should notice.
		fmt.Fprintf(stderr, "vfsctl export: there is no journal in %s yet (the first tool call creates it); nothing was exported\n", eng.Root())
		return exitRefused
	}
	if err := eng.Export(q, stdout); err != nil {
		fmt.Fprintf(stderr, "vfsctl export: %v%s\n", err, waitHint(err))
		return exitRefused
	}
	return exitOK
}

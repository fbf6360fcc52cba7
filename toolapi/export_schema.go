package toolapi

import (
	"fmt"
	"strings"
)

// exportColumn is one column of schema vfsctl.export/2 with its type in each
// warehouse: a load that is told the types never infers them, so a column that holds
// only nulls in one export (turn, args_raw) or an object of other keys (args) keeps
// its type from one file to the next.
type exportColumn struct {
	name, duckdb, clickhouse string
}

const (
	duckEdits = `STRUCT("index" INTEGER, tier VARCHAR, gutter BOOLEAN, folded VARCHAR[], lines INTEGER[][], context_lines INTEGER, context_bytes INTEGER)[]`
	duckFiles = `STRUCT(path VARCHAR, op VARCHAR, before VARCHAR, after VARCHAR, splices INTEGER, edits ` + duckEdits + `)[]`
	duckRef   = `STRUCT(change INTEGER, edit INTEGER, lines INTEGER[], tiers VARCHAR[], closeness DOUBLE, language VARCHAR, "column" INTEGER, node VARCHAR)`
	duckEnts  = `STRUCT(path VARCHAR, before VARCHAR, after VARCHAR, before_target VARCHAR, after_target VARCHAR, before_mode UINTEGER, after_mode UINTEGER)[]`
	chEdits   = `Array(Tuple(index Int32, tier String, gutter Bool, folded Array(String), lines Array(Array(Int32)), context_lines Int32, context_bytes Int32))`
	chFiles   = `Array(Tuple(path String, op String, before String, after String, splices Int32, edits ` + chEdits + `))`
	chEnts    = `Array(Tuple(path String, before String, after String, before_target String, after_target String, before_mode UInt32, after_mode UInt32))`
	chRef     = `Tuple(change Int32, edit Int32, lines Array(Int32), tiers Array(String), closeness Float64, language String, column Int32, node String)`
)

// exportColumns are the columns of an export line, in its order.
var exportColumns = []exportColumn{
	{"schema", "VARCHAR", "String"},
	{"seq", "UBIGINT", "UInt64"},
	{"time", "TIMESTAMP", "DateTime64(6, 'UTC')"},
	{"duration_ms", "DOUBLE", "Float64"},
	{"session", "VARCHAR", "String"},
	{"tool", "VARCHAR", "String"},
	{"origin", "VARCHAR", "String"},
	{"state", "VARCHAR", "String"},
	{"kind", "VARCHAR", "Nullable(String)"},
	{"message", "VARCHAR", "String"},
	{"dry_run", "BOOLEAN", "Bool"},
	{"args", "JSON", "Nullable(String)"},
	{"args_raw", "VARCHAR", "Nullable(String)"},
	{"args_size", "BIGINT", "Int64"},
	{"undo", "UBIGINT", "UInt64"},
	{"redo", "UBIGINT", "UInt64"},
	{"turn", "VARCHAR", "Nullable(String)"},
	{"reverts", "UBIGINT[]", "Array(UInt64)"},
	{"exit", "VARCHAR", "Nullable(String)"},
	{"files", duckFiles, chFiles},
	{"entries", duckEnts, chEnts},
	{"refusal", duckRef, chRef},
	{"notes", "VARCHAR[]", "Array(String)"},
	{"paths", "VARCHAR[]", "Array(String)"},
}

// ExportSchemaDialects are the warehouses ExportSchemaSQL writes for.
var ExportSchemaDialects = []string{"duckdb", "clickhouse"}

// ExportSchemaSQL is the table of schema vfsctl.export/2 in a warehouse's SQL (duckdb
// or clickhouse): a CREATE TABLE calls with every column's type, and in a comment the
// command that loads an export into it.
func ExportSchemaSQL(dialect string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "-- The table of %s, vfsctl export's lines.\n", ExportSchema)
	var cols []string
	switch dialect {
	case "duckdb":
		b.WriteString("-- Load: COPY calls FROM 'calls.jsonl' (FORMAT json);\n")
		for _, c := range exportColumns {
			cols = append(cols, fmt.Sprintf("  %q %s", c.name, c.duckdb))
		}
		fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS calls (\n%s\n);\n", strings.Join(cols, ",\n"))
	case "clickhouse":
		b.WriteString("-- Load: clickhouse-client --date_time_input_format=best_effort --input_format_json_read_objects_as_strings=1 --query 'INSERT INTO calls FORMAT JSONEachRow' < calls.jsonl\n")
		for _, c := range exportColumns {
			cols = append(cols, fmt.Sprintf("  `%s` %s", c.name, c.clickhouse))
		}
		fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS calls (\n%s\n) ENGINE = MergeTree ORDER BY (time, seq);\n", strings.Join(cols, ",\n"))
	default:
		return "", fmt.Errorf("no schema for %q: use %s", dialect, strings.Join(ExportSchemaDialects, " or "))
	}
	return b.String(), nil
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// duckdbEnv names a folder where `npm install --prefix FOLDER @duckdb/node-api` ran
// (.ci/run installs it); without it the DuckDB test is skipped.
const duckdbEnv = "VFSCTL_DUCKDB"

// readmeQueries are the DuckDB queries of docs/operators.md's section "What models
// get wrong": the lines of its sql block that are not comments, one query a line.
func readmeQueries(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "operators.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	s = s[strings.Index(s, "## What models get wrong"):]
	_, block, ok := strings.Cut(s, "```sql\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 {
		t.Fatal("docs/operators.md: the section \"What models get wrong\" has no ```sql block")
	}
	var qs []string
	for _, l := range strings.Split(block, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "--") {
			qs = append(qs, l)
		}
	}
	return qs
}

// The first query of docs/operators.md is the one export --help shows.
func TestExportHelpQueryIsTheReadmes(t *testing.T) {
	q := strings.TrimSuffix(readmeQueries(t)[0], ";")
	if !strings.Contains(exportUsage, `duckdb calls.db -c "`+q+`"`) {
		t.Errorf("export --help shows a DuckDB query other than the first of docs/operators.md:\n%s", q)
	}
}

// duckdbScript runs each query of its stdin (a JSON list) on a DuckDB in memory and
// prints, as JSON, the column types of the export and each query's rows.
const duckdbScript = `
const { DuckDBInstance } = require('module').createRequire(process.argv[2] + '/')('@duckdb/node-api');
(async () => {
  const queries = JSON.parse(require('fs').readFileSync(0, 'utf8'));
  const c = await (await DuckDBInstance.create(':memory:')).connect();
  await c.run(require('fs').readFileSync('calls.sql', 'utf8'));
  await c.run("COPY calls FROM 'calls.jsonl' (FORMAT json)");
  const types = (await c.runAndReadAll("DESCRIBE calls")).getRowObjectsJson();
  const results = [];
  for (const q of queries) results.push((await c.runAndReadAll(q)).getRowObjectsJson());
  console.log(JSON.stringify({ types, results }));
})().catch(e => { console.error(e.message); process.exit(1); });
`

// TestExportInDuckDB loads an export into a real DuckDB and runs the queries of
// docs/operators.md: time is a timestamp, args an object to look inside, and the figures are
// those of the calls sent.
func TestExportInDuckDB(t *testing.T) {
	prefix := os.Getenv(duckdbEnv)
	if prefix == "" {
		t.Skipf("DuckDB is absent: set %s to a folder where `npm install --prefix FOLDER @duckdb/node-api` ran (.ci/run does) to run this test", duckdbEnv)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("%s is set but node is not on PATH: install Node.js, or unset %s", duckdbEnv, duckdbEnv)
	}
	if _, err := os.Stat(filepath.Join(prefix, "node_modules", "@duckdb", "node-api")); err != nil {
		t.Fatalf("%s=%s holds no @duckdb/node-api: run npm install --prefix %s @duckdb/node-api", duckdbEnv, prefix, prefix)
	}
	queries := readmeQueries(t)
	if len(queries) != 3 {
		t.Fatalf("docs/operators.md: %d DuckDB queries, this test checks 3: update both", len(queries))
	}

	// Not a documented query: the folders create_directory made, from their column.
	queries = append(queries, "SELECT e.path AS path, e.after AS after, e.after_mode AS mode FROM (SELECT unnest(entries) AS e FROM calls) ORDER BY path")

	dir, start, end := exportForDuckDB(t)
	got := runDuckDB(t, node, prefix, dir, queries)
	checkDuckDBTypes(t, got.Types)

	rows := func(i int, cols ...string) string {
		var s []string
		for _, r := range got.Results[i] {
			var f []string
			for _, c := range cols {
				f = append(f, fmt.Sprint(r[c]))
			}
			s = append(s, strings.Join(f, " "))
		}
		return strings.Join(s, "; ")
	}
	// The calls above: two oldTexts not found in a.txt, a missing file, a line that is
	// not JSON, two matches in list.txt; the operator's refused undo is not counted.
	if g, w := rows(0, "kind", "failed"), "text_not_found 2; file_not_found 1; invalid_input 1; multiple_matches 1"; g != w {
		t.Errorf("failures by kind: %s\nwant %s", g, w)
	}
	if g, w := rows(1, "path", "failed"), "a.txt 2; list.txt 1; missing.txt 1"; g != w {
		t.Errorf("failures by path: %s\nwant %s", g, w)
	}
	byTool := map[string][2]int{}
	for _, r := range got.Results[2] {
		day, err := time.Parse("2006-01-02", fmt.Sprint(r["day"]))
		if err != nil || day.After(end) || day.Before(start.Truncate(24*time.Hour)) {
			t.Errorf("day %v is not the day the calls were made (%s)", r["day"], start.Format("2006-01-02"))
		}
		var calls, failed int
		fmt.Sscan(fmt.Sprint(r["calls"]), &calls)
		fmt.Sscan(fmt.Sprint(r["failed"]), &failed)
		n := byTool[fmt.Sprint(r["tool"])]
		byTool[fmt.Sprint(r["tool"])] = [2]int{n[0] + calls, n[1] + failed}
	}
	var modes []string
	for _, p := range []string{"d", "d/e"} {
		fi, err := os.Stat(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		modes = append(modes, fmt.Sprintf("%s dir %d", p, fi.Mode().Perm()))
	}
	if g, w := rows(3, "path", "after", "mode"), strings.Join(modes, "; "); g != w {
		t.Errorf("folders made, from entries: %s\nwant %s", g, w)
	}
	want := map[string][2]int{"edit_file": {5, 3}, "read_file": {1, 1}, "unknown": {1, 1}, "apply_changes": {1, 0}, "create_directory": {1, 0}, "undo": {2, 1}}
	if fmt.Sprint(byTool) != fmt.Sprint(want) {
		t.Errorf("calls and failures per tool: %v, want %v", byTool, want)
	}
}

// exportForDuckDB makes a workspace, runs the calls whose export the documented queries
// read, and writes the export to calls.jsonl in it, between start and end.
func exportForDuckDB(t *testing.T) (dir string, start, end time.Time) {
	dir = t.TempDir()
	for name, data := range map[string]string{"a.txt": "one\n", "list.txt": "item\nitem\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	start = time.Now().UTC()
	calls := strings.Join([]string{
		`{"tool": "edit_file", "args": {"path": "a.txt", "edits": [{"oldText": "one", "newText": "two"}]}}`,
		`{"tool": "edit_file", "args": {"path": "a.txt", "edits": [{"oldText": "zzz", "newText": "y"}]}}`,
		`{"tool": "read_file", "args": {"path": "missing.txt"}}`,
		`not json`,
		`{"tool": "edit_file", "args": {"path": "list.txt", "edits": [{"oldText": "item", "newText": "x"}]}}`,
		`{"tool": "edit_file", "args": {"path": "a.txt", "edits": "[{\"oldText\": \"zzz\", \"newText\": \"y\"}]"}}`,
		`{"tool": "apply_changes", "args": {"changes": [{"path": "c.txt", "create": "c\n"}]}}`,
		`{"tool": "edit_file", "args": {"path": "a.txt", "edits": [{"oldText": "two", "newText": "2"}], "dryRun": true}}`,
		`{"tool": "create_directory", "args": {"path": "d/e"}}`,
	}, "\n")
	var out, errb bytes.Buffer
	run([]string{"call", "--root", dir, "--session", "a"}, strings.NewReader(calls), &out, &errb)
	run([]string{"undo", "--root", dir, "7"}, nil, &out, &errb)  // the operator's, committed
	run([]string{"undo", "--root", dir, "99"}, nil, &out, &errb) // the operator's, refused
	out.Reset()
	if code := run([]string{"export", "--root", dir}, nil, &out, &errb); code != exitOK {
		t.Fatalf("export: exit %d: %s", code, errb.String())
	}
	end = time.Now().UTC()
	if err := os.WriteFile(filepath.Join(dir, "calls.jsonl"), out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := run([]string{"export", "--schema", "duckdb"}, nil, &out, &errb); code != exitOK {
		t.Fatalf("export --schema duckdb: exit %d: %s", code, errb.String())
	}
	if err := os.WriteFile(filepath.Join(dir, "calls.sql"), out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, start, end
}

// duckdbOutput is what the DuckDB script prints: the export's column types, and each
// query's rows.
type duckdbOutput struct {
	Types   []map[string]any
	Results [][]map[string]any
}

// runDuckDB runs queries on dir's calls.jsonl in DuckDB, through node.
func runDuckDB(t *testing.T, node, prefix, dir string, queries []string) duckdbOutput {
	script := filepath.Join(t.TempDir(), "duckdb.cjs")
	if err := os.WriteFile(script, []byte(duckdbScript), 0o644); err != nil {
		t.Fatal(err)
	}
	qjson, _ := json.Marshal(queries)
	cmd := exec.Command(node, script, prefix)
	cmd.Dir, cmd.Stdin = dir, bytes.NewReader(qjson)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("DuckDB: %v: %s", err, stderr.String())
	}
	var got duckdbOutput
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("DuckDB's output: %v: %s", err, stdout.String())
	}
	return got
}

// checkDuckDBTypes checks that DuckDB reads the export's columns as the types a
// warehouse needs.
func checkDuckDBTypes(t *testing.T, columns []map[string]any) {
	types := map[string]string{}
	for _, c := range columns {
		types[fmt.Sprint(c["column_name"])] = fmt.Sprint(c["column_type"])
	}
	if types["time"] != "TIMESTAMP" {
		t.Errorf("DuckDB reads time as %s, want TIMESTAMP", types["time"])
	}
	// The types the schema gives, though no line of this export has a turn or a
	// rewind's reverts (read_json alone inferred JSON for them).
	for col, want := range map[string]string{"args": "JSON", "turn": "VARCHAR", "args_raw": "VARCHAR", "reverts": "UBIGINT[]", "paths": "VARCHAR[]", "duration_ms": "DOUBLE"} {
		if types[col] != want {
			t.Errorf("DuckDB reads %s as %s, want %s", col, types[col], want)
		}
	}
	if r := types["refusal"]; !strings.Contains(r, "closeness DOUBLE") {
		t.Errorf("DuckDB reads refusal as %s, want closeness a DOUBLE", r)
	}
}

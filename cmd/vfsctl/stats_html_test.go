package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// htmlTables reads the tables of a page that have an id: id -> rows -> cells, the
// header row left out.
func htmlTables(t *testing.T, page []byte) map[string][][]string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(page))
	dec.Strict, dec.AutoClose, dec.Entity = true, xml.HTMLAutoClose, xml.HTMLEntity
	tables := map[string][][]string{}
	var id string
	var cell *strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return tables
		}
		if err != nil {
			t.Fatalf("the page does not parse: %v", err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			switch x.Name.Local {
			case "table":
				id = ""
				for _, a := range x.Attr {
					if a.Name.Local == "id" {
						id = a.Value
						tables[id] = [][]string{}
					}
				}
			case "tr":
				if id != "" {
					tables[id] = append(tables[id], nil)
				}
			case "td":
				cell = &strings.Builder{}
			}
		case xml.CharData:
			if cell != nil {
				cell.Write(x)
			}
		case xml.EndElement:
			switch x.Name.Local {
			case "td":
				if id != "" {
					rows := tables[id]
					rows[len(rows)-1] = append(rows[len(rows)-1], cell.String())
				}
				cell = nil
			case "table":
				if id != "" && len(tables[id]) > 0 && tables[id][0] == nil {
					tables[id] = tables[id][1:] // the header row has no td
				}
				id = ""
			}
		}
	}
}

// The stats page has per-tool and per-session tables (and the operator's calls apart)
// with the figures of stats --json.
func TestStatsHTMLTables(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o644)
	calls := map[string]string{
		"a": `{"tool": "edit_file", "args": {"path": "a.txt", "edits": [{"oldText": "one", "newText": "1"}]}}
{"tool": "edit_file", "args": {"path": "a.txt", "edits": [{"oldText": "nope", "newText": "1"}]}}
{"tool": "read_file", "args": {"path": "a.txt"}}`,
		"b": `{"tool": "edit_file", "args": {"path": "a.txt", "edits": [{"oldText": "two", "newText": "2"}], "dryRun": true}}
{"tool": "read_file", "args": {"path": "gone.txt"}}`,
	}
	var out, errb bytes.Buffer
	for _, s := range []string{"a", "b"} {
		run([]string{"call", "--root", dir, "--session", s}, strings.NewReader(calls[s]), &out, &errb)
	}
	run([]string{"undo", "--root", dir, "1"}, nil, &out, &errb)
	run([]string{"undo", "--root", dir, "99"}, nil, &out, &errb)

	page := filepath.Join(dir, "stats.html")
	out.Reset()
	if code := run([]string{"stats", "--root", dir, "--json", "--html", page}, nil, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var st map[string]any
	if err := json.Unmarshal(out.Bytes(), &st); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(page)
	tables := htmlTables(t, data)
	toolCols := []string{"tool", "calls", "committed", "failed", "rolled_back", "unknown", "pending", "dry_run"}
	for _, c := range []struct {
		table string
		cols  []string
		rows  int
	}{{"by_tool", toolCols, 2}, {"by_session", []string{"key", "calls", "failed", "rescued_edits"}, 2}, {"operator_by_tool", toolCols, 1}} {
		list, _ := st[c.table].([]any)
		var want [][]string
		for _, o := range list {
			var row []string
			for _, col := range c.cols {
				row = append(row, fmt.Sprint(o.(map[string]any)[col]))
			}
			want = append(want, row)
		}
		if len(want) != c.rows {
			t.Errorf("stats --json has %d rows in %s, want %d", len(want), c.table, c.rows)
		}
		if got := tables[c.table]; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("the page's table %s:\n%v\nstats --json:\n%v", c.table, got, want)
		}
	}
}

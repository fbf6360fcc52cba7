package toolapi

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/journal"
)

// The schema export --schema prints has a column for every field of an export line,
// in its order: a field added to the line without its column fails here.
func TestExportSchemaColumnsAreTheLinesFields(t *testing.T) {
	b, err := json.Marshal(toExport(&journal.Record{Seq: 1}, nil))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.Token() // {
	var keys []string
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	var cols []string
	for _, c := range exportColumns {
		cols = append(cols, c.name)
	}
	if strings.Join(keys, " ") != strings.Join(cols, " ") {
		t.Errorf("export line fields:\n%s\nschema columns:\n%s", strings.Join(keys, " "), strings.Join(cols, " "))
	}
	for _, d := range ExportSchemaDialects {
		if _, err := ExportSchemaSQL(d); err != nil {
			t.Error(err)
		}
	}
}

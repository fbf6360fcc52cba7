package toolapi

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

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

// A call whose arguments hold bytes that are not UTF-8 (a model's, or a hostile
// line's) exports as a line of valid UTF-8 JSON, each such byte as U+FFFD, as the
// call itself read it.
func TestExportLineIsUTF8(t *testing.T) {
	args := []byte("{\"path\":\"a\xffb.txt\",\"edits\":[{\"oldText\":\"hello\",\"newText\":\"H\xff\xfeY <b>\"}]}")
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // as Export writes its lines
	enc.SetEscapeHTML(false)
	if err := enc.Encode(toExport(&journal.Record{Seq: 1, Tool: "edit_file"}, args)); err != nil {
		t.Fatal(err)
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if !utf8.Valid(b) || !json.Valid(b) {
		t.Fatalf("export line is not valid UTF-8 JSON: %q", b)
	}
	var l struct {
		Args struct {
			Path  string
			Edits []struct{ NewText string }
		}
	}
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatal(err)
	}
	if l.Args.Path != "a\uFFFDb.txt" || len(l.Args.Edits) != 1 || l.Args.Edits[0].NewText != "H\uFFFD\uFFFDY <b>" {
		t.Errorf("args read back as %+v", l.Args)
	}
	if bytes.Contains(b, []byte(`\u003c`)) {
		t.Errorf("args escaped for HTML: %s", b)
	}
}

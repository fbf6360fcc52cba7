package toolapi_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/toolapi"
)

// The reply, the journal record (what show prints) and stats agree on what folding
// rescued an edit. LF sent for a CRLF file is no fold: read_file shows no line
// endings, so the model could not have sent anything else; the reply says nothing,
// the record says exact, stats counts no rescue. A BOM copied at the start of
// oldText is one fold, said in the reply and counted once (not also as a zero-width
// character).
func TestFoldNotesAgree(t *testing.T) {
	ws := testutil.Workspace(t, map[string]string{
		"cr.txt":  "a = 1\r\nb = 2\r\n",
		"bom.ini": "\ufeffkey=1\r\nx=2\r\n",
	})
	eng, err := toolapi.Open(ws, toolapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	r := call(t, eng, "edit_file", edit("cr.txt", "a = 1\nb = 2", "a = 1\nb = 3"))
	if !r.OK || strings.Contains(r.Text, "folding") {
		t.Fatalf("CRLF file, LF oldText: %v %s", r.OK, r.Text)
	}
	diskIs(t, ws, "cr.txt", "a = 1\r\nb = 3\r\n")
	r = call(t, eng, "edit_file", edit("bom.ini", "\ufeffkey=1\nx=2", "key=1\nx=3"))
	if !r.OK || !strings.Contains(r.Text, "matched after folding BOM;") {
		t.Errorf("BOM in oldText: %v %s", r.OK, r.Text)
	}
	diskIs(t, ws, "bom.ini", "\ufeffkey=1\r\nx=3\r\n")

	recs, err := eng.Log(toolapi.Query{})
	if err != nil {
		t.Fatal(err)
	}
	folded := map[string][]string{}
	for _, rec := range recs {
		for _, f := range rec.Files {
			for _, e := range f.Edits {
				folded[f.Path] = append(folded[f.Path], e.Tier+" "+strings.Join(e.Folded, ","))
			}
		}
	}
	if want := map[string][]string{"cr.txt": {"exact "}, "bom.ini": {"typography BOM"}}; !reflect.DeepEqual(folded, want) {
		t.Errorf("journaled matches %v, want %v", folded, want)
	}
	st, err := eng.Stats(toolapi.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []journal.Rescue{{Fold: "BOM", Tool: "edit_file", Edits: 1}}; !reflect.DeepEqual(st.Rescues, want) {
		t.Errorf("rescues %+v, want %+v", st.Rescues, want)
	}
}

func diskIs(t *testing.T, dir, name, want string) {
	t.Helper()
	if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != want {
		t.Fatalf("%s is %q (%v), want %q", name, b, err, want)
	}
}

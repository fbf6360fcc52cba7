package toolapi

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/journal"
)

// The arguments of a call over the size limit, cut short, still give the members
// they hold whole: at every cut, exactly the members whose value ends before it, as
// a decoder reads them in the whole text.
func TestPrefixFieldsAreTheMembersWholeBeforeTheCut(t *testing.T) {
	raw := []byte(`{ "path" : "a.txt", "n": 12, "e\u0064its": [{"old_string": "a\"}", "new_string": "b"}], "x": {"y": [1, "]"]}, "t": true , "z": null}`)
	// The oracle: each member's end, as encoding/json's decoder finds it.
	type member struct {
		key string
		end int
		val json.RawMessage
	}
	var members []member
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		members = append(members, member{k.(string), int(dec.InputOffset()), v})
	}
	for cut := 0; cut <= len(raw); cut++ {
		got := prefixFields(raw[:cut])
		want := 0
		for _, m := range members {
			// Whole once a byte after it is read (a number is not known whole before).
			if cut > m.end || cut == len(raw) {
				want++
				if string(got[m.key]) != string(m.val) {
					t.Fatalf("cut at %d: %s = %s; want %s", cut, m.key, got[m.key], m.val)
				}
			}
		}
		if len(got) != want {
			t.Fatalf("cut at %d: %d members %v; want %d", cut, len(got), got, want)
		}
	}
}

// A call refused for its size before it was read is found by the paths its cut
// arguments give, but not by a path the cut shortened: that path was never named.
func TestRecordCutNamesThePathsItsArgumentsGive(t *testing.T) {
	a, _ := newAPI(t, nil)
	long := strings.Repeat("d/", 400) + "f.txt"
	tooLarge := NewError(TooLarge, "too large")
	a.RecordCut(context.Background(), "s", EditFile, []byte(`{"path":"a.txt","edits":[{"old_string":"x","new_str`), 1<<30, tooLarge)
	c := NewArgsCutter(1 << 20)
	c.Write([]byte(`{"path":"` + long + `","content":"x"}`))
	a.RecordCut(context.Background(), "s", CreateFile, c.Bytes(), 1<<30, tooLarge)
	var kept struct{ Path string }
	if json.Unmarshal(c.Bytes(), &kept) != nil || !strings.Contains(kept.Path, "[cut: ") {
		t.Fatalf("the cut path: %q", kept.Path)
	}
	a.eng.View(func(tx *journal.Tx) error {
		if recs, _ := tx.Find(journal.Query{Path: "a.txt"}); len(recs) != 1 || recs[0].Tool != EditFile {
			t.Errorf("journal by path a.txt: %d records", len(recs))
		}
		for _, p := range []string{long, kept.Path} {
			if recs, _ := tx.Find(journal.Query{Path: p}); len(recs) != 0 {
				t.Errorf("journal by a path the cut shortened: %d records", len(recs))
			}
		}
		return nil
	})
}

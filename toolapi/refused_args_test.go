package toolapi

import (
	"context"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/journal"
)

// storedArgs is what the journal keeps of each call's arguments, oldest first.
func storedArgs(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	viewJournal(t, dir, func(tx *journal.Tx) error {
		recs, err := tx.Find(journal.Query{})
		for i := len(recs) - 1; i >= 0 && err == nil; i-- {
			args := []byte(recs[i].Args)
			if recs[i].ArgsBlob != "" {
				args, err = tx.Blob(recs[i].ArgsBlob)
			}
			out = append(out, string(args))
		}
		return err
	})
	return out
}

// A call refused for carrying more than a file may hold is journaled, but with its
// long strings cut: the record stays small whatever was sent, and says how much came.
// What fits the limit is written, and its arguments kept byte for byte.
func TestRefusedOverLimitArgsKeptCut(t *testing.T) {
	const limit = 1 << 20
	dir := testutil.Workspace(t, map[string]string{"a.txt": "a\n"})
	e, err := Open(dir, Options{MaxFileSize: limit})
	if err != nil {
		t.Fatal(err)
	}
	// Escapes, a quote and a character of several bytes, so that a cut can fall in one.
	text := func(n int) string {
		unit := "line \"é\" one\n"
		s := strings.Repeat(unit, n/len(unit)+1)
		return s[:n-2] + "z\n"
	}
	over, _ := json.Marshal(map[string]any{"path": "big.txt", "content": text(limit + 1)})
	under, _ := json.Marshal(map[string]any{"path": "fits.txt", "content": text(limit)})
	r := e.Call(context.Background(), "s", CreateFile, over)
	if r.OK || kindOf(r) != "too_large" {
		t.Fatalf("over the limit: ok %v, %s: %.200s", r.OK, kindOf(r), r.Text)
	}
	if r := e.Call(context.Background(), "s", CreateFile, under); !r.OK {
		t.Fatalf("at the limit: %.200s", r.Text)
	}
	e.Close()
	if got := testutil.ReadFile(t, filepath.Join(dir, "fits.txt")); got != text(limit) {
		t.Errorf("fits.txt is %d bytes, want the %d sent", len(got), limit)
	}
	if _, err := os.Lstat(filepath.Join(dir, "big.txt")); !os.IsNotExist(err) {
		t.Errorf("big.txt was refused, but: %v", err)
	}

	kept := storedArgs(t, dir)
	if len(kept) != 2 {
		t.Fatalf("%d records, want 2", len(kept))
	}
	if len(kept[0]) > 64<<10 {
		t.Errorf("the refused call's record keeps %d bytes of its %d bytes of arguments", len(kept[0]), len(over))
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(kept[0]), &m); err != nil || m["path"] != "big.txt" ||
		!strings.HasPrefix(m["content"], "line \"é\" one\n") || !strings.Contains(m["content"], "[cut: ") {
		t.Errorf("the refused call's kept arguments (%v) are not its path and the start of its content, marked cut: %.300s", err, kept[0])
	}
	if kept[1] != string(under) {
		t.Errorf("the written call's arguments were not kept whole: %d bytes of %d", len(kept[1]), len(under))
	}

	// A replay cannot run the cut arguments, and says so rather than report a change.
	e, err = Open(dir, Options{MaxFileSize: limit})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	rp, err := e.Replayer()
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close() // it holds the journal, which Windows does not let the test remove
	res, err := rp.Replay(1)
	if err != nil || res.Replayable || !strings.Contains(res.Why, "keeps only their start") {
		t.Errorf("replay of the refused call: %v, %+v", err, res)
	}
}

// Fields splits an object as json.Unmarshal into a map of raw values does.
func TestFieldsAsUnmarshal(t *testing.T) {
	for _, in := range []string{
		`{}`,
		` { "a" : 1 , "b":[1, {"c": "}]"}], "d": "x\"y\\", "e": null, "f": true, "g": -1.5e3 } `,
		`{"a": 1, "a": {"k": 2}}`,
		`{"\u0070ath": "p", "tab\tkey": 1, "é": "ü"}`,
		"{\"bad\xffkey\": 1}",
		`{"nested": {"a": [[], {}, "[{"]}, "s": "\\"}`,
	} {
		var want map[string]json.RawMessage
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		got := Fields([]byte(in))
		if len(got) != len(want) {
			t.Errorf("%s: %d fields, want %d", in, len(got), len(want))
		}
		for k, v := range want {
			if string(got[k]) != string(v) {
				t.Errorf("%s: field %q is %s, want %s", in, k, got[k], v)
			}
		}
	}
}

// Fields and items split random valid JSON as json.Unmarshal does: objects and arrays
// nested up to four deep, strings with escapes, quotes, brackets and non-ASCII, numbers
// and literals, with random space between tokens. The oracle is encoding/json.
func TestFieldsAsUnmarshalRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	strs := []string{"", "a", `"`, `\`, "}]", "[{", "é", "\u2028", "tab\t", "x\"y", "\x00", "😀"}
	var value func(d int) string
	sp := func() string { return []string{"", " ", "\n", "\t ", "\r\n"}[rng.Intn(5)] }
	str := func() string {
		b, _ := json.Marshal(strs[rng.Intn(len(strs))] + strs[rng.Intn(len(strs))])
		return string(b)
	}
	value = func(d int) string {
		switch k := rng.Intn(7); {
		case k == 0 && d < 4:
			var parts []string
			for range rng.Intn(4) {
				parts = append(parts, sp()+str()+sp()+":"+sp()+value(d+1)+sp())
			}
			return "{" + strings.Join(parts, ",") + sp() + "}"
		case k == 1 && d < 4:
			var parts []string
			for range rng.Intn(4) {
				parts = append(parts, sp()+value(d+1)+sp())
			}
			return "[" + strings.Join(parts, ",") + sp() + "]"
		case k == 2:
			return []string{"true", "false", "null", "0", "-1.5e3", "12"}[rng.Intn(6)]
		default:
			return str()
		}
	}
	for range 3000 {
		var parts []string
		for range rng.Intn(5) {
			parts = append(parts, sp()+str()+sp()+":"+sp()+value(0)+sp())
		}
		in := sp() + "{" + strings.Join(parts, ",") + sp() + "}" + sp()
		var want map[string]json.RawMessage
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		got := Fields([]byte(in))
		if len(got) != len(want) {
			t.Fatalf("%q: %d fields, want %d", in, len(got), len(want))
		}
		for k, v := range want {
			if string(got[k]) != string(v) {
				t.Fatalf("%q: field %q is %s, want %s", in, k, got[k], v)
			}
			if len(v) > 0 && v[0] == '[' {
				var wantItems []json.RawMessage
				json.Unmarshal(v, &wantItems)
				gotItems := items(got[k])
				if len(gotItems) != len(wantItems) {
					t.Fatalf("%s: %d items, want %d", v, len(gotItems), len(wantItems))
				}
				for i := range wantItems {
					if string(gotItems[i]) != string(wantItems[i]) {
						t.Fatalf("%s: item %d is %s, want %s", v, i, gotItems[i], wantItems[i])
					}
				}
			}
		}
	}
}

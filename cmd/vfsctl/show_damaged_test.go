package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// A diff the journal cannot render (its versions removed by hand, the file changed
// outside) is not passed off
// as a diff: show --json leaves diff out and says why in diff_error; show's text says
// it where the diff would be.
func TestShowDiffOfADamagedJournal(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\nbeta\ngamma\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	calls := `{"tool":"edit_file","args":{"path":"a.txt","edits":[{"oldText":"beta","newText":"BETA"}]}}
{"tool":"edit_file","args":{"path":"a.txt","edits":[{"oldText":"gamma","newText":"GAMMA"}]}}
`
	var out, errb bytes.Buffer
	if code := run([]string{"call", "--root", dir}, strings.NewReader(calls), &out, &errb); code != exitOK {
		t.Fatalf("calls: exit %d: %s%s", code, out.String(), errb.String())
	}
	show := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(append([]string{"show", "--root", dir}, args...), nil, &out, &errb); code != exitOK {
			t.Fatalf("show %v: exit %d: %s", args, code, errb.String())
		}
		return out.String()
	}
	if s := show("2"); !strings.Contains(s, "+GAMMA\n") {
		t.Fatalf("before the damage, show prints no diff:\n%s", s)
	}

	changeJournal(t, dir, nil, func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("blobs"))
		var keys [][]byte
		b.ForEach(func(k, _ []byte) error { keys = append(keys, append([]byte(nil), k...)); return nil })
		for _, k := range keys {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		if len(keys) == 0 {
			t.Error("the journal kept no blob to remove")
		}
		return nil
	})
	// Nor does the file on disk hold a version the journal knows.
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("changed outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	var rec struct {
		Files []map[string]any `json:"files"`
	}
	if err := json.Unmarshal([]byte(show("2", "--json")), &rec); err != nil || len(rec.Files) != 1 {
		t.Fatalf("show --json: %v, %d files", err, len(rec.Files))
	}
	f := rec.Files[0]
	if _, ok := f["diff"]; ok {
		t.Errorf("show --json gives a diff it cannot render: %q", f["diff"])
	}
	if e, _ := f["diff_error"].(string); !strings.Contains(e, "cannot rebuild a.txt") {
		t.Errorf("show --json's diff_error is %q", f["diff_error"])
	}
	if s := show("2"); !strings.Contains(s, "(the diff cannot be shown: the journal cannot rebuild a.txt") {
		t.Errorf("show does not say why the diff is missing:\n%s", s)
	}
}

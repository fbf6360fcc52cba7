package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// With a folder where .git/info/exclude goes, every exec said that its rules were
// not applied, and a checkpoint that found nothing changed said only "Nothing changed
// outside vfsctl.": the note rode on a record, and none was written. The checkpoint
// says it now, in its text and in --json's notes, each time.
func TestCheckpointSaysUnusedExcludeWhenNothingChanged(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".git", "info", "exclude"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	note := ".git/info/exclude is a folder; its rules were not applied, so what it lists is not left out"
	for i, first := range []string{"The workspace's first snapshot was taken; nothing to journal.", "Nothing changed outside vfsctl.", "Nothing changed outside vfsctl."} {
		code, out, errb := cliIn(t, dir, "", "checkpoint", "--root", dir)
		if want := first + "\nnote: " + note + "\n"; code != exitOK || out != want {
			t.Errorf("checkpoint %d: exit %d, %q %q; want %q", i+1, code, out, errb, want)
		}
	}
	code, out, errb := cliIn(t, dir, "", "checkpoint", "--root", dir, "--json")
	var r struct {
		Txn   uint64   `json:"txn"`
		Notes []string `json:"notes"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != exitOK || r.Txn != 0 || !slices.Equal(r.Notes, []string{note}) {
		t.Errorf("checkpoint --json: exit %d, %q %q; want txn 0 and notes [%q]", code, out, errb, note)
	}
}

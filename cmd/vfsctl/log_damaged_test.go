package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// One damaged record does not hide the others: log and export list every call the
// journal can still read, say on stderr which were left out, and exit 1. Log used to
// print nothing at all, and export stopped at the damaged record.
func TestLogAndExportPastADamagedRecord(t *testing.T) {
	dir := t.TempDir()
	var calls strings.Builder
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("alpha\nbeta\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		calls.WriteString(`{"tool":"edit_file","args":{"path":"` + name + `","edits":[{"oldText":"beta","newText":"BETA"}]}}` + "\n")
	}
	var out, errb bytes.Buffer
	if code := run([]string{"call", "--root", dir}, strings.NewReader(calls.String()), &out, &errb); code != exitOK {
		t.Fatalf("calls: exit %d: %s%s", code, out.String(), errb.String())
	}
	// Record 2 is overwritten with bytes that decode as nothing.
	changeJournal(t, dir, nil, func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("records")).Put([]byte{0, 0, 0, 0, 0, 0, 0, 2}, []byte("garbage\x00\x01\x02"))
	})
	seqs := func(cmd string, stdout string) []int {
		var got []int
		for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
			var r struct{ Seq int }
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("%s: a line that is not JSON: %q", cmd, line)
			}
			got = append(got, r.Seq)
		}
		return got
	}
	for _, c := range []struct {
		args []string
		want []int
	}{
		{[]string{"log", "--json"}, []int{3, 1}},
		{[]string{"export"}, []int{1, 3}},
	} {
		var out, errb bytes.Buffer
		code := run(append(c.args, "--root", dir), nil, &out, &errb)
		if got := seqs(c.args[0], out.String()); code != exitRefused || !slices.Equal(got, c.want) {
			t.Errorf("%v: exit %d, calls %v; want exit %d and calls %v (stderr: %s)", c.args, code, got, exitRefused, c.want, errb.String())
		}
		if !strings.Contains(errb.String(), "1 record of the journal could not be read and was left out (journal record 2:") {
			t.Errorf("%v: stderr does not say what was left out: %q", c.args, errb.String())
		}
	}
	// The table says it too, below the calls it could read.
	out.Reset()
	errb.Reset()
	if code := run([]string{"log", "--root", dir}, nil, &out, &errb); code != exitRefused || strings.Count(out.String(), "edit_file") != 2 {
		t.Errorf("log: exit %d:\n%s%s", code, out.String(), errb.String())
	}
}

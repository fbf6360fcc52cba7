package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/journal"
)

// log, export and stats name a call's state with the same words: committed, failed,
// rolled_back, unknown, and a committed dry run as "dry run" (log's text), dry_run
// (stats' count, export's flag). A pending record cannot be seen here: every command
// settles the journal before it reads.
func TestStateNamesAgree(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o644)
	calls := `{"tool": "edit_file", "args": {"path": "a.txt", "edits": [{"oldText": "one", "newText": "1"}]}}
{"tool": "edit_file", "args": {"path": "a.txt", "edits": [{"oldText": "nope", "newText": "1"}]}}
{"tool": "edit_file", "args": {"path": "a.txt", "edits": [{"oldText": "two", "newText": "2"}], "dryRun": true}}
`
	var out, errb bytes.Buffer
	run([]string{"call", "--root", dir, "--session", "s"}, strings.NewReader(calls), &out, &errb)
	writeRecoveredStates(t, dir)
	// The states by seq, as the calls and records above make them.
	want := []string{"committed", "failed", "dry run", "rolled_back", "unknown"}

	cmd := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(append(args, "--root", dir), nil, &out, &errb); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		return out.String()
	}
	// log's text: the STATE column, newest first.
	var logText []string
	sc := bufio.NewScanner(strings.NewReader(cmd("log")))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 5 && f[0] != "SEQ" {
			state := f[5]
			if state == "dry" {
				state = "dry run"
			}
			logText = append([]string{state}, logText...)
		}
	}
	// log --json and export: state, and dry_run.
	logJSON := statesOf(t, cmd("log", "--json"))
	for i, j := 0, len(logJSON)-1; i < j; i, j = i+1, j-1 {
		logJSON[i], logJSON[j] = logJSON[j], logJSON[i]
	}
	export := statesOf(t, cmd("export"))
	for what, got := range map[string][]string{"log": logText, "log --json": logJSON, "export": export} {
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: states %q, want %q", what, got, want)
		}
	}
	checkStatsStates(t, cmd("stats", "--json"), cmd("stats"))
}

// writeRecoveredStates adds what recovery leaves after a crash, written as recovery
// writes it: a call rolled back, and one whose outcome is unknown.
func writeRecoveredStates(t *testing.T, dir string) {
	j := journal.New(filepath.Join(dir, ".vfsctl", "journal.db"), journal.Options{Root: dir})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	for _, st := range []journal.State{journal.RolledBack, journal.Unknown} {
		r := &journal.Record{Time: time.Now().UTC(), Session: "s", Tool: "edit_file", Origin: journal.OriginModel, State: st,
			Files: []journal.File{{Path: "a.txt", Op: journal.OpEdit}}}
		if err := j.Commit(func(tx *journal.Tx) error { r.Seq = 0; return tx.Put(r) }); err != nil {
			t.Fatal(err)
		}
	}
	j.Release()
}

// statesOf reads the state of each JSON line of log --json or export, a dry run
// named as log names it.
func statesOf(t *testing.T, s string) []string {
	var states []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		var x struct {
			Seq    int
			State  string
			DryRun bool `json:"dry_run"`
		}
		if err := json.Unmarshal([]byte(l), &x); err != nil {
			t.Fatal(err)
		}
		if x.DryRun && x.State == "committed" {
			x.State = "dry run"
		}
		states = append(states, x.State)
	}
	return states
}

// checkStatsStates checks that stats counts one per state, under the same word, in
// its JSON and in its text.
func checkStatsStates(t *testing.T, statsJSON, text string) {
	var st struct {
		ByTool []map[string]any `json:"by_tool"`
	}
	json.Unmarshal([]byte(statsJSON), &st)
	if len(st.ByTool) != 1 {
		t.Fatalf("stats --json: by_tool %v, want edit_file alone", st.ByTool)
	}
	counts := map[string]float64{"calls": 5, "committed": 2, "failed": 1, "rolled_back": 1, "unknown": 1, "pending": 0, "dry_run": 1}
	for k, n := range counts {
		if st.ByTool[0][k] != n {
			t.Errorf("stats --json: by_tool %s is %v, want %v (%v)", k, st.ByTool[0][k], n, st.ByTool[0])
		}
	}
	for _, w := range []string{"COMMITTED", "FAILED", "ROLLED BACK", "UNKNOWN", "PENDING", "DRY RUN"} {
		if !strings.Contains(text, w) {
			t.Errorf("stats: no column %s in\n%s", w, text)
		}
	}
}

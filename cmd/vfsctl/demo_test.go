package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/toolapi"
)

// demoAppJS is app.js as turn 1 leaves it, written out by hand from the demo's file
// and the three edits of turn 1 that apply: the rewind of turn 2 must give exactly it.
const demoAppJS = `// Greeting service “v2”: say hello to users.
const greeting = "Hi";

function greet(name) {
  console.log(greeting + ", " + name + "!");
  return name.length > 0;
}

function farewell(name) {
  console.log("See you, " + name + "!", "(bye)");   
  return true;
}
`

// TestDemo runs the demo as a new user would, with --keep, and checks what it shows
// against the workspace it leaves: the files on disk and the journal.
func TestDemo(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"demo", "--keep"}, nil, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	m := regexp.MustCompile(`The workspace is kept at (\S+)\. Explore it:`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("demo --keep does not say where the workspace is:\n%s", s)
	}
	dir := m[1]
	t.Cleanup(func() { os.RemoveAll(dir) })

	for _, want := range []string{
		// Turn 1: the matching.
		"matched after folding curly quotes",
		"refused: multiple_matches",
		"refused: overlapping_edits",
		"7 of 7 lines on disk end in CRLF",
		`"\t\tfmt.Println(i * i)\n": tabs`,
		"refused: not_read",
		"Did you mean app.js?",
		"refused: path_outside_root",
		// The undo, the dialect call, the rewind, and stats.
		"run:  vfsctl undo 7\n",
		"call: apply_patch ",
		"A CHANGELOG.md\n",
		"chunk 1: matched after folding curly quotes",
		"run:  vfsctl rewind --session demo --turn 2\n",
		"reverting calls 17, 16",
		"The model made 16 calls: 10 applied, 6 refused",
		"Every call is in the workspace journal",
		"(vfsctl stats):\n\n16 calls, 6 failed (37.5%)",
		"Failures by kind",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	if strings.Contains(s, "NOT as it was") {
		t.Errorf("a check of the demo failed:\n%s", s)
	}

	// The disk. The undo put settings.ini back as the demo wrote it (the file in
	// demo/); the rewind put app.js and notes.md back as turn 1 left them.
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Error(err)
		}
		return string(b)
	}
	orig, err := os.ReadFile(filepath.Join("demo", "settings.ini"))
	if err != nil {
		t.Fatal(err)
	}
	if got := read("settings.ini"); got != string(orig) {
		t.Errorf("settings.ini after the undo:\n%q\nwant the file as the demo wrote it:\n%q", got, orig)
	}
	if got := read("app.js"); got != demoAppJS {
		t.Errorf("app.js after the rewind of turn 2:\n%s\nwant:\n%s", got, demoAppJS)
	}
	if got, want := read("notes.md"), "# Notes\n\n- ship v2\n- write the changelog\n"; got != want {
		t.Errorf("notes.md after the rewind of turn 2: %q, want %q", got, want)
	}
	if _, err := os.Lstat(filepath.Join(dir, "CHANGELOG.md")); !os.IsNotExist(err) {
		t.Errorf("CHANGELOG.md, created in turn 2, is still there after its rewind (%v)", err)
	}
	if got := read("main.go"); !strings.Contains(got, "\t\tfmt.Println(i * i)\n") {
		t.Errorf("main.go lacks the line turn 1 added, in tabs:\n%s", got)
	}

	// The journal: the undo reverts the settings.ini edit, the rewind the calls of
	// turn 2, newest first, and the patch is recorded as one call of turn 2.
	eng, err := toolapi.Open(dir, toolapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	recs, err := eng.Calls(toolapi.Query{})
	if err != nil {
		t.Fatal(err)
	}
	var settingsEdit, undo, rewind, patch *toolapi.Record
	var turn2 []uint64
	models := 0
	for _, r := range recs {
		switch {
		case r.Tool == "edit_file" && slices.Equal(r.Paths(), []string{"settings.ini"}):
			settingsEdit = r
		case r.Tool == "undo":
			undo = r
		case r.Tool == "rewind":
			rewind = r
		case r.Tool == "apply_patch":
			patch = r
		}
		if r.Turn == "2" {
			turn2 = append(turn2, r.Seq)
		}
		if r.Origin == "model" {
			models++
		}
	}
	if len(recs) != 18 || models != 16 {
		t.Errorf("the journal holds %d calls, %d of the model; want 18, 16", len(recs), models)
	}
	if settingsEdit == nil || settingsEdit.State != "committed" || undo == nil || undo.State != "committed" || undo.Undo != settingsEdit.Seq {
		t.Errorf("no committed undo of the committed settings.ini edit: edit %v, undo %v", brief(settingsEdit), brief(undo))
	}
	// Calls lists the newest first, as Reverts does.
	if rewind == nil || rewind.State != "committed" || len(turn2) != 2 || !slices.Equal(rewind.Reverts, turn2) {
		t.Errorf("the rewind does not revert the calls of turn 2 (%v), newest first: %v", turn2, brief(rewind))
	}
	if patch == nil || patch.State != "committed" || patch.Turn != "2" || !slices.Equal(patch.Paths(), []string{"app.js", "CHANGELOG.md"}) {
		t.Errorf("apply_patch is not recorded as the committed call of turn 2 on app.js and CHANGELOG.md: %v", brief(patch))
	}
	// The commands --keep suggests run, on the workspace it kept (last: the dry run
	// of an undo is journaled too).
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"log", "--turn", "2"}, "apply_patch"},
		{[]string{"show", "16"}, "*** Add File: CHANGELOG.md"},
		{[]string{"undo", "18", "--dry-run"}, "CHANGELOG.md would be put back"},
	} {
		line := invokedAs() + " " + strings.Join(c.args, " ") + " --root " + shellWord(dir) + "\n"
		if !strings.Contains(s, line) {
			t.Errorf("demo --keep does not suggest %q", line)
		}
		var o, e bytes.Buffer
		if code := run(append(c.args, "--root", dir), nil, &o, &e); code != exitOK || !strings.Contains(o.String(), c.want) {
			t.Errorf("vfsctl %v: exit %d, output lacks %q:\n%s%s", c.args, code, c.want, o.String(), e.String())
		}
	}
}

// Without --keep the scratch workspace it names is gone when the demo ends; --json
// gives one object per step, then the stats.
func TestDemoCleansUpAndJSON(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"demo"}, nil, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	m := regexp.MustCompile(`a scratch workspace, (\S+), holds`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("the demo does not name its workspace:\n%s", out.String())
	}
	if _, err := os.Lstat(m[1]); !os.IsNotExist(err) {
		os.RemoveAll(m[1])
		t.Errorf("without --keep, the workspace %s is left behind (%v)", m[1], err)
	}

	out.Reset()
	if code := run([]string{"demo", "--json"}, nil, &out, &errb); code != exitOK {
		t.Fatalf("--json: exit %d: %s", code, errb.String())
	}
	var steps, commands int
	var stats map[string]any
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v map[string]any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("--json: a line is not a JSON object: %v\n%s", err, sc.Text())
		}
		if st, ok := v["stats"].(map[string]any); ok {
			stats = st
			continue
		}
		steps++
		if _, ok := v["command"]; ok {
			commands++
		}
	}
	if steps != 18 || commands != 2 || stats == nil {
		t.Errorf("--json: %d steps, %d of them commands, stats %v; want 18, 2 and the stats", steps, commands, stats != nil)
	}
}

// brief names a record in a failure message: its number, tool, state, turn and links.
func brief(r *toolapi.Record) string {
	if r == nil {
		return "none"
	}
	return fmt.Sprintf("call %d %s %s turn %q paths %v undo %d reverts %v", r.Seq, r.Tool, r.State, r.Turn, r.Paths(), r.Undo, r.Reverts)
}

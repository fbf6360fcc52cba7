package toolapi

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

func openHashline(t *testing.T, files map[string]string) (*Engine, string) {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		testutil.WriteFile(t, filepath.Join(dir, p), c)
	}
	e, err := Open(dir, Options{Tools: "hashline,edit_file"}) // edit_file: the tests' other changes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, dir
}

func hcall(t *testing.T, e *Engine, session, tool, args string) Result {
	t.Helper()
	return e.Call(context.Background(), session, tool, json.RawMessage(args))
}

// anchorFor is the anchor a model copies for line n, computed here from the
// documented rule (CRC-32 IEEE of the line without its ending, low byte, hex).
func anchorFor(n int, line string) string {
	return fmt.Sprintf("%d:%02x", n, crc32.ChecksumIEEE([]byte(line))&0xff)
}

func readBack(t *testing.T, dir, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, p))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A read of the hashline set shows every line with its anchor; the native read_file
// shows them with anchors: true, and not without.
func TestAnchoredRead(t *testing.T) {
	e, _ := openHashline(t, map[string]string{"a.go": "\ufeffpackage a \r\n\r\nfunc F() {}\r\n"})
	r := hcall(t, e, "s", "read_file", `{"path": "a.go"}`)
	want := anchorFor(1, "package a ") + "|package a \n" + anchorFor(2, "") + "|\n" + anchorFor(3, "func F() {}") + "|func F() {}\n"
	if !r.OK || r.Text != want {
		t.Fatalf("got %q, want %q", r.Text, want)
	}
	n, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	os.WriteFile(filepath.Join(n.Root(), "b.txt"), []byte("x\n"), 0o644)
	if r := hcall(t, n, "s", "read_file", `{"path": "b.txt", "anchors": true}`); r.Text != anchorFor(1, "x")+"|x\n" {
		t.Errorf("native read with anchors: %q", r.Text)
	}
	if r := hcall(t, n, "s", "read_file", `{"path": "b.txt"}`); r.Text != "     1\tx\n" {
		t.Errorf("native read without anchors: %q", r.Text)
	}
}

// Each edit of a call is placed against the version read, in the file's line ending,
// and the reply shows the region with the anchors the next call can use.
func TestEditLinesOps(t *testing.T) {
	lines := []string{"one", "two", "three", "four", "five"}
	e, dir := openHashline(t, map[string]string{"f.txt": strings.Join(lines, "\r\n") + "\r\n"})
	hcall(t, e, "s", "read_file", `{"path": "f.txt"}`)
	a := func(n int) string { return anchorFor(n, lines[n-1]) }
	r := hcall(t, e, "s", "edit_lines", fmt.Sprintf(`{"path": "f.txt", "edits": [
		{"op": "insert_before", "start": %q, "lines": ["zero"]},
		{"op": "replace", "start": %q, "end": %q, "lines": ["TWO", "THREE", "extra"]},
		{"op": "delete", "start": %q},
		{"op": "insert_after", "start": %q, "lines": ["six"]}]}`, a(1), a(2), a(3), a(4), a(5)))
	want := "zero\r\none\r\nTWO\r\nTHREE\r\nextra\r\nfive\r\nsix\r\n"
	if got := readBack(t, dir, "f.txt"); !r.OK || got != want {
		t.Fatalf("%v %s\ngot %q, want %q", r.OK, r.Text, got, want)
	}
	if !strings.Contains(r.Text, anchorFor(7, "six")+"|six") || !strings.Contains(r.Text, anchorFor(3, "TWO")+"|TWO") {
		t.Errorf("reply lacks fresh anchors: %s", r.Text)
	}
	// The fresh anchors of the reply are good for the next call, with no read.
	r = hcall(t, e, "s", "edit_lines", fmt.Sprintf(`{"path": "f.txt", "edits": [{"op": "replace", "start": %q, "lines": ["SIX"]}]}`, anchorFor(7, "six")))
	if got := readBack(t, dir, "f.txt"); !r.OK || got != strings.Replace(want, "six", "SIX", 1) {
		t.Fatalf("%v %s\n%q", r.OK, r.Text, got)
	}
}

// A file without a final line break keeps it so, whichever edit reaches its end.
func TestEditLinesFinalLineBreak(t *testing.T) {
	for _, c := range []struct{ edit, want string }{
		{`{"op": "insert_after", "start": "%[2]s", "lines": ["c"]}`, "a\nb\nc"},
		{`{"op": "delete", "start": "%[2]s"}`, "a"},
		{`{"op": "replace", "start": "%[2]s", "lines": ["B", "C"]}`, "a\nB\nC"},
		{`{"op": "delete", "start": "%[1]s", "end": "%[2]s"}`, ""},
	} {
		e, dir := openHashline(t, map[string]string{"f.txt": "a\nb"})
		hcall(t, e, "s", "read_file", `{"path": "f.txt"}`)
		args := `{"path": "f.txt", "edits": [` + fmt.Sprintf(c.edit, anchorFor(1, "a"), anchorFor(2, "b")) + `]}`
		r := hcall(t, e, "s", "edit_lines", args)
		if got := readBack(t, dir, "f.txt"); !r.OK || got != c.want {
			t.Errorf("%s: %v %s\ngot %q, want %q", c.edit, r.OK, r.Text, got, c.want)
		}
	}
}

// Every refusal names what was wrong and changes nothing.
func TestEditLinesRefusals(t *testing.T) {
	content := "alpha\nbeta\ngamma\ndelta\n"
	a1, a2, a3 := anchorFor(1, "alpha"), anchorFor(2, "beta"), anchorFor(3, "gamma")
	bad := fmt.Sprintf("2:%02x", (crc32.ChecksumIEEE([]byte("beta"))+1)&0xff)
	cases := []struct {
		name, session, read, edits, kind, says string
	}{
		{"never read", "s", "", `[{"op": "delete", "start": "` + a1 + `"}]`, "not_read", "has not been read with anchors"},
		{"read without anchors", "s", `{"path": "f.txt", "anchors": false}`, `[{"op": "delete", "start": "` + a1 + `"}]`, "not_read", "has not been read with anchors"},
		{"another session's read", "other", `{"path": "f.txt"}`, `[{"op": "delete", "start": "` + a1 + `"}]`, "not_read", "has not been read with anchors"},
		{"line not shown", "s", `{"path": "f.txt", "limit": 2}`, `[{"op": "delete", "start": "` + a3 + `"}]`, "not_read", "names line 3 of f.txt, which this session has not been shown"},
		{"range past what was shown", "s", `{"path": "f.txt", "limit": 1}`, `[{"op": "delete", "start": "` + a1 + `", "end": "` + a2 + `"}]`, "not_read", "names line 2 of f.txt"},
		{"far past the end", "s", `{"path": "f.txt"}`, `[{"op": "delete", "start": "` + a1 + `", "end": "999999999:00"}]`, "not_read", "names line 999999999 of f.txt"},
		{"hash mismatch", "s", `{"path": "f.txt"}`, `[{"op": "delete", "start": "` + bad + `"}]`, "invalid_input", "that line's anchor is " + a2 + ` ("beta")`},
		{"not an anchor", "s", `{"path": "f.txt"}`, `[{"op": "delete", "start": "beta"}]`, "invalid_input", `edits[0].start "beta" is not an anchor`},
		{"end before start", "s", `{"path": "f.txt"}`, `[{"op": "delete", "start": "` + a2 + `", "end": "` + a1 + `"}]`, "invalid_input", "is before its start"},
		{"insert with end", "s", `{"path": "f.txt"}`, `[{"op": "insert_after", "start": "` + a1 + `", "end": "` + a2 + `", "lines": ["x"]}]`, "invalid_input", "takes start alone"},
		{"replace without lines", "s", `{"path": "f.txt"}`, `[{"op": "replace", "start": "` + a1 + `"}]`, "invalid_input", "needs lines"},
		{"delete with lines", "s", `{"path": "f.txt"}`, `[{"op": "delete", "start": "` + a1 + `", "lines": ["x"]}]`, "invalid_input", "takes no lines"},
		{"unknown op", "s", `{"path": "f.txt"}`, `[{"op": "swap", "start": "` + a1 + `"}]`, "invalid_input", "op"},
		{"overlap", "s", `{"path": "f.txt"}`, `[{"op": "delete", "start": "` + a1 + `", "end": "` + a3 + `"}, {"op": "replace", "start": "` + a3 + `", "lines": ["x"]}]`, "overlapping_edits", "edits[0] and edits[1]"},
		{"inserts at one place", "s", `{"path": "f.txt"}`, `[{"op": "insert_after", "start": "` + a1 + `", "lines": ["x"]}, {"op": "insert_before", "start": "` + a2 + `", "lines": ["y"]}]`, "overlapping_edits", "edits[0] and edits[1]"},
		{"insert inside a range", "s", `{"path": "f.txt"}`, `[{"op": "replace", "start": "` + a1 + `", "end": "` + a3 + `", "lines": ["x"]}, {"op": "insert_after", "start": "` + a2 + `", "lines": ["y"]}]`, "overlapping_edits", "edits[0] and edits[1]"},
		{"no change", "s", `{"path": "f.txt"}`, `[{"op": "replace", "start": "` + a2 + `", "lines": ["beta"]}]`, "no_change", "exactly as it is"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, dir := openHashline(t, map[string]string{"f.txt": content})
			if c.read != "" {
				hcall(t, e, c.session, "read_file", c.read)
			}
			r := hcall(t, e, "s", "edit_lines", `{"path": "f.txt", "edits": `+c.edits+`}`)
			if r.OK || kindOf(r) != c.kind || !strings.Contains(r.Text, c.says) {
				t.Errorf("got %v %s: %s; want %s saying %q", r.OK, kindOf(r), r.Text, c.kind, c.says)
			}
			if got := readBack(t, dir, "f.txt"); got != content {
				t.Errorf("a refused call changed the file: %q", got)
			}
		})
	}
}

// A line that changed since the read is a conflict naming its current anchor and
// text; an unchanged line is edited where it is now, whoever moved it.
func TestEditLinesThroughChanges(t *testing.T) {
	e, dir := openHashline(t, map[string]string{"f.txt": "a\nb\nc\nd\n"})
	hcall(t, e, "s", "read_file", `{"path": "f.txt"}`)
	// Another session inserts above, the file is changed outside, the session edits.
	if r := hcall(t, e, "o", "edit_file", `{"path": "f.txt", "edits": [{"oldText": "a\n", "newText": "top\na\n"}]}`); !r.OK {
		t.Fatal(r.Text)
	}
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("top\na\nb\nC!\nd\n"), 0o644)
	r := hcall(t, e, "s", "edit_lines", fmt.Sprintf(`{"path": "f.txt", "edits": [{"op": "replace", "start": %q, "lines": ["x"]}]}`, anchorFor(3, "c")))
	if r.OK || kindOf(r) != "conflict" || !strings.Contains(r.Text, "it is now "+anchorFor(4, "C!")+"|C!") {
		t.Fatalf("%v %s: %s", r.OK, kindOf(r), r.Text)
	}
	r = hcall(t, e, "s", "edit_lines", fmt.Sprintf(`{"path": "f.txt", "edits": [{"op": "replace", "start": %q, "lines": ["B"]}, {"op": "insert_after", "start": %q, "lines": ["e"]}]}`, anchorFor(2, "b"), anchorFor(4, "d")))
	if got := readBack(t, dir, "f.txt"); !r.OK || got != "top\na\nB\nC!\nd\ne\n" {
		t.Fatalf("%v %s\n%q", r.OK, r.Text, got)
	}
	// Lines added inside a range since: a conflict too, as a merge by lines would be.
	e2, dir2 := openHashline(t, map[string]string{"g.txt": "a\nb\nc\n"})
	hcall(t, e2, "s", "read_file", `{"path": "g.txt"}`)
	os.WriteFile(filepath.Join(dir2, "g.txt"), []byte("a\nnew\nb\nc\n"), 0o644)
	r = hcall(t, e2, "s", "edit_lines", fmt.Sprintf(`{"path": "g.txt", "edits": [{"op": "delete", "start": %q, "end": %q}]}`, anchorFor(1, "a"), anchorFor(2, "b")))
	if r.OK || kindOf(r) != "conflict" || readBack(t, dir2, "g.txt") != "a\nnew\nb\nc\n" {
		t.Fatalf("%v %s: %s", r.OK, kindOf(r), r.Text)
	}
}

// New lines that retype a replaced line with typography the file does not use are
// written as the file has it: the matcher's fidelity rules, not a second set.
func TestEditLinesFidelity(t *testing.T) {
	e, dir := openHashline(t, map[string]string{"f.md": "say \"hi\" - now\nend\n"})
	hcall(t, e, "s", "read_file", `{"path": "f.md"}`)
	r := hcall(t, e, "s", "edit_lines", fmt.Sprintf(`{"path": "f.md", "edits": [{"op": "replace", "start": %q, "lines": ["say “hi” – now", "and “bye”"]}]}`, anchorFor(1, "say \"hi\" - now")))
	if got := readBack(t, dir, "f.md"); !r.OK || got != "say \"hi\" - now\nand \"bye\"\nend\n" {
		t.Fatalf("%v %s\n%q", r.OK, r.Text, got)
	}
}

// A line break that ends an entry of lines is the entry's own end, in LF, CRLF and CR
// files alike: "x\n" is the line x, "\n" alone one empty line, and a break inside an
// entry still splits it. Models send lines as readlines() gives them.
func TestEditLinesTrailingBreaks(t *testing.T) {
	for _, eol := range []string{"\n", "\r\n", "\r"} {
		e, dir := openHashline(t, map[string]string{"f.txt": "a" + eol + "b" + eol + "c" + eol})
		hcall(t, e, "s", "read_file", `{"path": "f.txt"}`)
		args, _ := json.Marshal(map[string]any{"path": "f.txt", "edits": []map[string]any{
			{"op": "replace", "start": anchorFor(2, "b"), "lines": []string{"B1\n", "\n", "B2\r\n", "x\ny\r"}},
			{"op": "insert_after", "start": anchorFor(3, "c"), "lines": []string{"\n"}},
		}})
		r := hcall(t, e, "s", "edit_lines", string(args))
		want := strings.Join([]string{"a", "B1", "", "B2", "x", "y", "c", "", ""}, eol)
		if got := readBack(t, dir, "f.txt"); !r.OK || got != want {
			t.Errorf("%q file: %v %s\ngot %q, want %q", eol, r.OK, r.Text, got, want)
		}
		if !strings.Contains(r.Text, "Dropped the line break that ended 5 entries of lines") {
			t.Errorf("%q file: the reply does not say the breaks were dropped: %s", eol, r.Text)
		}
	}
}

// Anchors pasted before the lines, as read_file showed them, are stripped when every
// line carries one, numbered one after another, each the anchor of the text behind
// it; mixed or unfitting anchors are refused, naming the entry; and a line that only
// looks like an anchor (the hash does not fit) is text, written as sent.
func TestEditLinesPastedAnchors(t *testing.T) {
	content := "a\nb\nc\n"
	paste := func(n int, s string) string { return anchorFor(n, s) + "|" + s }
	notHash := func(n int, s string) string { // N:hh| that is not s's anchor
		h := crc32.ChecksumIEEE([]byte(s))&0xff + 1
		return fmt.Sprintf("%d:%02x|%s", n, h&0xff, s)
	}
	t.Run("stripped", func(t *testing.T) {
		e, dir := openHashline(t, map[string]string{"f.txt": content})
		hcall(t, e, "s", "read_file", `{"path": "f.txt"}`)
		// A copy of lines 1-2 after line 3, and line 2 replaced by the attack's own paste
		// ("2:f9|b" is line 2 as read), one with readlines()' break.
		args, _ := json.Marshal(map[string]any{"path": "f.txt", "edits": []map[string]any{
			{"op": "replace", "start": anchorFor(2, "b"), "lines": []string{paste(2, "b") + "\n", paste(3, "B2")}},
			{"op": "insert_after", "start": anchorFor(3, "c"), "lines": []string{paste(1, "a"), paste(2, "b")}},
		}})
		r := hcall(t, e, "s", "edit_lines", string(args))
		if got, want := readBack(t, dir, "f.txt"), "a\nb\nB2\nc\na\nb\n"; !r.OK || got != want {
			t.Fatalf("%v %s\ngot %q, want %q", r.OK, r.Text, got, want)
		}
		if !strings.Contains(r.Text, "Removed the anchors N:hh| pasted before the lines of edits[0], edits[1]") {
			t.Errorf("the reply does not say the anchors were removed: %s", r.Text)
		}
		// The journal keeps the rescue, as it keeps edit_file's pasted gutter.
		rec, _, err := e.Show(uint64(*r.Txn))
		if err != nil {
			t.Fatal(err)
		}
		if eds := rec.Files[0].Edits; len(eds) != 2 || !eds[0].Gutter || !eds[1].Gutter {
			t.Errorf("the record's edits %+v do not say a gutter was stripped", eds)
		}
	})
	t.Run("text that looks like an anchor", func(t *testing.T) {
		// A log whose lines really begin with "12:ab|": read with anchors, one line
		// copied behind its own anchor keeps its text, and new lines shaped like
		// anchors whose hashes do not fit are written as sent.
		line := notHash(12, "x")
		e, dir := openHashline(t, map[string]string{"log.txt": line + "\n"})
		hcall(t, e, "s", "read_file", `{"path": "log.txt"}`)
		args, _ := json.Marshal(map[string]any{"path": "log.txt", "edits": []map[string]any{
			{"op": "insert_after", "start": anchorFor(1, line), "lines": []string{paste(1, line), notHash(13, "y"), notHash(14, "z")}},
		}})
		// With a pasted anchor beside them, which is which cannot be told: refused.
		r := hcall(t, e, "s", "edit_lines", string(args))
		if got := readBack(t, dir, "log.txt"); r.OK || kindOf(r) != "invalid_input" || got != line+"\n" {
			t.Fatalf("%v %s: %s\n%q", r.OK, kindOf(r), r.Text, got)
		}
		var want string
		args, _ = json.Marshal(map[string]any{"path": "log.txt", "edits": []map[string]any{
			{"op": "insert_after", "start": anchorFor(1, line), "lines": []string{notHash(13, "y"), notHash(14, "z")}},
		}})
		r = hcall(t, e, "s", "edit_lines", string(args))
		want = line + "\n" + notHash(13, "y") + "\n" + notHash(14, "z") + "\n"
		if got := readBack(t, dir, "log.txt"); !r.OK || got != want || strings.Contains(r.Text, "Removed the anchors") {
			t.Fatalf("%v %s\ngot %q, want %q", r.OK, r.Text, got, want)
		}
		args, _ = json.Marshal(map[string]any{"path": "log.txt", "edits": []map[string]any{
			{"op": "insert_before", "start": anchorFor(1, line), "lines": []string{paste(1, line)}},
		}})
		r = hcall(t, e, "s", "edit_lines", string(args))
		if got := readBack(t, dir, "log.txt"); !r.OK || got != line+"\n"+want {
			t.Fatalf("%v %s\ngot %q, want %q", r.OK, r.Text, got, line+"\n"+want)
		}
	})
	for _, c := range []struct{ name, lines, says string }{
		{"the attack's paste, one line edited", `["2:f9|b", "3:6f|c2"]`, `edits[0].lines[1] "3:6f|c2" begins with 3:6f, which is not the anchor of the text after it`},
		{"some lines without", `["` + paste(2, "b") + `", "new"]`, `edits[0].lines[1] "new" has no anchor, while edits[0].lines[0] has one`},
		{"numbers that skip", `["` + paste(1, "a") + `", "` + paste(3, "c") + `"]`, `edits[0].lines[1] is numbered 3 after 1`},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, dir := openHashline(t, map[string]string{"f.txt": content})
			hcall(t, e, "s", "read_file", `{"path": "f.txt"}`)
			r := hcall(t, e, "s", "edit_lines", `{"path": "f.txt", "edits": [{"op": "replace", "start": "`+anchorFor(2, "b")+`", "lines": `+c.lines+`}]}`)
			if r.OK || kindOf(r) != "invalid_input" || !strings.Contains(r.Text, c.says) || !strings.Contains(r.Text, "Send the lines as text alone") {
				t.Errorf("got %v %s: %s; want invalid_input saying %q", r.OK, kindOf(r), r.Text, c.says)
			}
			if got := readBack(t, dir, "f.txt"); got != content {
				t.Errorf("a refused call changed the file: %q", got)
			}
		})
	}
}

// The property: a session reads a random file with anchors; its own edits, another
// session's and outside writes land; then one edit_lines call. The file must then be
// what a reference gives: the edit applied to the version read and merged with the
// changes by lines, or the call a conflict exactly when a line it names changed.
//
// Lines are unique (each text made once), so the reference follows each line by
// identity, not by a diff: it knows which lines of the version read are still there,
// unchanged, and where.
func TestEditLinesProperty(t *testing.T) {
	rounds := 40
	if FullTests() {
		rounds = 1500
	}
	rng := rand.New(rand.NewSource(37))
	var conflicts, applied int
	for round := range rounds {
		p := newLineProp(t, rng, round)
		if p.run() {
			applied++
		} else {
			conflicts++
		}
	}
	t.Logf("%d rounds: %d applied, %d conflicts", rounds, applied, conflicts)
	if applied == 0 || conflicts == 0 {
		t.Errorf("the generator never exercised both outcomes: %d applied, %d conflicts", applied, conflicts)
	}
}

type propLine struct {
	id   int // -1 for a line made after the read
	text string
}

type lineProp struct {
	t     *testing.T
	rng   *rand.Rand
	e     *Engine
	dir   string
	eol   string
	final bool
	made  int
	round int
	read  []propLine // the version read: ids 0..n-1
	now   []propLine
}

func newLineProp(t *testing.T, rng *rand.Rand, round int) *lineProp {
	p := &lineProp{t: t, rng: rng, round: round, eol: "\n", final: rng.Intn(5) > 0}
	if rng.Intn(4) == 0 {
		// With a line break always there: a file with none has no ending to keep, and
		// edit_file writes the lines it adds to it with LF.
		p.eol, p.final = "\r\n", true
	}
	n := 1 + rng.Intn(12)
	for i := range n {
		p.read = append(p.read, propLine{id: i, text: p.fresh()})
	}
	p.now = append([]propLine(nil), p.read...)
	p.e, p.dir = openHashline(t, map[string]string{"f.txt": p.render(p.read)})
	return p
}

func (p *lineProp) fresh() string {
	p.made++
	words := []string{"x", "if y {", "}", "return 1", "// note", "\tz := 2"}
	return fmt.Sprintf("%s %d.%d", words[p.rng.Intn(len(words))], p.round, p.made)
}

func (p *lineProp) render(lines []propLine) string {
	var b strings.Builder
	for i, l := range lines {
		b.WriteString(l.text)
		if i < len(lines)-1 || p.final {
			b.WriteString(p.eol)
		}
	}
	return b.String()
}

// change makes one random change of the current lines, as the session itself
// (edit_file), another session (edit_file) or an outside writer.
func (p *lineProp) change() {
	next := append([]propLine(nil), p.now...)
	if len(next) == 0 {
		return
	}
	i := p.rng.Intn(len(next))
	switch p.rng.Intn(3) {
	case 0: // change a line
		next[i] = propLine{id: -1, text: p.fresh()}
	case 1: // insert a line before line i, or at the end
		if p.rng.Intn(4) == 0 {
			i = len(next)
		}
		next = append(next[:i], append([]propLine{{id: -1, text: p.fresh()}}, next[i:]...)...)
	case 2:
		if len(next) == 1 {
			return
		}
		next = append(next[:i], next[i+1:]...)
	}
	before, after := p.render(p.now), p.render(next)
	switch who := p.rng.Intn(3); who {
	case 0:
		os.WriteFile(filepath.Join(p.dir, "f.txt"), []byte(after), 0o644)
	default:
		session := "s"
		if who == 2 {
			session = "other"
		}
		// The whole content as oldText: it occurs once, and the change is exact.
		args, _ := json.Marshal(map[string]any{"path": "f.txt", "edits": []map[string]string{{"oldText": before, "newText": after}}})
		if r := p.e.Call(context.Background(), session, "edit_file", args); !r.OK {
			p.t.Fatalf("round %d: edit_file: %s", p.round, r.Text)
		}
	}
	if got := readBack(p.t, p.dir, "f.txt"); got != after {
		p.t.Fatalf("round %d: the change left %q, not %q", p.round, got, after)
	}
	p.now = next
}

type propEdit struct {
	op       string
	from, to int // 0-based lines of the version read
	lines    []string
}

// edits makes 1 to 3 edits on the version read that do not overlap.
func (p *lineProp) edits() []propEdit {
	n := len(p.read)
	used := make([]bool, 2*n+2) // half-lines as edit_lines counts them
	var out []propEdit
	for range 1 + p.rng.Intn(3) {
		e := propEdit{from: p.rng.Intn(n)}
		e.to = e.from
		var lo, hi int
		switch p.rng.Intn(4) {
		case 0:
			e.op, lo = "insert_before", 2*e.from
			hi = lo
		case 1:
			e.op, lo = "insert_after", 2*e.from+2
			hi = lo
		case 2:
			e.op = "delete"
		default:
			e.op = "replace"
		}
		if e.op == "delete" || e.op == "replace" {
			e.to = min(n-1, e.from+p.rng.Intn(3))
			lo, hi = 2*e.from+1, 2*e.to+1
		}
		free := true
		for k := lo; k <= hi; k++ {
			free = free && !used[k]
		}
		if !free {
			continue
		}
		for k := lo; k <= hi; k++ {
			used[k] = true
		}
		if e.op != "delete" {
			for range 1 + p.rng.Intn(2) {
				l := p.fresh()
				switch p.rng.Intn(8) {
				case 0:
					l = ""
				case 1: // text that looks like an anchor, but its hash is not the text's
					h := (crc32.ChecksumIEEE([]byte(l)) + 1 + uint32(p.rng.Intn(255))) & 0xff
					l = fmt.Sprintf("%d:%02x|%s", 1+p.rng.Intn(30), h, l)
				}
				e.lines = append(e.lines, l)
			}
		}
		out = append(out, e)
	}
	return out
}

// expect is the reference: the edits applied to the current lines through the lines'
// identities, or conflict when a line an edit names is gone or changed, or a range is
// no longer in one piece.
func (p *lineProp) expect(eds []propEdit) ([]propLine, bool) {
	where := map[int]int{}
	for j, l := range p.now {
		if l.id >= 0 {
			where[l.id] = j
		}
	}
	for _, e := range eds {
		for i := e.from; i <= e.to; i++ {
			j, ok := where[i]
			if !ok || i > e.from && j != where[i-1]+1 {
				return nil, false
			}
		}
	}
	var out []propLine
	add := func(lines []string) {
		for _, s := range lines {
			out = append(out, propLine{id: -1, text: s})
		}
	}
	for _, l := range p.now {
		// At each line of the version read: what goes before it, what takes its place,
		// what goes after it; in that order whatever the order of the edits.
		skip := false
		for _, e := range eds {
			if e.op == "insert_before" && l.id == e.from {
				add(e.lines)
			}
		}
		for _, e := range eds {
			if l.id >= 0 && (e.op == "replace" || e.op == "delete") && l.id >= e.from && l.id <= e.to {
				if e.op == "replace" && l.id == e.from {
					add(e.lines)
				}
				skip = true
			}
		}
		if !skip {
			out = append(out, l)
		}
		for _, e := range eds {
			if e.op == "insert_after" && l.id == e.from {
				add(e.lines)
			}
		}
	}
	return out, true
}

// send is how a model may send the lines it means: as they are, each with a line
// break after it (as readlines() gives them), or behind anchors as read_file shows
// them, numbered from anywhere.
func (p *lineProp) send(lines []string) []string {
	out := append([]string(nil), lines...)
	if p.rng.Intn(3) == 0 {
		n := 1 + p.rng.Intn(40)
		for i, l := range out {
			out[i] = anchorFor(n+i, l) + "|" + l
		}
	}
	if p.rng.Intn(3) == 0 {
		for i := range out {
			out[i] += []string{"", "\n", "\r\n", "\r"}[p.rng.Intn(4)]
		}
	}
	return out
}

// run reads, changes, edits and checks; it reports whether the edit was applied.
func (p *lineProp) run() bool {
	t := p.t
	if r := p.e.Call(context.Background(), "s", "read_file", json.RawMessage(`{"path": "f.txt"}`)); !r.OK {
		t.Fatalf("round %d: read: %s", p.round, r.Text)
	}
	for range p.rng.Intn(4) {
		p.change()
	}
	eds := p.edits()
	var items []map[string]any
	for _, e := range eds {
		it := map[string]any{"op": e.op, "start": anchorFor(e.from+1, p.read[e.from].text)}
		if e.to != e.from {
			it["end"] = anchorFor(e.to+1, p.read[e.to].text)
		}
		if e.lines != nil {
			it["lines"] = p.send(e.lines)
		}
		items = append(items, it)
	}
	args, _ := json.Marshal(map[string]any{"path": "f.txt", "edits": items})
	before := readBack(t, p.dir, "f.txt")
	r := p.e.Call(context.Background(), "s", "edit_lines", args)
	got := readBack(t, p.dir, "f.txt")
	want, ok := p.expect(eds)
	switch {
	case !ok && (r.OK || kindOf(r) != "conflict" || got != before):
		t.Fatalf("round %d: a line named changed, want conflict; got %v %s: %s\nread %q\nnow %q\nedits %s\nfile %q",
			p.round, r.OK, kindOf(r), r.Text, p.render(p.read), before, args, got)
	case ok && (!r.OK && kindOf(r) != "no_change" || got != p.render(want)):
		t.Fatalf("round %d: got %v %s: %s\nread %q\nnow %q\nedits %s\nfile %q\nwant %q",
			p.round, r.OK, kindOf(r), r.Text, p.render(p.read), before, args, got, p.render(want))
	}
	if ok && r.OK {
		// The reply's anchors are the file's now.
		for _, m := range regexp.MustCompile(`(?m)^(\d+):([0-9a-f]{2})\|(.*)$`).FindAllStringSubmatch(r.Text, -1) {
			var n int
			fmt.Sscan(m[1], &n)
			if anchorFor(n, m[3]) != m[1]+":"+m[2] || n > len(want) || want[n-1].text != m[3] {
				t.Fatalf("round %d: reply anchor %s|%s is not line %d of the file", p.round, m[1]+":"+m[2], m[3], n)
			}
		}
	}
	return ok
}

// Anchors that fit two versions read (here two lines whose hashes agree, line 3 of
// the read and line 3 of the region an edit showed after a line went in above) but
// name different lines now are refused: the call does not guess.
func TestEditLinesAmbiguousAnchors(t *testing.T) {
	r3 := "r"
	q := ""
	for i := 0; q == ""; i++ {
		if c := fmt.Sprintf("q%d", i); anchorFor(3, c) == anchorFor(3, r3) {
			q = c
		}
	}
	content := "p\n" + q + "\n" + r3 + "\ns\n"
	e, dir := openHashline(t, map[string]string{"f.txt": content})
	hcall(t, e, "s", "read_file", `{"path": "f.txt"}`)
	r := hcall(t, e, "s", "edit_lines", fmt.Sprintf(`{"path": "f.txt", "edits": [{"op": "insert_before", "start": %q, "lines": ["n"]}]}`, anchorFor(1, "p")))
	if !r.OK || !strings.Contains(r.Text, anchorFor(3, q)+"|"+q) {
		t.Fatalf("%v %s", r.OK, r.Text)
	}
	r = hcall(t, e, "s", "edit_lines", fmt.Sprintf(`{"path": "f.txt", "edits": [{"op": "delete", "start": %q}]}`, anchorFor(3, r3)))
	if r.OK || kindOf(r) != "invalid_input" || !strings.Contains(r.Text, "fit two reads") || readBack(t, dir, "f.txt") != "n\n"+content {
		t.Fatalf("%v %s: %s\n%q", r.OK, kindOf(r), r.Text, readBack(t, dir, "f.txt"))
	}
}

// A replay of edit_lines calls that went through changes (the session's own edit,
// another session's, an outside write) places their anchors against the versions the
// session had read, as the recorded calls did: each replays as the same outcome, the
// conflict included.
func TestReplayOfEditLinesThroughChanges(t *testing.T) {
	e, dir := openHashline(t, map[string]string{"f.txt": "a\nb\nc\nd\ne\n"})
	hcall(t, e, "s", "read_file", `{"path": "f.txt"}`)
	var seqs []int64
	wantOK := func(r Result) {
		t.Helper()
		if !r.OK {
			t.Fatal(r.Text)
		}
		seqs = append(seqs, *r.Txn)
	}
	// The session's own edit of line 1, by the anchors it read.
	wantOK(hcall(t, e, "s", "edit_lines", fmt.Sprintf(`{"path": "f.txt", "edits": [{"op": "insert_before", "start": %q, "lines": ["zero"]}]}`, anchorFor(1, "a"))))
	// Another session's edit, and a write outside vfsctl.
	if r := hcall(t, e, "o", "edit_file", `{"path": "f.txt", "edits": [{"oldText": "a\n", "newText": "top\na\n"}]}`); !r.OK {
		t.Fatal(r.Text)
	}
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("zero\ntop\na\nb\nC!\nd\ne\n"), 0o644)
	// Line 3 of the read changed since: a conflict.
	r := hcall(t, e, "s", "edit_lines", fmt.Sprintf(`{"path": "f.txt", "edits": [{"op": "replace", "start": %q, "lines": ["x"]}]}`, anchorFor(3, "c")))
	if r.OK || kindOf(r) != "conflict" {
		t.Fatalf("%v %s: %s", r.OK, kindOf(r), r.Text)
	}
	seqs = append(seqs, *r.Txn)
	// Lines 2 and 5 of the read, unchanged: edited where they are now.
	wantOK(hcall(t, e, "s", "edit_lines", fmt.Sprintf(`{"path": "f.txt", "edits": [{"op": "replace", "start": %q, "lines": ["B"]}, {"op": "delete", "start": %q}]}`, anchorFor(2, "b"), anchorFor(5, "e"))))
	if got := readBack(t, dir, "f.txt"); got != "zero\ntop\na\nB\nC!\nd\n" {
		t.Fatalf("f.txt is %q", got)
	}
	rp, err := e.Replayer()
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	for _, seq := range seqs {
		res, err := rp.Replay(uint64(seq))
		if err != nil {
			t.Fatal(err)
		}
		if !res.Replayable || !res.Same {
			t.Errorf("call %d replays as another outcome: %+v", seq, res)
		}
	}
	if got := readBack(t, dir, "f.txt"); got != "zero\ntop\na\nB\nC!\nd\n" {
		t.Errorf("the replays changed f.txt: %q", got)
	}
}

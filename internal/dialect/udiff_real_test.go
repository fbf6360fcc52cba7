package dialect

import (
	"bufio"
	"compress/gzip"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// realDiff is one changed file of a real commit: the file before it and git's diff of
// it (testdata/gencorpus writes them).
type realDiff struct {
	Src, Path, Pre, Diff string
}

func loadRealDiffs(t testing.TB) []realDiff {
	f, err := os.Open("testdata/realdiffs.jsonl.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []realDiff
	sc := bufio.NewScanner(z)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var d realDiff
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// gitBlobID is the id git gives a file of this content.
func gitBlobID(content string) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write([]byte(content))
	return hex.EncodeToString(h.Sum(nil))
}

var indexLine = regexp.MustCompile(`(?m)^index ([0-9a-f]{40})\.\.([0-9a-f]{40})`)

// A drift is what a model does to a diff's lines when it writes one.
type drift struct {
	name string
	line func(string) string // applied to a hunk line's text, after its first character
}

var drifts = []drift{
	{"clean", func(s string) string { return s }},
	{"trailing spaces dropped", func(s string) string { return strings.TrimRight(s, " \t") }},
	{"tabs turned to spaces", func(s string) string { return strings.ReplaceAll(s, "\t", "    ") }},
}

// driftHunk applies d to the text of each ' ', '-' and '+' line of h.
func driftHunk(h oracleHunk, d drift) oracleHunk {
	out := oracleHunk{oldStart: h.oldStart, oldN: h.oldN}
	for _, l := range h.lines {
		if l[0] != '\\' {
			l = l[:1] + d.line(l[1:])
		}
		out.lines = append(out.lines, l)
	}
	return out
}

// toV4A writes a hunk as an apply_patch Update of path: one chunk, no anchor (the
// header's numbers have no place in V4A).
func toV4A(path string, h oracleHunk) string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n*** Update File: " + path + "\n@@\n")
	for _, l := range h.lines {
		if l[0] != '\\' {
			b.WriteString(l + "\n")
		}
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

// tally counts outcomes of one dialect under one drift.
type tally struct {
	exact   int // the file as git has it after the commit
	asSent  int // the right place, the added lines as the drifted hunk has them
	other   int // the right place, the new lines written otherwise (re-indented in part)
	wrong   int
	refused map[errs.Kind]int
}

// add counts one outcome: got (or err) against git's result want and the result
// asSent of the drifted hunk's added lines put in the right place; inPlace says
// whether got is the file with only the hunk's lines replaced by as many lines.
func (t *tally) add(got string, err error, want, asSent string, inPlace bool) {
	switch {
	case err != nil:
		if t.refused == nil {
			t.refused = map[errs.Kind]int{}
		}
		t.refused[errs.KindOf(err)]++
	case got == want:
		t.exact++
	case got == asSent:
		t.asSent++
	case inPlace:
		t.other++
	default:
		t.wrong++
	}
}

func (t *tally) String() string {
	n := t.exact + t.asSent + t.other + t.wrong
	for _, c := range t.refused {
		n += c
	}
	return fmt.Sprintf("%d/%d exact (%.1f%%), in place with the added lines as sent %d, in place otherwise %d, wrong %d, refused %v",
		t.exact, n, 100*float64(t.exact)/float64(max(n, 1)), t.asSent, t.other, t.wrong, t.refused)
}

// inPlace reports whether got is pre with the old lines of h replaced by as many
// lines as h has new ones, every other line as it was.
func inPlace(pre, got string, h oracleHunk) bool {
	lines := strings.SplitAfter(pre, "\n")
	start := h.oldStart - 1
	if h.oldN == 0 {
		start = h.oldStart
	}
	head, tail := strings.Join(lines[:start], ""), strings.Join(lines[start+h.oldN:], "")
	if !strings.HasPrefix(got, head) || !strings.HasSuffix(got, tail) || len(got) < len(head)+len(tail) {
		return false
	}
	mid := got[len(head) : len(got)-len(tail)]
	n := 0
	for _, l := range h.lines {
		if l[0] == ' ' || l[0] == '+' {
			n++
		}
	}
	return strings.Count(mid, "\n") == n || strings.Count(mid, "\n") == n-1 && tail == ""
}

// asSent is hunk h with the '+' lines of its drifted form dh: what a model that
// drifted them meant, placed where h goes.
func asSent(h, dh oracleHunk) oracleHunk {
	out := oracleHunk{oldStart: h.oldStart, oldN: h.oldN}
	for i, l := range h.lines {
		if l[0] == '+' {
			l = dh.lines[i]
		}
		out.lines = append(out.lines, l)
	}
	return out
}

// TestRealDiffs applies every hunk of real commits' `git diff` alone to the file as it
// was before the commit, as apply_diff and as apply_patch, clean and drifted as models
// drift them, and compares with the oracle (the hunk applied at its header's numbers),
// whose results are checked against git's own blob ids. It fails on a wrong result
// (a hunk applied somewhere else, or other than git has it) and on a clean hunk that
// apply_diff refuses; the shares are logged (go test -v). A sample by default; every
// hunk with VFSCTL_FULL=1.
func TestRealDiffs(t *testing.T) {
	all := loadRealDiffs(t)
	step := 7
	if os.Getenv("VFSCTL_FULL") == "1" {
		step = 1
	}
	var udiff, patch [3]tally
	var whole tally
	hunks, files, noV4A := 0, 0, 0
	var drifted [3]int // hunks a drift changed
	for k, d := range all {
		if k%step != 0 {
			continue
		}
		ids := indexLine.FindStringSubmatch(d.Diff)
		if ids == nil {
			t.Fatalf("%s %s: no index line", d.Src, d.Path)
		}
		if gitBlobID(d.Pre) != ids[1] {
			t.Fatalf("%s %s: the corpus's file is not git's blob %s", d.Src, d.Path, ids[1])
		}
		hs, ok := oracleParse(d.Diff)
		if !ok {
			t.Fatalf("%s %s: the oracle cannot read the diff", d.Src, d.Path)
		}
		post, ok := oracleApply(d.Pre, hs)
		if !ok || gitBlobID(post) != ids[2] {
			t.Fatalf("%s %s: the oracle's result is not git's blob %s", d.Src, d.Path, ids[2])
		}
		files++
		// The whole diff of the file, as git wrote it.
		ops, err := ParseUnifiedDiff(d.Diff)
		if err != nil || len(ops) != 1 {
			t.Fatalf("%s %s: %d ops, %v", d.Src, d.Path, len(ops), err)
		}
		res, err := PlanHunks(d.Path, []byte(d.Pre), ops[0].Chunks)
		got := ""
		if err == nil {
			got = string(res.Output)
		}
		whole.add(got, err, post, post, false)
		if err != nil || got != post {
			t.Errorf("%s %s: the whole diff: %v\n%s", d.Src, d.Path, err, d.Diff)
		}
		for _, h := range hs {
			hunks++
			want, ok := oracleApply(d.Pre, []oracleHunk{h})
			if !ok {
				t.Fatalf("%s %s: the oracle cannot apply hunk at %d alone", d.Src, d.Path, h.oldStart)
			}
			for i, dr := range drifts {
				dh := driftHunk(h, dr)
				if strings.Join(dh.lines, "\n") != strings.Join(h.lines, "\n") {
					drifted[i]++
				}
				sent, ok := oracleApply(d.Pre, []oracleHunk{asSent(h, dh)})
				if !ok {
					t.Fatalf("%s %s: the oracle cannot apply hunk at %d with the added lines drifted", d.Src, d.Path, h.oldStart)
				}
				ops, err := ParseUnifiedDiff(oracleDiff(d.Path, []oracleHunk{dh}))
				got := ""
				if err == nil {
					r, err2 := PlanHunks(d.Path, []byte(d.Pre), ops[0].Chunks)
					if err = err2; err == nil {
						got = string(r.Output)
					}
				}
				placed := err == nil && inPlace(d.Pre, got, h)
				udiff[i].add(got, err, want, sent, placed)
				if err == nil && got != want && got != sent && !placed {
					t.Errorf("%s %s, %s: the hunk at line %d was applied wrongly:\n%s", d.Src, d.Path, dr.name, h.oldStart, oracleDiff(d.Path, []oracleHunk{dh}))
				}
				if i == 0 && err != nil {
					t.Errorf("%s %s: the clean hunk at line %d was refused: %v", d.Src, d.Path, h.oldStart, err)
				}
				if strings.Contains(oracleDiff(d.Path, []oracleHunk{h}), "\n\\") {
					noV4A++ // V4A cannot say that a line has no line break after it
					continue
				}
				got = ""
				pops, err := ParsePatch(toV4A(d.Path, dh))
				if err == nil {
					r, err2 := PlanChunks(d.Path, []byte(d.Pre), pops[0].Chunks)
					if err = err2; err == nil {
						got = string(r.Output)
					}
				}
				placed = err == nil && inPlace(d.Pre, got, h)
				patch[i].add(got, err, want, sent, placed)
				if err == nil && got != want && got != sent && !placed {
					t.Logf("apply_patch: %s %s, %s: the hunk at line %d was applied wrongly", d.Src, d.Path, dr.name, h.oldStart)
				}
			}
		}
	}
	if hunks == 0 {
		t.Fatal("no hunks")
	}
	t.Logf("%d files, %d hunks (every %d. file of %d)", files, hunks, step, len(all))
	t.Logf("apply_diff, each file's whole diff: %v", &whole)
	for i, dr := range drifts {
		t.Logf("apply_diff, %s (the drift changes %d hunks): %v", dr.name, drifted[i], &udiff[i])
		t.Logf("apply_patch, %s: %v (%d hunks with `\\ No newline at end of file` left out)", dr.name, &patch[i], noV4A/len(drifts))
	}
}

package dialect

import (
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// FuzzUnifiedDiff reads a diff of one file and places its hunks in pre. The seed
// corpus (testdata/fuzz/FuzzUnifiedDiff) is real commits' `git diff` output with the
// file as it was before. Whatever the input, parsing and placing must not panic, and
// a refusal must be a kind a model can act on. Where the oracle (the hunks applied at
// their headers' numbers, trusting their counts) applies the diff, apply_diff must
// give its result byte for byte: a hunk whose lines are where its header says is
// placed there, whatever else in the file looks like it.
func FuzzUnifiedDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "--- a/f\n+++ b/f\n@@ -2 +2 @@\n-b\n+B\n")
	f.Add("x\ny\nx\ny\nx\n", "--- a/f\n+++ b/f\n@@ -3,2 +3,2 @@\n x\n-y\n+Y\n")
	f.Add("a\nb", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n")
	f.Add("a\nb\n", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n")
	f.Add("a\nb\nc\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,1 @@\n a\n-b\n-c\n")
	f.Fuzz(func(t *testing.T, pre, diff string) {
		ops, err := ParseUnifiedDiff(diff)
		if err != nil {
			if k := errs.KindOf(err); k != errs.InvalidInput && k != errs.TooLarge {
				t.Fatalf("parse refused as %s: %v", k, err)
			}
			return
		}
		single := len(ops) == 1 && ops[0].Kind == OpUpdate && ops[0].MoveTo == ""
		for _, op := range ops {
			if op.Kind != OpUpdate {
				continue
			}
			res, err := PlanHunks(op.Path, []byte(pre), op.Chunks)
			switch errs.KindOf(err) {
			case "", errs.TextNotFound, errs.MultipleMatches, errs.NoChange, errs.OverlappingEdits, errs.InvalidInput, errs.BinaryFile, errs.TooLarge:
			default:
				t.Fatalf("refused as %s: %v", errs.KindOf(err), err)
			}
			if single {
				got := ""
				if err == nil {
					got = string(res.Output)
				}
				checkOracle(t, pre, diff, got, err)
			}
		}
	})
}

// checkOracle compares apply_diff's outcome (got, or its refusal err) with the
// oracle's, where the oracle applies the diff and the case is one apply_diff is meant
// to take as the oracle does.
func checkOracle(t *testing.T, pre, diff, got string, err error) {
	t.Helper()
	if strings.ContainsAny(pre+diff, "\r\x00") {
		return // the oracle splits on LF only, and does not refuse binary files
	}
	hunks, ok := oracleParse(diff)
	if !ok {
		return
	}
	want, ok := oracleApply(pre, hunks)
	if !ok || want == pre {
		return
	}
	for i, h := range hunks {
		if h.oldN == 0 && pre != "" {
			return // only '+' lines: apply_diff asks for context, the oracle goes by number
		}
		if i > 0 && hunks[i-1].oldStart+hunks[i-1].oldN >= h.oldStart {
			return // hunks that touch: apply_diff refuses them as overlapping
		}
		if oracleNoOp(h) {
			return // a hunk that changes nothing is refused, whatever the others do
		}
	}
	if err != nil {
		t.Fatalf("the oracle applies the diff, apply_diff refused it: %v\npre %q\ndiff %q\nwant %q", err, pre, diff, want)
	}
	if got != want {
		t.Fatalf("pre %q\ndiff %q\ngot  %q\nwant %q", pre, diff, got, want)
	}
}

// oracleNoOp: h's old and new lines are the same, and so are their final line breaks.
func oracleNoOp(h oracleHunk) bool {
	var old, nw []string
	prev := byte(' ')
	for _, l := range h.lines {
		switch l[0] {
		case ' ':
			old, nw = append(old, l), append(nw, l)
		case '-':
			old = append(old, l[1:])
		case '+':
			nw = append(nw, l[1:])
		case '\\':
			if prev != '+' {
				old = append(old, "\\")
			}
			if prev != '-' {
				nw = append(nw, "\\")
			}
		}
		prev = l[0]
	}
	return strings.Join(old, "\n") == strings.Join(nw, "\n")
}

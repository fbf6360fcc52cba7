package toolapi

import (
	"strings"

	"github.com/vfsctl/vfsctl/internal/dialect"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/txn"
)

// apply_diff: unified diffs, as `git diff` and `diff -u` write them and as Aider's
// udiff format asks models to (hunks without line numbers). Where `git apply` and
// `patch` place a hunk by its header's line numbers (patch with an offset and a fuzz
// factor), here a hunk is placed by its context and removed lines through the
// matcher's tiers, and the numbers only choose among several places; where `patch`
// applies the hunks it can and writes the rest to a .rej file, here the call is all
// or nothing.

// ApplyDiff is the unified diff tool.
const ApplyDiff = "apply_diff"

// setUdiff is the tool set of a runtime whose model writes unified diffs.
const setUdiff = "udiff"

var applyDiffDef = &toolDef{
	name: ApplyDiff,
	desc: "Change files with a unified diff, as `git diff` or `diff -u` writes it:\n" +
		"--- a/path\n+++ b/path\n@@ -12,3 +12,3 @@\n context line\n-removed line\n+added line\n context line\n" +
		"Several files may be in one diff. `--- /dev/null` creates a file (its lines as '+' lines), `+++ /dev/null` deletes one (its lines as '-' lines), and git's `rename from`/`rename to` lines rename one. " +
		"Each hunk is found by its ' ' context and '-' removed lines, which must match whole lines of the file: put about 3 context lines around each change and copy them exactly. " +
		"The @@ line numbers may be left out (`@@ ... @@`); they only choose among several places that match (moved by the offset at which earlier hunks were found), and never place a hunk alone. Wrong counts in the @@ line are forgiven. " +
		"The whole diff is applied or nothing is. Small differences in quotes, dashes, spaces and indentation are forgiven. Paths are relative to the workspace root. " +
		"Bounds: at most 1000 hunks per file; a file over 4 MiB is matched exactly, nothing forgiven.",
	args: objectDef{fields: []argDef{
		{name: "diff", typ: tString, required: true, min: 1, aliases: []string{"patch", "input"}, missing: "a unified diff",
			desc: "The unified diff: `--- a/path`, `+++ b/path`, then hunks headed `@@ -12,3 +12,3 @@`."},
	}},
	shape: `{"diff": "--- a/app.py\n+++ b/app.py\n@@ -1,3 +1,3 @@\n def main():\n-    print(1)\n+    print(2)\n     return 0\n"}`,
	op:    journal.OpEdit,
	needs: needs{write: true, planFirst: true},
	sets:  []string{setUdiff},
	run:   (*dispatcher).applyDiff,
	bare:  "diff",
}

// applyDiff runs a diff as one transaction, as applyPatch runs a patch: a created
// file is a create, a deleted one a deletion (checked against the '-' lines it
// shows), a rename the deletion of the old path with a create of the new one, and a
// changed file an edit whose hunks are placed under its queue. Any refusal changes
// nothing.
func (a *dispatcher) applyDiff(c *txn.Call, _ string, in *input) (string, error) {
	ops, err := diffOps(in)
	return a.applyOps(c, ApplyDiff, in, ops, err, hunkWords)
}

// diffOps reads the diff of a decoded call.
func diffOps(in *input) ([]dialect.FileOp, error) {
	ops, err := dialect.ParseUnifiedDiff(in.str("diff"))
	if err != nil {
		return nil, err
	}
	for i := range ops {
		if ops[i].MoveTo == ops[i].Path {
			ops[i].MoveTo = "" // a rename onto itself is a change
		}
	}
	return ops, nil
}

// diffTargets lists the paths of one file section of a diff: its own, and a rename's
// new path after its old one.
func diffTargets(op dialect.FileOp) []patchTarget {
	switch {
	case op.Kind == dialect.OpAdd:
		return []patchTarget{{op: op, path: op.Path, header: "new file " + op.Path}}
	case op.Kind == dialect.OpDelete:
		return []patchTarget{{op: op, path: op.Path, header: "deleted file " + op.Path}}
	case op.MoveTo != "":
		return []patchTarget{{op: op, path: op.Path, header: "rename from " + op.Path}, {op: op, path: op.MoveTo, header: "rename to " + op.MoveTo}}
	}
	return []patchTarget{{op: op, path: op.Path, header: op.Path}}
}

// hunkWords are the native tools' words in a refusal of the guard, in a diff's terms.
var hunkWords = strings.NewReplacer("leave them out of oldText", "leave them out of the hunk's '-' lines")

package toolapi

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/vfsctl/vfsctl/internal/dialect"
	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/txn"
	"github.com/vfsctl/vfsctl/vfs"
)

// ApplyPatch is the V4A patch tool of the Codex CLI and of the Responses API.
const ApplyPatch = "apply_patch"

// applyPatchDef takes a patch in the Codex function tool's shape ({"input": PATCH},
// or the patch as a bare JSON string, as a freeform tool sends its whole input) or
// one operation of the Responses API's built-in tool ({"operation": {type, path,
// diff}}), which a runtime forwards and a model is not offered: the schema shows
// input alone, as Codex declares it.
var applyPatchDef = &toolDef{
	name: ApplyPatch,
	desc: "Edit files with a patch in the apply_patch (V4A) format:\n" +
		"*** Begin Patch\n*** Update File: path\n@@ line above the change (a class or def line)\n context line\n-removed line\n+added line\n*** End Patch\n" +
		"Sections: `*** Add File: path` then each line as `+line`; `*** Delete File: path`; `*** Update File: path`, optionally followed by `*** Move to: new path`, then chunks. " +
		"Each chunk is headed by `@@` (optionally with a line of the file that comes before it) and holds ' ' context, '-' removed and '+' added lines; " +
		"put about 3 context lines around each change and copy them exactly from the file. `*** End of File` after a chunk pins it to the end of the file. " +
		"The whole patch is applied or nothing is. Context that fits more than one place is refused: add an @@ line or more context. " +
		"Add File refuses an existing path (send Update File instead). Paths are relative to the workspace root. " +
		"Bounds: at most 1000 chunks per file and 8 stacked @@ lines per chunk; a file over 4 MiB is matched exactly, nothing forgiven.",
	args: objectDef{fields: []argDef{
		{name: "input", typ: tString, min: 1, aliases: []string{"patch"}, desc: "The entire contents of the apply_patch command."},
		{name: "operation", typ: tObject, hidden: true, items: patchOperation,
			desc: "One operation of the Responses API's apply_patch tool, as its apply_patch_call carries it."},
	}, oneOf: []string{"input", "operation"}},
	shape: `{"input": "*** Begin Patch\n*** Update File: app.py\n@@ def main():\n-    print(1)\n+    print(2)\n*** End Patch"}`,
	op:    journal.OpEdit,
	needs: needs{write: true, planFirst: true},
	sets:  []string{setCodex},
	run:   (*dispatcher).applyPatch,
	bare:  "input",
}

// patchOperation is the operation of a Responses API apply_patch_call.
var patchOperation = &objectDef{
	fields: []argDef{
		{name: "type", typ: tString, required: true, desc: "create_file, update_file or delete_file."},
		{name: "path", typ: tString, required: true, path: true, desc: "The file, relative to the workspace root."},
		{name: "diff", typ: tString, desc: "The V4A diff: the new file's lines as '+' lines, or an update's chunks; none for delete_file."},
	},
	build: func(v values) any {
		return dialect.Operation{Type: v.str("type"), Path: v.str("path"), Diff: v.str("diff")}
	},
}

// applyPatch runs a patch as one transaction: an Add File is a create, a Delete File
// a deletion, an Update File an edit whose chunks are placed by the matcher's tiers
// on the file as read under its queue, and a Move to the deletion of the old path
// with a create of the new one from the same read. Any refusal changes nothing.
func (a *dispatcher) applyPatch(c *txn.Call, _ string, in *input) (string, error) {
	ops, err := patchOps(in)
	return a.applyOps(c, ApplyPatch, in, ops, err, chunkWords)
}

// applyOps runs the file operations of a patch or a diff (ops, or err from reading
// them) as one transaction. A refusal says first its kind and that nothing changed:
// it may name one hunk of many, and the model must know that no hunk landed.
func (a *dispatcher) applyOps(c *txn.Call, tool string, in *input, ops []dialect.FileOp, err error, words *strings.Replacer) (string, error) {
	text := ""
	if err == nil {
		text, err = a.runOps(c, in, ops, words)
	}
	if err != nil {
		return "", errs.Prefixed(fmt.Sprintf("%s refused (%s); no file was changed. ", tool, errs.KindOf(err)), err)
	}
	return text, nil
}

func (a *dispatcher) runOps(c *txn.Call, in *input, ops []dialect.FileOp, words *strings.Replacer) (string, error) {
	for i := range ops {
		ops[i].Path = a.relPath(ops[i].Path)
		if ops[i].MoveTo != "" {
			ops[i].MoveTo = a.relPath(ops[i].MoveTo)
		}
	}
	for _, op := range ops {
		in.paths = append(in.paths, op.Path)
		if op.MoveTo != "" {
			in.paths = append(in.paths, op.MoveTo)
		}
	}
	specs, err := a.patchSpecs(ops)
	if err != nil {
		var e *errs.Error
		if errors.As(err, &e) && e.Path != "" {
			c.Named(journal.OpEdit, e.Path) // the refused path first: replay reads it so
		}
		return "", err
	}
	changes, err := a.eng.Apply(c, specs, false)
	if err != nil {
		return "", inWords(err, words)
	}
	return renderPatch(ops, specs, changes), nil
}

// patchOps reads the patch of a decoded call, in either shape.
func patchOps(in *input) ([]dialect.FileOp, error) {
	var ops []dialect.FileOp
	if in.sent("operation") {
		op, err := dialect.ParseOperation(in.m["operation"].(dialect.Operation))
		if err != nil {
			return nil, err
		}
		ops = []dialect.FileOp{op}
	} else {
		var err error
		if ops, err = dialect.ParsePatch(in.str("input")); err != nil {
			return nil, err
		}
	}
	for i := range ops {
		if ops[i].MoveTo == ops[i].Path {
			ops[i].MoveTo = "" // a move onto itself is an update
		}
	}
	return ops, nil
}

// unkeptInPatch says why a refused patch cannot be replayed when another section
// than the refused one needed a file that was there (an update, a deletion, a move's
// source): the record keeps the content of the refused section's file only, and a
// patch is refused at its first fault, so what the others met is not known.
func unkeptInPatch(rec *journal.Record, args []byte) string {
	if len(rec.Files) == 0 {
		return ""
	}
	_, in, err := decodeCall(toolTable, rec.Tool, args)
	if err != nil {
		return ""
	}
	read := patchOps
	if rec.Tool == ApplyDiff {
		read = diffOps
	}
	ops, err := read(in)
	if err != nil {
		return ""
	}
	kept := map[string]bool{path.Clean(rec.Files[0].Path): true}
	for _, f := range rec.Files {
		if f.Before != "" {
			kept[path.Clean(f.Path)] = true
		}
	}
	for _, s := range specsOf(targetsOf(ops)) {
		if (s.Op == journal.OpEdit || s.Op == journal.OpDelete) && !kept[path.Clean(s.Path)] {
			return fmt.Sprintf("%s needs %s as it was, which the record does not keep (it keeps the refused section's file only)", s.Label, s.Path)
		}
	}
	return ""
}

// patchTarget is one path a patch section names, resolved for the checks that come
// before the transaction (which checks again, under the files' queues).
type patchTarget struct {
	op     dialect.FileOp
	path   string // as the patch names it
	header string // the section's header line, for messages
	r      *vfs.Resolved
}

// patchSpecs turns a patch's sections into the transaction's specs, refusing first
// what the patch gets wrong as a whole (a path named twice) and, in the dialect's
// words, what the transaction would refuse in the native tools' words (an Add over
// an existing file, an Update of a missing one).
func (a *dispatcher) patchSpecs(ops []dialect.FileOp) ([]txn.Spec, error) {
	targets := targetsOf(ops)
	// A path named twice is refused before any file is looked at: what the patch
	// gets wrong as a whole does not depend on what stands on disk (a replay, which
	// rebuilds only the files a call read, meets it the same way).
	seen := map[string]*patchTarget{}
	for i := range targets {
		if err := a.resolveTarget(&targets[i], seen); err != nil {
			return nil, err
		}
	}
	for i := range targets {
		if err := checkTarget(&targets[i], a.eng.FS()); err != nil {
			return nil, err
		}
	}
	return specsOf(targets), nil
}

// targetsOf lists the paths of a patch's sections in order: each section's, and a
// move's new path after its old one.
func targetsOf(ops []dialect.FileOp) []patchTarget {
	var targets []patchTarget
	for _, op := range ops {
		if op.Unified {
			targets = append(targets, diffTargets(op)...)
			continue
		}
		switch op.Kind {
		case dialect.OpAdd:
			targets = append(targets, patchTarget{op: op, path: op.Path, header: "*** Add File: " + op.Path})
		case dialect.OpDelete:
			targets = append(targets, patchTarget{op: op, path: op.Path, header: "*** Delete File: " + op.Path})
		default:
			targets = append(targets, patchTarget{op: op, path: op.Path, header: "*** Update File: " + op.Path})
			if op.MoveTo != "" {
				targets = append(targets, patchTarget{op: op, path: op.MoveTo, header: "*** Move to: " + op.MoveTo})
			}
		}
	}
	return targets
}

// resolveTarget resolves one path of a patch and refuses a path the patch names twice.
func (a *dispatcher) resolveTarget(t *patchTarget, seen map[string]*patchTarget) error {
	r, err := a.eng.FS().Resolve(t.path)
	if err != nil {
		return errs.Prefixed(fmt.Sprintf("%s (patch line %d): ", t.header, t.op.Line), err)
	}
	t.r = r
	if o := seen[r.Path]; o != nil {
		if t.op.Unified {
			return errs.New(errs.InvalidInput, t.path, "apply_diff line %d: %s names %s, which %s on line %d names already. Name each file once: a file is created, deleted, renamed or changed by one section.",
				t.op.Line, t.header, t.path, o.header, o.op.Line)
		}
		return errs.New(errs.InvalidInput, t.path, "apply_patch line %d: %s names %s, which `%s` on line %d names already. Name each file once: put all changes of a file in one `*** Update File:` section.",
			t.op.Line, t.header, t.path, o.header, o.op.Line)
	}
	seen[r.Path] = t
	return nil
}

// checkTarget refuses, in the dialect's words, an Add or a move onto an existing path
// and an Update or Delete of a missing file; and a move's new path as create_file
// refuses it (CheckNewName).
func checkTarget(t *patchTarget, fs *vfs.FS) error {
	label := t.label()
	r := t.r
	exists := r.Exists || r.Link
	isMove := t.op.MoveTo != "" && t.path == t.op.MoveTo
	if isMove && !exists {
		// The transaction checks a file moved under its own name for depth alone (a
		// folder's files keep their names), but the folders this move makes are the
		// model's names: `a\b/x.go` or a look-alike of a folder that is there.
		if err := fs.CheckNewName(r); err != nil {
			return err
		}
	}
	switch {
	case (t.op.Kind == dialect.OpAdd || isMove) && exists:
		what, found := "A file", errs.FoundFile
		if r.Exists && r.Info != nil && r.Info.IsDir() {
			what, found = "A directory", errs.FoundDir
		} else if r.Link {
			what = "A symlink"
		}
		if t.op.Unified {
			return errs.New(errs.FileExists, t.path, "%s: %s already exists at %s, and a diff never overwrites one. To change the file, send `--- a/%s` and `+++ b/%s` with hunks of ' ' context, '-' removed and '+' added lines.",
				label, what, t.path, t.path, t.path).Stood(found, "")
		}
		return errs.New(errs.FileExists, t.path, "%s: %s already exists at %s, and a patch never overwrites one. To change the file, send `*** Update File: %s` with chunks of ' ' context, '-' removed and '+' added lines.",
			label, what, t.path, t.path).Stood(found, "")
	case !isMove && t.op.Kind != dialect.OpAdd && !exists:
		msg := fmt.Sprintf("%s: %s does not exist.", label, t.path)
		if s, several := fs.SuggestAll(r.Path); s != "" {
			msg += fmt.Sprintf(" Did you mean %s? Send the path as it is.", s)
		} else if len(several) > 0 {
			msg += " " + vfs.LookalikesAdvice(several)
		} else if t.op.Unified {
			msg += fmt.Sprintf(" To make a new file, send `--- /dev/null` and `+++ b/%s`, then a hunk with each line as '+line'.", t.path)
		} else {
			msg += fmt.Sprintf(" To make a new file, send `*** Add File: %s` with each line as '+line'.", t.path)
		}
		return errs.New(errs.FileNotFound, t.path, "%s", msg)
	}
	return nil
}

// label names a section in a refusal: its header and where it is.
func (t *patchTarget) label() string {
	if t.op.Unified {
		return fmt.Sprintf("%s (diff line %d)", t.header, t.op.Line)
	}
	return fmt.Sprintf("%s (patch line %d)", t.header, t.op.Line)
}

// specsOf turns a patch's paths into the transaction's specs, one per path.
func specsOf(targets []patchTarget) []txn.Spec {
	var specs []txn.Spec
	for _, t := range targets {
		op := t.op
		label := t.label()
		locate := func(content []byte) (*matcher.Result, error) {
			if op.Unified {
				return dialect.PlanHunks(op.Path, content, op.Chunks)
			}
			return dialect.PlanChunks(op.Path, content, op.Chunks)
		}
		switch {
		case op.Kind == dialect.OpAdd:
			specs = append(specs, txn.Spec{Path: op.Path, Op: journal.OpCreate, Content: []byte(op.Content), Label: label})
		case op.Kind == dialect.OpDelete:
			s := txn.Spec{Path: op.Path, Op: journal.OpDelete, Label: label}
			if len(op.Chunks) > 0 {
				// A diff's deletion shows the lines it deletes: they must be the file's.
				s.Locate = func(content []byte) (*matcher.Result, error) {
					return nil, dialect.CheckRemoved(op.Path, content, op.Chunks)
				}
			}
			specs = append(specs, s)
		case op.MoveTo != "" && t.path == op.Path:
			specs = append(specs, txn.Spec{Path: op.Path, Op: journal.OpDelete, Label: label})
		case op.MoveTo != "":
			s := txn.Spec{Path: op.MoveTo, Op: journal.OpCreate, From: op.Path, Label: label}
			if len(op.Chunks) > 0 {
				s.Locate, s.Adds = locate, addedBytes(op.Chunks)
			}
			specs = append(specs, s)
		default:
			specs = append(specs, txn.Spec{Path: op.Path, Op: journal.OpEdit, Locate: locate, Label: label, Adds: addedBytes(op.Chunks)})
		}
	}
	return specs
}

// addedBytes is the size of the new side of chunks, for the size limit (txn.Spec.Adds).
func addedBytes(chunks []dialect.Chunk) int {
	n := 0
	for _, c := range chunks {
		for _, l := range c.New {
			n += len(l) + 1
		}
	}
	return n
}

// renderPatch is what Codex prints on success (A, M and D lines), then per file what
// edit_file's reply says: the lines changed, how each chunk matched, and the diff.
func renderPatch(ops []dialect.FileOp, specs []txn.Spec, changes []*txn.Change) string {
	var b strings.Builder
	unit := "chunk"
	if len(ops) > 0 && ops[0].Unified {
		unit = "hunk"
		b.WriteString("Applied the diff:\n")
	} else {
		b.WriteString("Success. Updated the following files:\n")
	}
	var added, modified, deleted []string
	for _, op := range ops {
		switch {
		case op.Kind == dialect.OpAdd:
			added = append(added, op.Path)
		case op.Kind == dialect.OpDelete:
			deleted = append(deleted, op.Path)
		case op.MoveTo != "":
			modified = append(modified, op.MoveTo)
		default:
			modified = append(modified, op.Path)
		}
	}
	for _, p := range added {
		fmt.Fprintf(&b, "A %s\n", p)
	}
	for _, p := range modified {
		fmt.Fprintf(&b, "M %s\n", p)
	}
	for _, p := range deleted {
		fmt.Fprintf(&b, "D %s\n", p)
	}
	for i, ch := range changes {
		s := specs[i]
		switch {
		case s.From != "":
			fmt.Fprintf(&b, "Moved %s to %s (%s).\n", s.From, s.Path, plural(txn.CountLines(ch.After), "line"))
			b.WriteString(withWarnings(strings.TrimRight(boundedDiff(ch.Diff(), ch.Seq), "\n"), ch) + "\n")
		case ch.Op == journal.OpDelete:
			if isMoveSource(specs, s.Path) {
				continue
			}
			fmt.Fprintf(&b, "Deleted %s (%s, %s).\n", s.Path, plural(txn.CountLines(ch.Before), "line"), plural(len(ch.Before), "byte"))
		case ch.Op == journal.OpCreate:
			b.WriteString(renderWrite(s.Path, ch) + "\n")
		default:
			fmt.Fprintf(&b, "Updated %s (%s).\n", s.Path, changedLines(ch.Plan))
			for k, r := range ch.Plan.Edits {
				if notes := matchNotes(r); len(notes) > 0 {
					fmt.Fprintf(&b, "%s %d: %s.\n", unit, k+1, strings.ReplaceAll(strings.Join(notes, "; "), "pasted into oldText", "pasted into its lines"))
				}
			}
			b.WriteString(withWarnings(strings.TrimRight(boundedDiff(ch.Diff(), ch.Seq), "\n"), ch) + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func isMoveSource(specs []txn.Spec, path string) bool {
	for _, s := range specs {
		if s.From == path {
			return true
		}
	}
	return false
}

// chunkWords are the native tools' words in a refusal of the guard, in a patch's
// terms: a patch has no oldText, its lines to take out are its '-' lines.
var chunkWords = strings.NewReplacer("leave them out of oldText", "leave them out of the chunk's '-' lines")

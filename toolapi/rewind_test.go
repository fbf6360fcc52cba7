package toolapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// The rewind's property, against a model the test keeps itself: session A works in
// turns (edits, writes, creates, deletes through apply_changes, undo_edit) while
// session B edits other lines of the same files. Before each turn the test
// snapshots the disk. Rewinding A to a turn must give back, byte for byte, A's part
// of every file as snapshotted before that turn, with B's lines as they are now;
// undoing the rewind must give back the disk as it was. A change of B on A's lines
// makes the rewind a conflict that writes nothing.
//
// Each shared file is A's lines, two separator lines no one edits, then B's lines,
// so the expectation is the snapshot's part above the separator joined to the
// current part below it. Lines are numbered once (never repeated), so that every
// oldText matches one place.
func TestRewindProperty(t *testing.T) {
	cases := 50
	if !FullTests() {
		cases = 10
	}
	for seed := range uint64(cases) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { rewindCase(t, seed) })
	}
}

const rewindSep = "==sep1==\n==sep2==\n"

var (
	sharedFiles = []string{"s0.txt", "lib/s1.txt"}
	ownFiles    = []string{"own/a.txt", "own/d1/b.txt", "own/d1/e/c.txt", "new/d2/d.txt"}
)

type rewindWorld struct {
	t    *testing.T
	e    *Engine
	dir  string
	rng  *rand.Rand
	next int
}

func (w *rewindWorld) line(who string) string {
	w.next++
	return fmt.Sprintf("L%05d %s\n", w.next, who)
}

func (w *rewindWorld) read(p string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(w.dir, p))
	return string(b), err == nil
}

// parts splits a shared file at the separator.
func (w *rewindWorld) parts(p string) (top, bottom string) {
	s, _ := w.read(p)
	top, bottom, ok := strings.Cut(s, rewindSep)
	if !ok {
		w.t.Fatalf("%s lost its separator:\n%s", p, s)
	}
	return top, bottom
}

// tree is every file and folder of the workspace but the journal's, by path.
func (w *rewindWorld) tree() map[string]string {
	out := map[string]string{}
	filepath.WalkDir(w.dir, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(w.dir, p)
		rel = filepath.ToSlash(rel) // as the tools name paths, on Windows too
		switch {
		case err != nil || rel == ".":
		case d.IsDir() && d.Name() == ".vfsctl":
			return filepath.SkipDir
		case d.IsDir():
			out[rel+"/"] = ""
		default:
			b, _ := os.ReadFile(p)
			out[rel] = string(b)
		}
		return nil
	})
	return out
}

func (w *rewindWorld) call(session, turn, tool string, args any) Result {
	raw, _ := json.Marshal(args)
	ctx := context.Background()
	if turn != "" {
		ctx = WithTurn(ctx, turn)
	}
	return w.e.Call(ctx, session, tool, raw)
}

func lines(s string) []string { return strings.SplitAfter(s, "\n")[:strings.Count(s, "\n")] }

// stepA makes one random call of session A in turn.
func (w *rewindWorld) stepA(turn string) {
	r := w.rng
	switch k := r.IntN(10); {
	case k < 3: // edit a line of A's part of a shared file: replace, split or drop it
		p := sharedFiles[r.IntN(len(sharedFiles))]
		top, _ := w.parts(p)
		ls := lines(top)
		if len(ls) == 0 {
			return
		}
		old := ls[r.IntN(len(ls))]
		var nw string
		switch r.IntN(3) {
		case 0:
			nw = w.line("a")
		case 1:
			nw = w.line("a") + w.line("a")
		default:
			if len(ls) > 1 {
				nw = ""
			} else {
				nw = w.line("a")
			}
		}
		w.call("A", turn, EditFile, map[string]any{"path": p, "edits": []map[string]string{{"oldText": old, "newText": nw}}})
	case k < 4: // write a shared file whole, after reading it, B's lines kept
		p := sharedFiles[r.IntN(len(sharedFiles))]
		w.call("A", turn, ReadFile, map[string]any{"path": p})
		_, bottom := w.parts(p)
		w.call("A", turn, WriteFile, map[string]any{"path": p, "content": w.line("a") + w.line("a") + rewindSep + bottom})
	case k < 8: // apply_changes: a shared edit with an own file's create, edit or delete
		var changes []map[string]any
		p := sharedFiles[r.IntN(len(sharedFiles))]
		if ls := lines(first(w.parts(p))); len(ls) > 0 && r.IntN(2) == 0 {
			changes = append(changes, map[string]any{"path": p, "edits": []map[string]string{{"oldText": ls[r.IntN(len(ls))], "newText": w.line("a")}}})
		}
		o := ownFiles[r.IntN(len(ownFiles))]
		cur, exists := w.read(o)
		switch {
		case !exists:
			changes = append(changes, map[string]any{"path": o, "create": w.line("own") + w.line("own")})
		case r.IntN(2) == 0:
			changes = append(changes, map[string]any{"path": o, "delete": true})
		default:
			ls := lines(cur)
			changes = append(changes, map[string]any{"path": o, "edits": []map[string]string{{"oldText": ls[r.IntN(len(ls))], "newText": w.line("own")}}})
		}
		w.call("A", turn, ApplyChanges, map[string]any{"changes": changes})
	case k < 9: // create_file or write_file of an own file
		o := ownFiles[r.IntN(len(ownFiles))]
		if _, exists := w.read(o); !exists {
			w.call("A", turn, CreateFile, map[string]any{"path": o, "content": w.line("own")})
		} else {
			w.call("A", turn, ReadFile, map[string]any{"path": o})
			w.call("A", turn, WriteFile, map[string]any{"path": o, "content": w.line("own") + w.line("own")})
		}
	default: // undo A's latest change to a file
		all := append(slices.Clone(sharedFiles), ownFiles...)
		w.call("A", turn, UndoEdit, map[string]any{"path": all[r.IntN(len(all))]})
	}
}

func first(a, _ string) string { return a }

// stepB edits one of B's lines of a shared file.
func (w *rewindWorld) stepB() {
	p := sharedFiles[w.rng.IntN(len(sharedFiles))]
	_, bottom := w.parts(p)
	ls := lines(bottom)
	old := ls[w.rng.IntN(len(ls))]
	res := w.call("B", "", EditFile, map[string]any{"path": p, "edits": []map[string]string{{"oldText": old, "newText": w.line("b")}}})
	if !res.OK {
		w.t.Fatalf("B's edit refused: %s", res.Text)
	}
}

// snapshot is what the test keeps of the disk before a turn.
type snapshot struct {
	tops map[string]string // A's part of each shared file
	own  map[string]string // every other file and folder
}

func (w *rewindWorld) snap() snapshot {
	s := snapshot{tops: map[string]string{}, own: w.tree()}
	for _, p := range sharedFiles {
		s.tops[p], _ = w.parts(p)
		delete(s.own, p)
	}
	return s
}

func rewindCase(t *testing.T, seed uint64) {
	dir := t.TempDir()
	w := &rewindWorld{t: t, dir: dir, rng: rand.New(rand.NewPCG(seed, 22))}
	for _, p := range sharedFiles {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
		content := w.line("a") + w.line("a") + w.line("a") + rewindSep + w.line("b") + w.line("b") + w.line("b")
		if err := os.WriteFile(filepath.Join(dir, p), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(dir, "own"), 0o755)
	os.WriteFile(filepath.Join(dir, "own", "keep.txt"), []byte("kept\n"), 0o644)
	e, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	w.e = e

	nTurns := 2 + w.rng.IntN(3)
	var turns []string
	var snaps []snapshot
	for i := range nTurns {
		turn := fmt.Sprintf("turn-%c", 'z'-i) // names that sort against the turns' order
		turns = append(turns, turn)
		snaps = append(snaps, w.snap())
		for range 1 + w.rng.IntN(4) {
			w.stepA(turn)
			if w.rng.IntN(2) == 0 {
				w.stepB()
			}
		}
	}
	ctx := context.Background()
	for k, i := range w.rng.Perm(nTurns) {
		before := w.tree()
		bottoms := map[string]string{}
		for _, p := range sharedFiles {
			_, bottoms[p] = w.parts(p)
		}
		res := e.Rewind(ctx, "A", turns[i])
		want := maps.Clone(snaps[i].own)
		for _, p := range sharedFiles {
			want[p] = snaps[i].tops[p] + rewindSep + bottoms[p]
		}
		got := w.tree()
		if !sameTree(got, want) {
			t.Fatalf("rewind to %s (%v %s):\n%s", turns[i], res.OK, res.Text, treeDiff(got, want))
		}
		if !res.OK {
			if *res.Kind != string(errs.NoChange) {
				t.Fatalf("rewind to %s refused: %s", turns[i], res.Text)
			}
			continue
		}
		// The rewind is one transaction: undoing it gives the turns back.
		// Undo works by files: a folder a rewind removed empty does not come back (one
		// it made for a file it put back goes again, with the file).
		u := e.Undo(ctx, uint64(*res.Txn))
		if got := w.tree(); !u.OK || !maps.Equal(filesOf(got), filesOf(before)) {
			t.Fatalf("undo of rewind to %s: %s\n%s", turns[i], u.Text, treeDiff(got, before))
		}
		if k > 0 {
			continue
		}
		// Redo of that undo rewinds again; undoing the redo brings the turns back.
		r := e.Redo(ctx, uint64(*u.Txn))
		if got := w.tree(); !r.OK || !maps.Equal(filesOf(got), filesOf(want)) {
			t.Fatalf("redo of the rewind to %s: %s\n%s", turns[i], r.Text, treeDiff(got, want))
		}
		u = e.Undo(ctx, uint64(*r.Txn))
		if got := w.tree(); !u.OK || !maps.Equal(filesOf(got), filesOf(before)) {
			t.Fatalf("undo of the redone rewind to %s: %s\n%s", turns[i], u.Text, treeDiff(got, before))
		}
	}

	// B changes one of the lines A's turns wrote: rewinding them would lose it.
	for _, p := range sharedFiles {
		top, _ := w.parts(p)
		var mine []string
		for _, l := range lines(top) {
			if !strings.Contains(snaps[0].tops[p], l) {
				mine = append(mine, l)
			}
		}
		if len(mine) == 0 {
			continue
		}
		res := w.call("B", "", EditFile, map[string]any{"path": p, "edits": []map[string]string{{"oldText": mine[0], "newText": w.line("b")}}})
		if !res.OK {
			t.Fatalf("B's edit of A's line: %s", res.Text)
		}
		before := w.tree()
		rw := e.Rewind(ctx, "A", turns[0])
		if rw.OK || *rw.Kind != string(Conflict) || !strings.Contains(rw.Text, fmt.Sprintf("%d (session B)", *res.Txn)) {
			t.Fatalf("rewind over B's change of A's line: %v %v %s", rw.OK, rw.Kind, rw.Text)
		}
		if got := w.tree(); !maps.Equal(got, before) {
			t.Fatalf("a refused rewind changed the disk:\n%s", treeDiff(got, before))
		}
		break
	}
}

// sameTree compares the files byte for byte, and the folders: every folder of got
// must be in want (a folder the turns made goes with their files), and want's
// folders that hold a file are then in got. A folder want holds empty may be missing:
// the journal keeps files, not empty folders, so undoing a rewind does not make one.
func sameTree(got, want map[string]string) bool {
	for p, c := range want {
		if g, ok := got[p]; !strings.HasSuffix(p, "/") && (!ok || g != c) {
			return false
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			return false
		}
	}
	return true
}

func filesOf(tree map[string]string) map[string]string {
	out := map[string]string{}
	for p, c := range tree {
		if !strings.HasSuffix(p, "/") {
			out[p] = c
		}
	}
	return out
}

func treeDiff(got, want map[string]string) string {
	var b strings.Builder
	for _, p := range slices.Sorted(maps.Keys(want)) {
		if g, ok := got[p]; !ok {
			fmt.Fprintf(&b, "missing %s\n", p)
		} else if g != want[p] {
			fmt.Fprintf(&b, "%s:\n got %q\nwant %q\n", p, g, want[p])
		}
	}
	for _, p := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[p]; !ok {
			fmt.Fprintf(&b, "extra %s\n", p)
		}
	}
	return b.String()
}

// apply_changes deletes a file with {"path": P, "delete": true}, journaled as a
// deletion that undo brings back; "delete": false is no change and is refused.
func TestApplyChangesDelete(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("keep me\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b\n"), 0o644)
	e, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	res := e.Call(ctx, "s", ApplyChanges, json.RawMessage(`{"changes": [{"path": "a.txt", "delete": true}, {"path": "b.txt", "edits": [{"oldText": "b", "newText": "B"}]}]}`))
	if !res.OK || !strings.Contains(res.Text, "Removed a.txt") {
		t.Fatalf("delete: %s", res.Text)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); err == nil {
		t.Fatal("a.txt is still there")
	}
	rec, _, _ := e.Show(uint64(*res.Txn))
	if rec.Files[0].Op != OpDelete {
		t.Errorf("journaled as %s", rec.Files[0].Op)
	}
	bad := e.Call(ctx, "s", ApplyChanges, json.RawMessage(`{"changes": [{"path": "b.txt", "delete": false}]}`))
	if bad.OK || *bad.Kind != string(errs.InvalidInput) {
		t.Errorf(`"delete": false: %v %s`, bad.OK, bad.Text)
	}
	if u := e.Call(ctx, "s", UndoEdit, json.RawMessage(`{"path": "a.txt"}`)); !u.OK {
		t.Fatalf("undo_edit: %s", u.Text)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "keep me\n" {
		t.Errorf("a.txt after undo: %q", b)
	}
}

// A rewind's conflict names a path as it is: not capitalised, not cut inside a rune.
func TestRewindConflictKeepsThePath(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if r := e.Call(ctx, "a", CreateFile, json.RawMessage(`{"path": "é.txt", "content": "x\n"}`)); !r.OK {
		t.Fatal(r.Text)
	}
	if r := e.Call(WithTurn(ctx, "t1"), "a", ApplyChanges, json.RawMessage(`{"changes": [{"path": "é.txt", "delete": true}]}`)); !r.OK {
		t.Fatal(r.Text)
	}
	if r := e.Call(ctx, "b", CreateFile, json.RawMessage(`{"path": "é.txt", "content": "new\n"}`)); !r.OK {
		t.Fatal(r.Text)
	}
	r := e.Rewind(ctx, "a", "t1")
	if r.OK || r.Kind == nil || *r.Kind != string(errs.Conflict) {
		t.Fatalf("rewind: %+v", r)
	}
	if !strings.Contains(r.Text, "é.txt") {
		t.Errorf("the conflict does not name the path as it is: %s", r.Text)
	}
	if !utf8.ValidString(r.Text) {
		t.Errorf("the path was changed: %q", r.Text)
	}
}

// A file the turn created and another session removed since is simply gone after the
// rewind: the rewind wants it gone, so nothing of the other session's is undone, and
// the turn's other changes are rewound.
func TestRewindKeepsAnotherSessionsRemovalOfACreatedFile(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	for _, c := range []struct{ session, turn, tool, args string }{
		{"a", "t1", CreateFile, `{"path": "x.txt", "content": "x\n"}`},
		{"a", "t1", CreateFile, `{"path": "y.txt", "content": "y\n"}`},
		{"b", "", ApplyChanges, `{"changes": [{"path": "x.txt", "delete": true}]}`},
	} {
		cctx := ctx
		if c.turn != "" {
			cctx = WithTurn(ctx, c.turn)
		}
		if r := e.Call(cctx, c.session, c.tool, json.RawMessage(c.args)); !r.OK {
			t.Fatal(r.Text)
		}
	}
	if r := e.Rewind(ctx, "a", "t1"); !r.OK {
		t.Fatalf("rewind refused: %s", r.Text)
	}
	for _, p := range []string{"x.txt", "y.txt"} {
		if _, err := os.Stat(filepath.Join(dir, p)); !os.IsNotExist(err) {
			t.Errorf("%s is still there after the rewind (%v)", p, err)
		}
	}
}

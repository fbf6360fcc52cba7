package txn

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/vfs"
)

// randomSession runs n random calls of one session over a few files: edits of single
// lines to fresh text, several-file apply_changes, creates, whole writes after a read,
// and now and then an undo or a redo. Every line is unique, so every edit is exact.
func randomSession(t *testing.T, e *Engine, rng *rand.Rand, session string, n int) (changes int) {
	t.Helper()
	fresh := 0
	word := func() string { fresh++; return fmt.Sprintf("%s-%d", session, fresh) }
	for k := 0; k < n; k++ {
		files := listFiles(e)
		var err error
		switch op := rng.Intn(10); {
		case op < 4 && len(files) > 0: // edit one line
			p := files[rng.Intn(len(files))]
			data, _ := e.fs.ReadCanonical(p)
			lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			old := lines[rng.Intn(len(lines))]
			err = edit(e, session, p, old, word())
		case op < 5 && len(files) > 1: // two files at once
			a, b := files[rng.Intn(len(files))], files[rng.Intn(len(files))]
			if a == b {
				continue
			}
			la, _ := e.fs.ReadCanonical(a)
			lb, _ := e.fs.ReadCanonical(b)
			oa := strings.SplitN(string(la), "\n", 2)[0]
			ob := strings.SplitN(string(lb), "\n", 2)[0]
			err = do(e, session, func(c *Call) error {
				_, err := e.Apply(c, []Spec{
					{Path: a, Op: journal.OpEdit, Edits: []matcher.Edit{{OldText: oa, NewText: word()}}},
					{Path: b, Op: journal.OpEdit, Edits: []matcher.Edit{{OldText: ob, NewText: word()}}},
				}, false)
				return err
			})
		case op < 6: // create
			p := fmt.Sprintf("dir%d/%s.txt", rng.Intn(3), word())
			err = do(e, session, func(c *Call) error {
				_, err := e.Create(c, p, []byte(word()+"\n"+word()+"\n"))
				return err
			})
		case op < 7 && len(files) > 0: // whole write after a read
			p := files[rng.Intn(len(files))]
			if err = read(e, session, p); err == nil {
				err = write(e, session, p, word()+"\n"+word()+"\n"+word()+"\n")
			}
		case op < 9: // undo
			_, err = undo(e, session, UndoOptions{Session: session})
			if errors.Is(err, ErrNothingToUndo) {
				err = nil // nothing to undo
			}
		default: // redo
			_, err = undo(e, session, UndoOptions{Session: session, Redo: true})
			if errors.Is(err, ErrNothingToUndo) {
				err = nil
			}
		}
		if err != nil {
			t.Fatalf("call %d: %v", k, err)
		}
		changes++
	}
	return changes
}

func listFiles(e *Engine) []string {
	var out []string
	afero.Walk(e.fs.Afero(), ".", func(p string, fi fs.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && !strings.HasPrefix(p, ".") {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func fsSnapshot(t *testing.T, fsys afero.Fs) map[string]string {
	out := map[string]string{}
	afero.Walk(fsys, ".", func(p string, fi fs.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			b, _ := afero.ReadFile(fsys, p)
			out[p] = string(b)
		}
		return nil
	})
	return out
}

// TestHistoryRebuildsAndUndoesAll: after long random sessions, the journal alone
// rebuilds the before and after content of every committed change (each checked
// against its hash), and undoing the session's changes newest first, through a crash
// in the middle, brings every file back byte for byte.
func TestHistoryRebuildsAndUndoesAll(t *testing.T) {
	rounds, calls := 4, 150
	if !full() {
		rounds, calls = 2, 60
	}
	for round := range rounds {
		rng := rand.New(rand.NewSource(int64(round)))
		mem := afero.NewMemMapFs()
		for i := range 4 {
			var b strings.Builder
			for l := range 6 {
				fmt.Fprintf(&b, "file%d line%d\n", i, l)
			}
			afero.WriteFile(mem, fmt.Sprintf("f%d.txt", i), []byte(b.String()), 0o644)
		}
		start := fsSnapshot(t, mem)
		ffs := &testutil.FaultFs{Fs: mem}
		jpath := t.TempDir() + "/journal.db"
		open := func() *Engine {
			e, err := Open(vfs.New(ffs, vfs.Options{}), Options{JournalPath: jpath, NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
		e := open()
		randomSession(t, e, rng, "s", calls)

		// Every version of every committed change rebuilds from the journal.
		versions := 0
		e.View(func(tx *journal.Tx) error {
			for seq := uint64(1); seq <= tx.Last(); seq++ {
				r, _ := tx.Get(seq)
				if r == nil || r.State != journal.Committed {
					continue
				}
				for _, f := range r.Files {
					if !f.Op.Changes() {
						continue
					}
					for _, h := range []string{f.Before, f.After} {
						if h == "" {
							continue
						}
						if _, err := tx.Content(f.Path, h); err != nil {
							t.Errorf("round %d: call %d %s: %v", round, seq, f.Path, err)
						}
						versions++
					}
				}
			}
			return nil
		})

		// Undo everything, newest first; halfway, a panic while writing leaves a
		// record pending, and a new engine's recovery settles it.
		undone := 0
		for ; ; undone++ {
			if undone == 10 {
				renames := 0
				ffs.SetHook(func(op testutil.Op, name string) error {
					if op == testutil.OpRename || op == testutil.OpRemove && !strings.Contains(name, vfs.TempPrefix) {
						renames++
						panic("injected crash")
					}
					return nil
				})
				undo(e, "s", UndoOptions{Session: "s"})
				ffs.SetHook(nil)
				e = open()
			}
			_, err := undo(e, "s", UndoOptions{Session: "s"})
			if errors.Is(err, ErrNothingToUndo) {
				break
			}
			if err != nil {
				t.Fatalf("round %d: undo %d: %v", round, undone, err)
			}
		}
		crashed := false
		e.View(func(tx *journal.Tx) error {
			for seq := uint64(1); seq <= tx.Last(); seq++ {
				if r, _ := tx.Get(seq); r != nil && r.Tool == "undo" && (r.State == journal.RolledBack || strings.Contains(r.Message+strings.Join(r.Notes, ""), "injected crash")) {
					crashed = true
				}
			}
			return nil
		})
		if !crashed {
			t.Errorf("round %d: the injected crash left no trace in the journal", round)
		}
		if got := fsSnapshot(t, mem); !maps.Equal(got, start) {
			t.Fatalf("round %d: after undoing everything the workspace differs:\n got %v\nwant %v", round, got, start)
		}
		t.Logf("round %d: %d calls, %d versions rebuilt, %d undos", round, calls, versions, undone)
	}
}

package txn

import (
	"errors"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/guard"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
)

// turnedBackSrc is a Python file whose line 2 has plain quotes, which a model may send
// back curly.
const turnedBackSrc = "def f():\n    sep = '#'\n    return sep\n"

// turnedBackRig is an engine over turnedBackSrc as a.py, read in session s, or a skip
// where this build does not guard Python.
func turnedBackRig(t *testing.T) (*Engine, afero.Fs) {
	t.Helper()
	if guard.Syntax("a.py", []byte(turnedBackSrc), []byte(turnedBackSrc+"(\n")) == nil {
		t.Skip("a.py is not guarded in this build")
	}
	mem := afero.NewMemMapFs()
	afero.WriteFile(mem, "a.py", []byte(turnedBackSrc), 0o644)
	e := memEngine(t, mem)
	t.Cleanup(func() { e.Close() })
	if err := read(e, "s", "a.py"); err != nil {
		t.Fatal(err)
	}
	return e, mem
}

// lastRecord is the newest record of session s.
func lastRecord(t *testing.T, e *Engine) *journal.Record {
	t.Helper()
	var rec *journal.Record
	e.View(func(tx *journal.Tx) error {
		if recs, _ := tx.Find(journal.Query{Session: "s", Limit: 1}); len(recs) > 0 {
			rec = recs[0]
		}
		return nil
	})
	if rec == nil {
		t.Fatal("no record")
	}
	return rec
}

// A change whose only difference from the file is typographic quotes where the code
// has plain ones: the guard writes them plain, which leaves the file as it is. It was
// committed and answered as an edit, journaled as an empty change that undo_edit then
// landed on. It is refused no_change, saying the line and why, whether sent as an edit
// or as the whole content; nothing is committed, and undo finds nothing to take back.
func TestTypographyTurnedBackWholeIsNoChange(t *testing.T) {
	curly := strings.Replace(turnedBackSrc, "'#'", "‘#’", 1)
	sends := map[string]func(e *Engine) error{
		"edit": func(e *Engine) error { return edit(e, "s", "a.py", "    sep = '#'", "    sep = ‘#’") },
		"write": func(e *Engine) error {
			return do(e, "s", func(c *Call) error { _, err := e.Write(c, "a.py", []byte(curly)); return err })
		},
	}
	for name, send := range sends {
		t.Run(name, func(t *testing.T) {
			e, mem := turnedBackRig(t)
			err := send(e)
			if errs.KindOf(err) != errs.NoChange {
				t.Fatalf("%v, want no_change", err)
			}
			for _, want := range []string{"typographic quotes ('‘' and '’')", "at line 2", "needs the plain characters", "Nothing was written"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the refusal does not say %q:\n%s", want, err)
				}
			}
			if got, _ := afero.ReadFile(mem, "a.py"); string(got) != turnedBackSrc {
				t.Errorf("a.py changed:\n%s", got)
			}
			if rec := lastRecord(t, e); rec.State == journal.Committed || rec.Kind != string(errs.NoChange) ||
				rec.Refusal == nil || len(rec.Refusal.Lines) != 1 || rec.Refusal.Lines[0] != 2 {
				t.Errorf("journaled %s %s, refusal %+v; want a no_change refusal at line 2", rec.State, rec.Kind, rec.Refusal)
			}
			err = do(e, "s", func(c *Call) error {
				_, err := e.Undo(c, UndoOptions{Session: "s", Path: "a.py"})
				return err
			})
			if !errors.Is(err, ErrNothingToUndo) {
				t.Errorf("undo after the refusal: %v, want nothing to undo", err)
			}
		})
	}
}

// Of two edits, one asks only for curly quotes where the code has plain ones: the rest
// is written, and the reply says that edit was turned back and where, rather than
// counting it as made; the journal keeps only the splice that changes something, and
// undo puts the file back.
func TestTypographyTurnedBackEditAmongOthers(t *testing.T) {
	e, mem := turnedBackRig(t)
	var ch *Change
	err := do(e, "s", func(c *Call) error {
		var err error
		ch, err = e.Edit(c, "a.py", []matcher.Edit{
			{OldText: "    sep = '#'", NewText: "    sep = ‘#’"},
			{OldText: "    return sep", NewText: "    return sep * 2"},
		}, false)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(turnedBackSrc, "return sep\n", "return sep * 2\n", 1)
	if got, _ := afero.ReadFile(mem, "a.py"); string(got) != want {
		t.Fatalf("a.py is\n%s\nwant\n%s", got, want)
	}
	notes := strings.Join(ch.Notes, "\n")
	if !strings.Contains(notes, "at line 2") || !strings.Contains(notes, "turned back and changed nothing") {
		t.Errorf("the reply does not say the edit at line 2 was turned back:\n%s", notes)
	}
	if strings.Contains(notes, "was written as") {
		t.Errorf("the reply says the turned-back quotes were written:\n%s", notes)
	}
	rec := lastRecord(t, e)
	if rec.State != journal.Committed || len(rec.Files) != 1 || len(rec.Files[0].Splices) != 1 ||
		string(rec.Files[0].Splices[0].New) != "    return sep * 2" {
		t.Errorf("journaled %s with files %+v; want one splice, the return line's", rec.State, rec.Files)
	}
	if err := do(e, "s", func(c *Call) error {
		_, err := e.Undo(c, UndoOptions{Session: "s", Path: "a.py"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got, _ := afero.ReadFile(mem, "a.py"); string(got) != turnedBackSrc {
		t.Errorf("after undo a.py is\n%s", got)
	}
}

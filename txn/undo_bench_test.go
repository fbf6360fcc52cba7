package txn

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/vfs"
)

// undoBenchRecords is the size of the journal BenchmarkUndo works in.
const undoBenchRecords = 100_000

// undoBenchEngine is an engine whose journal holds n committed changes of other files,
// then ten edits of every other line of a.txt by session s, oldest first; it returns their numbers.
func undoBenchEngine(b *testing.B, n int) (*Engine, []uint64) {
	mem := afero.NewMemMapFs()
	var lines []string
	for i := range 20 {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	afero.WriteFile(mem, "a.txt", []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	e, err := Open(vfs.New(mem, vfs.Options{}), Options{JournalPath: b.TempDir() + "/journal.db", NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	if err := e.j.Acquire(); err != nil {
		b.Fatal(err)
	}
	defer e.j.Release()
	for done := 0; done < n; {
		err := e.j.Update(func(t *journal.Tx) error {
			for k := 0; k < 10_000 && done < n; k, done = k+1, done+1 {
				r := &journal.Record{Time: time.Now(), Session: "other", Tool: "edit_file", State: journal.Committed,
					Files: []journal.File{{Path: fmt.Sprintf("other/%d.txt", done%1000), Op: journal.OpEdit,
						Before: journal.Hash([]byte("x")), After: journal.Hash([]byte("y")),
						Splices: []journal.Splice{{Start: 0, Old: []byte("x"), New: []byte("y")}}}}}
				if err := t.Put(r); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	var seqs []uint64
	for i := range 10 {
		err := do(e, "s", func(c *Call) error {
			_, err := e.Edit(c, "a.txt", []matcher.Edit{{OldText: fmt.Sprintf("line %d\n", 2*i), NewText: fmt.Sprintf("LINE %d\n", 2*i)}}, false)
			seqs = append(seqs, c.Seq())
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return e, seqs
}

// BenchmarkUndo: bare undo and undo N (of an edit that later edits of the same file
// followed), each with the redo that puts the file back, in a journal of 100,000
// records: with the history index (built once, before timing), and without it
// (scan: every record decoded, as before the index).
func BenchmarkUndo(b *testing.B) {
	e, seqs := undoBenchEngine(b, undoBenchRecords)
	e.j.Acquire() // held, as a server holds it
	defer e.j.Release()
	built := time.Now()
	if err := e.buildHistory(); err != nil {
		b.Fatal(err)
	}
	b.Logf("the history index of %d records was built in %v", undoBenchRecords+10, time.Since(built))
	run := func(b *testing.B, o UndoOptions) {
		for b.Loop() {
			res, err := undo(e, "s", o)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := undo(e, "s", UndoOptions{Seq: res.Changes[0].Seq, Redo: true}); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, index := range []bool{true, false} {
		name := "index"
		if !index {
			name = "scan"
		}
		historyIndex = index
		b.Run("bare/"+name, func(b *testing.B) { run(b, UndoOptions{Session: "s"}) })
		b.Run("N/"+name, func(b *testing.B) { run(b, UndoOptions{Seq: seqs[4]}) })
	}
	historyIndex = true
}

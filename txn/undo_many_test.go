package txn

import (
	"fmt"
	"testing"

	"github.com/vfsctl/vfsctl/journal"
)

// BenchmarkUndoOfManyFiles times the undo and then the redo of a call that made 1,000
// files in one folder, on disk, file-durable (the default): what rewinding a turn
// whose command made them costs, and how long the workspace is held.
//
//	go test -run XXX -bench UndoOfManyFiles -benchtime 5x ./txn/
func BenchmarkUndoOfManyFiles(b *testing.B) {
	const n = 1000
	e := diskEngineOn(b, b.TempDir(), Options{})
	defer e.Close()
	var specs []Spec
	for i := range n {
		specs = append(specs, Spec{Path: fmt.Sprintf("d/f%d.txt", i), Op: journal.OpCreate, Content: []byte(fmt.Sprintln(i))})
	}
	if err := do(e, "s", func(c *Call) error { _, err := e.Apply(c, specs, false); return err }); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		for _, redo := range []bool{false, true} {
			if err := do(e, "s", func(c *Call) error { _, err := e.Undo(c, UndoOptions{Redo: redo}); return err }); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(2*n), "ns/file")
}

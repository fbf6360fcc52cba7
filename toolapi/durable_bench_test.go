package toolapi_test

// The journal-durable mode, timed as speed_bench_test.go times the file-durable one:
// the same edits, the floor of the same file between them. Its checkpoints (a batch
// of file syncs every 256 calls, after a second, and at Close) run inside the timed
// calls or beside them, so the figures include them.
//
//	go test -run XXX -bench 'Floor|EditJournal|Parallel8' -benchtime 600x -count 3 ./toolapi

import (
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/toolapi"
)

// BenchmarkEditJournal is BenchmarkEdit's exact edit in the journal-durable mode. The
// same edit in the file-durable mode, in a workspace of its own, is timed between the
// calls too: x_file_p50 is the journal-durable edit over the file-durable one, within
// the run (on a disk shared with other work, the ratio steadier than either figure).
func BenchmarkEditJournal(b *testing.B) {
	for _, size := range speedSizes {
		b.Run(size.name+"/exact", func(b *testing.B) {
			fileMode := newSpeedEdit(b, size.lines, "")
			s := newSpeedEdit(b, size.lines, toolapi.DurableJournal)
			var edit, floor, file []time.Duration
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				s.settle()
				floor = append(floor, s.floor(b, i))
				t0 := time.Now()
				fileMode.call(b, false, i)
				file = append(file, time.Since(t0))
				fileMode.settle()
				b.StartTimer()
				t1 := time.Now()
				s.call(b, false, i)
				edit = append(edit, time.Since(t1))
			}
			reportFloor(b, edit, floor)
			b.ReportMetric(median(edit)/median(file), "x_file_p50")
		})
	}
}

// BenchmarkParallel8Journal is BenchmarkParallel8's edit in the journal-durable mode:
// the journal's group commit shares one sync among the calls in flight, and the
// files' syncs come in batches.
func BenchmarkParallel8Journal(b *testing.B) { editParallel(b, 8, toolapi.DurableJournal) }

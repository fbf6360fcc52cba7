package toolapi_test

// The journal-durable mode, timed as speed_bench_test.go times the file-durable one:
// the same edits, the floor of the same file between them. Its checkpoints (a batch
// of file syncs every 256 calls, after a second, and at Close) run inside the timed
// calls or beside them, so the figures include them.
//
//	go test -run XXX -bench 'Floor|EditJournal|Parallel8' -benchtime 600x -count 3 ./toolapi

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
			fileMode := newSpeedEdit(b, size.lines)
			s := newSpeedEdit(b, size.lines)
			s.eng.Close()
			eng, err := toolapi.Open(s.dir, toolapi.Options{Guard: toolapi.GuardOff, Durability: toolapi.DurableJournal})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { eng.Close() })
			s.eng = eng
			floorPath := filepath.Join(s.dir, "floor.go")
			floorData := [2][]byte{[]byte(s.stateB), []byte(s.stateA)}
			var edit, floor, file []time.Duration
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				t0 := time.Now()
				if err := durableWrite(floorPath, floorData[i%2]); err != nil {
					b.Fatal(err)
				}
				floor = append(floor, time.Since(t0))
				t0 = time.Now()
				fileMode.call(b, false, i)
				file = append(file, time.Since(t0))
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
func BenchmarkParallel8Journal(b *testing.B) {
	const files = 8
	data := goSource(b, 300)
	dir := b.TempDir()
	a, e := editLine(b, data)
	for g := range files {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", g)), []byte(data), 0o644)
	}
	eng, err := toolapi.Open(dir, toolapi.Options{Guard: toolapi.GuardOff, Durability: toolapi.DurableJournal})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	var calls [files][2]json.RawMessage
	for g := range files {
		p := fmt.Sprintf("f%d.go", g)
		calls[g] = [2]json.RawMessage{editArgs(p, a, e), editArgs(p, e, a)}
		for _, c := range calls[g] {
			if res := eng.Call(context.Background(), "bench", "edit_file", c); !res.OK {
				b.Fatal(res.Text)
			}
		}
	}
	parallel(b, files, func(g, i int) error {
		if res := eng.Call(context.Background(), "bench", "edit_file", calls[g][i%2]); !res.OK {
			return fmt.Errorf("%s", res.Text)
		}
		return nil
	})
}

package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// BenchmarkStatsMillion reads a journal of 1,000,000 records in one streaming pass
// (journal.Stats), reporting records/s and the Go heap the pass grew. The journal is
// built once under VFSCTL_STATS_DIR (default: a temp dir), as a workspace whose
// .vfsctl/journal.db the CLI can read too (vfsctl stats --root DIR).
func BenchmarkStatsMillion(b *testing.B) {
	const n = 1_000_000
	dir := os.Getenv("VFSCTL_STATS_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	path := filepath.Join(dir, ".vfsctl", "journal.db")
	j := New(path, Options{NoSync: true})
	if err := j.Acquire(); err != nil {
		b.Fatal(err)
	}
	defer j.Release()
	var have uint64
	j.View(func(t *Tx) error { have = t.Last(); return nil })
	kinds := []string{"text_not_found", "multiple_matches", "no_change", "file_not_found", "not_read"}
	folds := [][]string{nil, nil, nil, {"curly quotes"}, {"trailing whitespace"}, {"dashes", "special spaces"}}
	start := time.Now().Add(-30 * 24 * time.Hour)
	for have < n {
		err := j.Commit(func(t *Tx) error {
			for k := 0; k < 20000 && have < n; k++ {
				have++
				i := int(have)
				r := &Record{Time: start.Add(time.Duration(i) * 2 * time.Second), Session: fmt.Sprintf("s%d", i%50), Tool: "edit_file",
					Args: `{"path": "src/f.go", "edits": [{"oldText": "x := 1", "newText": "x := 2"}]}`, ArgsSize: 70}
				f := File{Path: fmt.Sprintf("src/f%d.go", i%200), Op: OpEdit, Before: "b", After: "a"}
				if i%4 == 0 {
					r.State, r.Kind, r.Message = Failed, kinds[i%len(kinds)], "edits[0]: oldText was not found in src/f.go."
					f.After = ""
				} else {
					r.State = Committed
					f.Edits = []Edit{{Tier: "typography", Folded: folds[i%len(folds)], ContextLines: i % 7, ContextBytes: 40 * (i % 7)}}
				}
				r.Files = []File{f}
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
	b.ResetTimer()
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		t0 := time.Now()
		var st *Stats
		j.View(func(t *Tx) (err error) { st, err = t.Stats(Query{}); return err })
		took := time.Since(t0)
		runtime.ReadMemStats(&after)
		if st.Calls != n {
			b.Fatalf("%d calls counted, want %d", st.Calls, n)
		}
		b.ReportMetric(took.Seconds(), "s/pass")
		b.ReportMetric(float64(n)/took.Seconds(), "records/s")
		b.ReportMetric(float64(after.HeapSys)/(1<<20), "heap-MiB")
	}
}

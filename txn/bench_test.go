package txn

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/vfs"
)

func sourceLines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "\tlog.Printf(\"request %%s served by handler %06d\", r.URL.Path) // line %d\n", i, i)
	}
	return b.String()
}

// percentiles returns the p50 and p99 of per-operation durations.
func percentiles(d []time.Duration) (time.Duration, time.Duration) {
	if len(d) == 0 {
		return 0, 0
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2], d[len(d)*99/100]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkDurableEdit sets a journaled edit of a 20,000-line file beside the floor of a
// bare durable replace of a file of the same size (renameio plus a directory fsync).
// The two alternate within each iteration, so both see the same disk and the same
// noise, and the ratio of their percentiles is the journal's cost. "journaled" opens
// the journal per call, as a process does between bursts; "journaled-held" keeps it
// open, as a busy server does.
func BenchmarkDurableEdit(b *testing.B) {
	data := sourceLines(20000)
	alt := strings.Replace(data, "handler 010000", "handler 01000X", 1)
	for _, held := range []bool{false, true} {
		name := "journaled"
		if held {
			name = "journaled-held"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			floorPath := filepath.Join(dir, "floor.go")
			os.WriteFile(floorPath, []byte(data), 0o644)
			os.WriteFile(filepath.Join(dir, "big.go"), []byte(data), 0o644)
			fs, err := vfs.Open(dir, vfs.Options{})
			if err != nil {
				b.Fatal(err)
			}
			e, err := Open(fs, Options{})
			if err != nil {
				b.Fatal(err)
			}
			edit(e, "bench", "big.go", "handler 000001", "handler 00000X") // the one-time blob
			if held {
				e.j.Acquire()
				defer e.j.Release()
			}
			var floor, journaled []time.Duration
			for i := 0; b.Loop(); i++ {
				content, old, nw := data, "handler 010000", "handler 01000X"
				if i%2 == 1 {
					content, old, nw = alt, nw, old
				}
				t0 := time.Now()
				if err := testutil.FloorWrite(b, floorPath, []byte(content), dir); err != nil {
					b.Fatal(err)
				}
				h, _ := os.Open(dir)
				h.Sync()
				h.Close()
				t1 := time.Now()
				if err := edit(e, "bench", "big.go", old, nw); err != nil {
					b.Fatal(err)
				}
				floor = append(floor, t1.Sub(t0))
				journaled = append(journaled, time.Since(t1))
			}
			f50, f99 := percentiles(floor)
			j50, j99 := percentiles(journaled)
			b.ReportMetric(ms(f50), "floor-p50-ms")
			b.ReportMetric(ms(f99), "floor-p99-ms")
			b.ReportMetric(ms(j50), "p50-ms")
			b.ReportMetric(ms(j99), "p99-ms")
			b.ReportMetric(float64(j50)/float64(f50), "p50-x-floor")
			b.ReportMetric(float64(j99)/float64(f99), "p99-x-floor")
		})
	}
}

// BenchmarkParallelEdits: eight goroutines, each editing its own 2,000-line file;
// reports edits per second across them, with replaced files staged while the pending
// record is written (early) and after it (late). "floor" is the same eight goroutines
// replacing their files durably with no journal (renameio plus a directory fsync):
// what this disk allows.
func BenchmarkParallelEdits(b *testing.B) {
	b.Run("floor", func(b *testing.B) {
		dir := b.TempDir()
		data := []byte(sourceLines(2000))
		start := time.Now()
		var wg sync.WaitGroup
		per := max(b.N/8, 1)
		for g := range 8 {
			wg.Go(func() {
				p := filepath.Join(dir, fmt.Sprintf("f%d.go", g))
				for range per {
					if err := testutil.FloorWrite(b, p, data, dir); err != nil {
						b.Error(err)
						return
					}
					h, _ := os.Open(dir)
					h.Sync()
					h.Close()
				}
			})
		}
		wg.Wait()
		b.ReportMetric(float64(per*8)/time.Since(start).Seconds(), "edits/s")
	})
	b.Run("vfsctl", parallelEdits)
}

func parallelEdits(b *testing.B) {
	dir := b.TempDir()
	for i := range 8 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", i)), []byte(sourceLines(2000)), 0o644)
	}
	fs, _ := vfs.Open(dir, vfs.Options{})
	e, _ := Open(fs, Options{})
	start := time.Now()
	var wg sync.WaitGroup
	per := max(b.N/8, 1)
	for g := range 8 {
		wg.Go(func() {
			for i := range per {
				old, nw := "handler 001000", "handler 00100X"
				if i%2 == 1 {
					old, nw = nw, old
				}
				if err := edit(e, "bench", fmt.Sprintf("f%d.go", g), old, nw); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(per*8)/time.Since(start).Seconds(), "edits/s")
}

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

	"github.com/google/renameio/v2"

	"github.com/vfsctl/vfsctl/vfs"
)

func sourceLines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "\tlog.Printf(\"request %%s served by handler %06d\", r.URL.Path) // line %d\n", i, i)
	}
	return b.String()
}

// percentiles reports p50 and p99 of the per-operation durations.
func percentiles(b *testing.B, d []time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	if len(d) == 0 {
		return
	}
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(d[len(d)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkDurableEdit compares, in one run, a journaled edit of a 20,000-line file with
// the floor of a bare durable replace of the same file (renameio plus a directory
// fsync). "journaled" opens the journal per call, as a process does between bursts;
// "journaled-held" keeps it open, as a busy server does.
func BenchmarkDurableEdit(b *testing.B) {
	data := sourceLines(20000)
	setup := func(b *testing.B) (*Engine, string) {
		dir := b.TempDir()
		os.WriteFile(filepath.Join(dir, "big.go"), []byte(data), 0o644)
		fs, err := vfs.Open(dir, vfs.Options{})
		if err != nil {
			b.Fatal(err)
		}
		e, err := Open(fs, Options{})
		if err != nil {
			b.Fatal(err)
		}
		return e, dir
	}
	b.Run("floor", func(b *testing.B) {
		_, dir := setup(b)
		p := filepath.Join(dir, "big.go")
		alt := []byte(strings.Replace(data, "handler 010000", "handler 01000X", 1))
		var d []time.Duration
		for i := 0; b.Loop(); i++ {
			t0 := time.Now()
			content := []byte(data)
			if i%2 == 0 {
				content = alt
			}
			if err := renameio.WriteFile(p, content, 0o644, renameio.WithTempDir(dir)); err != nil {
				b.Fatal(err)
			}
			h, _ := os.Open(dir)
			h.Sync()
			h.Close()
			d = append(d, time.Since(t0))
		}
		percentiles(b, d)
	})
	edits := func(b *testing.B, e *Engine) {
		var d []time.Duration
		for i := 0; b.Loop(); i++ {
			old, nw := "handler 010000", "handler 01000X"
			if i%2 == 1 {
				old, nw = nw, old
			}
			t0 := time.Now()
			if err := edit(e, "bench", "big.go", old, nw); err != nil {
				b.Fatal(err)
			}
			d = append(d, time.Since(t0))
		}
		percentiles(b, d)
	}
	b.Run("journaled", func(b *testing.B) {
		e, _ := setup(b)
		edit(e, "bench", "big.go", "handler 000001", "handler 00000X") // the one-time blob
		edits(b, e)
	})
	b.Run("journaled-held", func(b *testing.B) {
		e, _ := setup(b)
		edit(e, "bench", "big.go", "handler 000001", "handler 00000X")
		e.j.Acquire()
		defer e.j.Release()
		edits(b, e)
	})
}

// BenchmarkParallelEdits: eight goroutines, each editing its own 2,000-line file;
// reports edits per second across them.
func BenchmarkParallelEdits(b *testing.B) {
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

package txn

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/internal/guard"
	"github.com/vfsctl/vfsctl/vfs"
)

// BenchmarkGuardedEdit sets a guarded edit of a 20,000-line Go file beside the same
// edit unguarded, alternating within one run on one engine with its journal held.
// "warm" edits a file the guard parsed before (its last tree reparsed incrementally),
// "cold" forgets it first (go/parser decides, of the old and the new content).
func BenchmarkGuardedEdit(b *testing.B) {
	var src strings.Builder
	src.WriteString("package big\n\nimport \"log\"\n\nfunc handle(path string) {\n")
	for i := range 20000 {
		fmt.Fprintf(&src, "\tlog.Printf(\"request %%s served by handler %06d\", path) // line %d\n", i, i)
	}
	src.WriteString("}\n")
	for _, cold := range []bool{false, true} {
		name := "warm"
		if cold {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			os.WriteFile(filepath.Join(dir, "big.go"), []byte(src.String()), 0o644)
			fs, err := vfs.Open(dir, vfs.Options{})
			if err != nil {
				b.Fatal(err)
			}
			e, err := Open(fs, Options{})
			if err != nil {
				b.Fatal(err)
			}
			e.j.Acquire()
			defer e.j.Release()
			old, nw := "handler 010000", "handler 01000X"
			edit(e, "bench", "big.go", old, nw)
			if !cold {
				// Both contents the loop alternates between, parsed as earlier edits
				// of the file in this process would have left them.
				guard.Prime("big.go", []byte(src.String()))
				guard.Prime("big.go", []byte(strings.Replace(src.String(), old, nw, 1)))
			}
			var off, on []time.Duration
			for i := 0; b.Loop(); i++ {
				old, nw = nw, old
				e.guardMode = guard.Off
				if i%2 == 1 {
					e.guardMode = guard.Refuse
					if cold {
						guard.Forget("big.go")
					}
				}
				t0 := time.Now()
				edit(e, "bench", "big.go", old, nw)
				if d := time.Since(t0); i%2 == 1 {
					on = append(on, d)
				} else {
					off = append(off, d)
				}
			}
			p50off, _ := percentiles(off)
			p50on, _ := percentiles(on)
			b.ReportMetric(ms(p50off), "off-p50-ms")
			b.ReportMetric(ms(p50on), "guarded-p50-ms")
			if p50off > 0 {
				b.ReportMetric(float64(p50on)/float64(p50off), "ratio")
			}
		})
	}
}

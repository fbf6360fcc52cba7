package toolapi_test

// The first command after a long journal-durable session, against the same command run
// again: a session leaves behind what the next open reads or settles (the marks file,
// the history index), and a cost per call of the session shows in the first command
// only.
//
//	go test -run XXX -bench FirstCommand -benchtime 3x ./toolapi
//
// Figures: first_ms is `vfsctl undo --dry-run` run first after the session, again_ms
// the same command run right after it, x_again their ratio. Flat means first_ms does
// not grow with the session's calls.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func BenchmarkFirstCommandAfterSession(b *testing.B) {
	for _, calls := range []int{1000, 8000} {
		b.Run(fmt.Sprintf("calls=%d", calls), func(b *testing.B) {
			bin := vfsctlBinary(b)
			var first, again []time.Duration
			for i := 0; i < b.N; i++ {
				root := b.TempDir()
				var lines strings.Builder
				for k := range 300 {
					fmt.Fprintf(&lines, "line %d\n", k)
				}
				if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte(lines.String()), 0o644); err != nil {
					b.Fatal(err)
				}
				var in bytes.Buffer
				in.WriteString(`{"tool":"read_file","args":{"path":"a.txt"}}` + "\n")
				for k := range calls {
					old := fmt.Sprintf("line %d", k%300)
					if k >= 300 {
						old = fmt.Sprintf("line %d v%d", k%300, k/300-1)
					}
					fmt.Fprintf(&in, `{"tool":"edit_file","args":{"path":"a.txt","edits":[{"oldText":%q,"newText":"line %d v%d\n"}]}}`+"\n", old+"\n", k%300, k/300)
				}
				session := exec.Command(bin, "call", "--root", root, "--durability", "journal", "--guard", "off")
				session.Stdin = &in
				if out, err := session.CombinedOutput(); err != nil {
					b.Fatalf("the session: %v\n%.2000s", err, out)
				}
				for _, to := range []*[]time.Duration{&first, &again} {
					t0 := time.Now()
					if out, err := exec.Command(bin, "undo", "--root", root, "--dry-run").CombinedOutput(); err != nil {
						b.Fatalf("undo --dry-run: %v\n%s", err, out)
					}
					*to = append(*to, time.Since(t0))
				}
			}
			b.ReportMetric(float64(median(first))/1e6, "first_ms")
			b.ReportMetric(float64(median(again))/1e6, "again_ms")
			b.ReportMetric(median(first)/median(again), "x_again")
		})
	}
}

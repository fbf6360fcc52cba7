package journal

import (
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkCommit is one durable transaction holding a small record: what a call's
// pending record costs on this disk, made durable by the log (one fdatasync of a
// frame) and by bbolt alone (Options.NoLog: its pages, then its meta page, each
// synced). x_bbolt is the log's time over bbolt's, the two timed in turn in one run.
func BenchmarkCommit(b *testing.B) {
	open := func(opts Options) *Journal {
		opts.Holder = "bench"
		j := New(filepath.Join(b.TempDir(), ".vfsctl", "journal.db"), opts)
		if err := j.Acquire(); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(j.Release)
		return j
	}
	logged, synced := open(Options{}), open(Options{NoLog: true})
	commit := func(j *Journal) time.Duration {
		t0 := time.Now()
		r := &Record{Time: time.Now(), Session: "s", Tool: "edit_file", State: Pending, Files: []File{{Path: "a.go", Op: OpEdit, Before: Hash([]byte("a")), After: Hash([]byte("b"))}}}
		if err := j.Commit(func(t *Tx) error { r.Seq = 0; return t.Put(r) }); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	commit(logged) // the hold's first write, synced by bbolt; the log starts with the next
	var tl, tb time.Duration
	for b.Loop() {
		tl += commit(logged)
		b.StopTimer()
		tb += commit(synced)
		b.StartTimer()
	}
	if logged.wal == nil {
		b.Fatal("no log was kept")
	}
	b.ReportMetric(float64(tb.Nanoseconds())/float64(b.N), "bbolt-ns/op")
	b.ReportMetric(float64(tl)/float64(tb), "x_bbolt")
}

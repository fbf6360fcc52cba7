package journal

import (
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkCommit is one synced transaction holding a small record: what a call's
// pending record costs on this disk.
func BenchmarkCommit(b *testing.B) {
	j := New(filepath.Join(b.TempDir(), "journal.db"), Options{})
	if err := j.Acquire(); err != nil {
		b.Fatal(err)
	}
	defer j.Release()
	for b.Loop() {
		r := &Record{Time: time.Now(), Session: "s", Tool: "edit_file", State: Pending, Files: []File{{Path: "a.go", Op: OpEdit, Before: Hash([]byte("a")), After: Hash([]byte("b"))}}}
		if err := j.Commit(func(t *Tx) error { r.Seq = 0; return t.Put(r) }); err != nil {
			b.Fatal(err)
		}
	}
}

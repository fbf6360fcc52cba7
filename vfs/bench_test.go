package vfs

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

// BenchmarkReplace measures a durable atomic replace of a 1.5 MB file through the
// confined filesystem, beside the floor of renameio plus a directory fsync on the host
// path, in the same run.
func BenchmarkReplace(b *testing.B) {
	data := bytes.Repeat([]byte("\tlog.Printf(\"request %s served by handler 000001\", r.URL.Path)\n"), 20000)
	dir := b.TempDir()
	p := filepath.Join(dir, "f.go")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("vfs", func(b *testing.B) {
		f, err := Open(dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if err := f.Replace("f.go", data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("renameio-floor", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if err := testutil.FloorWrite(b, p, data, dir); err != nil {
				b.Fatal(err)
			}
			d, err := os.Open(dir)
			if err != nil {
				b.Fatal(err)
			}
			d.Sync()
			d.Close()
		}
	})
}

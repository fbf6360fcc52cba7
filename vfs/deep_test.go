package vfs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkResolveDeep measures what a call does with a path in a folder d deep before
// it writes: Resolve of a file there, and of a new name there with CheckNewName. Each
// level's lookup once walked from the root, so a call cost d² lookups.
func BenchmarkResolveDeep(b *testing.B) {
	for _, d := range []int{64, 257} {
		b.Run(fmt.Sprintf("depth-%d", d), func(b *testing.B) {
			ws := b.TempDir()
			dir := strings.TrimSuffix(strings.Repeat("u/", d), "/")
			if err := os.MkdirAll(filepath.Join(ws, filepath.FromSlash(dir)), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(ws, filepath.FromSlash(dir), "f.txt"), []byte("f\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			f, err := Open(ws, Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			for b.Loop() {
				if r, err := f.Resolve(dir + "/f.txt"); err != nil || !r.Exists {
					b.Fatalf("%+v %v", r, err)
				}
				r, err := f.Resolve(dir + "/new.txt")
				if err != nil || r.Exists {
					b.Fatalf("%+v %v", r, err)
				}
				if err := f.CheckNewName(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

//go:build !windows

package testutil

import (
	"testing"

	"github.com/google/renameio/v2"
)

// FloorWrite replaces the file p with data as renameio does (temp file in dir, write,
// fsync, rename): the floor the benchmarks compare a replace with.
func FloorWrite(tb testing.TB, p string, data []byte, dir string) error {
	return renameio.WriteFile(p, data, 0o644, renameio.WithTempDir(dir))
}

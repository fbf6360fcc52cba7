package testutil

import "testing"

// FloorWrite skips: renameio, the floor the benchmarks compare with, does not build
// on Windows.
func FloorWrite(tb testing.TB, p string, data []byte, dir string) error {
	tb.Skip("renameio, the floor this compares with, does not build on Windows")
	return nil
}

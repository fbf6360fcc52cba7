package vfs

import (
	"errors"
	"io/fs"
	"testing"
)

// What the tests use that Windows does not have: those tests skip, saying so.

// onExt4: Windows has no ext4.
func onExt4(dir string) bool { return false }

// exchangePaths: Windows cannot swap two entries.
func exchangePaths(a, b string) error { return errors.ErrUnsupported }

func mkfifo(t testing.TB, p string) { t.Helper(); t.Skip("Windows has no FIFOs") }

func setTestXattr(p, name string, v []byte) error      { return errors.ErrUnsupported }
func getXattr(p, name string, buf []byte) (int, error) { return 0, errors.ErrUnsupported }
func testOwner(fi fs.FileInfo) (uint32, uint32)        { return 0, 0 }
func fileLimit() (uint64, error)                       { return 0, errors.ErrUnsupported }
func setFileLimit(cur uint64) error                    { return errors.ErrUnsupported }

func syscallMkfifo(p string, mode uint32) error { return errors.New("Windows has no FIFOs") }

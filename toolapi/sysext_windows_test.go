package toolapi_test

import (
	"errors"
	"testing"
)

// What the external tests use that Windows lacks (sys_linux_test.go has Linux's).

// openPath: Windows has no O_PATH; the benchmark runs without the held file.
func openPath(b *testing.B, p string) int { return -1 }

func closeFd(int) {}

// exchangePaths: Windows has no atomic exchange of two names; the test skips.
func exchangePaths(a, b string) error { return errors.ErrUnsupported }

// mkfifo: Windows has no FIFOs; the test skips.
func mkfifo(string) error { return errors.New("Windows has no FIFOs") }

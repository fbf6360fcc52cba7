package toolapi

import (
	"os"
	"testing"
)

// FullTests reports whether the heavy tests run at full size: VFSCTL_FULL=1 (.ci/run
// sets it) and not -short. By default they run short, so that go test ./... stays
// within a few minutes on two cores. Exported for the package's external tests.
func FullTests() bool { return os.Getenv("VFSCTL_FULL") == "1" && !testing.Short() }

package journal

import (
	"os"
	"testing"
)

// full reports whether the heavy tests run at full size: VFSCTL_FULL=1 (.ci/run sets
// it), and neither -short nor the race detector (which slows them about tenfold). By
// default they run short, so that go test ./... stays within a few minutes on two
// cores.
func full() bool {
	return os.Getenv("VFSCTL_FULL") == "1" && !testing.Short() && !raceEnabled
}

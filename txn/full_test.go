package txn

import (
	"os"
	"testing"
)

// fullEnv asks for the heavy tests at full size (.ci/run sets it, without the race
// detector). By default they run short, so that go test ./... stays within a few
// minutes on two cores; the short runs still reach every path the full ones do.
const fullEnv = "VFSCTL_FULL"

// full reports whether the heavy tests run at full size: VFSCTL_FULL=1, and neither
// -short nor the race detector (which slows them about tenfold).
func full() bool {
	return os.Getenv(fullEnv) == "1" && !testing.Short() && !raceEnabled
}

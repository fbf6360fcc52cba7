package journal

import (
	"path/filepath"
	"testing"
	"time"
)

// A wait shorter than the handover gets a lingering hold of another process all the
// same, as one not to wait (--wait 0) does: a longer wait never does worse.
func TestShortWaitGetsTheHandover(t *testing.T) {
	for _, wait := range []time.Duration{-1, time.Nanosecond, 20 * time.Millisecond} {
		path := filepath.Join(t.TempDir(), "journal.db")
		j, _ := lingering(t, path)
		call(t, j) // its hold lingers, idle
		other := New(path, Options{Wait: wait})
		if err := other.Acquire(); err != nil {
			t.Errorf("wait %v: a hold lingering idle was not handed over: %v", wait, err)
			continue
		}
		other.Release()
		other.Close()
	}
}

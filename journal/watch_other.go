//go:build !linux

package journal

// queueWatch is inotify's (watch_linux.go); elsewhere a lingering hold polls.
type queueWatch struct{}

func (j *Journal) startWatch(*dirHandle) *queueWatch { return nil }
func (w *queueWatch) watchTurns(*dirHandle)          {}
func (w *queueWatch) close()                         {}

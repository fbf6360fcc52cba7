package journal

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// keptOpenDir is a temporary folder for a test that leaves a journal file open on
// purpose (bbolt's handle stuck after a panic, or a damaged file left mapped): on
// Windows such a file cannot be removed until the process ends, so the folder is
// removed where it can be and otherwise left in the temporary folder.
func keptOpenDir(t *testing.T) string {
	if runtime.GOOS != "windows" {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp("", strings.ReplaceAll(t.Name(), "/", "_"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// returnsWithin runs fn and reports whether it returned within d; a hung fn is left
// behind, its goroutine leaked, which is what the test is about.
func returnsWithin(d time.Duration, fn func()) bool {
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// A panic in a batch outside bbolt's guard (here in the log's fold) becomes the
// batch's error: the hold is failed, but Commit, Flush and Release answer instead
// of waiting for ever.
func TestPanicInABatchAnswersEveryone(t *testing.T) {
	if !keepsLog {
		t.Skip("no log is kept on this system (files_windows.go), so there is no fold to panic in")
	}
	path := filepath.Join(keptOpenDir(t), ".vfsctl", "journal.db")
	j := New(path, Options{Wait: 200 * time.Millisecond, Holder: "test"})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	put := func(k string) func(*Tx) error {
		return func(t *Tx) error { return t.b(bMeta).Put([]byte(k), []byte("1")) }
	}
	if err := j.Commit(put("before")); err != nil { // the log starts after the first write
		t.Fatal(err)
	}
	testHookLogBase = func() { panic("injected fault in the fold") }
	defer func() { testHookLogBase = nil }()
	var err error
	var p any
	ok := returnsWithin(10*time.Second, func() {
		defer func() { p = recover() }()
		big := bytes.Repeat([]byte("z"), bigFrame+1) // folded at once
		err = j.Commit(func(t *Tx) error { _, err := t.PutBlob(big); return err })
	})
	testHookLogBase = nil
	if !ok || p != nil || err == nil || !strings.Contains(err.Error(), "injected fault in the fold") {
		t.Fatalf("the commit whose fold panicked: returned %v, panic %v, error %v", ok, p, err)
	}
	if !returnsWithin(5*time.Second, func() { err = j.Flush() }) {
		t.Fatal("Flush waits for ever after a panic in a batch")
	}
	if !returnsWithin(5*time.Second, func() { err = j.Commit(put("during")) }) {
		t.Fatal("Commit waits for ever after a panic in a batch")
	}
	if err == nil {
		t.Error("a commit on the failed hold succeeded")
	}
	if !returnsWithin(10*time.Second, j.Release) {
		t.Fatal("Release waits for ever after a panic in a batch")
	}
	// The next hold in this process is refused rather than left to wait: bbolt's own
	// handle may be stuck behind the read transaction the panic left open (the next
	// process recovers the journal, as after any failed log write).
	if !returnsWithin(10*time.Second, func() { err = j.Acquire() }) {
		t.Fatal("Acquire waits for ever after a panic in a batch")
	}
	if err == nil {
		j.Release()
	}
}

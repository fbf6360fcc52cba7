package journal

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// lingering is a journal that keeps its hold for a minute after its last call, and
// counts its opens (each runs OnOpen, recovery's place).
func lingering(t *testing.T, path string) (*Journal, *int) {
	t.Helper()
	opens := 0
	j := New(path, Options{Linger: time.Minute, Holder: "lingerer", OnOpen: func(*Journal) error { opens++; return nil }})
	t.Cleanup(j.Close)
	return j, &opens
}

func call(t *testing.T, j *Journal) {
	t.Helper()
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	j.NoteTemp("x/.vfsctl-tmp-1")
	j.Release()
}

// TestLingerKeepsTheHold: calls one after another open the journal once.
func TestLingerKeepsTheHold(t *testing.T) {
	j, opens := lingering(t, filepath.Join(t.TempDir(), "journal.db"))
	for range 5 {
		call(t, j)
	}
	if *opens != 1 {
		t.Errorf("5 calls in a row opened the journal %d times, want 1", *opens)
	}
}

// TestLingerGivesWay: a lingering hold ends when another process queues, well inside
// that process's wait (the linger is a minute, the wait a few seconds), and the next
// call of the lingering one opens the journal again, with recovery.
func TestLingerGivesWay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	j, opens := lingering(t, path)
	call(t, j)
	other := New(path, Options{Wait: 5 * time.Second})
	if err := other.Acquire(); err != nil {
		t.Fatalf("a lingering hold kept another process out: %v", err)
	}
	other.Release()
	call(t, j)
	if *opens != 2 {
		t.Errorf("opens: %d, want 2 (the hold was given up in between)", *opens)
	}
}

// TestCloseEndsLinger: after Close the journal's lock is free, and later calls close
// the journal when they end.
func TestCloseEndsLinger(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "journal.db")
	j, _ := lingering(t, path)
	call(t, j)
	lockFree := func() bool {
		f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return tryLock(f)
	}
	if lockFree() {
		t.Fatal("the lock is free while the hold lingers")
	}
	j.Close()
	if !lockFree() {
		t.Fatal("the lock is still held after Close")
	}
	call(t, j)
	if !lockFree() {
		t.Fatal("a call after Close kept the journal open")
	}
	if _, err := os.Stat(filepath.Join(dir, "holder")); !os.IsNotExist(err) {
		t.Errorf("the holder file outlived the hold: %v", err)
	}
}

// TestLingerTrimsTemps: a long hold starts its list of temp files afresh between
// calls, so the list stays bounded however many calls the hold lasts.
func TestLingerTrimsTemps(t *testing.T) {
	dir := t.TempDir()
	j, _ := lingering(t, filepath.Join(dir, "journal.db"))
	for range maxTemps/len("x/.vfsctl-tmp-1\n") + 10 {
		call(t, j)
	}
	st, err := os.Stat(filepath.Join(dir, "temps"))
	if err == nil && st.Size() > maxTemps {
		t.Errorf("temps is %d bytes after a long hold", st.Size())
	}
}

// TestLingerEnds: with no call and no other process, the hold ends by itself.
func TestLingerEnds(t *testing.T) {
	dir := t.TempDir()
	j := New(filepath.Join(dir, "journal.db"), Options{Linger: 5 * time.Millisecond})
	call(t, j)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "holder")); os.IsNotExist(err) {
			return // the hold ended: its holder file goes with it
		}
		if time.Now().After(deadline) {
			t.Fatal("the hold never ended")
		}
	}
}

// TestIdleLingerDoesNothing: a hold that lingers with no call and no other process
// does not look at the queue again and again (where inotify tells it of a new
// ticket): an idle vfsctl wakes no thread between a model's calls.
func TestIdleLingerDoesNothing(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the queue is watched with inotify on Linux; elsewhere a lingering hold polls")
	}
	j, _ := lingering(t, filepath.Join(t.TempDir(), "journal.db"))
	call(t, j)
	n := queueLooks.Load()
	time.Sleep(100 * time.Millisecond)
	if looks := queueLooks.Load() - n; looks > 0 {
		t.Errorf("an idle lingering hold looked at the queue %d times in 100 ms", looks)
	}
}

// TestWatchedHoldLooksOnNews: calls that follow one another in a watched hold do not
// look at the queue each (four looks a call, each a system call or more, before): the
// watch says when there is something to see.
func TestWatchedHoldLooksOnNews(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the queue is watched with inotify on Linux; elsewhere each call looks")
	}
	j, _ := lingering(t, filepath.Join(t.TempDir(), "journal.db"))
	call(t, j) // the hold begins, and its watch
	n := queueLooks.Load()
	for range 50 {
		call(t, j)
	}
	if looks := queueLooks.Load() - n; looks > 5 {
		t.Errorf("50 calls in a watched hold looked at the queue %d times", looks)
	}
}

// TestLingerGivesWayEachTime: a hold gives way to a process that queues while it
// lingers, whether the queue's folder is new or there already, and to one that
// queued while a call ran (its ticket made before the hold began to linger).
func TestLingerGivesWayEachTime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	j, opens := lingering(t, path)
	other := New(path, Options{Wait: 5 * time.Second})
	for round := range 2 {
		call(t, j)
		if err := other.Acquire(); err != nil {
			t.Fatalf("round %d: a lingering hold kept another process out: %v", round, err)
		}
		other.Release()
	}
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		err := other.Acquire()
		if err == nil {
			other.Release()
		}
		got <- err
	}()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		if names, _ := os.ReadDir(filepath.Join(filepath.Dir(path), queueDir)); len(names) > 0 {
			break // its ticket is made
		}
		if time.Now().After(deadline) {
			t.Fatal("the other process never queued")
		}
	}
	j.Release()
	if err := <-got; err != nil {
		t.Fatalf("a process that queued during a call was kept out by the linger after it: %v", err)
	}
	if *opens != 3 {
		t.Errorf("opens: %d, want 3 (the hold was given up each time)", *opens)
	}
}

// A long lingering hold keeps the marks file small, as an open would: the first
// command after a session of thousands of calls reads a few marks, not one per call;
// the mark of a call still pending survives the rewrite.
func TestLongHoldKeepsMarksSmall(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	j, _ := lingering(t, path)
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	var pending uint64
	if err := j.Update(func(tx *Tx) error {
		r := &Record{Time: time.Now(), Session: "s", Tool: "edit_file", State: Pending}
		err := tx.Put(r)
		pending = r.Seq
		return err
	}); err != nil {
		t.Fatal(err)
	}
	j.MarkLanded(pending)
	j.Release()
	for seq := pending + 1; seq < pending+8000; seq++ {
		if err := j.Acquire(); err != nil {
			t.Fatal(err)
		}
		j.MarkLanded(seq)
		j.Release()
	}
	st, err := os.Stat(filepath.Join(filepath.Dir(path), "marks"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > 2*maxMarks {
		t.Errorf("after 8,000 calls in one hold the marks file is %d bytes; want at most %d", st.Size(), 2*maxMarks)
	}
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	defer j.Release()
	if !j.Landed()[pending] {
		t.Error("the mark of the pending call was lost in the rewrite")
	}
}

// TestRecoveredLooksOnce: a call that plans before it commits makes sure of recovery
// (Recovered), then takes the journal to commit. While the hold lingers, Recovered
// opens nothing and the journal's place (moved or replaced since?) is looked up once a
// call, by the Acquire that commits; on a journal not held, Recovered opens it, with
// recovery. Once the journal is found gone, Recovered says so too.
func TestRecoveredLooksOnce(t *testing.T) {
	dir := t.TempDir()
	j, opens := lingering(t, filepath.Join(dir, "journal.db"))
	if err := j.Recovered(); err != nil {
		t.Fatal(err)
	}
	if *opens != 1 {
		t.Fatalf("Recovered on a journal not held: %d opens, want 1", *opens)
	}
	looks := 0
	testHookPlace = func() { looks++ }
	defer func() { testHookPlace = nil }()
	for range 3 {
		if err := j.Recovered(); err != nil {
			t.Fatal(err)
		}
		call(t, j)
	}
	if looks != 3 || *opens != 1 {
		t.Errorf("3 calls while the hold lingered: %d looks at the journal's place, %d opens; want 3 and 1", looks, *opens)
	}
	os.Rename(filepath.Join(dir, "journal.db"), filepath.Join(dir, "moved.db"))
	if err := j.Acquire(); err == nil {
		j.Release()
		t.Fatal("Acquire took a journal moved away")
	}
	if err := j.Recovered(); err == nil {
		t.Error("Recovered after the journal was found gone: no error")
	}
}

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/journal"
)

// TestBusyCall: a call refused as busy names its tool and the process holding the
// journal, carries no transaction number, is not journaled, and waits once: it takes
// one ticket in line, not two.
func TestBusyCall(t *testing.T) {
	dir := testutil.Workspace(t, map[string]string{"a.txt": "one\n"})
	holder := journal.New(filepath.Join(dir, ".vfsctl", "journal.db"), journal.Options{Root: dir, Holder: "test-holder"})
	if err := holder.Acquire(); err != nil {
		t.Fatal(err)
	}
	// Every ticket the call takes while it waits.
	var mu sync.Mutex
	tickets := map[string]bool{}
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for {
			select {
			case <-stop:
				return
			default:
			}
			names, _ := os.ReadDir(filepath.Join(dir, ".vfsctl", "turns"))
			mu.Lock()
			for _, n := range names {
				tickets[n.Name()] = true
			}
			mu.Unlock()
			time.Sleep(time.Millisecond)
		}
	}()
	code, out, errb := runBounded(t, editA+"\n", "call", "--root", dir, "--wait", "500ms")
	close(stop)
	<-watched
	holder.Release()
	if code != exitRefused {
		t.Fatalf("exit %d: %s%s", code, out, errb)
	}
	for _, want := range []string{`"tool":"edit_file"`, `"kind":"busy"`, `"txn":null`, fmt.Sprintf("process %d (test-holder", os.Getpid())} {
		if !strings.Contains(out, want) {
			t.Errorf("busy reply lacks %s: %s", want, out)
		}
	}
	if len(tickets) != 1 {
		t.Errorf("the call waited in line %d times (tickets %v), want once", len(tickets), tickets)
	}
	if code, out, _ := runBounded(t, "", "log", "--root", dir, "--json"); code != exitOK || out != "" {
		t.Errorf("the busy call was journaled: %s", out)
	}
	if got := testutil.ReadFile(t, filepath.Join(dir, "a.txt")); got != "one\n" {
		t.Errorf("a.txt is %q", got)
	}
}

// TestStaleTicket: a ticket nobody touched lately (its process stopped, or killed and
// its pid reused) and a ticket of a process that is gone are cleared at once; a call
// behind a live ticket is refused busy naming the process that waits ahead of it, not
// one that held the journal earlier.
func TestStaleTicket(t *testing.T) {
	dir := history(t)
	turns := filepath.Join(dir, ".vfsctl", "turns")
	os.MkdirAll(turns, 0o755)
	ticket := func(pid int, touched time.Time) string {
		p := filepath.Join(turns, fmt.Sprintf("%020d-%d", time.Now().UnixNano(), pid))
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, touched, touched)
		return p
	}
	stale := ticket(os.Getpid(), time.Now().Add(-time.Minute)) // a live pid, untouched for a minute
	gone := ticket(deadPid(t), time.Now())
	// Planted: dated ahead of everyone, of a process that always exists, touched ten
	// years ahead; and a folder. Either used to stand in line for good.
	ahead := filepath.Join(turns, fmt.Sprintf("%020d-%d", 1, 1))
	if err := os.WriteFile(ahead, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().AddDate(10, 0, 0)
	os.Chtimes(ahead, later, later)
	folder := filepath.Join(turns, fmt.Sprintf("%020d-%d", 2, 1))
	os.Mkdir(folder, 0o755)
	code, out, errb := runBounded(t, `{"tool": "read_file", "args": {"path": "a.txt"}}`+"\n", "call", "--root", dir, "--wait", "5s")
	if code != exitOK {
		t.Fatalf("a stale ticket blocked the call: exit %d, %s%s", code, out, errb)
	}
	for _, p := range []string{stale, gone, ahead, folder} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("ticket %s was left", filepath.Base(p))
		}
	}

	live := ticket(os.Getpid(), time.Now())
	defer os.Remove(live)
	code, out, errb = runBounded(t, "", "log", "--root", dir, "--wait", "300ms")
	want := fmt.Sprintf("process %d, which waits for its turn ahead of this one", os.Getpid())
	if code != exitRefused || !strings.Contains(errb, want) {
		t.Errorf("behind a live ticket: exit %d, %s%s; want %q", code, out, errb, want)
	}
}

// deadPid is the pid of a process that has exited.
func deadPid(t *testing.T) int {
	p, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{})
	if err != nil {
		t.Skip("no /bin/true to make a dead pid")
	}
	p.Wait()
	return p.Pid
}

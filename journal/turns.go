package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Turns across processes. bbolt's own file lock is exclusive and polled every 50 ms,
// so whichever waiter polls first after a release wins: a process with a steady
// stream of calls can starve the others. Here a process that wants the journal takes
// a ticket, a file in .vfsctl/turns/ named by the time it started waiting, and only
// the oldest live ticket tries for the lock (a separate lock file, polled every
// millisecond). A process that holds the journal looks for tickets whenever a new
// call of its own would join its hold, and when it finds one it stops admitting calls,
// so that the hold ends once its calls in flight are done. Waiters are thus served in
// order, and no stream of calls keeps the journal from another process for longer
// than the calls it already has in flight.

// turnPoll is how often a waiter looks at the line and tries the lock.
const turnPoll = time.Millisecond

// staleTicket is the age past which a ticket whose process is alive is ignored anyway
// (a process stopped by a debugger must not block everyone for good).
const staleTicket = 10 * time.Minute

func (j *Journal) turnsDir() string { return filepath.Join(filepath.Dir(j.path), "turns") }
func (j *Journal) lockPath() string { return filepath.Join(filepath.Dir(j.path), "lock") }

// othersWaiting reports whether another process holds a ticket.
func (j *Journal) othersWaiting() bool {
	h, err := os.Open(j.turnsDir())
	if err != nil {
		return false
	}
	defer h.Close()
	names, _ := h.Readdirnames(-1)
	for _, n := range names {
		if t, ok := parseTicket(n); ok && t.live() {
			return true
		}
	}
	return false
}

type ticket struct {
	name  string
	since time.Time
	pid   int
}

func parseTicket(name string) (ticket, bool) {
	ns, pid, ok := strings.Cut(name, "-")
	if !ok {
		return ticket{}, false
	}
	n, err1 := strconv.ParseInt(ns, 10, 64)
	p, err2 := strconv.Atoi(pid)
	if err1 != nil || err2 != nil {
		return ticket{}, false
	}
	return ticket{name: name, since: time.Unix(0, n), pid: p}, true
}

// live: the ticket's process exists and the ticket is not stale.
func (t ticket) live() bool {
	if time.Since(t.since) > staleTicket {
		return false
	}
	err := syscall.Kill(t.pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// takeTurn waits in line for the journal's lock file and returns it held (the
// returned file is closed to release the lock), or a busy error after Options.Wait.
func (j *Journal) takeTurn() (*os.File, error) {
	lock, err := os.OpenFile(j.lockPath(), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil && !j.othersWaiting() {
		return lock, nil // free, and no one in line before us
	}
	syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	dir := j.turnsDir()
	os.MkdirAll(dir, 0o755)
	me := fmt.Sprintf("%020d-%d", time.Now().UnixNano(), os.Getpid())
	mine := filepath.Join(dir, me)
	if err := os.WriteFile(mine, nil, 0o644); err != nil {
		lock.Close()
		return nil, err
	}
	defer os.Remove(mine)
	deadline := time.Now().Add(j.opts.Wait)
	for {
		if j.first(dir, me) && syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			return lock, nil
		}
		if time.Now().After(deadline) {
			lock.Close()
			return nil, j.busy()
		}
		time.Sleep(turnPoll)
	}
}

// first reports whether ticket me is the oldest live one, removing tickets of
// processes that are gone.
func (j *Journal) first(dir, me string) bool {
	h, err := os.Open(dir)
	if err != nil {
		return true
	}
	names, _ := h.Readdirnames(-1)
	h.Close()
	sort.Strings(names)
	for _, n := range names {
		if n == me {
			return true
		}
		t, ok := parseTicket(n)
		if !ok {
			continue
		}
		if t.live() {
			return false
		}
		if time.Since(t.since) <= staleTicket {
			os.Remove(filepath.Join(dir, n)) // its process is gone
		}
	}
	return true
}

package journal

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// The queue of processes for the journal. bbolt's own file lock is exclusive and
// polled every 50 ms, so whichever waiter polls first after a release wins: a process
// with a steady stream of calls can starve the others. Here a process that wants the
// journal takes a ticket, a file in the queue folder (queueDir) named by the time it
// started waiting, and only the oldest live ticket tries for the lock (a separate
// lock file, polled every millisecond). A process that holds the journal looks for tickets whenever a new
// call of its own would join its hold, and when it finds one it stops admitting calls,
// so that the hold ends once its calls in flight are done. Waiters are thus served in
// order, and no stream of calls keeps the journal from another process for longer
// than the calls it already has in flight.
//
// A waiter touches its ticket every ticketBeat. A ticket whose process is gone, or
// that nobody touched for staleTicket (its process was killed and its pid reused, or
// it is stopped), is removed by the first process that sees it: it never blocks
// anyone for longer than that.

// queuePoll is how often a waiter looks at the queue and tries the lock.
const queuePoll = time.Millisecond

// queueDir is the queue's folder in the journal's folder. It keeps the name it had
// when the queue was called turns: a vfsctl of before the rename, still serving in
// the same workspace, queues there, and a queue of another name would let the two
// pass each other (the lock still excludes them, but no longer in order).
const queueDir = "turns"

// ticketBeat is how often a waiter touches its ticket; staleTicket is how long a
// ticket lives untouched.
const (
	ticketBeat  = 250 * time.Millisecond
	staleTicket = 3 * time.Second
)

// othersWaiting reports whether another process holds a live ticket, removing the
// tickets that are not.
func (j *Journal) othersWaiting() bool {
	queueLooks.Add(1)
	if j.dir == nil {
		return false
	}
	fd, err := openDirAt(j.dir.fd, queueDir)
	if err != nil {
		return false
	}
	defer closeHandle(fd)
	for _, n := range readNames(fd) {
		t, ok := parseTicket(n)
		if !ok {
			continue
		}
		if t.live(fd) {
			return true
		}
		clearTicket(fd, n) // stale: cleared at once
	}
	return false
}

// queueLooks counts the looks at the queue, for tests of how often a hold looks.
var queueLooks atomic.Int64

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
	if err1 != nil || err2 != nil || p <= 0 {
		return ticket{}, false
	}
	return ticket{name: name, since: time.Unix(0, n), pid: p}, true
}

// live: the ticket is a file this user made, its process exists, and it touched the
// ticket lately. A ticket touched in the future (beyond a clock's small step) is not
// live: anyone can set a file's time, and a ticket dated ahead would otherwise stand
// in line for good, as would a folder, which nobody touches.
func (t ticket) live(queue handle) bool {
	st, err := statAt(queue, t.name)
	if err != nil || !writable(&st) {
		return false
	}
	if age := time.Since(st.mtime); age > staleTicket || age < -staleTicket {
		return false
	}
	return alive(t.pid)
}

// clearTicket removes a ticket that is not live, if it is a file of this user's with
// one link (dirHandle.remove's rule); anything else is left, and is never live. A
// folder goes if it is empty.
func clearTicket(queue handle, name string) {
	st, err := statAt(queue, name)
	if err != nil {
		return
	}
	switch {
	case st.kind == kindDir:
		unlinkAt(queue, name, true)
	case writable(&st):
		unlinkAt(queue, name, false)
	}
}

// touchTicket makes ticket name in queue, or touches it: only a file of this user's
// with one link, so that a hard link put in its place (to a file anywhere on the
// filesystem) never has its time set.
func touchTicket(queue handle, name string) error {
	fd, err := openFileAt(queue, name, os.O_RDONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer closeHandle(fd)
	st, err := statHandle(fd)
	if err != nil {
		return err
	}
	if !writable(&st) {
		return fmt.Errorf("the queue's ticket %s/%s is not a file vfsctl made", queueDir, name)
	}
	return touch(fd)
}

// waitInQueue waits in line for the journal's lock file until deadline and returns it
// held (the returned file is closed to release the lock), or a busy error.
func (j *Journal) waitInQueue(deadline time.Time) (*os.File, error) {
	lock, err := j.dir.open("lock", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	flock := func() bool { return tryLock(lock) }
	if flock() && !j.othersWaiting() {
		return lock, nil // free, and no one in line before us
	}
	unlock(lock)
	queue, err := openSubdir(j.dir.fd, queueDir, j.dir.show(queueDir), true)
	if err != nil {
		lock.Close()
		return nil, err
	}
	defer closeHandle(queue)
	me := fmt.Sprintf("%020d-%d", time.Now().UnixNano(), os.Getpid())
	touch := func() error { return touchTicket(queue, me) }
	if err := touch(); err != nil {
		lock.Close()
		return nil, err
	}
	defer clearTicket(queue, me)
	beat := time.Now()
	for {
		if j.first(queue, me) && flock() {
			return lock, nil
		}
		if time.Now().After(deadline) {
			lock.Close()
			return nil, j.busy()
		}
		if time.Since(beat) >= ticketBeat {
			touch() // made again if a process that found us stale removed it
			beat = time.Now()
		}
		time.Sleep(queuePoll)
	}
}

// first reports whether ticket me is the oldest live one, removing tickets that are
// not live.
func (j *Journal) first(queue handle, me string) bool {
	names := readNames(queue)
	sort.Strings(names)
	for _, n := range names {
		if n == me {
			return true
		}
		t, ok := parseTicket(n)
		if !ok {
			continue
		}
		if t.live(queue) {
			return false
		}
		clearTicket(queue, n)
	}
	return true
}

// firstWaiter is the pid of the oldest live ticket, or 0.
func (j *Journal) firstWaiter() int {
	if j.dir == nil {
		return 0
	}
	fd, err := openDirAt(j.dir.fd, queueDir)
	if err != nil {
		return 0
	}
	defer closeHandle(fd)
	names := readNames(fd)
	sort.Strings(names)
	for _, n := range names {
		if t, ok := parseTicket(n); ok && t.pid != os.Getpid() && t.live(fd) {
			return t.pid
		}
	}
	return 0
}

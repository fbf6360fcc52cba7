package journal

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// queueWatch tells a lingering hold that the queue changed: an inotify watch on the
// journal's folder (for the queue folder's creation) and on the queue folder (for a
// ticket's). Its goroutine is parked in Go's poller until an event comes, so an idle
// hold wakes no thread, where polling the queue woke the process every millisecond
// or ten for the whole linger.
type queueWatch struct {
	f     *os.File
	dir   int // watch descriptor of the journal's folder
	turns int // of the queue folder, or -1 while it does not exist
}

// startWatch watches the queue of the journal's folder d and runs j.queueChanged on
// each change, until close. It returns nil where inotify is not to be had (no watch
// left for this user, say): the hold then polls.
func (j *Journal) startWatch(d *dirHandle) *queueWatch {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	w := &queueWatch{f: os.NewFile(uintptr(fd), "inotify"), turns: -1}
	// By the open descriptor, not by a path that could have been swapped for a link.
	w.dir, err = unix.InotifyAddWatch(fd, fmt.Sprintf("/proc/self/fd/%d", d.fd), unix.IN_CREATE|unix.IN_MOVED_TO|unix.IN_ONLYDIR)
	if err != nil {
		w.f.Close()
		return nil
	}
	w.watchTurns(d)
	go w.run(j)
	return w
}

// watchTurns adds the queue folder to the watch, if it exists and is not watched yet.
func (w *queueWatch) watchTurns(d *dirHandle) {
	if w.turns >= 0 || d == nil {
		return
	}
	fd, err := unix.Openat(d.fd, queueDir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	if wd, err := unix.InotifyAddWatch(int(w.f.Fd()), fmt.Sprintf("/proc/self/fd/%d", fd), unix.IN_CREATE|unix.IN_MOVED_TO|unix.IN_ONLYDIR); err == nil {
		w.turns = wd
	}
}

func (w *queueWatch) run(j *Journal) {
	buf := make([]byte, 64*(unix.SizeofInotifyEvent+unix.NAME_MAX+1))
	for {
		n, err := w.f.Read(buf)
		if err != nil {
			return // closed: the hold ended
		}
		turns := false
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			if int(ev.Wd) == w.dir || ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				turns = true // the queue folder may have been made (or events were lost)
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
		}
		if !j.queueChanged(w, turns) {
			return
		}
	}
}

func (w *queueWatch) close() { w.f.Close() }

package journal

import "golang.org/x/sys/unix"

// The Linux system calls of the journal's durability; sys_darwin.go has macOS's.

// dataSync makes the data of fd durable (fdatasync(2)).
func dataSync(fd int) error { return unix.Fdatasync(fd) }

// fullSync makes the data and metadata of fd durable (fsync(2)).
func fullSync(fd int) error { return unix.Fsync(fd) }

// errNoAttr is what reading an extended attribute a file lacks fails with.
var errNoAttr error = unix.ENODATA

//go:build !windows

package journal

import (
	"crypto/rand"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// walKey returns the journal file's log key, making one when make is set and it has
// none. ok is false where the file system keeps no extended attributes.
func walKey(f *os.File, create bool) (key []byte, err error) {
	buf := make([]byte, 64)
	n, err := unix.Fgetxattr(int(f.Fd()), walXattr, buf)
	if err == nil && n == 32 {
		return buf[:32], nil
	}
	if err != nil && err != errNoAttr || !create {
		if err == nil {
			err = fmt.Errorf("the journal's log key is %d bytes", n)
		}
		return nil, err
	}
	// Whoever can read the journal file can read its attributes: only its owner may,
	// or anyone who can write .vfsctl/ could sign a log.
	if err := f.Chmod(0o600); err != nil {
		return nil, err
	}
	key = make([]byte, 32)
	rand.Read(key)
	if err := unix.Fsetxattr(int(f.Fd()), walXattr, key, 0); err != nil {
		return nil, err
	}
	// The key must outlive a power loss with the log that it signs.
	if err := f.Sync(); err != nil {
		return nil, err
	}
	return key, nil
}

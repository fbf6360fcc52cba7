//go:build !windows

package vfs

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// An entry whose bits vfsctl sets (an undo giving a folder back its mode) may be
// swapped for a symlink to a file outside the root at any moment: the bits are never
// set through the link, by a Looker or by the walk from the root.
func TestSetBitsNeverFollowsASwappedSymlink(t *testing.T) {
	f, ws, _ := setup(t)
	outside := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(outside, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := filepath.Join(ws, "d")
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			os.Remove(d)
			os.Symlink(outside, d)
			os.Remove(d)
			os.Mkdir(d, 0o755)
		}
	}()
	defer func() { stop.Store(true); <-done }()
	l := f.Looker()
	defer l.Close()
	set := 0 // the tries that found the folder and set its bits: the test is not of refusals alone
	for i := range 12000 {
		var err error
		if i%2 == 0 {
			err = l.SetBits("d", 0o777)
		} else {
			err = f.SetBits("d", 0o777)
		}
		if err == nil {
			set++
		}
		if fi, err := os.Stat(outside); err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("after %d tries the file outside the root is %v (%v)", i+1, fi.Mode(), err)
		}
	}
	if set == 0 {
		t.Error("no try set the folder's bits")
	}
	t.Logf("%d of 12000 tries set the folder's bits", set)
}

package main

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// A damaged journal is fsck's finding: it says so as a problem and exits 1, whether
// the file was cut short or a page of it overwritten with noise; it never crashes,
// and the working files stay as they were.
func TestFsckReportsADamagedJournal(t *testing.T) {
	dir := journalOfManyFiles(t)
	db := filepath.Join(dir, ".vfsctl", "journal.db")
	good, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	f0, _ := os.ReadFile(filepath.Join(dir, "f0.txt"))
	// The page overwritten is the root of the tree (named by the newer meta page): one
	// in use, wherever the journal's writes left its free pages.
	damage := map[string][]byte{
		"cut at 8 KiB":          good[:8192],
		"cut at half":           good[:len(good)/2],
		"cut mid-page":          good[:len(good)/2+100],
		"root page overwritten": withNoisePage(good, rootPage(good)),
	}
	for what, data := range damage {
		if err := os.WriteFile(db, data, 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runBounded(t, "", "fsck", "--root", dir)
		if code != 1 || strings.Contains(stderr, "goroutine ") || !strings.Contains(stdout, "journal") ||
			strings.Contains(stdout, "problems: none") {
			t.Errorf("%s: exit %d\nstdout:\n%s\nstderr:\n%.600s", what, code, stdout, stderr)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "f0.txt")); !bytes.Equal(got, f0) {
			t.Errorf("%s: a working file changed", what)
		}
	}
}

// journalOfManyFiles is a workspace whose journal holds 150 files of random bytes:
// pages enough that damage to one leaves others to read. Its files are f0.txt to
// f149.txt, 3,000 bytes each.
func journalOfManyFiles(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var calls strings.Builder
	for i := range 150 {
		content := make([]byte, 1500)
		rand.Read(content)
		fmt.Fprintf(&calls, `{"tool":"create_file","args":{"path":"f%d.txt","content":"%x"}}`+"\n", i, content)
	}
	if code, out, errb := runBounded(t, calls.String(), "call", "--root", dir); code != exitOK {
		t.Fatalf("calls: exit %d\n%.500s%.500s", code, out, errb)
	}
	return dir
}

// withNoisePage is a copy of the bbolt file data with its page (4 KiB pages) overwritten
// by random bytes.
func withNoisePage(data []byte, page int) []byte {
	noise := make([]byte, 4096)
	rand.Read(noise)
	return append(append(append([]byte(nil), data[:page*4096]...), noise...), data[(page+1)*4096:]...)
}

// changeJournal changes the workspace dir's journal by hand, through bbolt with opts,
// as damage or another writer would. The journal's log goes first: a live one puts
// back the state it holds.
func changeJournal(t *testing.T, dir string, opts *bolt.Options, change func(tx *bolt.Tx) error) {
	t.Helper()
	if err := os.Remove(filepath.Join(dir, ".vfsctl", "wal")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	db, err := bolt.Open(filepath.Join(dir, ".vfsctl", "journal.db"), 0o600, opts)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(change)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
}

// A FIFO put in the place of a file the journal knows is reported, not opened (a
// FIFO blocks its reader until a writer comes), and is no problem of the journal.
func TestFsckDoesNotOpenAFIFO(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"call", "--root", dir}, strings.NewReader(`{"tool":"create_file","args":{"path":"p.txt","content":"x\n"}}`+"\n"), &out, &errb); code != exitOK {
		t.Fatalf("call: %d %s %s", code, out.String(), errb.String())
	}
	os.Remove(filepath.Join(dir, "p.txt"))
	makeFIFO(t, filepath.Join(dir, "p.txt"))
	done := make(chan int, 1)
	out.Reset()
	go func() { done <- run([]string{"fsck", "--root", dir}, nil, &out, &errb) }()
	select {
	case code := <-done:
		if code != exitOK || !strings.Contains(out.String(), "not_a_file p.txt (no longer a regular file)") {
			t.Errorf("exit %d:\n%s%s", code, out.String(), errb.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("fsck opened the FIFO and blocked")
	}
}

// rootPage is the root bucket's page of the bbolt file data, as its meta page of the
// higher transaction id names it (4 KiB pages).
func rootPage(data []byte) int {
	le := binary.LittleEndian
	best, root := uint64(0), 0
	for i := range 2 {
		m := data[i*4096:]
		if txid := le.Uint64(m[64:]); txid >= best {
			best, root = txid, int(le.Uint64(m[32:]))
		}
	}
	return root
}

// A journal page bbolt's check cannot walk (its first meta page zeroed) is a finding
// about the file, said so: the line used to read "panic: assertion failed", as if
// fsck had crashed.
func TestFsckZeroedMetaPage(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "x.txt"), []byte("a\n"), 0o644)
	var out, errb bytes.Buffer
	if code := run([]string{"call", "--root", dir}, strings.NewReader(`{"tool":"read_file","args":{"path":"x.txt"}}`+"\n"), &out, &errb); code != exitOK {
		t.Fatalf("call: %d %s", code, errb.String())
	}
	os.Remove(filepath.Join(dir, ".vfsctl", "wal"))
	f, err := os.OpenFile(filepath.Join(dir, ".vfsctl", "journal.db"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt(make([]byte, 4096), 0)
	f.Close()
	out.Reset()
	errb.Reset()
	code := run([]string{"fsck", "--root", dir}, nil, &out, &errb)
	if code != exitRefused || !strings.Contains(out.String(), "the check could not walk a page: assertion failed") || strings.Contains(out.String()+errb.String(), "panic") {
		t.Errorf("fsck: exit %d\n%s%s", code, out.String(), errb.String())
	}
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// A journal whose meta page names no freelist (bbolt's NoFreelistSync, which vfsctl
// never uses, but the format allows and anyone may write into .vfsctl) makes bbolt
// rebuild its free pages by walking every page, in goroutines nothing can recover:
// with one page damaged, every command died of a panic (exit 2). It is refused as
// damage before bbolt opens the file, as other damage is: log exits 1 naming fsck,
// and fsck reports it.
func TestJournalWithoutFreelist(t *testing.T) {
	dir := journalOfManyFiles(t)
	changeJournal(t, dir, &bolt.Options{NoFreelistSync: true}, func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("meta")).Put([]byte("x"), []byte("y"))
	})
	path := filepath.Join(dir, ".vfsctl", "journal.db")
	nofree, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	damaged := withNoisePage(nofree, rootPage(nofree))
	// Undamaged, such a journal is refused too: nothing tells it from a damaged one
	// but the walk that crashes. (bbolt's own open would then write a freelist.)
	for what, data := range map[string][]byte{"damaged": damaged, "undamaged": nofree} {
		for _, cmd := range []string{"log", "fsck"} {
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := runBounded(t, "", cmd, "--root", dir)
			said := stderr
			if cmd == "fsck" {
				said = stdout
			}
			if code != exitRefused || !strings.Contains(said, "is damaged") || !strings.Contains(said, "no freelist") ||
				!strings.Contains(said, "vfsctl fsck") || strings.Contains(stderr, "goroutine ") {
				t.Errorf("%s, %s: exit %d\nstdout:\n%.600s\nstderr:\n%.600s", cmd, what, code, stdout, stderr)
			}
			if now, _ := os.ReadFile(path); !bytes.Equal(now, data) {
				t.Errorf("%s, %s: the journal was changed", cmd, what)
			}
		}
	}
	if got, err := os.ReadFile(filepath.Join(dir, "f0.txt")); err != nil || len(got) != 3000 {
		t.Errorf("a working file changed: %d bytes, %v", len(got), err)
	}
}

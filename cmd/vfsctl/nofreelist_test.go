package main

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// A journal whose meta page names no freelist (bbolt's NoFreelistSync, which vfsctl
// never uses, but the format allows and anyone may write into .vfsctl) makes bbolt
// rebuild its free pages by walking every page, in goroutines nothing can recover:
// with one page damaged, every command died of a panic (exit 2). It is refused as
// damage before bbolt opens the file, as other damage is: log exits 1 naming fsck,
// and fsck reports it.
func TestJournalWithoutFreelist(t *testing.T) {
	bin := buildVfsctl(t)
	dir := t.TempDir()
	var calls strings.Builder
	for i := range 150 {
		content := make([]byte, 1500)
		rand.Read(content)
		fmt.Fprintf(&calls, `{"tool":"create_file","args":{"path":"f%d.txt","content":"%x"}}`+"\n", i, content)
	}
	c := exec.Command(bin, "call", "--root", dir)
	c.Stdin = strings.NewReader(calls.String())
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("calls: %v\n%.500s", err, out)
	}
	os.Remove(filepath.Join(dir, ".vfsctl", "wal"))
	path := filepath.Join(dir, ".vfsctl", "journal.db")
	db, err := bolt.Open(path, 0o600, &bolt.Options{NoFreelistSync: true})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte("meta")).Put([]byte("x"), []byte("y")) })
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bin, append(args, "--root", dir)...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.Start()
		timer := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
		cmd.Wait()
		timer.Stop()
		return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
	}
	nofree, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	noise := make([]byte, 4096)
	rand.Read(noise)
	root := rootPage(nofree)
	damaged := append(append(append([]byte(nil), nofree[:root*4096]...), noise...), nofree[(root+1)*4096:]...)
	// Undamaged, such a journal is refused too: nothing tells it from a damaged one
	// but the walk that crashes. (bbolt's own open would then write a freelist.)
	for what, data := range map[string][]byte{"damaged": damaged, "undamaged": nofree} {
		for _, cmd := range []string{"log", "fsck"} {
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := run(cmd)
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

package vfs

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A snapshot keeps a name that is not UTF-8 under its own bytes as an entry of kind
// other, never opened, and leaves out what such a folder holds; a call that sends the
// name as JSON delivers it (U+FFFD for its bad byte) is told why it cannot reach it,
// not offered another file.
func TestNamesThatAreNotUTF8(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows keeps names in UTF-16: a name that is not UTF-8 cannot be made")
	}
	dir := t.TempDir()
	for _, n := range []string{"bad\xffname", "x\xfe", "x\xff"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(n), 0o644); err != nil {
			t.Skipf("this file system takes no such name: %v", err)
		}
	}
	os.Mkdir(filepath.Join(dir, "d\xff"), 0o755)
	os.WriteFile(filepath.Join(dir, "d\xff", "in.txt"), []byte("in\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "ok.txt"), []byte("ok\n"), 0o644)
	f, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.Snapshot(ScanOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range s.Entries {
		got[e.Path] = e.Kind
	}
	want := map[string]string{"bad\xffname": KindOther, "x\xfe": KindOther, "x\xff": KindOther, "d\xff": KindOther, "ok.txt": KindFile}
	if len(got) != len(want) || s.Opened != 1 {
		t.Fatalf("snapshot: %q, %d files opened; want %q and ok.txt opened alone", got, s.Opened, want)
	}
	for p, k := range want {
		if got[p] != k {
			t.Errorf("%q: kind %q, want %q", p, got[p], k)
		}
	}
	r, err := f.Resolve("bad\uFFFDname")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.CheckFile(r); err == nil || !strings.Contains(err.Error(), `The file there is named "bad\xffname": a name that is not UTF-8`) {
		t.Fatalf("a call naming bad\\uFFFDname: %v", err)
	}
}

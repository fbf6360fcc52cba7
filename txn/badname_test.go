package txn

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/journal"
)

// A name that is not UTF-8 is never recorded as a file: a record would carry it as
// another name (U+FFFD for each bad byte), so that a rewind put the file back under
// that other name, and two such names read as one path, neither restorable. The
// record names each, escaped, and a rewind writes nothing under another name.
func TestExecKeepsNamesThatAreNotUTF8OutOfItsRecord(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"a.txt": "a\n"}, Options{NoSync: true})
	defer e.Close()
	for name, content := range map[string]string{"bad\xffname": "precious\n", "x\xfe": "one\n", "x\xff": "two\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Skipf("this file system takes no such name: %v", err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "d\xff"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "d\xff", "in.txt"), []byte("in\n"), 0o644)
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	look := runExec(t, e, dir, "s", "rm -r bad* x* d*") // turn t1
	var rec *journal.Record
	e.View(func(tx *journal.Tx) error { rec, _ = tx.Get(look.Seq); return nil })
	if rec == nil || len(rec.Files) != 0 || len(rec.Entries) != 0 {
		t.Fatalf("the exec's record holds files or entries: %+v", rec)
	}
	for _, want := range []string{`"bad\xffname": an entry whose name is not UTF-8 was removed`, `"x\xfe"`, `"x\xff"`, `"d\xff"`} {
		if !slices.ContainsFunc(rec.Notes, func(n string) bool { return strings.Contains(n, want) }) {
			t.Errorf("the record's notes do not name %s: %q", want, rec.Notes)
		}
	}
	do(e, "op", func(c *Call) error {
		_, err := e.Rewind(c, RewindOptions{Session: "s", Turn: "t1"})
		return err
	})
	names, _ := os.ReadDir(dir)
	var got []string
	for _, n := range names {
		got = append(got, n.Name())
	}
	if !slices.Equal(got, []string{".vfsctl", "a.txt"}) {
		t.Fatalf("after the rewind the workspace holds %q, want only a.txt (nothing under another name)", got)
	}
}

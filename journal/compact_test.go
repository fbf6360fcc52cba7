package journal_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/toolapi"
	"github.com/vfsctl/vfsctl/txn"
	"github.com/vfsctl/vfsctl/vfs"
)

// everything is what operators' commands read of a journal: every record as log
// and export list it, the stats, and the content of every version.
func everything(t *testing.T, eng *txn.Engine) (string, string, map[string]string) {
	t.Helper()
	var recs []*journal.Record
	var st *journal.Stats
	versions := map[string]string{}
	err := eng.View(func(tx *journal.Tx) error {
		err := tx.Each(journal.Query{}, func(r *journal.Record) bool { recs = append(recs, r); return true })
		if err != nil {
			return err
		}
		for _, r := range recs {
			for _, f := range r.Files {
				if f.After != "" && r.State == journal.Committed {
					data, err := tx.Content(f.Path, f.After)
					if err != nil {
						return err
					}
					versions[f.After] = string(data)
				}
			}
		}
		st, err = tx.Stats(journal.Query{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(recs)
	b, _ := json.Marshal(st)
	return string(a), string(b), versions
}

func reopen(t *testing.T, dir string) (*toolapi.Engine, *txn.Engine) {
	fs, err := vfs.Open(dir, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() }) // a folder held open cannot be removed on Windows
	eng, err := txn.Open(fs, txn.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return overTxn(t, eng), eng
}

// A compacted journal is smaller and reads the same: the same records, stats and
// versions, and undo goes on from it.
func TestCompact(t *testing.T) {
	a, eng, path := editWorkspace(t)
	dir := filepath.Dir(filepath.Dir(path))
	const calls = 150
	for i := range calls - 1 {
		tool, args := oneLineEdit(i)
		if r := a.Call(context.Background(), "s", tool, args); !r.OK {
			t.Fatalf("call %d: %s", i, r.Text)
		}
	}
	a.Call(context.Background(), "s", "edit_file", json.RawMessage(`{"path":"f00.go","edits":[{"oldText":"no such text","newText":"x"}]}`))
	tool, args := oneLineEdit(calls - 1)
	var target struct{ Path string }
	json.Unmarshal(args, &target)
	prior, _ := os.ReadFile(filepath.Join(dir, target.Path))
	if r := a.Call(context.Background(), "s", tool, args); !r.OK {
		t.Fatal(r.Text)
	}
	recs, stats, versions := everything(t, eng)
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}

	before, after, err := journal.Compact(path, journal.Options{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	t.Logf("%d calls: %d bytes, compacted %d", calls+1, before, after)
	if after >= before || fi.Size() != after {
		t.Errorf("compacted from %d to %d bytes (the file is %d)", before, after, fi.Size())
	}
	if _, err := os.Stat(path + ".compact"); !os.IsNotExist(err) {
		t.Errorf("the copy is left beside the journal: %v", err)
	}

	a, eng = reopen(t, dir)
	recs2, stats2, versions2 := everything(t, eng)
	if recs2 != recs || stats2 != stats || !reflect.DeepEqual(versions2, versions) {
		t.Errorf("the compacted journal reads otherwise:\n%s\n%s", recs2, stats2)
	}
	if r := a.Call(context.Background(), "s", "undo_edit", json.RawMessage(`{"path":"`+target.Path+`"}`)); !r.OK {
		t.Fatalf("undo after compacting: %s", r.Text)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, target.Path)); string(got) != string(prior) {
		t.Errorf("undo after compacting left %s as\n%s\nwant\n%s", target.Path, got, prior)
	}
}

// Compact waits for the journal's holder like any call, and refuses a journal that
// is not this workspace's own, as every command does.
func TestCompactRefusesForeign(t *testing.T) {
	_, eng, path := editWorkspace(t)
	a, _ := reopen(t, filepath.Dir(filepath.Dir(path)))
	tool, args := oneLineEdit(0)
	a.Call(context.Background(), "s", tool, args)
	eng.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(t.TempDir(), "journal.db")
	os.WriteFile(copied, data, 0o644)
	if _, _, err := journal.Compact(copied, journal.Options{}); err == nil {
		t.Error("compacted a journal copied in from another folder")
	}
	if got, _ := os.ReadFile(copied); string(got) != string(data) {
		t.Error("the refused journal was changed")
	}
}

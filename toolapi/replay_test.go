package toolapi

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/txn"
	"github.com/vfsctl/vfsctl/vfs"
)

// A call that an older engine refused and today's engine applies is reported as
// differing, with today's diff; the files on disk stay as they are.
func TestReplayDiffers(t *testing.T) {
	a, dir := newAPI(t, map[string]string{"q.py": "print(\"a\")\n"})
	r := call(a, EditFile, editCall("q.py", "print(“a”)", "print(“b”)"))
	if !r.OK {
		t.Fatal(r.Text)
	}
	// Rewrite the record as an engine without the typography tier would have left it.
	a.eng.View(func(*journal.Tx) error { return nil }) // settles the deferred mark
	j := journal.New(filepath.Join(dir, ".vfsctl", "journal.db"), journal.Options{})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	j.Commit(func(tx *journal.Tx) error {
		rec, _ := tx.Get(uint64(*r.Txn))
		rec.State, rec.Kind, rec.Message = journal.Failed, "text_not_found", "edits[0]: oldText was not found in q.py."
		return tx.Put(rec)
	})
	j.Release()
	rp, err := NewReplayer(a.eng)
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	res, err := rp.Replay(uint64(*r.Txn))
	if err != nil {
		t.Fatal(err)
	}
	if res.Same || !res.NowOK || res.RecordedOK || res.RecordedKind != "text_not_found" || !strings.Contains(res.NowDiff, `+print("b")`) {
		t.Fatalf("replay %+v", res)
	}
	if got := testutil.ReadFile(t, filepath.Join(dir, "q.py")); got != "print(\"b\")\n" {
		t.Fatalf("the replay changed the disk: %q", got)
	}
}

// BenchmarkReplay replays refused edits of ordinary source files (300 lines, each
// edited in turn by one session, every third call refused) and reports calls/s.
func BenchmarkReplay(b *testing.B) {
	mem := afero.NewMemMapFs()
	const files = 20
	for i := range files {
		var s strings.Builder
		for l := range 300 {
			fmt.Fprintf(&s, "\tvalue%d := compute(%d, \"line %d\") // file %d\n", l, l, l, i)
		}
		afero.WriteFile(mem, fmt.Sprintf("f%d.go", i), []byte(s.String()), 0o644)
	}
	eng, err := txn.Open(vfs.New(mem, vfs.Options{}), txn.Options{JournalPath: b.TempDir() + "/journal.db", NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	api := newDispatcher(eng)
	rel, _ := eng.Hold()
	const calls = 1500
	for k := range calls {
		f := fmt.Sprintf("f%d.go", k%files)
		l := (k / files) % 300
		old := fmt.Sprintf("value%d := compute(%d,", l, l)
		if k%3 == 0 {
			old = fmt.Sprintf("value%d := compute (%d,", l, l) // not in the file: refused
		}
		api.Call("s", EditFile, []byte(editCall(f, old, fmt.Sprintf("value%d := compute2(%d,", l, l))))
	}
	rel()
	var seqs []uint64
	eng.View(func(tx *journal.Tx) error {
		recs, _ := tx.Find(journal.Query{Failed: true})
		for i := len(recs) - 1; i >= 0; i-- {
			seqs = append(seqs, recs[i].Seq)
		}
		return nil
	})
	b.ResetTimer()
	start := time.Now()
	n := 0
	for b.Loop() {
		rp, err := NewReplayer(eng)
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range seqs {
			res, err := rp.Replay(s)
			if err != nil || !res.Same {
				b.Fatalf("call %d: %v %+v", s, err, res)
			}
			n++
		}
		rp.Close()
	}
	b.ReportMetric(float64(n)/time.Since(start).Seconds(), "calls/s")
}

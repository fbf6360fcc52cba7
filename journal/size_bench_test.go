package journal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/toolapi"
	"github.com/vfsctl/vfsctl/txn"
	"github.com/vfsctl/vfsctl/vfs"
)

// sizeFiles is how many 200-line files the edits of a size benchmark go round.
const sizeFiles = 50

// sourceFile is a 200-line source file, each line distinct.
func sourceFile(n int) string {
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "\tresult%03d := handle(ctx, req, %q) // file %d, line %d\n", i, fmt.Sprintf("key-%d-%d", n, i), n, i)
	}
	return b.String()
}

// editWorkspace makes a workspace of sizeFiles 200-line files and returns the API over
// it, with its journal unsynced (sizes do not depend on fsync).
func editWorkspace(tb testing.TB) (*toolapi.Engine, *txn.Engine, string) {
	tb.Helper()
	dir := tb.TempDir()
	for n := range sizeFiles {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.go", n)), []byte(sourceFile(n)), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	fs, err := vfs.Open(dir, vfs.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { fs.Close() }) // a folder held open cannot be removed on Windows
	eng, err := txn.Open(fs, txn.Options{NoSync: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { eng.Close() })
	return overTxn(tb, eng), eng, filepath.Join(dir, ".vfsctl", "journal.db")
}

// oneLineEdit is call i of a run: a one-line edit_file call, as a model sends it, on
// file i%sizeFiles. Round r of a file edits its line r*7%200, changing the key on it
// from what the round before on that line left there.
func oneLineEdit(i int) (string, json.RawMessage) {
	n, round := i%sizeFiles, i/sizeFiles
	line := round * 7 % 200
	args, _ := json.Marshal(map[string]any{
		"path": fmt.Sprintf("f%02d.go", n),
		"edits": []map[string]string{{
			"oldText": fmt.Sprintf("result%03d := handle(ctx, req, %q)", line, keyAt(n, line, round)),
			"newText": fmt.Sprintf("result%03d := handle(ctx, req, %q)", line, keyAt(n, line, round+1)),
		}},
	})
	return "edit_file", args
}

// keyAt is the key on line of file n before round edits it: the original, or what
// the last round before it on that line wrote.
func keyAt(n, line, round int) string {
	last := -1
	for r := range round {
		if r*7%200 == line {
			last = r
		}
	}
	if last < 0 {
		return fmt.Sprintf("key-%d-%d", n, line)
	}
	return fmt.Sprintf("key-%d-%d-r%d", n, line, last+1)
}

// bucketBytes is what a bucket holds: the bytes of its pages (branch and leaf pages
// allocated, an inline bucket 0) and of its entries (keys, values and bbolt's 16-byte
// element header each), which the pages hold with the room their splits leave.
type bucketBytes struct{ pages, live int64 }

// journalPages is what a journal file holds: the bytes of the pages in use (bbolt's
// high-water mark, tx.Size, less the pages its freelist holds free or pending), what
// each bucket holds, and the file's size (bbolt grows it ahead of the pages, doubling
// up to 1 GiB).
func journalPages(tb testing.TB, path string) (inUse int64, buckets map[string]bucketBytes, fileSize int64) {
	tb.Helper()
	db, err := bolt.Open(path, 0o644, &bolt.Options{ReadOnly: true})
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	buckets = map[string]bucketBytes{}
	err = db.View(func(tx *bolt.Tx) error {
		st := db.Stats()
		inUse = tx.Size() - int64(st.FreePageN+st.PendingPageN)*int64(db.Info().PageSize)
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			s := b.Stats()
			var live int64
			b.ForEach(func(k, v []byte) error { live += int64(16 + len(k) + len(v)); return nil })
			buckets[string(name)] = bucketBytes{int64(s.BranchAlloc + s.LeafAlloc), live}
			return nil
		})
	})
	if err != nil {
		tb.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return inUse, buckets, fi.Size()
}

// BenchmarkJournalBytesPerEdit makes b.N one-line edit_file calls on 200-line files
// through the tool API and reports the journal's pages in use per call: what the
// journal keeps for a change of a dozen bytes. With -v it logs the bytes of each
// bucket, its pages and its entries. The files' first versions (blobs, about 3 KB a file) count too: run enough
// calls (-benchtime 20000x) for them to fade.
func BenchmarkJournalBytesPerEdit(b *testing.B) { benchBytesPerEdit(b, false) }

// BenchmarkJournalBytesPerEditHistory is BenchmarkJournalBytesPerEdit in a journal
// that keeps the history index, as every journal does from its first undo on.
func BenchmarkJournalBytesPerEditHistory(b *testing.B) { benchBytesPerEdit(b, true) }

func benchBytesPerEdit(b *testing.B, history bool) {
	a, eng, path := editWorkspace(b)
	if history {
		ctx := context.Background()
		if r := a.Call(ctx, "bench", "create_file", json.RawMessage(`{"path":"undone.txt","content":"x\n"}`)); !r.OK {
			b.Fatal(r.Text)
		}
		if r := a.Undo(ctx, 1); !r.OK {
			b.Fatal(r.Text)
		}
	}
	i := 0
	for b.Loop() {
		tool, args := oneLineEdit(i)
		if r := a.Call(context.Background(), "bench", tool, args); !r.OK {
			b.Fatalf("call %d: %s", i, r.Text)
		}
		i++
	}
	b.StopTimer()
	eng.Close()
	inUse, buckets, size := journalPages(b, path)
	b.ReportMetric(float64(inUse)/float64(i), "B-in-use/call")
	b.ReportMetric(float64(size)/float64(i), "B-file/call")
	if testing.Verbose() {
		logBuckets(b, buckets, i)
	}
	// And compacted: the live size, every page packed full.
	if _, _, err := journal.Compact(path, journal.Options{Root: filepath.Dir(filepath.Dir(path)), NoSync: true}); err != nil {
		b.Fatal(err)
	}
	inUse, _, _ = journalPages(b, path)
	b.ReportMetric(float64(inUse)/float64(i), "B-compacted/call")
}

func logBuckets(tb testing.TB, buckets map[string]bucketBytes, calls int) {
	names := make([]string, 0, len(buckets))
	for n := range buckets {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return buckets[names[i]].pages > buckets[names[j]].pages })
	for _, n := range names {
		b := buckets[n]
		tb.Logf("%-11s %10d bytes %8.1f per call, entries %8.1f per call", n, b.pages, float64(b.pages)/float64(calls), float64(b.live)/float64(calls))
	}
}

// overTxn is the tool layer over eng.
func overTxn(tb testing.TB, eng *txn.Engine) *toolapi.Engine {
	tb.Helper()
	e, err := toolapi.OpenTxn(eng, toolapi.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

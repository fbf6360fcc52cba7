package journal

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/quick"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/testutil"
)

func open(t *testing.T, path string) *Journal {
	t.Helper()
	j := New(path, Options{Wait: 200 * time.Millisecond, Holder: "test"})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(j.Release)
	return j
}

func TestCreatesLayout(t *testing.T) {
	dir := t.TempDir()
	j := open(t, filepath.Join(dir, ".vfsctl", "journal.db"))
	if got := testutil.ReadFile(t, filepath.Join(dir, ".vfsctl", ".gitignore")); got != "*\n" {
		t.Errorf(".gitignore is %q", got)
	}
	if err := j.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestRefusesForeignFiles(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	os.WriteFile(garbage, bytes.Repeat([]byte("not a database "), 1000), 0o644)
	foreign := filepath.Join(dir, "foreign.db")
	db, _ := bolt.Open(foreign, 0o644, nil)
	db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("users")); return err })
	db.Close()
	newer := filepath.Join(dir, "newer.db")
	j := New(newer, Options{})
	j.Acquire()
	j.Update(func(t *Tx) error { return t.b(bMeta).Put([]byte("schema"), []byte("99")) })
	j.Release()
	for path, want := range map[string]string{garbage: "not a vfsctl journal", foreign: "another application", newer: "newer vfsctl (journal schema 99"} {
		err := New(path, Options{}).Acquire()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: want %q, got %v", filepath.Base(path), want, err)
		}
	}
}

func TestBusyNamesHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	open(t, path) // held by this test until cleanup
	// bbolt's lock is per open file description, so a second Journal in this process
	// contends like another process would.
	other := New(path, Options{Wait: 150 * time.Millisecond})
	start := time.Now()
	err := other.Acquire()
	testutil.WantKind(t, err, errs.Busy)
	if !strings.Contains(err.Error(), "process ") || !strings.Contains(err.Error(), "(test, holding it since") {
		t.Errorf("busy message does not name the holder: %v", err)
	}
	if time.Since(start) < 150*time.Millisecond {
		t.Errorf("gave up before the wait was over")
	}
}

func TestReleaseLetsOthersIn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	a := New(path, Options{})
	if err := a.Acquire(); err != nil {
		t.Fatal(err)
	}
	a.Acquire() // two calls of one process
	a.Release()
	b := New(path, Options{Wait: 100 * time.Millisecond})
	testutil.WantKind(t, b.Acquire(), errs.Busy)
	a.Release()
	if err := b.Acquire(); err != nil {
		t.Fatalf("after the last release: %v", err)
	}
	b.Release()
}

func TestRecordsAndQueries(t *testing.T) {
	j := open(t, filepath.Join(t.TempDir(), "journal.db"))
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	recs := []*Record{
		{Time: t0, Session: "s1", Tool: "read_file", State: Committed, Files: []File{{Path: "a.go", Op: OpRead}}},
		{Time: t0.Add(time.Minute), Session: "s1", Tool: "edit_file", State: Failed, Kind: "text_not_found", Files: []File{{Path: "a.go", Op: OpEdit}}},
		{Time: t0.Add(2 * time.Minute), Session: "s2", Tool: "edit_file", State: Committed, Files: []File{{Path: "b.go", Op: OpEdit}}},
		{Time: t0.Add(3 * time.Minute), Session: "s2", Tool: "apply_changes", State: Pending, Files: []File{{Path: "a.go", Op: OpEdit}, {Path: "b.go", Op: OpEdit}}},
		{Time: t0.Add(4 * time.Minute), Session: "s10", Tool: "nope", State: Failed, Kind: "unknown_tool"},
	}
	err := j.Update(func(t *Tx) error {
		for _, r := range recs {
			if err := t.Put(r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		q    Query
		want []uint64
	}{
		{Query{}, []uint64{5, 4, 3, 2, 1}},
		{Query{Limit: 2}, []uint64{5, 4}},
		{Query{Path: "a.go"}, []uint64{4, 2, 1}},
		{Query{Path: "a"}, nil},
		{Query{Session: "s1"}, []uint64{2, 1}},
		{Query{Session: "s1", Path: "b.go"}, nil},
		{Query{Kind: "text_not_found"}, []uint64{2}},
		{Query{Failed: true}, []uint64{5, 2}},
		{Query{Since: t0.Add(90 * time.Second)}, []uint64{5, 4, 3}},
		{Query{Since: t0.Add(time.Minute), Until: t0.Add(3 * time.Minute)}, []uint64{3, 2}},
		{Query{Path: "b.go", Since: t0.Add(150 * time.Second)}, []uint64{4}},
	}
	for _, c := range cases {
		var got []*Record
		j.View(func(tx *Tx) error { got, err = tx.Find(c.q); return err })
		var seqs []uint64
		for _, r := range got {
			seqs = append(seqs, r.Seq)
		}
		if len(seqs) != len(c.want) || (len(seqs) > 0 && !equal(seqs, c.want)) {
			t.Errorf("%+v: got %v, want %v", c.q, seqs, c.want)
		}
	}
	j.View(func(tx *Tx) error {
		if p := tx.Pending(); len(p) != 1 || p[0] != 4 {
			t.Errorf("pending %v", p)
		}
		return nil
	})
	// Settling a pending record takes it out of the pending set.
	recs[3].State = RolledBack
	j.Update(func(t *Tx) error { return t.Put(recs[3]) })
	j.View(func(tx *Tx) error {
		if p := tx.Pending(); len(p) != 0 {
			t.Errorf("still pending: %v", p)
		}
		return nil
	})
}

// A time range is read from the records' times, whatever their order: a clock that
// stepped back, a record written before facts were kept, and a by_time index of an
// older vfsctl that no longer matches the records change nothing.
func TestFindTimeRange(t *testing.T) {
	j := open(t, filepath.Join(t.TempDir(), "journal.db"))
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	at := []time.Duration{3 * time.Minute, time.Minute, 2 * time.Minute, 5 * time.Minute, 4 * time.Minute}
	err := j.Update(func(t *Tx) error {
		for _, d := range at {
			if err := t.Put(&Record{Time: t0.Add(d), Session: "s", Tool: "read_file", State: Committed}); err != nil {
				return err
			}
		}
		// Record 4 predates facts; the old index claims record 1 is at t0.
		if err := t.b(bFacts).Delete(seqKey(4)); err != nil {
			return err
		}
		var tk [16]byte
		binary.BigEndian.PutUint64(tk[:8], uint64(t0.UnixNano()))
		binary.BigEndian.PutUint64(tk[8:], 1)
		return t.b(bByTime).Put(tk[:], nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		q    Query
		want []uint64
	}{
		{Query{Since: t0.Add(150 * time.Second)}, []uint64{5, 4, 1}},
		{Query{Until: t0.Add(150 * time.Second)}, []uint64{3, 2}},
		{Query{Since: t0.Add(2 * time.Minute), Until: t0.Add(5 * time.Minute)}, []uint64{5, 3, 1}},
		{Query{Since: t0.Add(time.Minute), Limit: 2}, []uint64{5, 4}},
		{Query{Until: t0}, nil},
	}
	for _, c := range cases {
		var got []*Record
		if err := j.View(func(tx *Tx) error { got, err = tx.Find(c.q); return err }); err != nil {
			t.Fatal(err)
		}
		var seqs []uint64
		for _, r := range got {
			seqs = append(seqs, r.Seq)
		}
		if len(seqs) != len(c.want) || (len(seqs) > 0 && !equal(seqs, c.want)) {
			t.Errorf("%+v: got %v, want %v", c.q, seqs, c.want)
		}
	}
}

func equal(a, b []uint64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestBlobs(t *testing.T) {
	j := open(t, filepath.Join(t.TempDir(), "journal.db"))
	text := bytes.Repeat([]byte("func f() { return 1 }\n"), 5000)
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(i*7919 + i*i)
	}
	j.Update(func(tx *Tx) error {
		for _, data := range [][]byte{text, random, nil} {
			h, err := tx.PutBlob(data)
			if err != nil {
				t.Fatal(err)
			}
			if h2, _ := tx.PutBlob(data); h2 != h {
				t.Errorf("same content, two hashes")
			}
			got, err := tx.Blob(h)
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("blob round trip failed: %v", err)
			}
		}
		key, _ := hexKey(Hash(text))
		if stored := len(tx.b(bBlobs).Get(key)); stored > len(text)/20 {
			t.Errorf("repetitive text stored in %d bytes of %d: not compressed", stored, len(text))
		}
		return nil
	})
}

func TestSplicesRoundTrip(t *testing.T) {
	// Property: for any content and any ordered, non-overlapping splices, applying then
	// reverting gives the content back, and reverting rejects content the splices did
	// not make.
	f := func(content []byte, cuts []uint16, news [][]byte) bool {
		var sp []Splice
		pos := 0
		for i, c := range cuts {
			if pos >= len(content) {
				break
			}
			start := pos + int(c)%(len(content)-pos)
			end := start + int(c/7)%(len(content)-start+1)
			n := []byte(nil)
			if i < len(news) {
				n = news[i]
			}
			sp = append(sp, Splice{Start: start, Old: content[start:end], New: n})
			pos = end + 1
		}
		after, ok := ApplySplices(content, sp)
		if !ok {
			return false
		}
		back, ok := RevertSplices(after, sp)
		return ok && bytes.Equal(back, content)
	}
	if err := quick.Check(f, &quick.Config{MaxCount: 2000}); err != nil {
		t.Fatal(err)
	}
	if _, ok := RevertSplices([]byte("xyz"), []Splice{{Start: 0, Old: []byte("a"), New: []byte("b")}}); ok {
		t.Error("reverted content the splices did not make")
	}
}

// A record encoded ahead (Encode) and stored with PutEncoded reads back as Put stores
// it, leaves the pending set, and is found by its indexes; later changes to the
// record are not in what was encoded.
func TestPutEncoded(t *testing.T) {
	j := open(t, filepath.Join(t.TempDir(), "journal.db"))
	r := &Record{Time: time.Now().UTC().Truncate(time.Microsecond), Session: "s1", Tool: "edit_file", State: Pending,
		Files: []File{{Path: "a.go", Op: OpEdit, Before: Hash([]byte("x")), After: Hash([]byte("y")), Diff: "-x\n+y\n"}}}
	if err := j.Commit(func(t *Tx) error { return t.Put(r) }); err != nil {
		t.Fatal(err)
	}
	if _, err := Encode(&Record{}); err == nil {
		t.Error("a record without its sequence number was encoded")
	}
	r.State, r.Kind = Committed, ""
	enc, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	r.Message = "changed after encoding"
	if err := j.Commit(func(t *Tx) error { return t.PutEncoded(enc) }); err != nil {
		t.Fatal(err)
	}
	j.View(func(tx *Tx) error {
		got, err := tx.Get(r.Seq)
		if err != nil || got == nil {
			t.Fatalf("get: %v %v", got, err)
		}
		if got.State != Committed || got.Message != "" || got.Files[0].Diff != "-x\n+y\n" || !got.Time.Equal(r.Time) {
			t.Errorf("stored record %+v", got)
		}
		if p := tx.Pending(); len(p) != 0 {
			t.Errorf("still pending: %v", p)
		}
		found, err := tx.Find(Query{Path: "a.go", Session: "s1"})
		if err != nil || len(found) != 1 || found[0].Seq != r.Seq {
			t.Errorf("found by path and session: %v %v", found, err)
		}
		return nil
	})
}

// TestOlderSchemaBroughtUp: a journal of schema 1, 2 or 3 is declared schema 4 when
// this vfsctl opens it, so a vfsctl that reads only an older one (and knows neither
// the log, nor codec 4, nor the indexes' runs, nor blob packs) refuses it from then
// on instead of writing behind them or misreading them.
func TestOlderSchemaBroughtUp(t *testing.T) {
	for _, old := range []string{"1", "2", "3"} {
		path := filepath.Join(t.TempDir(), ".vfsctl", "journal.db")
		j := New(path, Options{})
		if err := j.Acquire(); err != nil {
			t.Fatal(err)
		}
		j.Update(func(t *Tx) error { return t.b(bMeta).Put([]byte("schema"), []byte(old)) })
		j.Release()
		j = open(t, path)
		var got string
		j.View(func(t *Tx) error { got = string(t.b(bMeta).Get([]byte("schema"))); return nil })
		if got != "4" {
			t.Fatalf("schema after opening a schema-%s journal: %q", old, got)
		}
	}
}

// The marks and temps files are read only where vfsctl wrote them: a line without
// this journal's tag (added by hand, or in files that arrived with a repository or
// from another journal) is not read, so recovery neither takes an unfinished call
// for a landed one nor removes a file that no call staged.
func TestSideFilesReadOnlyWhatThisJournalWrote(t *testing.T) {
	dir := t.TempDir()
	open := func(p string) *Journal {
		j := New(p, Options{NoSync: true})
		if err := j.Acquire(); err != nil {
			t.Fatal(err)
		}
		return j
	}
	j := open(filepath.Join(dir, "a", ".vfsctl", "journal.db"))
	if err := j.MarkLanded(5); err != nil {
		t.Fatal(err)
	}
	j.NoteTemp("d/.vfsctl-tmp-1")
	j.Release()
	other := open(filepath.Join(dir, "b", ".vfsctl", "journal.db"))
	other.MarkLanded(8)
	other.NoteTemp("d/.vfsctl-tmp-other")
	other.Release()
	side := func(ws, name string) string { return filepath.Join(dir, ws, ".vfsctl", name) }
	theirs := map[string][]byte{}
	for _, name := range []string{"marks", "temps"} {
		theirs[name], _ = os.ReadFile(side("b", name))
	}
	appendTo := func(name, text string) {
		f, err := os.OpenFile(side("a", name), os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(text)
		f.Close()
	}
	appendTo("marks", "7\n9 0000000000000000\n"+string(theirs["marks"]))
	appendTo("temps", ".vfsctl-tmp-precious\n"+string(theirs["temps"]))

	j = open(filepath.Join(dir, "a", ".vfsctl", "journal.db"))
	defer j.Release()
	landed := j.Landed()
	if !landed[5] || len(landed) != 1 {
		t.Errorf("landed %v, want call 5 alone", landed)
	}
	if temps := j.TakeTemps(); len(temps) != 1 || temps[0] != "d/.vfsctl-tmp-1" {
		t.Errorf("temps %q, want the one staged", temps)
	}
}

// A journal made before its side files were signed gets its key at its next open,
// and at that open its unsigned lines are still read (an older vfsctl of this
// workspace wrote them): a crash across the upgrade loses no mark. From the open
// after, they are not.
func TestUnsignedSideLinesReadOnceAtUpgrade(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ".vfsctl", "journal.db")
	j := New(p, Options{NoSync: true})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	j.Release()
	os.Remove(filepath.Join(dir, ".vfsctl", "wal"))
	db, err := bolt.Open(p, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte(bMeta)).Delete([]byte(sideKeyName)) })
	db.Close()
	os.WriteFile(filepath.Join(dir, ".vfsctl", "marks"), []byte("5\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".vfsctl", "temps"), []byte("d/.vfsctl-tmp-old\n"), 0o644)
	for round, want := range []bool{true, false} {
		if round == 1 {
			os.WriteFile(filepath.Join(dir, ".vfsctl", "marks"), []byte("5\n"), 0o644)
			os.WriteFile(filepath.Join(dir, ".vfsctl", "temps"), []byte("d/.vfsctl-tmp-old\n"), 0o644)
		}
		j := New(p, Options{NoSync: true})
		if err := j.Acquire(); err != nil {
			t.Fatal(err)
		}
		if got := j.Landed()[5]; got != want {
			t.Errorf("open %d: mark of call 5 read: %v, want %v", round+1, got, want)
		}
		if got := len(j.TakeTemps()) == 1; got != want {
			t.Errorf("open %d: temp read: %v, want %v", round+1, got, want)
		}
		j.Release()
	}
}

// Only its owner may read the journal, which keeps the content of files only their
// owner may read: from its first call, with or without the log (a filesystem without
// extended attributes runs without it), after a compaction, and once an older
// vfsctl's readable journal is opened again.
func TestJournalReadableByItsOwnerOnly(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows keeps no permission bits: the journal's folder's ACL decides who reads it (docs/security.md)")
	}
	for _, noLog := range []bool{false, true} {
		dir := t.TempDir()
		path := filepath.Join(dir, ".vfsctl", "journal.db")
		perm := func(when string) {
			t.Helper()
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != 0o600 {
				t.Errorf("noLog=%v, %s: journal.db is %o, want 600", noLog, when, got)
			}
		}
		opts := Options{Wait: 200 * time.Millisecond, NoLog: noLog}
		put := func() {
			t.Helper()
			j := New(path, opts)
			if err := j.Acquire(); err != nil {
				t.Fatal(err)
			}
			if err := j.Commit(func(t *Tx) error { return t.Put(&Record{Session: "s", Tool: "read_file"}) }); err != nil {
				t.Fatal(err)
			}
			j.Release()
		}
		put()
		perm("after the first call")
		if err := os.Chmod(path, 0o644); err != nil {
			t.Fatal(err)
		}
		put()
		perm("opened again after an older vfsctl left it 0644")
		if _, _, err := Compact(path, opts); err != nil {
			t.Fatal(err)
		}
		perm("after compacting")
	}
}

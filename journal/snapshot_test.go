package journal

import (
	"bytes"
	"compress/flate"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/quick"

	bolt "go.etcd.io/bbolt"
)

// Every entry a look can make is read back as it was put, in the binary form.
func TestSnapshotEntriesReadBackAsPut(t *testing.T) {
	kinds := append(snapKinds, "whiteout") // a kind the binary form has no index for
	strs := &snapStrings{}
	var put, decoded []SnapEntry
	check := func(kind uint8, mode uint32, size int64, dev, ino uint64, mtime, ctime int64, large bool, rawHash [32]byte, textHash bool, target string) bool {
		e := SnapEntry{Kind: kinds[int(kind)%len(kinds)], Mode: mode, Size: size & math.MaxInt64, Dev: dev, Ino: ino,
			Mtime: mtime, Ctime: ctime, Large: large, Hash: Hash(rawHash[:]), Target: target}
		if textHash {
			e.Hash = "not-a-hash:" + target
		}
		v, err := encodeSnap(e)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeSnap(v)
		if err != nil || got != e {
			t.Logf("put %+v\ngot %+v (%v)", e, got, err)
			return false
		}
		// A look decodes into one buffer of strings shared by every entry: an entry
		// decoded before still reads as put once the buffer has grown past it.
		shared, err := strs.decode(v)
		if err != nil || shared != e {
			t.Logf("put %+v\ngot %+v through the shared strings (%v)", e, shared, err)
			return false
		}
		put, decoded = append(put, e), append(decoded, shared)
		return true
	}
	if err := quick.Check(check, &quick.Config{MaxCount: 2000}); err != nil {
		t.Error(err)
	}
	for i := range put {
		if put[i] != decoded[i] {
			t.Fatalf("entry %d, decoded through the shared strings, now reads %+v; put %+v", i, decoded[i], put[i])
		}
	}
}

// A journal whose snapshot was written as JSON (the first journals with one) reads
// it as before; an entry that does not decode in either form is left out, and a look
// then takes its path as new.
func TestSnapshotWrittenAsJSONStillReads(t *testing.T) {
	j := New(filepath.Join(t.TempDir(), "journal.db"), Options{NoSync: true})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	defer j.Release()
	old := SnapEntry{Kind: "file", Mode: 0o644, Size: 5, Dev: 2049, Ino: 77, Mtime: 1e18, Ctime: 1e18 + 1, Hash: Hash([]byte("kept\n"))}
	oldJSON, _ := json.Marshal(old)
	// The form the first journals with a snapshot wrote, spelled out, not marshalled.
	written := `{"kind":"symlink","mode":511,"dev":2049,"ino":78,"mtime":5,"ctime":6,"target":"../x"}`
	now := SnapEntry{Kind: "dir", Mode: 0o755, Dev: 2049, Ino: 79}
	err := j.Commit(func(tx *Tx) error {
		if err := tx.createBucket(bSnapshot); err != nil {
			return err
		}
		b := tx.b(bSnapshot)
		b.Put([]byte("a.txt"), oldJSON)
		b.Put([]byte("link"), []byte(written))
		b.Put([]byte("damaged"), []byte{snapBinary, 0, 1})
		b.Put([]byte("empty"), nil)
		return tx.SetSnapshotEntry("src", &now)
	})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]SnapEntry
	j.View(func(tx *Tx) error { got = tx.Snapshot(); return nil })
	want := map[string]SnapEntry{
		"a.txt": old,
		"link":  {Kind: "symlink", Mode: 0o777, Dev: 2049, Ino: 78, Mtime: 5, Ctime: 6, Target: "../x"},
		"src":   now,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("snapshot read:\n got %+v\nwant %+v", got, want)
	}
}

// A workspace's first snapshot stores its contents in bulk: compressed harder than a
// call's blob, in the codec every reader of blobs knows (flate), and on pages packed
// full. Blobs of a few KiB on pages split half full left a third of the blobs'
// pages empty on a copy of Go's src.
func TestSnapshotBlobsArePackedFull(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	j := New(path, Options{NoSync: true})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("func return if err != nil package import type struct range for go defer select case default chan map string int byte")
	var contents [][]byte
	for range 400 {
		var b strings.Builder
		for b.Len() < 1500+rnd.IntN(5000) {
			fmt.Fprintf(&b, "%s x%d\n", words[rnd.IntN(len(words))], rnd.IntN(1e6))
		}
		contents = append(contents, []byte(b.String()))
	}
	err := j.Commit(func(tx *Tx) error {
		tx.PackFull()
		for _, c := range contents {
			if _, err := tx.PutBlobCompact(c); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	j.View(func(tx *Tx) error {
		for _, c := range contents {
			if got, err := tx.Blob(Hash(c)); err != nil || !bytes.Equal(got, c) {
				t.Fatalf("blob read back: %v", err)
			}
			v := tx.b(bBlobs).Get(must(hexKey(Hash(c))))
			if v[0] == codecFlate {
				got, err := io.ReadAll(flate.NewReader(bytes.NewReader(v[1:])))
				if err != nil || !bytes.Equal(got, c) {
					t.Fatalf("compress/flate cannot read a compact blob: %v", err)
				}
			}
		}
		return nil
	})
	j.Release()
	j.Close()
	db, err := bolt.Open(path, 0o644, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.View(func(tx *bolt.Tx) error {
		s := tx.Bucket([]byte(bBlobs)).Stats()
		if float64(s.LeafInuse) < 0.85*float64(s.LeafAlloc) {
			t.Errorf("the blobs' pages are %.0f%% full (%d bytes in use in %d)", 100*float64(s.LeafInuse)/float64(s.LeafAlloc), s.LeafInuse, s.LeafAlloc)
		}
		return nil
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// UpdateSnapshotAt, given the paths where two snapshots differ, leaves the journal's
// snapshot equal to the new one: entries made, changed and removed, the others kept.
func TestUpdateSnapshotAtWritesTheChangedPaths(t *testing.T) {
	j := New(filepath.Join(t.TempDir(), "journal.db"), Options{NoSync: true})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	defer func() { j.Release(); j.Close() }()
	rnd := rand.New(rand.NewPCG(5, 6))
	old := map[string]SnapEntry{}
	for i := range 300 {
		old[fmt.Sprintf("d%d/f%d", i%7, i)] = SnapEntry{Kind: "file", Mode: 0o644, Size: int64(i), Hash: Hash([]byte{byte(i)}), Mtime: int64(i)}
	}
	if err := j.Commit(func(tx *Tx) error { return tx.UpdateSnapshot(map[string]SnapEntry{}, old) }); err != nil {
		t.Fatal(err)
	}
	for round := range 5 {
		now := map[string]SnapEntry{}
		var paths []string
		for p, e := range old {
			switch rnd.IntN(10) {
			case 0: // removed
				paths = append(paths, p)
			case 1: // changed
				e.Mtime++
				now[p] = e
				paths = append(paths, p)
			case 2: // listed, the same
				now[p] = e
				paths = append(paths, p)
			default:
				now[p] = e
			}
		}
		for i := range 20 {
			p := fmt.Sprintf("new%d/g%d", round, i)
			now[p] = SnapEntry{Kind: "dir", Mode: 0o755}
			paths = append(paths, p)
		}
		if err := j.Commit(func(tx *Tx) error { return tx.UpdateSnapshotAt(old, now, paths) }); err != nil {
			t.Fatal(err)
		}
		var got map[string]SnapEntry
		j.View(func(tx *Tx) error { got = tx.Snapshot(); return nil })
		if !reflect.DeepEqual(got, now) {
			t.Fatalf("round %d: the snapshot has %d entries, want the %d of now", round, len(got), len(now))
		}
		old = now
	}
}

package journal

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// sourceLike is n contents of a few KiB to a few tens of KiB, compressing about
// threefold, as the sources of a workspace do.
func sourceLike(n int) [][]byte {
	rnd := rand.New(rand.NewPCG(3, 4))
	words := strings.Fields("func return if err != nil package import type struct range for go defer select case default chan map string int byte")
	var out [][]byte
	for range n {
		var b strings.Builder
		for size := 2000 + rnd.IntN(40000); b.Len() < size; {
			fmt.Fprintf(&b, "%s x%d\n", words[rnd.IntN(len(words))], rnd.IntN(1e4))
		}
		out = append(out, []byte(b.String()))
	}
	return out
}

// A first snapshot's contents stored in packs take less of the journal file than the
// same contents stored one value each (whole pages for every content over a page's
// room), and every one reads back, whole and in the flate every reader knows;
// fsck finds nothing wrong. Storing them again adds nothing.
func TestBlobsPackedTakeNoPageRest(t *testing.T) {
	contents := sourceLike(150)
	size := func(put func(*Tx) error) (int64, *Journal) {
		path := filepath.Join(t.TempDir(), "journal.db")
		j := New(path, Options{NoSync: true})
		if err := j.Acquire(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { j.Release(); j.Close() })
		if err := j.Commit(put); err != nil {
			t.Fatal(err)
		}
		// The pages in use (bbolt grows the file itself by doubling).
		var used int64
		j.View(func(tx *Tx) error { used = tx.tx.Size(); return nil })
		return used, j
	}
	each, _ := size(func(tx *Tx) error {
		tx.PackFull()
		for _, c := range contents {
			if _, err := tx.PutBlobCompact(c); err != nil {
				return err
			}
		}
		return nil
	})
	packed, j := size(func(tx *Tx) error {
		tx.PackFull()
		return tx.PutBlobsPacked(append(contents, contents[:10]...))
	})
	if float64(packed) > 0.92*float64(each) {
		t.Errorf("packed, the journal uses %d bytes; one value per content, %d", packed, each)
	}
	t.Logf("pages in use: %d bytes packed, %d one value per content", packed, each)
	j.View(func(tx *Tx) error {
		for _, c := range contents {
			if got, err := tx.Blob(Hash(c)); err != nil || !bytes.Equal(got, c) {
				t.Fatalf("a packed blob read back: %v", err)
			}
			v, err := tx.blobValue(tx.b(bBlobs).Get(must(hexKey(Hash(c)))))
			if err != nil {
				t.Fatal(err)
			}
			if v[0] == codecFlate {
				if got, err := io.ReadAll(flate.NewReader(bytes.NewReader(v[1:]))); err != nil || !bytes.Equal(got, c) {
					t.Fatalf("compress/flate cannot read a packed blob: %v", err)
				}
			}
		}
		if problems, blobs, _ := tx.Verify(); len(problems) != 0 || blobs != len(contents) {
			t.Errorf("fsck of the packed journal: %d blobs, %v", blobs, problems)
		}
		return nil
	})
	var packs, again uint64
	j.View(func(tx *Tx) error { packs = tx.b(bBlobPacks).Sequence(); return nil })
	if err := j.Commit(func(tx *Tx) error { return tx.PutBlobsPacked(contents) }); err != nil {
		t.Fatal(err)
	}
	j.View(func(tx *Tx) error { again = tx.b(bBlobPacks).Sequence(); return nil })
	if packs == 0 || again != packs {
		t.Errorf("packs: %d, then %d after storing the same contents again", packs, again)
	}
}

// A reference that does not resolve (a damaged or hostile journal: a pack missing,
// an offset or a length past its end, a reference to a reference) is an error of the
// blob read and a problem fsck names, never a panic nor another blob's bytes.
func TestBlobPackReferenceThatDoesNotResolve(t *testing.T) {
	j := New(filepath.Join(t.TempDir(), "journal.db"), Options{NoSync: true})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	defer j.Release()
	contents := sourceLike(3)
	if err := j.Commit(func(tx *Tx) error { return tx.PutBlobsPacked(contents) }); err != nil {
		t.Fatal(err)
	}
	key := must(hexKey(Hash(contents[1])))
	for _, ref := range [][]byte{
		{codecPacked, 9, 0, 10},            // no pack 9
		{codecPacked, 1, 0xff, 0x7f, 10},   // past the end
		{codecPacked, 1, 0, 0xff, 0xff, 3}, // a length past the end
		{codecPacked, 1, 0, 0},             // empty
		{codecPacked, 1},                   // cut short
		{codecPacked, 1, 0, 2, 7},          // trailing bytes
	} {
		if err := j.Commit(func(tx *Tx) error { return tx.b(bBlobs).Put(key, ref) }); err != nil {
			t.Fatal(err)
		}
		j.View(func(tx *Tx) error {
			if got, err := tx.Blob(Hash(contents[1])); err == nil {
				t.Errorf("reference %v read as %d bytes", ref, len(got))
			}
			if problems, _, _ := tx.Verify(); len(problems) == 0 {
				t.Errorf("fsck found nothing wrong with reference %v", ref)
			}
			return nil
		})
	}
	// A reference whose span holds another reference is not followed.
	if err := j.Commit(func(tx *Tx) error {
		return tx.b(bBlobPacks).Put(seqKey(7), []byte{codecPacked, 1, 0, 5})
	}); err != nil {
		t.Fatal(err)
	}
	if err := j.Commit(func(tx *Tx) error { return tx.b(bBlobs).Put(key, []byte{codecPacked, 7, 0, 4}) }); err != nil {
		t.Fatal(err)
	}
	j.View(func(tx *Tx) error {
		if _, err := tx.Blob(Hash(contents[1])); err == nil {
			t.Errorf("a reference to a reference was followed")
		}
		return nil
	})
}

// A blob stored one value each is DEFLATE that compress/flate reads, and a blob that
// compress/flate wrote (as vfsctl did before its writer was klauspost's) reads back.
func TestBlobsReadByEitherFlate(t *testing.T) {
	contents := sourceLike(4)
	j := New(filepath.Join(t.TempDir(), "journal.db"), Options{NoSync: true})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	defer func() { j.Release(); j.Close() }()
	var old bytes.Buffer
	w, _ := flate.NewWriter(&old, flate.BestSpeed)
	w.Write(contents[1])
	w.Close()
	if err := j.Commit(func(tx *Tx) error {
		if _, err := tx.PutBlob(contents[0]); err != nil {
			return err
		}
		return tx.b(bBlobs).Put(must(hexKey(Hash(contents[1]))), append([]byte{codecFlate}, old.Bytes()...))
	}); err != nil {
		t.Fatal(err)
	}
	j.View(func(tx *Tx) error {
		v := tx.b(bBlobs).Get(must(hexKey(Hash(contents[0]))))
		if v[0] != codecFlate {
			t.Fatalf("a blob of source text stored with codec %d, not compressed", v[0])
		}
		if got, err := io.ReadAll(flate.NewReader(bytes.NewReader(v[1:]))); err != nil || !bytes.Equal(got, contents[0]) {
			t.Errorf("compress/flate cannot read a blob: %v", err)
		}
		if got, err := tx.Blob(Hash(contents[1])); err != nil || !bytes.Equal(got, contents[1]) {
			t.Errorf("a blob compress/flate wrote read back: %v", err)
		}
		return nil
	})
}

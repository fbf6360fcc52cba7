package journal

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"testing"
)

// A record compressed ahead is stored as if it had not been: the same bytes when it
// is unchanged or changed only outside its body (hashes, state, duration), and its
// new content, never the stale body, when a field of the body changed since.
func TestPrecompressNeverStale(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 100 {
		r := new(Record)
		fill(reflect.ValueOf(r).Elem(), rng)
		r.Seq = uint64(i + 1)
		compressed.Lock()
		compressed.m = nil // what a fresh process stores
		compressed.Unlock()
		fresh, err := encodeRecord(r)
		if err != nil {
			t.Fatal(err)
		}
		Precompress(r)
		if got, _ := encodeRecord(r); !bytes.Equal(got, fresh) {
			t.Fatalf("case %d: the record compressed ahead is stored in other bytes than a fresh encode", i)
		}

		// Changed outside the body: the hashes, the state and the duration.
		out := *r
		out.Files = append([]File(nil), r.Files...)
		out.Files[0].After = Hash([]byte{byte(i)})
		out.State, out.Duration = Committed, r.Duration+1
		checkStored(t, i, &out)

		// Changed in the body, as the transaction may: a blob decided there.
		in := *r
		in.Files = append([]File(nil), r.Files...)
		in.Files[0].BeforeBlob = !in.Files[0].BeforeBlob
		in.ArgsBlob = "moved to a blob"
		checkStored(t, i, &in)
	}
}

// checkStored checks that r's stored form reads back as r.
func checkStored(t *testing.T, i int, r *Record) {
	t.Helper()
	data, err := encodeRecord(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeRecord(r.Seq, data, nil, nil)
	if err != nil {
		t.Fatalf("case %d: %v", i, err)
	}
	if want := viaJSON(t, r); !reflect.DeepEqual(got, want) {
		t.Fatalf("case %d: stored\n %+v\nread back\n %+v", i, want, got)
	}
}

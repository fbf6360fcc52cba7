package journal

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
)

// An index answers as a plain set of sequence numbers per name would, whatever order
// the records come in (most in order, some late, some twice), over keys of one record
// each (as journals before schema 3 wrote them) and runs alike; and a path's calls
// in order take a few bytes each.
func TestIndexRuns(t *testing.T) {
	j := open(t, filepath.Join(t.TempDir(), "journal.db"))
	rng := rand.New(rand.NewPCG(3, 4))
	names := []string{"a", "a.go", "b", "ab"} // "a" is a prefix of the others' bytes
	model := map[string][]uint64{}
	add := func(tx *Tx, name string, seq uint64, old bool) error {
		if !slices.Contains(model[name], seq) {
			model[name] = append(model[name], seq)
			slices.Sort(model[name])
		}
		if old {
			return tx.b(bByPath).Put(indexKey(name, seq), nil)
		}
		return tx.index(bByPath, name, seq)
	}
	seq := uint64(0)
	for step := range 1200 {
		err := j.Update(func(tx *Tx) error {
			name := names[rng.IntN(len(names))]
			switch r := rng.IntN(20); {
			case r == 0 && seq > 10: // late
				return add(tx, name, seq-uint64(rng.IntN(10)), false)
			case r == 1 && seq > 0: // again
				return add(tx, name, seq, false)
			default:
				seq += 1 + uint64(rng.IntN(3))
				return add(tx, name, seq, step < 100)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	j.View(func(tx *Tx) error {
		for _, name := range names {
			want := model[name]
			for range 50 {
				at := uint64(rng.IntN(int(seq) + 2))
				var wantAfter, wantBelow []uint64
				for _, s := range want {
					if s > at {
						wantAfter = append(wantAfter, s)
					}
				}
				for i := len(want) - 1; i >= 0; i-- {
					if at == 0 || want[i] < at {
						wantBelow = append(wantBelow, want[i])
					}
				}
				if got := tx.oldestIn(bByPath, name, at); !slices.Equal(got, wantAfter) {
					t.Fatalf("%s after %d: %v, want %v", name, at, got, wantAfter)
				}
				var got []uint64
				tx.newestIn(bByPath, name, at, func(s uint64) (bool, error) { got = append(got, s); return false, nil })
				if !slices.Equal(got, wantBelow) {
					t.Fatalf("%s below %d: %v, want %v", name, at, got, wantBelow)
				}
			}
		}
		var entries int
		tx.b(bByPath).ForEach(func(k, v []byte) error { entries += 16 + len(k) + len(v); return nil })
		if n := len(model["a"]) + len(model["a.go"]) + len(model["b"]) + len(model["ab"]); entries > 100*32+n*4 {
			t.Errorf("%d calls take %d bytes of index entries", n, entries)
		}
		return nil
	})
}

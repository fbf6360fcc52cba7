package txn

import (
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"testing"
)

// hashFrom, resuming from the marks of another content that shares a prefix, gives
// the SHA-256 of the whole content, and the marks it returns resume as well as fresh
// ones would.
func TestHashFromResumes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sum := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	for range 200 {
		old := make([]byte, rng.IntN(5*markEvery))
		for i := range old {
			old[i] = byte(rng.IntN(256))
		}
		_, marks := hashFrom(old, nil, 0)
		// A new version: a splice at a random place.
		at := rng.IntN(len(old) + 1)
		end := at + rng.IntN(len(old)-at+1)
		ins := make([]byte, rng.IntN(3*markEvery))
		for i := range ins {
			ins[i] = byte(rng.IntN(256))
		}
		nw := append(append(append([]byte{}, old[:at]...), ins...), old[end:]...)
		got, nmarks := hashFrom(nw, marks, at)
		if want := sum(nw); got != want {
			t.Fatalf("len %d, change at %d: hash %s, want %s", len(nw), at, got, want)
		}
		// A third version hashed from the second's marks.
		cut := rng.IntN(len(nw) + 1)
		third := append(append([]byte{}, nw[:cut]...), 'x')
		if got, _ := hashFrom(third, nmarks, cut); got != sum(third) {
			t.Fatalf("third version, cut at %d: hash %s, want %s", cut, got, sum(third))
		}
	}
	// Marks of unrelated content with a wrong "same" would be a bug in the caller;
	// an empty prefix never uses them.
	if got, _ := hashFrom([]byte("abc"), hashMarks{[]byte("junk")}, 0); got != sum([]byte("abc")) {
		t.Fatal("marks used for an empty shared prefix")
	}
}

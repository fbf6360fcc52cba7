package jsonstr

import (
	"bytes"
	"math/rand"
	"testing"
)

// StringEnd finds what a plain search for the first quote or backslash finds, over
// strings longer and shorter than its window.
func TestStringEndIsTheFirstQuoteOrBackslash(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for range 2000 {
		b := make([]byte, rng.Intn(1200))
		for i := range b {
			b[i] = "ab\"\\ xyz"[rng.Intn(8)]
			if rng.Intn(40) != 0 && (b[i] == '"' || b[i] == '\\') {
				b[i] = 'c'
			}
		}
		want := bytes.IndexAny(b, "\"\\")
		if got := StringEnd(b); got != want {
			t.Fatalf("StringEnd(%q) = %d, want %d", b, got, want)
		}
	}
}

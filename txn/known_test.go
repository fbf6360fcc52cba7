package txn

import (
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/vfs"
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
	// A shared prefix said to be longer than the content uses only the marks within it.
	long := make([]byte, 3*markEvery+5)
	_, lm := hashFrom(long, nil, 0)
	short := long[:markEvery+7]
	if got, _ := hashFrom(short, lm, len(long)); got != sum(short) {
		t.Fatal("a shared prefix longer than the content")
	}
	// Marks of unrelated content with a wrong "same" would be a bug in the caller;
	// an empty prefix never uses them.
	if got, _ := hashFrom([]byte("abc"), hashMarks{[]byte("junk")}, 0); got != sum([]byte("abc")) {
		t.Fatal("marks used for an empty shared prefix")
	}
}

// A change whose prior hash is not known hashes the prefix both versions share once:
// each hash and each set of marks is still what a full pass gives.
func TestChangeHashSharesPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 40 {
		before := make([]byte, rng.IntN(5*markEvery))
		for i := range before {
			before[i] = byte(rng.IntN(256))
		}
		at := rng.IntN(len(before) + 1)
		after := append(append(append([]byte{}, before[:at]...), "new"...), before[at:]...)
		ch := &Change{Before: before, After: after, Plan: &matcher.Result{Splices: []matcher.Splice{{Start: at, End: at, Text: []byte("new")}}}}
		ch.hash()
		bh, bm := hashFrom(before, nil, 0)
		ah, am := hashFrom(after, nil, 0)
		if ch.beforeHash != bh || ch.afterHash != ah || !reflect.DeepEqual(ch.beforeMarks, bm) || !reflect.DeepEqual(ch.afterMarks, am) {
			t.Fatalf("len %d, change at %d: the hashes or marks differ from full passes", len(before), at)
		}
	}
}

// The content kept across files stays within knownBudget: past it, older files keep
// their hash and marks but not their content, so the next edit of them reads the file.
func TestKnownBudget(t *testing.T) {
	e := &Engine{}
	big := make([]byte, knownBudget/2+1)
	id := func(ino uint64) vfs.Identity { return vfs.Identity{Dev: 1, Ino: ino, Size: int64(len(big))} }
	e.remember("a", known{id: id(1), hash: "ha", data: big})
	e.remember("b", known{id: id(2), hash: "hb", data: big})
	if k, ok := e.lookup("a", id(1)); !ok || k.hash != "ha" || k.data != nil {
		t.Errorf("a: known %v, hash %q, content kept %v; want its hash without its content", ok, k.hash, k.data != nil)
	}
	if e.knownData("b", id(2)) == nil {
		t.Error("b: the newest content was dropped")
	}
	if e.kdata > knownBudget {
		t.Errorf("%d bytes of content kept, over the budget of %d", e.kdata, knownBudget)
	}
	// Another identity for the same path is not what the engine wrote.
	if e.knownData("b", id(3)) != nil {
		t.Error("content returned for a file with another identity")
	}
}

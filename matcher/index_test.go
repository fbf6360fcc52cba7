package matcher

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

// TestIndex compares index with bytes.Index on patterns cut from real text, on
// variants that differ in one byte, and on texts built to defeat the rare-byte scan.
func TestIndex(t *testing.T) {
	var corpus [][]byte
	for _, name := range []string{"matcher.go", "view.go", "lines.go"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		corpus = append(corpus, b)
	}
	if b, err := os.ReadFile(filepath.Join(testutil.GOROOT(), "src", "fmt", "print.go")); err == nil {
		corpus = append(corpus, b)
	}
	corpus = append(corpus,
		bytes.Repeat([]byte("GGGGGGGG"), 4096),
		bytes.Repeat([]byte("\tGxy = \"G\"\n"), 2000),
		append(bytes.Repeat([]byte{'a'}, 5000), 'b'))
	r := rand.New(rand.NewPCG(1, 2))
	check := func(s, sep []byte) {
		t.Helper()
		if got, want := index(s, sep), bytes.Index(s, sep); got != want {
			t.Fatalf("index(%d bytes, %q) = %d, bytes.Index says %d", len(s), sep, got, want)
		}
	}
	for _, s := range corpus {
		for range 300 {
			i := r.IntN(len(s))
			n := 1 + r.IntN(min(120, len(s)-i))
			sep := bytes.Clone(s[i : i+n])
			check(s, sep)
			sep[r.IntN(n)] ^= byte(1 + r.IntN(255))
			check(s, sep)
			check(s[:r.IntN(len(s)+1)], sep)
		}
		check(s, s)
		check(s, s[len(s)-2:])
		check(s, append(bytes.Clone(s), 'x'))
		check(s, []byte("GGGGGGGGGH"))
		check(s, []byte("aaaaab"))
		check(s, []byte(strings.Repeat("a", 40)+"c"))
	}
}

func BenchmarkIndex(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(testutil.GOROOT(), "src", "fmt", "print.go"))
	if err != nil {
		b.Skip(err)
	}
	s := bytes.Repeat(src, 40) // about 500 KB of Go
	for _, sep := range []string{"\tp.fmt.fmtBoolean(v) // not here\n", "\tcase reflect.Interface:\n\t\tvalue := f.Elem()\n\t\tif !value.IsValid() {x"} {
		b.Run("index", func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				index(s, []byte(sep))
			}
		})
		b.Run("bytes.Index", func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				bytes.Index(s, []byte(sep))
			}
		})
	}
}

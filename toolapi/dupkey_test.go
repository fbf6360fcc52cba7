package toolapi

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestDuplicateKeyScan checks the one-pass scan against the token decoder on generated
// JSON: nested objects and arrays, keys that repeat, are spelled with escapes, or hold
// bytes that are not UTF-8.
func TestDuplicateKeyScan(t *testing.T) {
	keys := []string{`"a"`, `"b"`, `"\u0061"`, `"a\"b"`, `"a\\"`, `"path"`, "\"\xff\"", "\"\xfe\"", `"é"`, `"\u00e9"`}
	r := rand.New(rand.NewPCG(3, 4))
	var value func(d int) string
	value = func(d int) string {
		switch n := r.IntN(8); {
		case d > 3 || n < 3:
			return []string{`1`, `"x"`, `"}{,:\"["`, `true`, `null`, `-2.5e3`, `"a"`}[r.IntN(7)]
		case n < 6:
			var b strings.Builder
			b.WriteString("{ ")
			for i := range r.IntN(5) {
				if i > 0 {
					b.WriteString(" ,")
				}
				b.WriteString(keys[r.IntN(len(keys))] + " : " + value(d+1))
			}
			return b.String() + "}"
		default:
			var b strings.Builder
			b.WriteString("[")
			for i := range r.IntN(4) {
				if i > 0 {
					b.WriteString(",")
				}
				b.WriteString(value(d + 1))
			}
			return b.String() + "]"
		}
	}
	var many strings.Builder
	many.WriteString("{")
	for i := range 40 {
		many.WriteString(`"k` + strings.Repeat("x", i) + `": 1, `)
	}
	many.WriteString(`"kxxxxx": 2}`)
	cases := []string{many.String(), `{"a":1,"b":{"a":2},"a":3}`, `[{"a":1},{"a":2}]`, `{"a":[{"b":1,"b":2}]}`}
	for range 20000 {
		cases = append(cases, value(0))
	}
	dups := 0
	for _, c := range cases {
		if !json.Valid([]byte(c)) {
			continue
		}
		k1, w1 := duplicateKeyValid([]byte(c))
		k2, w2 := duplicateKeyTokens([]byte(c))
		if k1 != k2 || w1 != w2 {
			t.Fatalf("%s: scan says %q%s, tokens say %q%s", c, k1, w1, k2, w2)
		}
		if k1 != "" {
			dups++
		}
	}
	if dups < 100 {
		t.Fatalf("only %d of the cases have a duplicate key", dups)
	}
}

package txn

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"
)

// The cutter takes a text in pieces of any size as the whole text at once: each of
// its strings over 512 bytes cut where an escape or a character ends, with its length,
// the rest as sent, and at most the bound kept. The oracle cuts the whole text in one
// pass, as the journal first did.
func TestArgsCutterInPieces(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	units := []string{"a", "é", "\\\"", "\\\\", "\\u00e9", "😀", "\xff", " ", "\"", "{", "}", ",", ":", "[", "]", "1"}
	for i := 0; i < 400; i++ {
		var b strings.Builder
		for n := rng.Intn(3000); b.Len() < n; {
			if rng.Intn(50) == 0 {
				b.WriteString(strings.Repeat(units[rng.Intn(7)], rng.Intn(700)))
			}
			b.WriteString(units[rng.Intn(len(units))])
		}
		text := []byte(b.String())
		max := []int{maxCut, 100 + rng.Intn(2000)}[rng.Intn(2)]
		want := oracleCut(text, max)
		c := NewArgsCutter(max)
		for rest := text; len(rest) > 0; {
			k := min(len(rest), 1+rng.Intn(600))
			c.Write(rest[:k])
			rest = rest[k:]
		}
		if got := c.Bytes(); !bytes.Equal(got, want) {
			t.Fatalf("text %q (max %d):\ngot  %q\nwant %q", text, max, got, want)
		}
	}
	// A text within the bounds of JSON stays JSON, its long string marked.
	long := `{"path": "a.txt", "content": "` + strings.Repeat("x", 5000) + `"}`
	c := NewArgsCutter(maxCut)
	c.Write([]byte(long))
	if got := c.Bytes(); string(got) != `{"path": "a.txt", "content": "`+strings.Repeat("x", 512)+`… [cut: 5000 bytes as sent]"}` {
		t.Errorf("cut: %s", got)
	}
	if !WasCut(strings.Repeat("x", 512)+"… [cut: 5000 bytes as sent]") || WasCut("a.txt") || WasCut("x… [cut: many bytes as sent]") {
		t.Error("WasCut does not tell the cutter's note of a string cut from other text")
	}
}

// oracleCut cuts text in one pass over it: each string read to its closing quote, a
// long one cut at the last escape or character that ends within cutString bytes.
func oracleCut(text []byte, max int) []byte {
	var out []byte
	for i := 0; i < len(text) && len(out) < max; i++ {
		out = append(out, text[i])
		if text[i] != '"' {
			continue
		}
		s := text[i+1:]
		end := len(s)
		for j := 0; j < len(s); j++ {
			if s[j] == '\\' {
				j++
			} else if s[j] == '"' {
				end = j
				break
			}
		}
		if end <= cutString {
			out = append(out, s[:min(end+1, len(s))]...)
		} else {
			cut := 0
			for cut < len(s) {
				size := 2
				if s[cut] != '\\' {
					_, size = utf8.DecodeRune(s[cut:])
				} else if cut+1 < len(s) && s[cut+1] == 'u' {
					size = 6
				}
				if cut+size > cutString {
					break
				}
				cut += size
			}
			out = append(out, s[:cut]...)
			out = fmt.Appendf(out, `… [cut: %d bytes as sent]"`, end)
		}
		i += end + 1
	}
	return out[:min(len(out), max)]
}

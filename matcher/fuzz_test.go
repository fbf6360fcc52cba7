package matcher

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzApply checks the invariants on arbitrary files and edits: no panic; a refusal is
// a *Refusal; a success is the original with its splices applied, every byte outside
// them identical, and splices that do not overlap.
func FuzzApply(f *testing.F) {
	seeds := []struct{ file, old, new string }{
		{"a\nb\nc\n", "b", "B"},
		{"a\r\nsay(“hi”)  \r\nc\r\n", "say(\"hi\")\n", "say(\"bye\")\nnew()\n"},
		{"func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n", "    if x {\n        return 1\n    }", "    if x {\n        y()\n    }"},
		{"x\ny", "y\n", "z\n"},
		{"\ufeffa\rb\r\nc", "b\nc", "B\nC\nD"},
		{"cafe\u0301 – “x” …\u00a0y\u200b\n", "café - \"x\" ... y", "z"},
		{"aaa\n", "aa", "b"},
		{"    1\tfoo\n", "     1\t    1\tfoo", "bar"},
		{"a\n\n\nb\n", "\n\n", "\n"},
		{"", "a", "b"},
		{"\t\tx\n\t\ty\n", "x\ny", "x\n  z\ny"},
		{"a b\n", "a b", "a\nb\n"},
	}
	for _, s := range seeds {
		f.Add([]byte(s.file), s.old, s.new, false)
		f.Add([]byte(s.file), s.old, s.new, true)
	}
	f.Fuzz(func(t *testing.T, file []byte, old, new string, all bool) {
		edits := []Edit{{OldText: old, NewText: new, ReplaceAll: all}}
		if len(old) > 2 {
			// A second edit built from the first one's text exercises overlap checks.
			edits = append(edits, Edit{OldText: old[len(old)/2:], NewText: new})
		}
		for _, es := range [][]Edit{edits[:1], edits} {
			res, err := Apply(file, es, Options{})
			if err != nil {
				var r *Refusal
				if !errors.As(err, &r) || r.Message == "" {
					t.Fatalf("error is not a refusal with a message: %v", err)
				}
				continue
			}
			checkSplices(t, file, res)
			if bytes.Equal(res.Output, file) {
				t.Fatalf("success that changes nothing")
			}
			if bytes.HasPrefix(file, bom) && !bytes.HasPrefix(res.Output, bom) {
				t.Fatalf("BOM lost")
			}
			_ = UnifiedDiff("f", file, res.Splices)
		}
	})
}

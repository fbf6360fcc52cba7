package matcher

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// FuzzApply checks the invariants on arbitrary files and edits: no panic; a refusal is
// a *Refusal; a success changes only the lines of its occurrences, means what the
// model asked for, and writes none of the model's drifted characters (checkResult).
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
		{"print(\"a\")\n", "print(“a”)", "print(“a”, “b”)"},
		{"x = 1 - 2  \ny\n", "x = 1 – 2\ny", "x = 1 – 2 – 3\n\u00a0z\ny"},
		{"caf\xe9\n\tb\n", "caf\ufffd\n    b", "caf\ufffd\n    b\n    c\ufffd"},
		{"\tif a {\n\t\tx()\n\t}\n\ty()\n", "if a {\n  x()\n}\n  y()", "if a {\n  x()\n}\n  y()\n  z()"},
		{"s := `\n  a\n`\n\tb\n\tc\n", "s := `\n  a\n`\n    b", "s := `\n  a\n       d\n`\n\te()\n  f\n    b"},
	}
	for _, s := range seeds {
		f.Add([]byte(s.file), s.old, s.new, false)
		f.Add([]byte(s.file), s.old, s.new, true)
	}
	f.Fuzz(func(t *testing.T, file []byte, old, new string, all bool) {
		// A hang would stall the fuzzer without naming the input; this names it.
		tm := time.AfterFunc(5*time.Second, func() { panic(fmt.Sprintf("HANG file=%q old=%q new=%q all=%v", file, old, new, all)) })
		defer tm.Stop()
		// The model's text arrives as JSON, hence valid UTF-8; the file can be anything.
		old, new = strings.ToValidUTF8(old, "\ufffd"), strings.ToValidUTF8(new, "\ufffd")
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
			checkResult(t, file, es, res)
			if bytes.Equal(res.Output, file) {
				t.Fatalf("success that changes nothing")
			}
			_ = UnifiedDiff("f", file, res.Splices)
		}
	})
}

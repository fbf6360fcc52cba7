package guard

import (
	"fmt"
	"strings"
	"testing"
)

func bigGo() []byte {
	var src strings.Builder
	src.WriteString("package big\n\nimport \"log\"\n\nfunc handle(path string) {\n")
	for i := range 20000 {
		fmt.Fprintf(&src, "\tlog.Printf(\"request %%s served by handler %06d\", path) // line %d\n", i, i)
	}
	src.WriteString("}\n")
	return []byte(src.String())
}

// BenchmarkSyntaxGo: the guard of an edit of a 20,000-line Go file, cold (nothing
// cached: go/parser decides while tree-sitter parses in the background) and warm (the
// old content's tree cached: an incremental reparse), beside go/parser alone.
func BenchmarkSyntaxGo(b *testing.B) {
	a := bigGo()
	c := []byte(strings.Replace(string(a), "handler 010000", "handler 01000X", 1))
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			Forget("big.go")
			if e := Syntax("big.go", a, c); e != nil {
				b.Fatal(e)
			}
		}
	})
	b.Run("warm", func(b *testing.B) {
		Forget("big.go")
		parseCached("big.go", "go", languages["go"], a) // as the background parse leaves it
		for i := 0; b.Loop(); i++ {
			old, new := a, c
			if i%2 == 1 {
				old, new = c, a
			}
			if e := Syntax("big.go", old, new); e != nil {
				b.Fatal(e)
			}
		}
	})
	b.Run("go-parser", func(b *testing.B) {
		for b.Loop() {
			parseGo(c)
		}
	})
}

// BenchmarkPythonTokens: the exact check of Python's tokens and indentation, which runs
// on both contents of every Python edit, over a 20,000-line file.
func BenchmarkPythonTokens(b *testing.B) {
	var src strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&src, "class C%d:\n    def m(self, x):\n        \"\"\"Doc %d.\"\"\"\n        if x > %d:\n            return f\"{x!r} is big\"  # note\n", i, i, i)
		fmt.Fprintf(&src, "        try:\n            y = [x,\n                 %d]\n        except ValueError:\n            pass\n", i)
	}
	a := []byte(src.String())
	b.SetBytes(int64(len(a)))
	for b.Loop() {
		if errs := parsePython(a); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}

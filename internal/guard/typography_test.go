package guard

import (
	"bytes"
	"strings"
	"testing"
)

// A syntax error at a typographic character the change added names that one and the
// others of its line that stand in code, each with its plain counterpart: before, it
// named the first alone, and a model that fixed it was refused again for the next.
// Those in a string or a comment are not named: written plain, a quote would end its
// string. Where the line begins inside a string of the lines above (a Go raw string),
// it is read from the error, which stands in code. An error elsewhere (a curly quote
// in a string, and a missing operand) names none: the guard's other advice stands.
func TestTypographicAtNamesTheLinesCodeCharacters(t *testing.T) {
	cases := []struct {
		name, path, old, new string
		want                 string // the characters named, in order; "" none
	}{
		{"go", "p.go",
			"package p\n\nfunc f() {\n\tx := 1\n\t_ = x\n}\n",
			"package p\n\nfunc f() {\n\tx := 1 – len(“a”, \"it’s “so”\", 'é') + // don’t – “c”\n\t_ = x\n}\n",
			"–“”"},
		{"go raw string above", "p.go",
			"package p\n\nvar s = `a\nb`\n",
			"package p\n\nvar s = `a\nb “q” ` + x – len(“z”)\n",
			"–“”"},
		{"python", "p.py",
			"def f():\n    x = 1\n    return x\n",
			"def f():\n    x = 1 – len(“a”, 'it’s', \"“so”\", '''don’t''') + # don’t – “c”\n    return x\n",
			"–“”"},
		{"javascript", "p.js",
			"function f() {\n  let x = 1;\n  return x;\n}\n",
			"function f() {\n  let x = 1 – len(“a”, `it’s`, '“so”') + /* don’t – */ y; // “c”\n  return x;\n}\n",
			"–“”"},
		{"a curly quote in a string, and a missing operand", "p.go",
			"package p\n\nfunc f() {\n\tx := 1\n\t_ = x\n}\n",
			"package p\n\nfunc f() {\n\tx := len(\"it’s\") +\n\t_ = x\n}\n",
			""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			old, new := []byte(c.old), []byte(c.new)
			s := Syntax(c.path, old, new)
			if s == nil {
				t.Skipf("%s is not guarded in this build", c.path)
			}
			// Every typographic character of the new content is the change's.
			var offs []int
			for i, r := range string(new) {
				if Typographic(r) && !bytes.ContainsRune(old, r) {
					offs = append(offs, i)
				}
			}
			reps := TypographicAt(new, offs, s)
			var got strings.Builder
			for _, r := range reps {
				got.WriteRune(r.Char)
				if plain := map[rune]string{'–': "-", '“': `"`, '”': `"`}[r.Char]; r.Plain != plain {
					t.Errorf("%q is to be written as %q", r.Char, r.Plain)
				}
				if r.Offset < 0 || r.Offset >= len(new) || !bytes.HasPrefix(new[r.Offset:], []byte(string(r.Char))) {
					t.Errorf("%q is said to stand at byte %d, which holds something else", r.Char, r.Offset)
				}
			}
			if got.String() != c.want {
				t.Errorf("error %+v names %q, want %q", *s, got.String(), c.want)
			}
		})
	}
}

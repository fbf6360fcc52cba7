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
// the file is read from its start. An error elsewhere (a curly quote
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
		{"typescript", "p.ts",
			"function f() {\n  let x = 1;\n  return x;\n}\n",
			"function f() {\n  let x = 1 – len(“a”, `it’s`, '“so”') + /* don’t – */ y; // “c”\n  return x;\n}\n",
			"–“”"},
		// In JavaScript the text between JSX tags reads as code to the scan: quotes
		// are not named there, and on a line with a tag nothing but the error's own.
		{"javascript, quotes in code", "p.js",
			"function f() {\n  let x = 1;\n  return x;\n}\n",
			"function f() {\n  let x = 1 – len(“a”) – 2;\n  return x;\n}\n",
			"––"},
		{"jsx text with curly quotes", "p.jsx",
			"const a = 1, b = 2;\nconst el = null;\n",
			"const a = 1, b = 2;\nconst el = <p>It's Bob's “day” – </p>; const x = a – b – a;\n",
			"–"},
		// An apostrophe in a word is not named: in a string the model wrote with
		// curly quotes, written plain it would end the string.
		{"apostrophe in a word, typescript", "p.ts",
			"let a = 1, b = 2;\nlet s = '';\n",
			"let a = 1, b = 2;\nlet s = ‘don’t’ + (a – b);\n",
			"‘’–"},
		{"apostrophe in a word, python", "p.py",
			"a, b = 1, 2\ns = ''\n",
			"a, b = 1, 2\ns = ‘it’s’ + str(a – b)\n",
			"‘’–"},
		// The file is read from its start: a line that begins inside a comment of the
		// lines above starts in it.
		{"go block comment above", "p.go",
			"package p\n\nvar b, c = 1, 2\n",
			"package p\n\nvar b, c = 1, 2\n\n/* note:\n   it's the user's – value */ var x = b – c\n",
			"–"},
		{"c++ raw string", "p.cpp",
			"int f(int a, int b) {\n  return 0;\n}\n",
			"int f(int a, int b) {\n  const char* s = R\"x(say \"“ok”\" now)x\"; return a – b;\n}\n",
			"–"},
		// A Rust character literal '"' opens no string.
		{"rust character literal", "p.rs",
			"fn f(a: i32, b: i32) -> i32 {\n    0\n}\nfn g(c: char) -> i32 {\n    0\n}\n",
			"fn f(a: i32, b: i32) -> i32 {\n    let v = a – b; v – g('\"') – g(\"“ok”\")\n}\nfn g(c: char) -> i32 {\n    0\n}\n",
			"–––"},
		// Code inside a string: a template's ${ } and an f-string's { } (nested braces,
		// strings and templates in it), never the string's own text around them, a
		// {{ literal brace, or an f-string's format spec.
		{"typescript template", "p.ts",
			"let a = 1, b = 2, c = 3, d = 4;\nlet s = '';\n",
			"let a = 1, b = 2, c = 3, d = 4;\nlet s = a – b + `t — ${c – d} — ${ {k: c – d}.k } — ${f(\"x — y\", `u — ${c – d}`)} — \\${c — d}`;\n",
			"––––"},
		{"javascript template over lines", "p.js",
			"let a = 1, b = 2, c = 3, d = 4;\nlet s = '';\n",
			"let a = 1, b = 2, c = 3, d = 4;\nlet s = `one — ${a\n} two — ${c – d} — three`; let x = a – b – c;\n",
			"–––"},
		{"python f-string", "p.py",
			"a, b, c, d = 1, 2, 3, 4\ns = ''\n",
			"a, b, c, d = 1, 2, 3, 4\ns = str(a – b) + f\"t — {c – d} — {{c — d}} — {d['k — v']} — {c:—>9} — {c:{d}—}\" + \"{c — d}\" + rf'{c – d}' + F\"\"\"{c – d}\"\"\"\n",
			"––––"},
		// A regular expression holding a quote opens no string; a / after a value is
		// a division.
		{"javascript regular expression", "p.js",
			"let a = 1, b = 2, s = '';\n",
			"let a = 1, b = 2, s = '';\nlet r = s.replace(/'/g, '') + (a – b) + a / b / 2 + [/[/']+/, x => /\"/] + ' — ' + (a – b);\n",
			"––"},
		{"javascript division", "p.js",
			"let a = 1, b = 2;\n",
			"let a = 1, b = 2;\nlet r = (a – b) / 2 + ' / — ' + b++ / 2 + ' / — ' + x[0] / 2 + ' / — ' + (a – b);\n",
			"––"},
		{"python f-string, a colon in brackets", "p.py",
			"a, b, c, d = 1, 2, 3, 4\ns = ''\n",
			"a, b, c, d = 1, 2, 3, 4\ns = f\"{d[c:a – b]:—^9} — {(lambda x: x – a)(c)}\"\n",
			"––"},
		{"python f-string, a field over lines", "p.py",
			"a, b, c, d = 1, 2, 3, 4\ns = ''\n",
			"a, b, c, d = 1, 2, 3, 4\ns = f\"\"\"{(c\n) – d} — {c – d}\"\"\"\n",
			"––"},
		{"typescript division", "p.ts",
			"let a = 1, b = 2;\nlet n: number | null = 1;\n",
			"let a = 1, b = 2;\nlet n: number | null = 1;\nlet r = (a – b) + n! / 2 + ' / — ' + (!/'/.test('') ? a – b : 0);\n",
			"––"},
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
				if plain := map[rune]string{'–': "-", '—': "-", '“': `"`, '”': `"`, '‘': "'", '’': "'"}[r.Char]; r.Plain != plain {
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

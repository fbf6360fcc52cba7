package guard

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

func TestLanguage(t *testing.T) {
	for _, c := range []struct{ path, content, want string }{
		{"a/b.go", "", "go"},
		{"x.PY", "", "python"},
		{"x.tsx", "", "tsx"},
		{"conf.yml", "", "yaml"},
		{"bin/tool", "#!/usr/bin/env python3\nprint(1)\n", "python"},
		{"bin/tool", "#!/bin/sh\necho\n", "bash"},
		{"bin/tool", "#!/usr/bin/env -S node --flag\n", "javascript"},
		{"README", "hello\n", ""},
		{"notes.txt", "#!/bin/sh\n", ""},
		{"chart/templates/deploy.yaml", "spec:\n  replicas: {{ .Values.replicas }}\n", ""},
		{".github/workflows/ci.yml", "steps:\n  - run: echo ${{ matrix.go }}\n", "yaml"},
		{"tsconfig.json", "{}", ""},
		{"conf.json", "{\n  // a comment\n  \"a\": 1\n}\n", ""},
		{"conf.json", "{\"url\": \"http://x\"}\n", "json"},
	} {
		if got := Language(c.path, []byte(c.content)); got != c.want {
			t.Errorf("Language(%q) = %q, want %q", c.path, got, c.want)
		}
	}
}

// guarded reports whether this build guards lang.
func guarded(lang string) bool { return languages[lang] != nil }

// Each language: a valid file, an edit that breaks it (with the line the break is
// on), a valid edit of the same file, and an already broken file that stays editable.
func TestSyntaxPerLanguage(t *testing.T) {
	cases := []struct {
		path, old, broken string
		line              int
		valid             string
	}{
		{"m.go", "package m\n\nfunc f() {\n\tprintln(\"done\")\n}\n", "package m\n\nfunc f() {\n\tprintln(“done”)\n}\n", 4, "package m\n\nfunc f() {\n\tprintln(\"bye\")\n}\n"},
		{"m.py", "def f():\n    if x:\n        return 1\n    return 2\n", "def f():\n    if x:\n        return (1\n    return 2\n", 3, "def f():\n    if x:\n        return 3\n    return 2\n"},
		{"m.js", "function f() {\n  return \"a\";\n}\n", "function f() {\n  return “a”;\n}\n", 2, "function f() {\n  return \"b\";\n}\n"},
		{"m.ts", "function f(x: number): number {\n  return x - 1;\n}\n", "function f(x: number): number {\n  return x – 1;\n}\n", 2, "function f(x: number): number {\n  return x - 2;\n}\n"},
		{"m.tsx", "export const A = () => <div>hi</div>;\n", "export const A = () => <div>hi</span>;\n", 1, "export const A = () => <div>bye</div>;\n"},
		{"m.json", "{\n  \"a\": 1,\n  \"b\": 2\n}\n", "{\n  \"a\": 1,\n  \"b\": 2,\n}\n", 4, "{\n  \"a\": 1,\n  \"b\": 3\n}\n"},
		{"m.yaml", "a:\n  b: 1\n  c: [1, 2]\n", "a:\n  b: 1\n  c: [1, 2\n", 3, "a:\n  b: 1\n  c: [1, 3]\n"},
		{"m.toml", "[a]\nb = 1\nc = \"x\"\n", "[a]\nb = 1\nc = \"x\n", 3, "[a]\nb = 2\nc = \"x\"\n"},
		{"m.rs", "fn main() {\n    let x = 1;\n}\n", "fn main() {\n    let x = 1\n}\n", 2, "fn main() {\n    let x = 2;\n}\n"},
		{"m.c", "int main(void) {\n  return 0;\n}\n", "int main(void) {\n  return 0;\n\n", 2, "int main(void) {\n  return 1;\n}\n"},
	}
	for _, c := range cases {
		lang := Language(c.path, nil)
		if !guarded(lang) {
			t.Logf("%s: not guarded in this build (%s)", lang, Backend())
			continue
		}
		if e := Syntax(c.path, nil, []byte(c.old)); e != nil {
			t.Errorf("%s: the valid file is flagged: %+v", c.path, e)
			continue
		}
		e := Syntax(c.path, []byte(c.old), []byte(c.broken))
		if e == nil {
			t.Errorf("%s: the breaking edit passed", c.path)
			continue
		}
		if e.Line < c.line || e.Line > c.line+1 {
			t.Errorf("%s: error at line %d, want %d: %+v", c.path, e.Line, c.line, e)
		}
		if e.Language != lang || e.Message == "" {
			t.Errorf("%s: %+v", c.path, e)
		}
		if e := Syntax(c.path, []byte(c.old), []byte(c.valid)); e != nil {
			t.Errorf("%s: a valid edit is flagged: %+v", c.path, e)
		}
		// An already broken file: an edit elsewhere that adds no error passes.
		brokenMore := strings.Replace(c.broken, "\n", "\n\n", 1)
		if e := Syntax(c.path, []byte(c.broken), []byte(brokenMore)); e != nil {
			t.Errorf("%s: an edit of an already broken file is flagged: %+v", c.path, e)
		}
	}
}

// realFiles returns up to n files with extension ext under dir, in a fixed order.
func realFiles(t *testing.T, dir, ext string, n int) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || len(out) >= n || strings.Contains(p, "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ext) {
			out = append(out, p)
		}
		return nil
	})
	if len(out) == 0 {
		t.Skipf("no %s files under %s", ext, dir)
	}
	return out
}

// On real files: a curly quote typed for a string delimiter breaks the file and is
// flagged on its line; the same edit with straight quotes passes.
func TestRealFilesCurlyQuoteDelimiter(t *testing.T) {
	for _, set := range []struct{ dir, ext string }{
		{filepath.Join(testutil.GOROOT(), "src", "net", "http"), ".go"},
		{filepath.Join(pythonLib(), "json"), ".py"},
		{filepath.Join(pythonLib(), "email"), ".py"},
	} {
		lang := Language("x"+set.ext, nil)
		if !guarded(lang) {
			t.Logf("%s not guarded in this build", lang)
			continue
		}
		if _, err := os.Stat(set.dir); err != nil {
			t.Logf("no %s", set.dir)
			continue
		}
		tried := 0
		for _, p := range realFiles(t, set.dir, set.ext, 12) {
			src, err := os.ReadFile(p)
			if err != nil || Syntax(p, nil, src) != nil {
				continue // unreadable, or the file itself does not parse here
			}
			lines := bytes.Split(src, []byte("\n"))
			inString := false // inside a docstring or a raw string: a curly quote is fine there
			for i, l := range lines {
				delims := []string{`"""`, "'''"}
				if set.ext == ".go" {
					delims = []string{"`"}
				}
				for _, delim := range delims {
					if bytes.Count(l, []byte(delim))%2 == 1 {
						inString = !inString
					}
				}
				if inString {
					continue
				}
				// A line holding one plain string literal, the first code on its line.
				s := bytes.TrimSpace(l)
				if bytes.Count(l, []byte(`"`)) != 2 || bytes.HasPrefix(s, []byte("#")) || bytes.HasPrefix(s, []byte("//")) || bytes.Contains(l, []byte(`\`)) || bytes.Contains(l, []byte("'")) || bytes.Contains(l, []byte("`")) {
					continue
				}
				broken := append([]byte{}, src...)
				off := bytes.Index(broken, []byte(string(l)+"\n"))
				if off < 0 {
					continue
				}
				q := off + bytes.IndexByte(l, '"')
				broken = append(broken[:q:q], append([]byte("“"), broken[q+1:]...)...)
				e := Syntax(p, src, broken)
				if e == nil {
					t.Errorf("%s:%d: a curly quote delimiter passed", p, i+1)
				} else if e.Line != i+1 {
					t.Errorf("%s:%d: flagged at line %d (%s)", p, i+1, e.Line, e.Message)
				}
				comment := []byte("# checked\n")
				if set.ext == ".go" {
					comment = []byte("// checked\n")
				}
				valid := append(append(append([]byte{}, src[:off]...), comment...), src[off:]...)
				if e := Syntax(p, src, valid); e != nil {
					t.Errorf("%s:%d: a comment line added before it is flagged: %+v", p, i+1, e)
				}
				tried++
				break
			}
		}
		t.Logf("%s: %d files tried", set.dir, tried)
		if tried == 0 {
			t.Errorf("%s: no file could be tried", set.dir)
		}
	}
}

// The incremental parse agrees with a full one: random line deletions and
// duplications of a real file, each checked both ways.
func TestIncrementalAgreesWithFull(t *testing.T) {
	for _, p := range []string{
		filepath.Join(testutil.GOROOT(), "src", "strings", "strings.go"),
		filepath.Join(pythonLib(), "textwrap.py"),
	} {
		lang := Language(p, nil)
		src, err := os.ReadFile(p)
		if err != nil || !guarded(lang) {
			continue
		}
		rng := rand.New(rand.NewSource(1))
		cur := src
		for i := 0; i < 40; i++ {
			lines := bytes.SplitAfter(cur, []byte("\n"))
			k := rng.Intn(len(lines))
			var next []byte
			for j, l := range lines {
				if j == k && i%2 == 0 {
					continue // delete a line
				}
				next = append(next, l...)
				if j == k && i%2 == 1 {
					next = append(next, l...) // duplicate it
				}
			}
			parseCached(p, lang, languages[lang], cur) // the tree of the content before, as after an edit
			inc := Syntax(p, cur, next)
			Forget(p)
			full := Syntax(p, cur, next)
			if (inc == nil) != (full == nil) || (inc != nil && inc.Line != full.Line) {
				t.Fatalf("%s step %d: incremental %+v, full %+v", p, i, inc, full)
			}
			cur = next
		}
	}
}

func TestPlaceholders(t *testing.T) {
	body := "    a = 1\n    b = 2\n    c = 3\n"
	refuse := []string{
		"// ... existing code ...",
		"# ... rest of the function unchanged",
		"# rest of the function unchanged",
		"/* ... */",
		"<!-- ... -->",
		"...",
		"    // existing code here",
		"-- ... remaining code ...",
		"{/* ... */}",
		"// …",
		"# (unchanged code omitted)",
		"// Other methods remain the same",
		"# ... (keep the rest)",
	}
	for _, ph := range refuse {
		got := Placeholders("f.js", []Change{{Old: []byte(body), New: []byte("    a = 1\n" + ph + "\n"), Line: 10}})
		if got == nil {
			t.Errorf("%q replacing lines passed", ph)
			continue
		}
		if got.Line != 11 || got.Deleted != 2 {
			t.Errorf("%q: line %d, deleted %d; want 11, 2", ph, got.Line, got.Deleted)
		}
	}
	pass := []struct{ name, path, old, new string }{
		{"already in the file", "f.js", "x\n// ... existing code ...\ny\n", "x2\n// ... existing code ...\n"},
		{"ellipsis in a string", "f.py", body, "    print(\"...\")\n"},
		{"comment with an ellipsis among words", "f.py", body, "    a = 1\n    # wait... this is slow\n"},
		{"placeholder that deletes nothing", "f.js", "a\nb\n", "a\n// ... existing code ...\nb\n"},
		{"ordinary comment", "f.py", body, "    # set a\n    a = 1\n"},
		{"spread in JS", "f.js", "f(a, b)\n", "f(...args)\n"},
		{"a Markdown heading", "README.md", "## Methods\n\nfoo\nbar\nbaz\n", "## Other methods\n"},
		{"a Python stub body", "m.pyi", "def f(x):\n    raise NotImplementedError\n", "def f(x):\n    ...\n"},
	}
	for _, c := range pass {
		if got := Placeholders(c.path, []Change{{Old: []byte(c.old), New: []byte(c.new), Line: 1}}); got != nil {
			t.Errorf("%s: refused %+v", c.name, got)
		}
	}
}

// Python 3.12 f-strings may nest the same quote in a replacement field: the characters
// of the inner strings are in strings, not code.
func TestPythonFStringsNestQuotes(t *testing.T) {
	for _, src := range []string{
		"print(f\"{\", \".join([\"a–b\"])}\")\n",
		"x = f\"{x:{\"—\"}>5}\"\n",
		"y = f'{{literal}} {v!r:>{w}}'\n",
		"z = rf\"\\d{n}\" + f\"\"\"\n{'–'.join(a)}\n\"\"\"\n",
	} {
		if errs := parsePython([]byte(src)); len(errs) > 0 {
			t.Errorf("%q: %+v", src, errs)
		}
	}
	if errs := parsePython([]byte("x = f\"{a}\" – 1\n")); len(errs) != 1 {
		t.Errorf("an en dash in code after an f-string: %+v", errs)
	}
}

// A file nested deeper than any real source is not parsed: esbuild's recursive parser
// overflows the stack (a fatal error, not a panic) and the YAML and TOML decoders slow
// quadratically. The guard passes it, at once.
func TestDeeplyNestedNotParsed(t *testing.T) {
	for _, c := range []struct{ path, open, close string }{
		{"deep.js", "[", "]"}, {"deep.ts", "(", ")"}, {"deep.yaml", "[", "]"}, {"deep.toml", "[", "]"}, {"deep.json", "[", "]"},
	} {
		n := 300000
		src := []byte("x = " + strings.Repeat(c.open, n) + strings.Repeat(c.close, n) + "\n")
		if c.path == "deep.yaml" || c.path == "deep.json" {
			src = []byte(strings.Repeat(c.open, n) + strings.Repeat(c.close, n) + "\n")
		}
		edited := append([]byte("y"), src[1:]...)
		if e := Syntax(c.path, src, edited); e != nil {
			t.Errorf("%s: %+v", c.path, e)
		}
	}
}

// Which language guards a change is the old content's: a comment or a template added
// to plain JSON or TOML does not switch its guard off.
func TestLanguageOfTheOldContent(t *testing.T) {
	old := []byte("{\n  \"version\": \"1.0.0\"\n}\n")
	bad := []byte("{\n  // bumped\n  \"version\": \"1.0.1\",\n}\n")
	if e := Syntax("package.json", old, bad); e == nil {
		t.Error("a comment and a trailing comma added to plain JSON passed")
	}
	if e := Syntax("Cargo.toml", []byte("[a]\nb = 1\n"), []byte("[a]\nb = {{ 2\n")); e == nil {
		t.Error("\"{{\" added to plain TOML passed")
	}
	if e := Syntax("x.json", nil, []byte("\xef\xbb\xbf{\"a\": 1}\n")); e != nil {
		t.Errorf("JSON with a BOM: %+v", e)
	}
	if e := Syntax(".eslintrc.json", nil, []byte("{\"extends\": \"base\" // the base\n}\n")); e != nil {
		t.Errorf("a new JSON file with an inline comment: %+v", e)
	}
	if e := Syntax("app.js", nil, []byte("export const A = () => <div>hi</div>;\n")); e != nil {
		t.Errorf("JSX in a .js file: %+v", e)
	}
}

// pythonLib is the Python standard library's folder where one is installed, else "".
func pythonLib() string {
	dirs, _ := filepath.Glob("/usr/lib/python3.*")
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "textwrap.py")); err == nil {
			return d
		}
	}
	return ""
}

// A parser that recovers late makes an ERROR node that begins well before the change
// (here at the function's docstring): the refusal is placed where the change begins,
// and quotes the code there, not the node's first bytes.
func TestSyntaxQuotesTheChangeNotTheNodesStart(t *testing.T) {
	var b strings.Builder
	b.WriteString("\"\"\"The module's docstring.\"\"\"\n\nimport re\n\n")
	b.WriteString("def common(text):\n    \"\"\"Find the common margin.\n\n    Blank lines count as none.\n    \"\"\"\n    # the margin so far\n" +
		"    margin = None\n    for line in text.split('\\n'):\n        if margin is None:\n            margin = line\n" +
		"        elif line.startswith(margin):\n            pass\n        else:\n            margin = ''\n    return margin\n\n")
	for i := range 10 {
		fmt.Fprintf(&b, "class C%d:\n    def m(self, x):\n        for y in x:\n            if y:\n                return y\n        return None\n\n", i)
	}
	old := b.String()
	changed := strings.Replace(old, "    margin = None\n    for", "    margin = (None\n    for", 1)
	s := Syntax("m.py", []byte(old), []byte(changed))
	if s == nil {
		t.Fatal("the unclosed parenthesis was not refused")
	}
	// Without cgo, Python has a parser of its own, which names the '(' itself.
	if s.Line != 11 || strings.Contains(s.Message, "common margin") || !strings.Contains(s.Message, `"(None"`) && !strings.Contains(s.Message, "'('") {
		t.Errorf("line %d, column %d: %s", s.Line, s.Column, s.Message)
	}
}

// Tree-sitter's C and shell grammars flag valid files (a macro it cannot expand, a
// "for" without "in"): a new file in either gets no warning, which would have the
// model rewrite valid code. Python's grammar, which flagged no valid file of a
// corpus, still backs one. Each file is valid by gcc -fsyntax-only and bash -n.
func TestDoubtfulOnlyWhereTheGrammarIsTrusted(t *testing.T) {
	if Backend() != "tree-sitter" {
		t.Skip("no tree-sitter in this build")
	}
	for p, src := range map[string]string{
		"my.h":   "#ifndef MY_H\n#define MY_H\n\n#define NOTHROW __attribute__((nothrow))\n\nextern int my_get(int fd) NOTHROW;\n\n#endif\n",
		"run.sh": "#!/bin/sh\nfor f do\n  echo \"$f\"\ndone\n",
	} {
		lang := Language(p, []byte(src))
		if len(languages[lang]([]byte(src))) == 0 {
			t.Fatalf("%s: the %s grammar now takes it; pick a file it misparses", p, lang)
		}
		if d := Doubtful(p, []byte(src)); d != nil {
			t.Errorf("%s (valid %s): warned %+v", p, lang, d)
		}
	}
	if d := Doubtful("args.py", []byte("def f(x y):\n    return x\n")); d == nil || d.Line != 1 {
		t.Errorf("a broken new Python file: %+v, want a warning at line 1", d)
	}
}

// A Python file may begin with a UTF-8 BOM (CPython reads source as utf-8-sig): a new
// one is not refused for it, and an edit of one is guarded as any other file's.
func TestPythonLeadingBOM(t *testing.T) {
	src := []byte("\ufeffimport os\nif os:\n    x = 1\n")
	if e := Syntax("bom.py", nil, src); e != nil {
		t.Errorf("a new file with a BOM: %+v", e)
	}
	if e := Syntax("bom.py", src, append(src[:len(src):len(src)], "y = 2\n"...)); e != nil {
		t.Errorf("a valid edit of a file with a BOM: %+v", e)
	}
	if e := Syntax("bom.py", src, append(src[:len(src):len(src)], "y = (\n"...)); e == nil || e.Line != 4 {
		t.Errorf("an edit leaving a bracket open in a file with a BOM: %+v, want an error at line 4", e)
	}
	if e := Syntax("mid.py", nil, []byte("x = 1\n\ufeffy = 2\n")); e == nil || e.Line != 2 {
		t.Errorf("a BOM inside the file: %+v, want an error at line 2", e)
	}
}

package guard

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The case: textwrap.py with a method unindented by two spaces inside its
// class. CPython: "IndentationError: unindent does not match any outer indentation
// level". The guard refuses it on that line, in both builds.
func TestPythonUnindentToNoLevelRefused(t *testing.T) {
	p := filepath.Join(pythonLib(), "textwrap.py")
	src, err := os.ReadFile(p)
	if err != nil {
		t.Skipf("no textwrap.py: %v", err)
	}
	s := string(src)
	at := strings.Index(s, "    def __init__(self,")
	if at < 0 {
		t.Skip("textwrap.py has no __init__ here")
	}
	changed := s[:at] + "  def __init__(self," + s[at+len("    def __init__(self,"):]
	e := Syntax(p, src, []byte(changed))
	if e == nil {
		t.Fatal("the unindented method was written")
	}
	line, _ := lineCol([]byte(changed), at)
	if e.Line != line || !strings.Contains(e.Message, "unindent does not match") {
		t.Errorf("refused at line %d (want %d): %s", e.Line, line, e.Message)
	}
}

// Each case: a file that parses, one change of it, and what CPython says of the change
// ("" when it parses). The valid ones hold what a line-based check gets wrong: lines
// inside brackets, strings and continuations, comments, and clauses of outer blocks.
func TestPythonIndentation(t *testing.T) {
	const cls = "class A:\n    @property\n    def f(self):\n        if x:\n            return 1\n        return 2\n\n    def g(self):\n        pass\n"
	cases := []struct {
		name, old, new, cpython string
	}{
		{"unindent to no level", cls, strings.Replace(cls, "    def g", "  def g", 1), "unindent does not match"},
		{"unexpected indent", cls, strings.Replace(cls, "        pass", "        x = 1\n          pass", 1), "unexpected indent"},
		{"first line indented", "x = 1\n", " x = 1\n", "unexpected indent"},
		{"empty block", cls, strings.Replace(cls, "            return 1", "        return 1", 1), "expected an indented block"},
		{"empty block at the end", "if x:\n    y = 1\n", "if x:\ny = 1\n", "expected an indented block"},
		{"tab for eight spaces", "if x:\n        a = 1\n        b = 2\n", "if x:\n        a = 1\n\tb = 2\n", "TabError"},
		{"tab then spaces as deep as spaces", "if x:\n\ta = 1\n\tb = 2\n", "if x:\n\ta = 1\n        b = 2\n", "TabError"},
		{"orphan else", "def f():\n    if a:\n        b\n    else:\n        c\n", "def f():\n    if a:\n        b\nelse:\n        c\n", "invalid syntax"},
		{"try left without except", "try:\n    a\nexcept E:\n    b\n", "try:\n    a\n    except E:\n    b\n", "invalid syntax"},
		{"decorator left alone", cls, strings.Replace(cls, "    def f(self):", "def f(self):", 1), "unexpected unindent"},
		{"case out of its match", "match x:\n    case 1:\n        a\n    case 2:\n        b\n", "match x:\n    case 1:\n        a\ncase 2:\n        b\n", "invalid syntax"},

		{"a method's last line now the class's", cls, strings.Replace(cls, "        return 2", "    return 2", 1), ""},
		{"else now the outer if's", "if a:\n    if b:\n        c\n    else:\n        d\n", "if a:\n    if b:\n        c\nelse:\n        d\n", ""},
		{"a line inside brackets", "def f(a):\n    x = (1 if a\n         else 2)\n    return x\n", "def f(a):\n    x = (1 if a\nelse 2)\n    return x\n", ""},                        // tree-sitter refused it
		{"an expression in brackets continued left of its statement", "def main():\n    total = 0\n    return total\n", "def main():\n    total = (1 +\n2)\n    return total\n", ""}, // tree-sitter refused it
		{"the same, two columns in", "def main():\n    total = 0\n    return total\n", "def main():\n    total = (1 +\n  2)\n    return total\n", ""},
		{"a continued line", "x = 1 + \\\n    2\n", "x = 1 + \\\n2\n", ""},
		{"a line of a docstring", "def f():\n    \"\"\"Doc.\n\n    More.\n    \"\"\"\n", "def f():\n    \"\"\"Doc.\n\n More.\n    \"\"\"\n", ""},
		{"a comment", cls, strings.Replace(cls, "\n\n    def g", "\n # note\n    def g", 1), ""},
		{"a tab as deep as eight spaces, alone", "if x:\n    a = 1\n", "if x:\n\ta = 1\n", ""},
		{"a form feed", "if x:\n    a = 1\n", "\fif x:\n    a = 1\n", ""},
		{"try with else and finally", "try:\n    a\nexcept E:\n    b\n", "try:\n    a\nexcept E:\n    b\nelse:\n    c\nfinally:\n    d\n", ""},
		{"a re-indented block", "def f():\n    if a:\n        b\n", "def f():\n  if a:\n    b\n", ""},
	}
	if Backend() == "tree-sitter" {
		// Bracket lines re-indented for tree-sitter: what it refuses there stays refused.
		cases = append(cases, struct{ name, old, new, cpython string }{"an operand missing in brackets", "def main():\n    total = 0\n    return total\n", "def main():\n    total = (1 +\n)\n    return total\n", "invalid syntax"})
	}
	var py *cpython // where there is a python3, the table is checked against it too
	if _, err := exec.LookPath("python3"); err == nil {
		py, _ = startCPython(t)
	}
	for _, c := range cases {
		if py != nil {
			if got := py.parse(t, []byte(c.new)); (got == "") != (c.cpython == "") || !strings.Contains(got, c.cpython) {
				t.Errorf("%s: CPython says %q, the table %q", c.name, got, c.cpython)
			}
		}
		if e := Syntax(c.name+".py", nil, []byte(c.old)); e != nil {
			t.Errorf("%s: the old file is refused: %+v", c.name, e)
			continue
		}
		e := Syntax(c.name+".py", []byte(c.old), []byte(c.new))
		switch {
		case c.cpython == "" && e != nil:
			t.Errorf("%s: refused, though CPython takes it: line %d: %s", c.name, e.Line, e.Message)
		case c.cpython != "" && e == nil:
			t.Errorf("%s: written, though CPython says %q", c.name, c.cpython)
		}
	}
}

// A compound statement's first line that lost its ':' in files of Python's standard
// library: the guard names that line and the missing ':', where CPython says
// "expected ':'", not the indented line below it (whose advice, to dedent the body,
// would give code that parses and means something else). The line edited is the
// expectation; where there is a python3, CPython must agree.
func TestPythonMissingColonNamedOnItsLine(t *testing.T) {
	lib := pythonLib()
	if lib == "" {
		t.Skip("no Python standard library here")
	}
	var py *cpython
	if _, err := exec.LookPath("python3"); err == nil {
		py, _ = startCPython(t)
	}
	// Files with every kind of header between them: async ones in asyncio, match and
	// case in traceback and dataclasses.
	files := []string{"textwrap.py", "traceback.py", "dataclasses.py", "contextlib.py", "shutil.py", "asyncio/locks.py"}
	keywords := []string{"def", "class", "if", "elif", "else", "for", "while", "with", "try", "except", "finally", "match", "case", "async"}
	tried := map[string]int{}
	for _, f := range files {
		p := filepath.Join(lib, f)
		src, err := os.ReadFile(p)
		if err != nil {
			t.Logf("%s: %v", f, err)
			continue
		}
		if Syntax(p, nil, src) != nil {
			t.Fatalf("%s: refused as it is", f)
		}
		lines := strings.SplitAfter(string(src), "\n")
		perKeyword := map[string]int{}
		for i, l := range lines {
			code := strings.TrimRight(l, "\r\n")
			word, _, _ := strings.Cut(strings.TrimLeft(code, " \t"), " ")
			word = strings.TrimRight(word, ":(")
			if !contains(keywords, word) || !strings.HasSuffix(code, ":") || perKeyword[word] >= 2 || inString(lines[:i]) {
				continue
			}
			perKeyword[word]++
			tried[word]++
			lines[i] = strings.TrimSuffix(code, ":") + l[len(code):]
			changed := []byte(strings.Join(lines, ""))
			lines[i] = l
			if py != nil {
				if got := py.parse(t, changed); !strings.Contains(got, "expected ':'") || !strings.Contains(got, fmt.Sprintf("line %d)", i+1)) {
					t.Errorf("%s:%d: CPython says %q", f, i+1, got)
				}
			}
			e := Syntax(p, src, changed)
			switch {
			case e == nil:
				t.Errorf("%s:%d: %q written", f, i+1, strings.TrimSpace(code))
			case e.Line != i+1 || e.Column != len(code) || !strings.Contains(e.Message, "expected ':'"):
				t.Errorf("%s:%d: %q refused at line %d, column %d (want %d, %d): %s", f, i+1, strings.TrimSpace(code), e.Line, e.Column, i+1, len(code), e.Message)
			}
		}
	}
	for _, kw := range keywords {
		if tried[kw] == 0 && kw != "async" {
			t.Errorf("no %q line was tried", kw)
		}
	}
	t.Logf("headers tried: %v", tried)
}

// What the guard says of an indentation error names the line to fix and what to put
// there; CPython's line is checked where there is a python3.
func TestPythonIndentMessages(t *testing.T) {
	cases := []struct {
		name, old, new string
		line           int
		want           string // in the message
	}{
		{"unindent lists every open level", "def f():\n    if x:\n        return 1\n    return 2\n",
			"def f():\n    if x:\n        return 1\n    return 2\n  x = 3\n", 5, "the open blocks are indented 0, 4;"},
		{"a def without its colon", "def f():\n    return 1\n", "def f()\n    return 1\n", 1, "expected ':' at the end of this line, which begins a def block"},
		{"a header over two lines", "def f(a,\n      b):\n    return 1\n", "def f(a,\n      b)\n    return 1\n", 2, "expected ':'"},
		{"a walrus is no colon", "if (n := 3):\n    pass\n", "if n := 3\n    pass\n", 1, "begins an if block"},
		{"a header with nothing indented below", "if x:\n    pass\ny = 1\n", "if x\ny = 1\n", 1, "expected ':'"},
		{"match without its colon", "match x:\n    case 1:\n        pass\n", "match x\n    case 1:\n        pass\n", 1, "begins a match block"},
		// The line before has its ':' or is no header: the indented line is the mistake.
		{"after a one-line if", "if x: y = 1\nz = 2\n", "if x: y = 1\n    z = 2\n", 2, "unexpected indent: the line before opens no block"},
		{"after a name match", "match = 1\nz = 2\n", "match = 1\n    z = 2\n", 2, "unexpected indent"},
		{"after a call of match", "match(x)\nz = 2\n", "match(x)\n    z = 2\n", 2, "unexpected indent"},
		{"after a decorator", "@dec\ndef f(): pass\n", "@dec\n    def f(): pass\n", 2, "unexpected indent"},
	}
	var py *cpython
	if _, err := exec.LookPath("python3"); err == nil {
		py, _ = startCPython(t)
	}
	for _, c := range cases {
		if py != nil {
			if got := py.parse(t, []byte(c.new)); !strings.Contains(got, fmt.Sprintf("line %d)", c.line)) {
				t.Errorf("%s: CPython says %q (want line %d)", c.name, got, c.line)
			}
		}
		e := Syntax(c.name+".py", []byte(c.old), []byte(c.new))
		if e == nil || e.Line != c.line || !strings.Contains(e.Message, c.want) {
			t.Errorf("%s: got %+v, want line %d saying %q", c.name, e, c.line, c.want)
		}
	}
}

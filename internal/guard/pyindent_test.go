package guard

import (
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
		{"a line inside brackets", "def f(a):\n    x = (1 if a\n         else 2)\n    return x\n", "def f(a):\n    x = (1 if a\nelse 2)\n    return x\n", ""}, // tree-sitter refused it
		{"a continued line", "x = 1 + \\\n    2\n", "x = 1 + \\\n2\n", ""},
		{"a line of a docstring", "def f():\n    \"\"\"Doc.\n\n    More.\n    \"\"\"\n", "def f():\n    \"\"\"Doc.\n\n More.\n    \"\"\"\n", ""},
		{"a comment", cls, strings.Replace(cls, "\n\n    def g", "\n # note\n    def g", 1), ""},
		{"a tab as deep as eight spaces, alone", "if x:\n    a = 1\n", "if x:\n\ta = 1\n", ""},
		{"a form feed", "if x:\n    a = 1\n", "\fif x:\n    a = 1\n", ""},
		{"try with else and finally", "try:\n    a\nexcept E:\n    b\n", "try:\n    a\nexcept E:\n    b\nelse:\n    c\nfinally:\n    d\n", ""},
		{"a re-indented block", "def f():\n    if a:\n        b\n", "def f():\n  if a:\n    b\n", ""},
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

package guard

import (
	"bytes"
	"math/rand"
	"os"
	"strings"
	"testing"
)

// crOnly is src with each line ended by a CR alone, as old Macs wrote text.
func crOnly(src []byte) []byte {
	return bytes.ReplaceAll(bytes.ReplaceAll(src, []byte("\r\n"), []byte("\r")), []byte("\n"), []byte("\r"))
}

// Python files whose lines end in a CR alone, which CPython reads as line breaks: a
// new one that CPython parses was written with a warning of a syntax error at line 1
// (tree-sitter took each CR for a space), and an existing one was not guarded at all.
// Files of the standard library so ended: no refusal and no warning where CPython
// parses them, and a change of their indentation refused exactly when CPython refuses
// the changed file.
func TestCROnlyPythonAsCPythonReadsIt(t *testing.T) {
	if !guarded("python") {
		t.Skip("python is not guarded in this build")
	}
	py, lib := startCPython(t)
	n, size := oracleChanges(120)
	files := filesUnder(lib, ".py", size)
	if len(files) == 0 {
		t.Skipf("no Python files under %s", lib)
	}
	rng := rand.New(rand.NewSource(51))
	c := &tally{lang: "python, CR line endings"}
	whole := 0
	for c.tried < n {
		p := files[rng.Intn(len(files))]
		src, err := os.ReadFile(p)
		if err != nil || bytes.IndexByte(src, '\r') >= 0 {
			continue
		}
		cr := crOnly(src)
		if py.parse(t, cr) != "" {
			continue // CPython refuses the file itself
		}
		whole++
		if g := Syntax(p, nil, cr); g != nil {
			t.Errorf("%s, new: refused: line %d: %s", p, g.Line, g.Message)
		}
		if d := Doubtful(p, cr); d != nil {
			t.Errorf("%s, new: warned of line %d: %s", p, d.Line, d.Message)
		}
		for range 3 {
			if changed := reindent(rng, src); changed != nil {
				changed = crOnly(changed)
				c.check(t, p, cr, changed, py.parse(t, changed))
			}
		}
	}
	c.report(t)
	t.Logf("%d files whole", whole)
	if c.refRefused == 0 {
		t.Error("no change CPython refuses was tried")
	}
}

// A refusal in a file of CR line endings names the line as CPython and read_file
// count it, and its excerpt shows that line.
func TestCROnlyPythonErrorLine(t *testing.T) {
	if !guarded("python") {
		t.Skip("python is not guarded in this build")
	}
	old := []byte("x = 1\rdef f():\r    return x\r")
	g := Syntax("m.py", old, []byte("x = 1\rdef f()\r    return x\r"))
	if g == nil || g.Line != 2 {
		t.Fatalf("got %+v, want an error at line 2", g)
	}
	ex := Excerpt(AsParsed(g.Language, []byte("x = 1\rdef f()\r    return x\r")), g.Line, g.Column)
	if !strings.Contains(ex, ">     2\tdef f()\n") {
		t.Errorf("the excerpt does not mark line 2:\n%s", ex)
	}
	if g := Syntax("m.py", old, []byte("x = 1\rdef f():\r    return (x\r")); g == nil || g.Line != 3 {
		t.Errorf("an unclosed bracket on line 3: %+v", g)
	}
	// CRLF stays one line break.
	if g := Syntax("m.py", nil, []byte("x = 1\r\ndef f():\r\n    return x\r\n")); g != nil {
		t.Errorf("CRLF: %+v", g)
	}
}

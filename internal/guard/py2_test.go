package guard

import (
	"math/rand"
	"os"
	"testing"
)

// Python 2 forms a model writes into a Python 3 file (attack4 D4), and Python 3 forms
// that look like them, added at the end of real files of the standard library, at
// the top level and in a function's body: the guard refuses exactly what CPython's
// parser refuses.
func TestPythonLegacyAgreesWithCPython(t *testing.T) {
	if !guarded("python") {
		t.Skip("python is not guarded in this build")
	}
	forms := []string{
		// Python 2: refused.
		"print x", "print 'a', b", "print \"a\"", "exec 'x = 1'", "exec code in ns", "x = `y`",
		"if a <> b: pass", "x = 0777", "x = 10L", "x = 0xffL", "x = 1_000l",
		"try:\n    pass\nexcept ValueError, e:\n    pass", "def _f(a=1, b): pass", "def _f(a: int = 1, b: int): pass",
		"if x: print y", "x = 1; print y",
		// Python 3 that looks like them: written.
		"print(x)", "print", "x = print", "print >> f, x", "print in x", "print -1", "exec(\"x\")",
		"x = 0o777", "x = 00", "x = 0_0", "x = 0.777", "x = 07.5", "x = 0777j", "x = 0e1", "x = 0xff",
		"x = a != b", "except_ = 1", "x = 1 if a else 2", "s = '<>' + \"`\"  # <> `",
		"def _f(a, b=1, *c, d, **e): pass", "def _f(a=1, /, b=2, *, c, d=3): pass", "def _f(a=(1, 2), b=[x == y]): pass",
		"f = lambda a=1: a", "try:\n    pass\nexcept (ValueError, TypeError) as e:\n    pass",
	}
	py, lib := startCPython(t)
	n, size := oracleChanges(120)
	files := filesUnder(lib, ".py", size)
	if len(files) == 0 {
		t.Skipf("no Python files under %s", lib)
	}
	rng := rand.New(rand.NewSource(41))
	c := &tally{lang: "python"}
	for c.tried < n {
		p := files[rng.Intn(len(files))]
		src, err := os.ReadFile(p)
		if err != nil || len(src) == 0 || src[len(src)-1] != '\n' || py.parse(t, src) != "" {
			continue
		}
		form := forms[rng.Intn(len(forms))]
		changed := append(append([]byte{}, src...), form+"\n"...)
		if rng.Intn(2) == 0 {
			body := ""
			for _, l := range splitLines(form) {
				body += "    " + l + "\n"
			}
			changed = append(append([]byte{}, src...), "\n\ndef _g():\n"+body...)
		}
		c.check(t, p, src, changed, py.parse(t, changed))
	}
	c.report(t)
	if c.refRefused == 0 {
		t.Error("no Python 2 form was tried")
	}
}

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		out = append(out, s[:i])
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return out
}

// No false alarm: every file of the standard library the legacy check flags is one
// CPython's parser refuses too (lib2to3's samples of Python 2).
func TestPythonLegacyNoFalseAlarms(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the whole standard library")
	}
	py, lib := startCPython(t)
	files := filesUnder(lib, ".py", 1<<30)
	if len(files) == 0 {
		t.Skipf("no Python files under %s", lib)
	}
	flagged := 0
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if errs := pyLegacyErrors(src); len(errs) > 0 {
			flagged++
			if py.parse(t, src) == "" {
				t.Errorf("%s: line %d: %s, and CPython parses it", p, errs[0].line, errs[0].msg)
			}
		}
	}
	t.Logf("%d files, %d flagged", len(files), flagged)
}

package guard

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// exceptForms are except clauses with several types, and forms like them, each the
// third line of a try statement.
var exceptForms = []string{
	"except ValueError, TypeError:", "except ValueError, e:", "except* ValueError, TypeError:",
	"except ValueError, TypeError as e:", "except (ValueError, TypeError):", "except (ValueError, TypeError) as e:",
	"except ValueError as e:", "except (A, B), C:", "except A, (B, C):", "except A if x else B, C:",
	"except f(a, b):", "except d['a,b']:", "except E: x, y = 1, 2", "except E:  # a, b",
	"except A, \\\n        B:", "except (A,\n        B):", "except A, has_x:", "except A, B, C:",
}

func exceptFile(form string) []byte {
	body := "\n    pass\n"
	if after := strings.TrimSpace(form[strings.LastIndex(form, ":")+1:]); after != "" && after[0] != '#' {
		body = "\n" // the clause holds its body
	}
	return []byte("try:\n    pass\n" + form + body)
}

// The except clauses judged as the python3 here judges them, as a new file and as an
// edit of a file that parsed: refused exactly when python3's own parser refuses them,
// and then firmly where they are valid in a newer Python. With pyenv and
// VFSCTL_GUARD_ORACLE set (.ci/run sets it), every Python 3 it has is tried.
func TestExceptClausesAsThePython3HereJudges(t *testing.T) {
	if !guarded("python") {
		t.Skip("python is not guarded in this build")
	}
	versions := []string{""}
	if out, err := exec.Command("pyenv", "versions", "--bare").Output(); err == nil && os.Getenv("VFSCTL_GUARD_ORACLE") != "" {
		for _, v := range strings.Fields(string(out)) {
			if strings.HasPrefix(v, "3.") {
				versions = append(versions, v)
			}
		}
	}
	saved := pyVersion
	defer func() { pyVersion = saved }()
	old := exceptFile("except ValueError:")
	for _, v := range versions {
		if v != "" {
			t.Setenv("PYENV_VERSION", v)
		}
		pyVersion = sync.OnceValues(askPython)
		py, _ := startCPython(t)
		if minor, ok := pyVersion(); !ok {
			t.Fatalf("python3 (%s) runs, and its version is not known", v)
		} else {
			t.Logf("python3 (%s) is 3.%d", v, minor)
		}
		for _, form := range exceptForms {
			src := exceptFile(form)
			ref := py.parse(t, src)
			for _, before := range [][]byte{nil, old} {
				g := Syntax("t.py", before, src)
				if (g != nil) != (ref != "") {
					t.Errorf("python3 (%s), %q, old content %v: guard %+v, python3 %q", v, form, before != nil, g, ref)
				}
				if g != nil && g.Firm != (strings.Contains(form, ",") && !strings.Contains(form, " as ")) {
					t.Errorf("python3 (%s), %q: firm is %v", v, form, g.Firm)
				}
			}
		}
	}
}

// Where python3 takes `except A, B:` (3.14 and later), or there is no python3 to ask,
// the guard takes it too, as a new file and as an edit; `except A, B as e:` is refused
// by every Python, and so by the guard whatever the version. The machine here may not
// have a Python 3.14, so its version is set.
func TestExceptCommaByVersion(t *testing.T) {
	if !guarded("python") {
		t.Skip("python is not guarded in this build")
	}
	saved := pyVersion
	defer func() { pyVersion = saved }()
	old := exceptFile("except ValueError:")
	bare, named := exceptFile("except ValueError, TypeError:"), exceptFile("except ValueError, TypeError as e:")
	for _, c := range []struct {
		minor int
		known bool
		bare  bool // refused
	}{{13, true, true}, {11, true, true}, {14, true, false}, {15, true, false}, {0, false, false}} {
		pyVersion = func() (int, bool) { return c.minor, c.known }
		for _, before := range [][]byte{nil, old} {
			g := Syntax("t.py", before, bare)
			if (g != nil) != c.bare || g != nil && (!g.Firm || g.Line != 3 || !strings.Contains(g.Message, "3.14")) {
				t.Errorf("3.%d (known %v), old %v: except A, B: gives %+v", c.minor, c.known, before != nil, g)
			}
			if g := Syntax("t.py", before, named); g == nil || g.Firm || g.Line != 3 {
				t.Errorf("3.%d (known %v), old %v: except A, B as e: gives %+v", c.minor, c.known, before != nil, g)
			}
		}
		if !c.bare {
			if d := Doubtful("t.py", bare); d != nil {
				t.Errorf("3.%d (known %v): a new file warned of: %+v", c.minor, c.known, d)
			}
		}
	}
}

// Without a python3 on PATH the version is not known (and nothing is refused for it).
func TestAskPythonWithoutPython(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a shell script stands for python3")
	}
	t.Setenv("PATH", t.TempDir())
	if minor, ok := askPython(); ok {
		t.Errorf("no python3, and the version is 3.%d", minor)
	}
	dir := t.TempDir()
	// A python3 in the current folder is not asked when PATH names it relatively.
	os.WriteFile(dir+"/python3", []byte("#!/bin/sh\necho Python 3.99.0\n"), 0o755)
	t.Chdir(dir)
	t.Setenv("PATH", ".")
	if minor, ok := askPython(); ok {
		t.Errorf("a python3 of the workspace was run: 3.%d", minor)
	}
}

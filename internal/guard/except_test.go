package guard

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
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
	// carried over lines by a backslash or an open bracket, to the clause's colon
	"except A \\\n        , B:", "except (A,\n        B), e:", "except A, \\\n        B as e:",
	"except (A,\n        B) as e:", "except (A,  # a, b\n        B), e:", "except (A,  # a, b\n        B):",
	"except A \\\r\n        , e:", "except [A,\n        B][0]:", "except A \\\n        as e:",
}

func exceptFile(form string) []byte {
	body := "\n    pass\n"
	if after := strings.TrimSpace(form[strings.LastIndex(form, ":")+1:]); after != "" && after[0] != '#' {
		body = "\n" // the clause holds its body
	}
	return []byte("try:\n    pass\n" + form + body)
}

// The except clauses judged as python3 judges them, as a new file and as an edit of a
// file that parsed: refused exactly when python3's own parser refuses them (every
// Python here is older than 3.14, which takes except A, B:), and firmly (refused again
// when sent again) only where no Python takes them. With pyenv and
// VFSCTL_GUARD_ORACLE set (.ci/run sets it), every Python 3 it has is tried.
func TestExceptClausesAsPython3Judges(t *testing.T) {
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
	old := exceptFile("except ValueError:")
	for _, v := range versions {
		if v != "" {
			t.Setenv("PYENV_VERSION", v)
		}
		out, err := exec.Command("python3", "-c", "import sys; print(sys.version_info[1])").Output()
		if err != nil {
			t.Skipf("python3 (%s): %v", v, err)
		}
		if minor, _ := strconv.Atoi(strings.TrimSpace(string(out))); minor >= 14 {
			t.Logf("python3 (%s) is 3.%d, which takes except A, B: and is not compared", v, minor)
			continue
		}
		py, _ := startCPython(t)
		for _, form := range exceptForms {
			src := exceptFile(form)
			ref := py.parse(t, src)
			for _, before := range [][]byte{nil, old} {
				g := Syntax("t.py", before, src)
				if (g != nil) != (ref != "") {
					t.Errorf("python3 (%s), %q, old content %v: guard %+v, python3 %q", v, form, before != nil, g, ref)
				}
				if g != nil && g.Firm != (strings.Contains(form, ",") && strings.Contains(form, " as ")) {
					t.Errorf("python3 (%s), %q: firm is %v", v, form, g.Firm)
				}
			}
		}
	}
}

// except A, B: is refused softly, saying what every Python takes and that 3.14 takes
// it as sent; except A, B as e:, which no Python takes, firmly.
func TestExceptCommaSoftAsFirm(t *testing.T) {
	if !guarded("python") {
		t.Skip("python is not guarded in this build")
	}
	old := exceptFile("except ValueError:")
	bare, named := exceptFile("except ValueError, TypeError:"), exceptFile("except ValueError, TypeError as e:")
	for _, before := range [][]byte{nil, old} {
		g := Syntax("t.py", before, bare)
		if g == nil || g.Firm || g.Line != 3 || !strings.Contains(g.Message, "3.14") || !strings.Contains(g.Message, "except (A, B):") {
			t.Errorf("old %v: except A, B: gives %+v", before != nil, g)
		}
		if g := Syntax("t.py", before, named); g == nil || !g.Firm || g.Line != 3 {
			t.Errorf("old %v: except A, B as e: gives %+v", before != nil, g)
		}
	}
}

// A file that has except A, B:, which Python takes from 3.14 on, is checked like any
// other: a form after it that no Python takes is found (and firmly refused), an edit
// elsewhere that breaks the file is refused (by the tokens or the grammar), and an
// edit that leaves the form's line as it was, around it or not, is not refused for it.
func TestExceptCommaHidesNothing(t *testing.T) {
	if !guarded("python") {
		t.Skip("python is not guarded in this build")
	}
	old := []byte("try:\n    pass\nexcept ValueError, TypeError:\n    pass\n\n\ndef f():\n    return 1\n")
	for _, c := range []struct {
		name, new string
		line      int // of the refusal; 0: none
		firm      bool
		grammar   bool // seen by a grammar only: not in a build without tree-sitter
	}{
		{"as e after it", "try:\n    pass\nexcept ValueError, TypeError:\n    pass\ntry:\n    pass\nexcept A, B as e:\n    pass\n\n\ndef f():\n    return 1\n", 7, true, false},
		{"print statement below", "try:\n    pass\nexcept ValueError, TypeError:\n    pass\n\n\ndef f():\n    print 1\n", 8, false, false},
		{"indentation below", "try:\n    pass\nexcept ValueError, TypeError:\n    pass\n\n\ndef f():\n    x = 1\n      return 1\n", 9, false, false},
		{"a valid edit below", "try:\n    pass\nexcept ValueError, TypeError:\n    pass\n\n\ndef f():\n    return 2\n", 0, false, false},
		{"a type renamed in it", "try:\n    pass\nexcept KeyError, TypeError:\n    pass\n\n\ndef f():\n    return 1\n", 3, false, false},
		{"a grammar error below", "try:\n    pass\nexcept ValueError, TypeError:\n    pass\n\n\ndef f():\n    x = = 1\n    return 1\n", 8, false, true},
		{"edits above and below it", "try:\n    x = 2\nexcept ValueError, TypeError:\n    pass\n\n\ndef f():\n    return 3\n", 0, false, false},
		{"the form written anew below", "try:\n    pass\nexcept ValueError, TypeError:\n    pass\n\n\ndef f():\n    try:\n        pass\n    except A, B:\n        pass\n", 10, false, false},
	} {
		if c.grammar && !approximate["python"] {
			continue
		}
		g := Syntax("t.py", old, []byte(c.new))
		switch {
		case c.line == 0 && g != nil:
			t.Errorf("%s: refused: %+v", c.name, g)
		case c.line != 0 && (g == nil || g.Line != c.line || g.Firm != c.firm):
			t.Errorf("%s: %+v, want a refusal at line %d, firm %v", c.name, g, c.line, c.firm)
		}
	}
	// As a new file, the form no Python takes is found past the one a later Python takes.
	if g := Syntax("t.py", nil, []byte("try:\n    pass\nexcept A, B:\n    pass\ntry:\n    pass\nexcept A, B as e:\n    pass\n")); g == nil || g.Line != 7 || !g.Firm {
		t.Errorf("new file: %+v, want a firm refusal at line 7", g)
	}
}

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

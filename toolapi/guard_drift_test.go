package toolapi_test

import (
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/toolapi"
)

// parsesGo and parsesPython are the oracles: go/parser, and CPython itself.
func parsesGo(src []byte) bool {
	_, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	return err == nil
}

func parsesPython(py string, src []byte) bool {
	cmd := exec.Command(py, "-c", "import ast,sys; ast.parse(sys.stdin.buffer.read())")
	cmd.Stdin = bytes.NewReader(src)
	return cmd.Run() == nil
}

// Drift that only a parser can see: real Go and Python files get a line added that
// holds quotes, a minus and spaces, and the model's newText leaks typography it never
// showed in oldText (curly quotes, an en dash, no-break spaces), so fidelity writes it
// as sent. Whatever is applied must still parse, as go/parser and CPython say: the
// guard repairs the characters in code and refuses what it cannot.
func TestGuardedDriftOnRealFiles(t *testing.T) {
	var goFiles, pyFiles []string
	filepath.WalkDir(filepath.Join(testutil.GOROOT(), "src", "net", "http"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.Contains(p, "testdata") {
			goFiles = append(goFiles, p)
		}
		return nil
	})
	// The interpreter itself, not a shim that starts it: it runs once per check.
	py := ""
	if out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output(); err == nil {
		py = strings.TrimSpace(string(out))
		pyFiles, _ = filepath.Glob("/usr/lib/python3*/*.py")
	}
	if len(goFiles) == 0 {
		t.Skip("no Go sources")
	}
	rng := rand.New(rand.NewSource(11))
	n := 60
	if !toolapi.FullTests() {
		n = 10
	}
	if v, err := strconv.Atoi(os.Getenv("VFSCTL_DRIFT_DRAWS")); err == nil {
		n = v // longer local runs
	}
	ws := t.TempDir()
	eng, err := toolapi.Open(ws, toolapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	var applied, repaired, refused, leaked int
	for k := 0; k < n; k++ {
		lang, files := "go", goFiles
		if len(pyFiles) > 0 && k%2 == 1 {
			lang, files = "python", pyFiles
		}
		src, err := os.ReadFile(files[rng.Intn(len(files))])
		if err != nil || !utf8.Valid(src) || bytes.ContainsAny(src, "\r\u00a0“”–") {
			continue
		}
		name := fmt.Sprintf("f%d.go", k)
		parses := parsesGo
		if lang == "python" {
			name = fmt.Sprintf("f%d.py", k)
			parses = func(b []byte) bool { return parsesPython(py, b) }
		}
		if !parses(src) {
			continue
		}
		lines := strings.SplitAfter(string(src), "\n")
		// A line inside a function body, after a simple statement.
		at := -1
		for tries := 0; tries < 50 && at < 0; tries++ {
			i := 1 + rng.Intn(len(lines)-2)
			l := lines[i]
			ind := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
			next := lines[i+1]
			if ind == "" || strings.TrimSpace(l) == "" || !strings.HasPrefix(next, ind) || strings.HasSuffix(strings.TrimSpace(l), ":") ||
				strings.HasSuffix(strings.TrimSpace(l), "{") || strings.HasSuffix(strings.TrimSpace(l), ",") || strings.HasSuffix(strings.TrimSpace(l), "(") ||
				strings.HasSuffix(strings.TrimSpace(l), "\\") || strings.Count(string(src), l) != 1 {
				continue
			}
			at = i
		}
		if at < 0 {
			continue
		}
		ind := lines[at][:len(lines[at])-len(strings.TrimLeft(lines[at], " \t"))]
		added := ind + `println("it's done - ok", 1 - 2)` + "\n"
		if lang == "python" {
			added = ind + `print("it's done - ok", 1 - 2)` + "\n"
		}
		want := strings.Join(lines[:at+1], "") + added + strings.Join(lines[at+1:], "")
		if !parses([]byte(want)) {
			continue // the spot holds no statement after all
		}
		// The leak: in the added line only, each quote, minus and space may drift.
		var b strings.Builder
		open := true
		for _, r := range added[len(ind):] {
			switch {
			case r == '"' && rng.Intn(2) == 0:
				if open {
					b.WriteRune('“')
				} else {
					b.WriteRune('”')
				}
				open = !open
			case r == '"':
				b.WriteRune(r)
				open = !open
			case r == '\'' && rng.Intn(2) == 0:
				b.WriteRune('’')
			case r == '-' && rng.Intn(2) == 0:
				b.WriteRune('–')
			case r == ' ' && rng.Intn(3) == 0:
				b.WriteRune('\u00a0')
			default:
				b.WriteRune(r)
			}
		}
		sent := ind + b.String()
		if sent == added {
			continue
		}
		leaked++
		testutil.WriteFile(t, filepath.Join(ws, name), string(src))
		r := call(t, eng, "edit_file", edit(name, lines[at], lines[at]+sent))
		got, _ := os.ReadFile(filepath.Join(ws, name))
		switch {
		case !r.OK:
			refused++
			if !bytes.Equal(got, src) {
				t.Errorf("%s: refused, yet the file changed", lang)
			}
		case !parses(got):
			t.Errorf("%s: an applied edit left the file unparsable:\nsent %q\n%s", lang, sent, r.Text)
		default:
			applied++
			if strings.Contains(r.Text, "was written as") {
				repaired++
			}
		}
	}
	t.Logf("%d edits leaked typography: %d applied (%d with characters repaired), %d refused; none left a file that parsed unparsable", leaked, applied, repaired, refused)
	if leaked < n/5 || repaired == 0 {
		t.Errorf("too few cases: %d leaked, %d repaired", leaked, repaired)
	}
}

package toolapi_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
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

// pyParser is CPython's parser behind a pipe (one interpreter for the whole test): a
// source in, its length on a line first; "ok" or the error out.
type pyParser struct {
	in  io.WriteCloser
	out *bufio.Reader
}

func startPyParser(t *testing.T) (*pyParser, string) {
	t.Helper()
	lib, err := exec.Command("python3", "-c", `import sysconfig; print(sysconfig.get_paths()["stdlib"])`).Output()
	if err != nil {
		return nil, ""
	}
	cmd := exec.Command("python3", "-c", `
import ast, sys, warnings
warnings.filterwarnings("ignore")
while True:
    n = sys.stdin.buffer.readline()
    if not n:
        break
    src = sys.stdin.buffer.read(int(n))
    try:
        ast.parse(src)
        print("ok", flush=True)
    except Exception as e:
        print(type(e).__name__, " ".join(str(e).split()), flush=True)
`)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if cmd.Start() != nil {
		return nil, ""
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	return &pyParser{in, bufio.NewReader(out)}, strings.TrimSpace(string(lib))
}

func (p *pyParser) parses(t *testing.T, src []byte) bool {
	fmt.Fprintf(p.in, "%d\n", len(src))
	p.in.Write(src)
	line, err := p.out.ReadString('\n')
	if err != nil {
		t.Fatalf("python3 stopped: %v", err)
	}
	return line == "ok\n"
}

// Typography drifted into whole edits of real Go and Python files, through the engine
// with its guard: a snippet of a few lines gets an ASCII change (a line added, a line
// deleted, text put inside a line, all holding quotes and dashes), then oldText and
// newText drift independently as models drift them (curly quotes, en dashes, no-break
// spaces, trailing spaces dropped), each character on its own. Every edit must come
// out exactly as the ASCII change meant, or be refused with the file untouched; and
// no written file may fail to parse (go/parser, CPython) where the meant change parses.
func TestDriftedEditsThroughTheGuard(t *testing.T) {
	var goFiles, pyFiles []string
	filepath.WalkDir(filepath.Join(testutil.GOROOT(), "src"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.Contains(p, "testdata") {
			goFiles = append(goFiles, p)
		}
		return nil
	})
	py, lib := startPyParser(t)
	if py != nil {
		filepath.WalkDir(lib, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() && (d.Name() == "site-packages" || d.Name() == "dist-packages" || d.Name() == "test") {
				return filepath.SkipDir
			}
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".py") {
				pyFiles = append(pyFiles, p)
			}
			return nil
		})
	}
	if len(goFiles) == 0 {
		t.Skip("no Go sources")
	}
	n := 60 // .ci/run draws 600
	if !toolapi.FullTests() {
		n = 20
	}
	if v, err := strconv.Atoi(os.Getenv("VFSCTL_DRIFT_DRAWS")); err == nil {
		n = v
	}
	ws := t.TempDir()
	eng, err := toolapi.Open(ws, toolapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	rng := rand.New(rand.NewSource(39))
	type tally struct{ draws, exact, asSent, refused, wrong, broken int }
	stats := map[string]*tally{"go": {}, "python": {}}
	for k := 0; stats["go"].draws+stats["python"].draws < n && k < 20*n; k++ {
		lang, files, ext := "go", goFiles, ".go"
		parses := func(b []byte) bool { return parsesGo(b) }
		if py != nil && k%2 == 1 {
			lang, files, ext = "python", pyFiles, ".py"
			parses = func(b []byte) bool { return py.parses(t, b) }
		}
		path := files[rng.Intn(len(files))]
		data, err := os.ReadFile(path)
		if err != nil || len(data) > 256<<10 || !utf8.Valid(data) || bytes.ContainsAny(data, "\x00\r") {
			continue
		}
		lines := strings.SplitAfter(string(data), "\n")
		if len(lines) < 12 {
			continue
		}
		from := rng.Intn(len(lines) - 8)
		old := strings.TrimRight(strings.Join(lines[from:from+3+rng.Intn(4)], ""), "\n")
		if strings.TrimSpace(old) == "" || strings.Count(string(data), old) != 1 {
			continue
		}
		newText, ok := meantChange(rng, old)
		if !ok {
			continue
		}
		want := strings.Replace(string(data), old, newText, 1)
		if !parses(data) || !parses([]byte(want)) {
			continue // the file does not parse here, or the meant change breaks it
		}
		oldT, newT := old, newText
		if rng.Intn(2) == 0 && strings.Count(string(data), old+"\n") == 1 {
			oldT, newT = old+"\n", newText+"\n"
		}
		// newText drifts in the kinds oldText shows: a model that types curly quotes
		// types them throughout; what it never showed in oldText, it means (an en dash
		// in a string of newText alone is written as sent).
		// Every other edit drifts newText in kinds of its own: what oldText did not show
		// may be meant, and typography in a string or a comment is then written as
		// sent, unless the same character is written plain in code (a model that typed
		// an en dash for minus did not mean the one in the string either).
		po, shown := driftTypo(rng, oldT, drifts(rng))
		if po == oldT {
			continue
		}
		own := k%4 >= 2
		if own {
			shown = drifts(rng)
		}
		pn, _ := driftTypo(rng, newT, shown)
		s := stats[lang]
		s.draws++
		name := fmt.Sprintf("d%d%s", k, ext)
		testutil.WriteFile(t, filepath.Join(ws, name), string(data))
		r := call(t, eng, "edit_file", edit(name, po, pn))
		got, _ := os.ReadFile(filepath.Join(ws, name))
		switch {
		case !r.OK:
			s.refused++
			if !bytes.Equal(got, data) {
				t.Errorf("%s: refused, yet the file changed", path)
			}
		case string(got) == want:
			s.exact++
		case own && parses(got) && fold(string(got)) == fold(want):
			s.asSent++
		default:
			s.wrong++
			what := "not as meant"
			if !parses(got) {
				s.broken++
				what = "written unparsable, though the meant change parses"
			}
			t.Errorf("%s line %d: %s:\noldText %q\nnewText %q\n%s\n%s", path, from+1, what, po, pn, lineDiff(want, string(got)), r.Text)
		}
	}
	for _, lang := range []string{"go", "python"} {
		s := stats[lang]
		t.Logf("%-6s drifted edits %3d: exactly as meant %3d, typography of newText alone written as sent in strings or comments %d, refused %d, not as meant %d (of which unparsable %d)",
			lang, s.draws, s.exact, s.asSent, s.refused, s.wrong, s.broken)
	}
	if stats["go"].exact == 0 {
		t.Error("no drifted edit was applied")
	}
}

// meantChange makes the change a model means to a snippet: a line added (holding
// quotes, a minus and spaces), a line deleted, or text put inside a line.
func meantChange(rng *rand.Rand, old string) (string, bool) {
	ol := strings.Split(old, "\n")
	i := rng.Intn(len(ol))
	switch rng.Intn(3) {
	case 0:
		ref := ol[min(i+1, len(ol)-1)]
		if strings.TrimSpace(ref) == "" {
			ref = ol[i]
		}
		ind := ref[:len(ref)-len(strings.TrimLeft(ref, " \t"))]
		ol = append(ol[:i+1], append([]string{ind + `note("added - it's", 'x', 1 - 2)`}, ol[i+1:]...)...)
	case 1:
		if len(ol) < 3 || strings.TrimSpace(ol[i]) == "" {
			return "", false
		}
		ol = append(ol[:i], ol[i+1:]...)
	default:
		l := ol[i]
		lead := len(l) - len(strings.TrimLeft(l, " \t"))
		sp := strings.LastIndex(strings.TrimRight(l, " \t"), " ")
		if sp <= lead {
			return "", false
		}
		ol[i] = l[:sp] + ` "in-line" -` + l[sp:]
	}
	return strings.Join(ol, "\n"), true
}

// drifts picks the kinds of drift of one edit: one or more of quotes, dashes, no-break
// spaces and trailing spaces dropped.
func drifts(rng *rand.Rand) map[string]bool {
	out := map[string]bool{}
	for len(out) == 0 {
		for _, k := range []string{"quotes", "dashes", "nbsp", "trailing"} {
			if rng.Intn(2) == 0 {
				out[k] = true
			}
		}
	}
	return out
}

// driftTypo changes each character of s of the given kinds with probability 0.6, and
// returns the kinds that drifted.
func driftTypo(rng *rand.Rand, s string, kinds map[string]bool) (string, map[string]bool) {
	lines := strings.Split(s, "\n")
	did := map[string]bool{}
	for li, l := range lines {
		if kinds["trailing"] && strings.TrimRight(l, " \t") != l && rng.Intn(10) < 6 {
			l, did["trailing"] = strings.TrimRight(l, " \t"), true
		}
		var b strings.Builder
		open := true
		rs := []rune(l)
		for i, r := range rs {
			d := rng.Intn(10) < 6
			switch {
			case r == '"' && kinds["quotes"]:
				if d {
					b.WriteRune(map[bool]rune{true: '“', false: '”'}[open])
					did["quotes"] = true
				} else {
					b.WriteRune(r)
				}
				open = !open
			case r == '\'' && kinds["quotes"] && d:
				b.WriteRune('’')
				did["quotes"] = true
			case r == '-' && kinds["dashes"] && d:
				b.WriteRune('–')
				did["dashes"] = true
			case r == ' ' && kinds["nbsp"] && d && i > 0 && i+1 < len(rs) && rs[i-1] != ' ' && rs[i-1] != '\t' && rs[i+1] != ' ':
				b.WriteRune('\u00a0')
				did["nbsp"] = true
			default:
				b.WriteRune(r)
			}
		}
		lines[li] = b.String()
	}
	return strings.Join(lines, "\n"), did
}

// lineDiff shows the first line where two texts differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) && i < len(g); i++ {
		if w[i] != g[i] {
			return fmt.Sprintf("line %d:\n want %q\n  got %q", i+1, w[i], g[i])
		}
	}
	return fmt.Sprintf("line counts differ: want %d, got %d", len(w), len(g))
}

// fold writes each typographic character of s as the ASCII one it stands for.
func fold(s string) string {
	return strings.NewReplacer("“", `"`, "”", `"`, "’", "'", "–", "-", "\u00a0", " ").Replace(s)
}

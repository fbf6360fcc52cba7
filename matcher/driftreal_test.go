package matcher

import (
	"errors"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

var strconvQuote = strconv.Quote

// sourceFiles lists real source files: the Go tree, and the Python standard library
// where one is installed.
func sourceFiles(t *testing.T) (goFiles, pyFiles []string) {
	filepath.WalkDir(filepath.Join(testutil.GOROOT(), "src"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.Contains(p, "testdata") {
			goFiles = append(goFiles, p)
		}
		return nil
	})
	dirs, _ := filepath.Glob("/usr/lib/python3*")
	more, _ := filepath.Glob("/usr/local/lib/python3*")
	for _, dir := range append(dirs, more...) {
		ps, _ := filepath.Glob(filepath.Join(dir, "*.py"))
		pyFiles = append(pyFiles, ps...)
	}
	sort.Strings(goFiles)
	sort.Strings(pyFiles)
	return goFiles, pyFiles
}

// TestDriftOnRealFiles makes an ASCII change (a line inserted, a line deleted, or text
// inserted inside a line) to snippets of real Go and Python files, then drifts oldText
// and newText independently the way models do (curly quotes, en dashes, non-breaking
// spaces, dropped trailing whitespace), each character on its own. newText drifts only
// in kinds that oldText showed. The file must come out exactly as the ASCII change
// meant, or the edit be refused as ambiguous; nothing else.
func TestDriftOnRealFiles(t *testing.T) {
	goFiles, pyFiles := sourceFiles(t)
	if len(goFiles) < 100 {
		t.Skip("Go sources not found")
	}
	if len(pyFiles) == 0 {
		t.Log("no Python standard library found; Go files only")
	}
	rng := rand.New(rand.NewSource(7))
	n := 300
	if testing.Short() {
		n = 60
	}
	if v, err := strconv.Atoi(os.Getenv("VFSCTL_DRIFT_DRAWS")); err == nil {
		n = v // longer local runs
	}
	type tally struct{ draws, applied, ambiguous, refused, wrong int }
	stats := map[string]*tally{"go": {}, "python": {}}
	for k := 0; k < n; k++ {
		lang, files := "go", goFiles
		if len(pyFiles) > 0 && k%2 == 1 {
			lang, files = "python", pyFiles
		}
		path := files[rng.Intn(len(files))]
		data, err := os.ReadFile(path)
		if err != nil || !utf8.Valid(data) || strings.ContainsRune(string(data), 0) || strings.Contains(string(data), "\r") {
			continue
		}
		lines := strings.SplitAfter(string(data), "\n")
		if len(lines) < 12 {
			continue
		}
		from := rng.Intn(len(lines) - 8)
		cnt := 3 + rng.Intn(4)
		snip := lines[from : from+cnt]
		old := strings.TrimRight(strings.Join(snip, ""), "\n")
		if strings.TrimSpace(old) == "" || strings.Count(string(data), old) != 1 {
			continue
		}
		ol := strings.Split(old, "\n")
		nl, ok := asciiChange(rng, ol)
		if !ok {
			continue
		}
		newText := strings.Join(nl, "\n")
		want := strings.Replace(string(data), old, newText, 1)

		// Half the time the model sends whole lines: both texts end with a line break,
		// and half of those lose newText's last line break with the trailing blanks
		// before it, where the file goes on with a line of text: there the missing
		// line break is supplied at every tier. (Before a blank line or at the file's
		// end the literal result is meant: TestRealCommitRules.)
		oldT, newT := old, newText
		whole := rng.Intn(2) == 0 && strings.Count(string(data), old+"\n") == 1
		if whole {
			oldT, newT = old+"\n", newText+"\n"
		}
		kinds := driftKinds(rng)
		po, shown := driftText(rng, oldT, kinds)
		if po == oldT {
			continue
		}
		pn, _ := driftText(rng, newT, shown)
		after := strings.Index(string(data), old+"\n") + len(old) + 1
		joins := whole && after < len(data) && data[after] != '\n' && data[after] != '\r'
		if last := nl[len(nl)-1]; joins && strings.TrimSpace(last) != "" && rng.Intn(2) == 0 {
			pn = strings.TrimRight(pn, " \t\n")
		}
		s := stats[lang]
		s.draws++
		res, err := Apply(data, []Edit{{OldText: po, NewText: pn}}, Options{Name: path})
		if err != nil {
			var r *Refusal
			if errors.As(err, &r) && r.Kind == KindMultipleMatches {
				s.ambiguous++
				continue
			}
			s.refused++
			t.Errorf("%s line %d: refused: %v", path, from+1, err)
			continue
		}
		if string(res.Output) != want {
			s.wrong++
			t.Errorf("%s line %d (drift %v): not as meant:\noldText %q\nnewText %q\n%s", path, from+1, shown, po, pn, firstDiff(want, string(res.Output)))
			continue
		}
		s.applied++
	}
	for _, lang := range []string{"go", "python"} {
		s := stats[lang]
		t.Logf("%-6s drifted edits %3d: exactly as meant %3d, refused as ambiguous %2d, other refusals %d, not as meant %d",
			lang, s.draws, s.applied, s.ambiguous, s.refused, s.wrong)
	}
	if stats["go"].applied == 0 {
		t.Error("no drifted edit was applied")
	}
}

// asciiChange makes the intended change: a line inserted, a line deleted, or text
// inserted inside a line. Added text holds quotes and dashes, so that drift reaches it.
func asciiChange(rng *rand.Rand, ol []string) ([]string, bool) {
	nl := append([]string(nil), ol...)
	i := rng.Intn(len(ol))
	switch rng.Intn(3) {
	case 0:
		ref := ol[min(i+1, len(ol)-1)]
		if strings.TrimSpace(ref) == "" {
			ref = ol[i]
		}
		ind := ref[:len(ref)-len(strings.TrimLeft(ref, " \t"))]
		nl = append(nl[:i+1], append([]string{ind + `note("added - it's", 'x')`}, nl[i+1:]...)...)
	case 1:
		if len(ol) < 3 || strings.TrimSpace(ol[i]) == "" {
			return nil, false
		}
		nl = append(nl[:i], nl[i+1:]...)
	default:
		l := ol[i]
		lead := len(l) - len(strings.TrimLeft(l, " \t"))
		sp := strings.LastIndex(strings.TrimRight(l, " \t"), " ")
		if sp <= lead {
			return nil, false
		}
		nl[i] = l[:sp] + ` "in-line" -` + l[sp:]
	}
	return nl, true
}

type driftKind int

const (
	driftQuotes driftKind = iota
	driftDashes
	driftNBSP
	driftTrailing
)

func driftKinds(rng *rand.Rand) []driftKind {
	var out []driftKind
	for len(out) == 0 {
		for k := driftQuotes; k <= driftTrailing; k++ {
			if rng.Intn(2) == 0 {
				out = append(out, k)
			}
		}
	}
	return out
}

// driftText drifts each character of s of the given kinds with probability 0.6, and
// returns the kinds that actually drifted.
func driftText(rng *rand.Rand, s string, kinds []driftKind) (string, []driftKind) {
	has := map[driftKind]bool{}
	for _, k := range kinds {
		has[k] = true
	}
	did := map[driftKind]bool{}
	lines := strings.Split(s, "\n")
	for li, l := range lines {
		if has[driftTrailing] && strings.TrimRight(l, " \t") != l && rng.Intn(10) < 6 {
			l = strings.TrimRight(l, " \t")
			did[driftTrailing] = true
		}
		var b strings.Builder
		open := true
		rs := []rune(l)
		for i, r := range rs {
			drift := rng.Intn(10) < 6
			switch {
			case r == '"' && has[driftQuotes]:
				if drift {
					b.WriteRune(map[bool]rune{true: '“', false: '”'}[open])
					did[driftQuotes] = true
				} else {
					b.WriteRune(r)
				}
				open = !open
				continue
			case r == '\'' && has[driftQuotes] && drift:
				b.WriteRune('’')
				did[driftQuotes] = true
				continue
			case r == '-' && has[driftDashes] && drift:
				b.WriteRune('–')
				did[driftDashes] = true
				continue
			case r == ' ' && has[driftNBSP] && drift && i > 0 && i+1 < len(rs) && rs[i-1] != ' ' && rs[i-1] != '\t' && rs[i+1] != ' ':
				b.WriteRune('\u00a0')
				did[driftNBSP] = true
				continue
			}
			b.WriteRune(r)
		}
		lines[li] = b.String()
	}
	var shown []driftKind
	for _, k := range kinds {
		if did[k] {
			shown = append(shown, k)
		}
	}
	return strings.Join(lines, "\n"), shown
}

// firstDiff shows the first differing line of two texts.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) && i < len(g); i++ {
		if w[i] != g[i] {
			return "line " + itoa(i+1) + ":\n want " + strconvQuote(w[i]) + "\n  got " + strconvQuote(g[i])
		}
	}
	return "line counts differ: want " + itoa(len(w)) + ", got " + itoa(len(g))
}

package matcher

import (
	"bytes"
	"errors"
	"math/rand"
	"os"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

// TestRealFiles perturbs snippets of the Go sources the way models do (curly quotes,
// spaces for tabs, a level of indentation lost, dropped trailing text, a pasted gutter,
// CRLF) and checks that every edit either lands exactly where the unperturbed edit would
// have, or is refused; never somewhere else.
func TestRealFiles(t *testing.T) {
	files, _ := sourceFiles(t)
	if len(files) < 100 {
		t.Skipf("Go sources not found under %s", testutil.GOROOT())
	}
	rng := rand.New(rand.NewSource(1))
	n := 300
	if testing.Short() {
		n = 60
	}
	perturbs := []struct {
		name string
		tier Tier
		fn   func(string) string
	}{
		{"exact", TierExact, func(s string) string { return s }},
		{"curly quotes", TierTypography, func(s string) string { return curly(s) }},
		{"spaces for tabs", TierIndentation, leadingSpaces},
		{"one level less", TierIndentation, dedentOne},
		{"gutter", TierExact, nil}, // built per snippet below
		{"crlf", TierExact, func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }},
	}
	stats := map[string][3]int{} // applied, refused, skipped
	for k := 0; k < n; k++ {
		path := files[rng.Intn(len(files))]
		data, err := os.ReadFile(path)
		if err != nil || len(data) == 0 || bytes.IndexByte(data, 0) >= 0 {
			continue
		}
		lines := strings.SplitAfter(string(data), "\n")
		if len(lines) < 10 {
			continue
		}
		from := rng.Intn(len(lines) - 6)
		cnt := 2 + rng.Intn(4)
		old := strings.Join(lines[from:from+cnt], "")
		old = strings.TrimSuffix(old, "\n")
		if strings.Count(string(data), old) != 1 || strings.TrimSpace(old) == "" {
			continue
		}
		// The model's change: a comment appended to the first non-blank line.
		ol := strings.Split(old, "\n")
		target := -1
		for i, l := range ol {
			if strings.TrimSpace(l) != "" && !strings.HasSuffix(l, " ") && !strings.HasSuffix(l, "\t") {
				target = i
				break
			}
		}
		if target < 0 {
			continue
		}
		nl := append([]string(nil), ol...)
		nl[target] += " // edited"
		want := strings.Replace(string(data), old, strings.Join(nl, "\n"), 1)
		for _, p := range perturbs {
			var po, pn string
			if p.fn == nil {
				po, pn = gutter(ol, from+1), strings.Join(nl, "\n")
			} else {
				po, pn = p.fn(old), p.fn(strings.Join(nl, "\n"))
			}
			s := stats[p.name]
			if po == old && p.name != "exact" {
				s[2]++
				stats[p.name] = s
				continue
			}
			res, err := Apply(data, []Edit{{OldText: po, NewText: pn}}, Options{Name: path})
			if err != nil {
				var r *Refusal
				if !errors.As(err, &r) {
					t.Fatalf("%s: %s: not a refusal: %v", path, p.name, err)
				}
				if r.Kind != KindMultipleMatches {
					t.Errorf("%s: %s: refused with %s: %s", path, p.name, r.Kind, r.Message)
				}
				s[1]++
				stats[p.name] = s
				continue
			}
			if string(res.Output) != want {
				t.Errorf("%s lines %d-%d: %s: edited the file differently from the intended change:\n%s",
					path, from+1, from+cnt, p.name, UnifiedDiff("got", []byte(want), []Splice{{Start: 0, End: len(want), Text: res.Output, FirstLine: 1, LastLine: strings.Count(want, "\n")}}))
			}
			s[0]++
			stats[p.name] = s
		}
	}
	for _, p := range perturbs {
		s := stats[p.name]
		t.Logf("%-16s applied %4d  refused (ambiguous) %3d  not applicable %3d", p.name, s[0], s[1], s[2])
		if s[0] == 0 {
			t.Errorf("%s: nothing applied", p.name)
		}
	}
}

func curly(s string) string {
	var b strings.Builder
	open := true
	for _, r := range s {
		switch r {
		case '"':
			if open {
				b.WriteRune('“')
			} else {
				b.WriteRune('”')
			}
			open = !open
		case '\'':
			b.WriteRune('’')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// leadingSpaces writes each line's leading tabs as four spaces.
func leadingSpaces(s string) string {
	ls := strings.Split(s, "\n")
	for i, l := range ls {
		t := strings.TrimLeft(l, "\t")
		ls[i] = strings.Repeat("    ", len(l)-len(t)) + t
	}
	return strings.Join(ls, "\n")
}

func dedentOne(s string) string {
	ls := strings.Split(s, "\n")
	for i, l := range ls {
		ls[i] = strings.TrimPrefix(l, "\t")
	}
	return strings.Join(ls, "\n")
}

func gutter(lines []string, first int) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(padNum(first+i) + "\t" + l)
	}
	return b.String()
}

func padNum(n int) string {
	s := strings.Repeat(" ", 6) + itoa(n)
	return s[len(s)-6:]
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}

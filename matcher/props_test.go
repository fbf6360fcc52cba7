package matcher

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The properties below are derived without the matcher's own machinery (its line
// index, views and splice assembly), so that they can catch it being wrong.

// testLines splits the body of a file (after a BOM) into lines with their own endings
// (LF, CRLF, lone CR) and returns each line's [start, end) offset in the whole file.
func testLines(file []byte) [][2]int {
	off := 0
	if bytes.HasPrefix(file, []byte("\ufeff")) {
		off = 3
	}
	var out [][2]int
	s := off
	for i := off; i < len(file); i++ {
		switch file[i] {
		case '\n':
			out = append(out, [2]int{s, i + 1})
			s = i + 1
		case '\r':
			if i+1 < len(file) && file[i+1] == '\n' {
				i++
			}
			out = append(out, [2]int{s, i + 1})
			s = i + 1
		}
	}
	if s < len(file) {
		out = append(out, [2]int{s, len(file)})
	}
	return out
}

// checkResult asserts what a user relies on after a successful Apply:
//   - every splice lies inside the lines of an occurrence of its own edit, and every byte
//     of the file outside those lines is unchanged;
//   - the BOM is kept;
//   - the result, folded, is the file folded with each edit's newText folded in its place
//     (the meaning the model asked for), where that place can be told independently;
//   - no fold-class character that the model typed in oldText but the file does not have
//     anywhere (a drifted one) is in the result.
func checkResult(t *testing.T, orig []byte, edits []Edit, res *Result) {
	t.Helper()
	lines := testLines(orig)
	type region struct{ s, e int }
	var regs []region
	for ei, r := range res.Edits {
		for _, oc := range r.Lines {
			if oc[0] < 1 || oc[1] > len(lines) || oc[0] > oc[1] {
				t.Fatalf("edits[%d]: occurrence lines %v outside the file's %d lines", ei, oc, len(lines))
			}
			regs = append(regs, region{lines[oc[0]-1][0], lines[oc[1]-1][1]})
		}
	}
	for _, s := range res.Splices {
		inside := false
		for _, oc := range res.Edits[s.Edit].Lines {
			if s.Start >= lines[oc[0]-1][0] && s.End <= lines[oc[1]-1][1] {
				inside = true
			}
		}
		if !inside {
			t.Fatalf("splice [%d,%d) of edits[%d] lies outside the lines of its occurrences %v", s.Start, s.End, s.Edit, res.Edits[s.Edit].Lines)
		}
	}
	// Merge the regions; walk the output, shifting by what each region's splices add.
	sortRegions := func() {
		for i := 1; i < len(regs); i++ {
			for j := i; j > 0 && regs[j].s < regs[j-1].s; j-- {
				regs[j], regs[j-1] = regs[j-1], regs[j]
			}
		}
	}
	sortRegions()
	var merged []region
	for _, r := range regs {
		if n := len(merged); n > 0 && r.s <= merged[n-1].e {
			merged[n-1].e = max(merged[n-1].e, r.e)
			continue
		}
		merged = append(merged, r)
	}
	prevO, prevN := 0, 0
	for _, r := range merged {
		gap := orig[prevO:r.s]
		if prevN+len(gap) > len(res.Output) || !bytes.Equal(res.Output[prevN:prevN+len(gap)], gap) {
			t.Fatalf("bytes %d-%d of the file, outside every edited line, changed", prevO, r.s)
		}
		grow := 0
		for _, s := range res.Splices {
			if s.Start >= r.s && s.End <= r.e {
				grow += len(s.Text) - (s.End - s.Start)
			}
		}
		prevN += len(gap) + (r.e - r.s) + grow
		prevO = r.e
	}
	if !bytes.Equal(res.Output[min(prevN, len(res.Output)):], orig[prevO:]) || prevN > len(res.Output) {
		t.Fatalf("the file's bytes after the last edited line changed")
	}
	if bytes.HasPrefix(orig, []byte("\ufeff")) && !bytes.HasPrefix(res.Output, []byte("\ufeff")) {
		t.Fatalf("BOM lost")
	}
	checkMeaning(t, orig, edits, res)
	checkNoDrift(t, orig, edits, res)
}

// testFold is the meaning of a whole file: foldFragment, with a final line break
// where the file has none (an oldText that ends with a line break matches its last
// line at the fuzzy tiers).
func testFold(s string) string {
	f := foldFragment(s)
	if !strings.HasSuffix(f, "\n") {
		f += "\n"
	}
	return f
}

// foldFragment is the meaning of a text: NFKC, typographic characters as ASCII,
// zero-width characters and all spaces and tabs dropped, invalid bytes as U+FFFD,
// every line break as "\n".
func foldFragment(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == '\r':
			if i < len(s) && s[i] == '\n' {
				i++
			}
			b.WriteByte('\n')
		case r == ' ' || r == '\t':
		default:
			b.WriteRune(r)
		}
	}
	var out []rune
	for _, r := range norm.NFKC.String(b.String()) {
		switch {
		case strings.ContainsRune("‘’‚‛′‵", r):
			r = '\''
		case strings.ContainsRune("“”„‟″‶«»", r):
			r = '"'
		case strings.ContainsRune("‐‑‒–—―−﹘﹣", r):
			r = '-'
		case strings.ContainsRune("\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000 ", r):
			continue
		case strings.ContainsRune("\u200b\u200c\u200d\u2060\ufeff\u00ad", r):
			continue
		}
		out = append(out, r)
	}
	return string(out)
}

// blankLines finds a line of only spaces and tabs.
var blankLines = regexp.MustCompile(`(?m)^[ \t]+\r?$`)

func checkMeaning(t *testing.T, orig []byte, edits []Edit, res *Result) {
	t.Helper()
	if !utf8.Valid(orig) || misordered(string(orig)) || misordered(edits[0].OldText) || misordered(edits[0].NewText) {
		// Invalid bytes that an edit brings together can decode as one valid character,
		// and normalization reorders or composes combining marks across the edit's
		// place: then the folded meaning is not comparable.
		return
	}
	F := testFold(string(orig))
	type put struct {
		at, n int
		text  string
	}
	var puts []put
	for i, e := range edits {
		r := res.Edits[i]
		if r.Gutter || e.ReplaceAll {
			return
		}
		fo, fn := foldFragment(e.OldText), foldFragment(e.NewText)
		// oldText ends with a line break as the matcher reads it: its last line is
		// empty, or at a fuzzy tier only whitespace. Then a missing final line break is
		// supplied to a non-empty newText.
		ol := splitLF(toLF(e.OldText))
		last := ol[len(ol)-1]
		endsNL := len(ol) > 1 && (last == "" || (r.Tier != TierExact && foldFragment(last) == ""))
		nl := splitLF(toLF(e.NewText))
		newEndsNL := len(nl) > 1 && (nl[len(nl)-1] == "" || (r.Tier != TierExact && foldFragment(nl[len(nl)-1]) == ""))
		if fo == "" || countOverlapping(F, fo) != 1 {
			return // where the edit goes cannot be told from the folded file alone
		}
		if endsNL && e.NewText != "" && !newEndsNL {
			// The literal result is meant where it leaves whole lines: a line break
			// follows, or the file ends there. Else a final line break is supplied.
			at := strings.Index(F, fo) + len(fo)
			switch {
			case at < len(F) && F[at] == '\n' && blankLines.Match(orig):
				return // the line after may hold only whitespace, which F does not show
			case at < len(F) && F[at] != '\n':
				fn += "\n"
			}
		}
		puts = append(puts, put{strings.Index(F, fo), len(fo), fn})
	}
	for i := 1; i < len(puts); i++ {
		for j := i; j > 0 && puts[j].at < puts[j-1].at; j-- {
			puts[j], puts[j-1] = puts[j-1], puts[j]
		}
	}
	want := F
	for i := len(puts) - 1; i >= 0; i-- {
		p := puts[i]
		if i > 0 && puts[i-1].at+puts[i-1].n > p.at {
			return
		}
		want = want[:p.at] + p.text + want[p.at+p.n:]
	}
	// The pieces put together may compose anew (A + a combining accent is Á), and marks
	// that dropped spaces bring together are reordered: normalize both sides again.
	want = norm.NFKC.String(want)
	if got := norm.NFKC.String(testFold(string(res.Output))); strings.TrimRight(got, "\n") != strings.TrimRight(want, "\n") {
		t.Fatalf("the result does not mean what the model asked for:\n got %q\nwant %q", got, want)
	}
}

// foldClass reports whether r is one of the characters the fuzzy tiers fold away.
func foldClass(r rune) bool {
	if r < utf8.RuneSelf || r == utf8.RuneError {
		return false
	}
	return foldFragment(string(r)) != string(r)
}

func checkNoDrift(t *testing.T, orig []byte, edits []Edit, res *Result) {
	t.Helper()
	for _, e := range edits {
		for _, r := range e.OldText {
			if foldClass(r) && !bytes.ContainsRune(orig, r) && bytes.ContainsRune(res.Output, r) {
				t.Fatalf("%U, which the model typed in oldText where the file has no such character, was written into the file", r)
			}
		}
	}
}

func countOverlapping(s, sub string) int {
	n := 0
	for i := strings.Index(s, sub); i >= 0; {
		n++
		j := strings.Index(s[i+1:], sub)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return n
}

// misordered reports combining marks (after compatibility decomposition):
// normalization reorders and composes them across an edit's place, so the oracle's
// folded meaning would not line up. Table tests cover NFC and NFD files.
func misordered(s string) bool {
	d := norm.NFKD.String(s)
	for i := 0; i < len(d); {
		p := norm.NFD.PropertiesString(d[i:])
		if p.CCC() != 0 {
			return true
		}
		i += max(p.Size(), 1)
	}
	return false
}

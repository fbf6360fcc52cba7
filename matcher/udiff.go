package matcher

import (
	"fmt"
	"slices"
	"strings"
)

// diffContext is how many unchanged lines a diff shows around each change. The
// journal keeps most diffs as splices and renders them again (PlacedDiff): a change to
// the rendering changes what vfsctl show prints of calls already made.
const diffContext = 2

// MaxDiffBytes bounds a rendered diff: a change that rewrites a large file is shown
// in part, so that rendering it costs no more than that (its splices keep it whole).
const MaxDiffBytes = 1 << 20

// diffCut ends a diff cut at MaxDiffBytes.
const diffCut = "(diff cut at 1 MiB)\n"

// UnifiedDiff renders splices of original as a compact unified diff (line endings are
// not shown). It reads the splices only around their lines, so its cost follows the
// size of the change, not of the file.
func UnifiedDiff(name string, original []byte, splices []Splice) string {
	if len(splices) == 0 {
		return ""
	}
	return unifiedDiff(name, newDoc(original), splices)
}

// PlacedDiff is UnifiedDiff of splices placed by their bytes alone, FirstLine and
// LastLine unset: each splice is shown on the lines of original its bytes [Start, End)
// touch, as Apply numbers them. A journal that keeps a change's splices but not its
// diff renders the diff again with it.
func PlacedDiff(name string, original []byte, splices []Splice) string {
	if len(splices) == 0 {
		return ""
	}
	d := newDoc(original)
	sp := make([]Splice, len(splices))
	for i, s := range splices {
		// A splice may begin in the BOM, which is on no line.
		fl, ll := d.linesTouched(max(s.Start-d.off, 0), max(s.End-d.off, 0))
		s.FirstLine, s.LastLine = fl+1, ll+1
		sp[i] = s
	}
	return unifiedDiff(name, d, sp)
}

// Diff renders the result's splices as UnifiedDiff does, reusing the line index the
// matching built.
func (r *Result) Diff(name string) string {
	if len(r.Splices) == 0 {
		return ""
	}
	d := *r.doc // a doc indexes itself as it is read: a copy keeps Diff safe for concurrent use
	return unifiedDiff(name, &d, r.Splices)
}

func unifiedDiff(name string, d *doc, splices []Splice) string {
	original := d.data
	var b strings.Builder
	fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", name, name)
	if len(original) == 0 && len(splices) > 0 && !slices.ContainsFunc(splices, func(s Splice) bool { return len(s.Text) > 0 }) {
		return b.String() // an empty file left empty (made or written so): no hunk, as git prints none
	}
	delta := 0 // new-file lines minus old-file lines before the current group
	for g := 0; g < len(splices); {
		if b.Len() >= MaxDiffBytes {
			b.WriteString(diffCut)
			break
		}
		first, last := splices[g].FirstLine-1, splices[g].LastLine-1
		h := g + 1
		for h < len(splices) && splices[h].FirstLine-1 <= last+2*diffContext+1 {
			last = max(last, splices[h].LastLine-1)
			h++
		}
		// Widen by context lines from the file.
		from := max(first-diffContext, 0)
		to := min(last+diffContext, d.nlines()-1)
		lo, hi := d.off+d.start(from), d.off+d.eol(to)
		lo = min(lo, splices[g].Start) // a splice may begin in the BOM
		hi = max(hi, splices[h-1].End)
		var nt []byte
		prev := lo
		for _, s := range splices[g:h] {
			nt = append(nt, original[prev:s.Start]...)
			nt = append(nt, s.Text...)
			prev = s.End
		}
		nt = append(nt, original[prev:hi]...)
		oldLines := displayLines(string(original[lo:hi]))
		newLines := displayLines(string(nt))
		if hi == len(original) {
			// The file's last line: a line break missing on either side is shown, and
			// makes the line differ.
			markNoEOL(oldLines, original[lo:hi])
			markNoEOL(newLines, nt)
		}
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", span(from+1, len(oldLines)), span(from+1+delta, len(newLines)))
		for _, hk := range diffLines(oldLines, newLines) {
			if hk.equal {
				for _, l := range oldLines[hk.i1:hk.i2] {
					writeDiffLine(&b, ' ', l)
				}
				continue
			}
			for _, l := range oldLines[hk.i1:hk.i2] {
				writeDiffLine(&b, '-', l)
			}
			for _, l := range newLines[hk.j1:hk.j2] {
				writeDiffLine(&b, '+', l)
			}
		}

		delta += len(newLines) - len(oldLines)
		g = h
	}
	if b.Len() >= MaxDiffBytes && !strings.HasSuffix(b.String(), diffCut) {
		b.WriteString(diffCut)
	}
	return b.String()
}

// noEOL marks a last line without a line break; NUL never occurs in a text file.
const noEOL = "\x00"

func markNoEOL(lines []string, text []byte) {
	if n := len(lines); n > 0 && len(text) > 0 && text[len(text)-1] != '\n' && text[len(text)-1] != '\r' {
		lines[n-1] += noEOL
	}
}

func writeDiffLine(b *strings.Builder, mark byte, l string) {
	if b.Len() >= MaxDiffBytes {
		return // the diff ends with diffCut
	}
	if room := MaxDiffBytes - b.Len(); len(l) > room {
		l = l[:room]
	}
	b.WriteByte(mark)
	if t, ok := strings.CutSuffix(l, noEOL); ok {
		b.WriteString(t + "\n\\ No newline at end of file\n")
		return
	}
	b.WriteString(l + "\n")
}

func displayLines(s string) []string {
	p := splitLF(s)
	if len(p) > 0 && p[len(p)-1] == "" {
		p = p[:len(p)-1]
	}
	return p
}

func span(from, n int) string {
	if n == 1 {
		return fmt.Sprint(from)
	}
	if n == 0 {
		from--
	}
	return fmt.Sprintf("%d,%d", from, n)
}

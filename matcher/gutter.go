package matcher

import (
	"strconv"
	"strings"
)

// stripGutter removes a line-number gutter that a model pasted from read_file output
// ("    12\tcode", "12→code", "12│code", "12 | code", "12: code"). Every line must carry
// one and the numbers must count up by one, so real text that starts with numbers is
// not mistaken for a gutter. first is the gutter's first line number.
func stripGutter(pieces []string) (out []string, first int, ok bool) {
	out = make([]string, 0, len(pieces))
	next := -1
	for i, s := range pieces {
		if s == "" && i == len(pieces)-1 && i > 0 {
			out = append(out, s) // the empty piece after a final line break
			break
		}
		n, rest, ok := cutGutter(s)
		if !ok || (next >= 0 && n != next) {
			return nil, 0, false
		}
		if next < 0 {
			first = n
		}
		next = n + 1
		out = append(out, rest)
	}
	return out, first, next >= 0
}

var gutterSeps = []string{"\t", "→", "│", " | ", "| ", "|", ": "}

func cutGutter(s string) (int, string, bool) {
	t := strings.TrimLeft(s, " ")
	d := 0
	for d < len(t) && t[d] >= '0' && t[d] <= '9' {
		d++
	}
	if d == 0 || d > 9 {
		return 0, "", false
	}
	n, _ := strconv.Atoi(t[:d])
	rest := t[d:]
	for _, sep := range gutterSeps {
		if strings.HasPrefix(rest, sep) {
			return n, rest[len(sep):], true
		}
	}
	if rest == "" { // an empty line in a gutter ("    12" with nothing after it)
		return n, "", true
	}
	return 0, "", false
}

// StripGutter removes a read_file gutter from lines, as edits have it removed: every
// line must carry one, numbered one after another. first is the first line number.
func StripGutter(lines []string) (out []string, first int, ok bool) { return stripGutter(lines) }

// CutGutter removes one line's gutter ("   113\tcode" is 113 and "code").
func CutGutter(s string) (n int, rest string, ok bool) { return cutGutter(s) }

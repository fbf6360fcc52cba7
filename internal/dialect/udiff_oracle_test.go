package dialect

import (
	"strconv"
	"strings"
)

// The oracle: a deliberately simple applier of well-formed unified diffs that trusts
// the headers' numbers and counts, as `patch` with no fuzz does. It shares no code
// with ParseUnifiedDiff or the locator, and refuses (ok false) whatever it is unsure of.

// oracleHunk is one hunk as the oracle reads it.
type oracleHunk struct {
	oldStart, oldN int
	lines          []string // the hunk's lines, each with its ' ', '-', '+' or '\' first
}

// oracleParse reads the one file section of diff: its `---`/`+++` headers, then its
// hunks by their counts. Only what follows a hunk's counted lines may be a `\` line,
// the next `@@` header or empty lines at the end.
func oracleParse(diff string) ([]oracleHunk, bool) {
	lines := strings.Split(strings.TrimRight(diff, "\n"), "\n")
	i := 0
	for i < len(lines) && !strings.HasPrefix(lines[i], "--- ") {
		i++
	}
	if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "+++ ") {
		return nil, false
	}
	i += 2
	var hunks []oracleHunk
	for i < len(lines) {
		var h oracleHunk
		f := strings.Fields(lines[i])
		if len(f) < 4 || f[0] != "@@" || f[3] != "@@" || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
			return nil, false
		}
		var newN int
		var ok1, ok2 bool
		h.oldStart, h.oldN, ok1 = oracleRange(f[1][1:])
		_, newN, ok2 = oracleRange(f[2][1:])
		if !ok1 || !ok2 {
			return nil, false
		}
		i++
		o, n := h.oldN, newN
		for o > 0 || n > 0 {
			if i >= len(lines) || lines[i] == "" {
				return nil, false
			}
			switch lines[i][0] {
			case ' ':
				o, n = o-1, n-1
			case '-':
				o--
			case '+':
				n--
			case '\\':
			default:
				return nil, false
			}
			h.lines = append(h.lines, lines[i])
			i++
		}
		if o != 0 || n != 0 {
			return nil, false
		}
		for i < len(lines) && strings.HasPrefix(lines[i], "\\") {
			h.lines = append(h.lines, lines[i])
			i++
		}
		hunks = append(hunks, h)
		if i < len(lines) && !strings.HasPrefix(lines[i], "@@") {
			return nil, false
		}
	}
	return hunks, len(hunks) > 0
}

func oracleRange(s string) (start, n int, ok bool) {
	a, b, comma := strings.Cut(s, ",")
	start, err := strconv.Atoi(a)
	if err != nil {
		return 0, 0, false
	}
	n = 1
	if comma {
		if n, err = strconv.Atoi(b); err != nil {
			return 0, 0, false
		}
	}
	return start, n, true
}

// oracleApply applies hunks to pre at their line numbers: each hunk's ' ' and '-'
// lines must be pre's lines there, in order, hunks one after the other.
func oracleApply(pre string, hunks []oracleHunk) (string, bool) {
	lines := strings.SplitAfter(pre, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var out strings.Builder
	k := 0 // next line of pre
	for _, h := range hunks {
		start := h.oldStart - 1
		if h.oldN == 0 {
			start = h.oldStart // an insertion goes after line oldStart
		}
		if start < k || start > len(lines) {
			return "", false
		}
		for ; k < start; k++ {
			out.WriteString(lines[k])
		}
		prev := byte(0)
		for j, l := range h.lines {
			text := l[1:]
			switch l[0] {
			case ' ', '-':
				if k >= len(lines) || strings.TrimSuffix(lines[k], "\n") != text {
					return "", false
				}
				// A line without a line break is the file's last, and the diff says so.
				marked := j+1 < len(h.lines) && h.lines[j+1][0] == '\\'
				if !strings.HasSuffix(lines[k], "\n") && !marked {
					return "", false
				}
				if l[0] == ' ' {
					out.WriteString(lines[k])
				}
				k++
			case '+':
				out.WriteString(text + "\n")
			case '\\':
				if prev == '+' {
					s := strings.TrimSuffix(out.String(), "\n")
					out.Reset()
					out.WriteString(s)
				} else if prev == 0 || strings.HasSuffix(lines[k-1], "\n") {
					return "", false // the old line it speaks of does end in a line break
				}
			}
			prev = l[0]
		}
		if strings.Contains(oracleDiff("", []oracleHunk{h}), "\n\\") && k != len(lines) {
			return "", false // a missing line break is at the end of the file, and so is its hunk
		}
	}
	for ; k < len(lines); k++ {
		out.WriteString(lines[k])
	}
	return out.String(), true
}

// oracleDiff writes the headers and the given hunks as a diff of path.
func oracleDiff(path string, hunks []oracleHunk) string {
	var b strings.Builder
	b.WriteString("--- a/" + path + "\n+++ b/" + path + "\n")
	for _, h := range hunks {
		o, n := 0, 0
		for _, l := range h.lines {
			switch l[0] {
			case ' ':
				o, n = o+1, n+1
			case '-':
				o++
			case '+':
				n++
			}
		}
		b.WriteString("@@ -" + strconv.Itoa(h.oldStart) + "," + strconv.Itoa(o) + " +" + strconv.Itoa(h.oldStart) + "," + strconv.Itoa(n) + " @@\n")
		for _, l := range h.lines {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

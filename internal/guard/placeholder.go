package guard

import (
	"path"
	"regexp"
	"strings"
)

// Placeholder is a placeholder comment that a change puts where it deletes real lines.
type Placeholder struct {
	Line    int    // 1-based, in the new content
	Text    string // the placeholder line, trimmed
	Deleted int    // the real (non-blank) lines the change deletes around it
}

// Change is one region a change replaces: Old as the file had it, New as it will be,
// and the line of the new content where New starts.
type Change struct {
	Old, New []byte
	Line     int
}

// moreCode lists code extensions, beyond the guarded languages', whose comments the
// placeholder guard knows.
var moreCode = map[string]bool{
	".rb": true, ".php": true, ".swift": true, ".kt": true, ".kts": true, ".scala": true, ".cs": true,
	".lua": true, ".sql": true, ".r": true, ".pl": true, ".ex": true, ".exs": true, ".erl": true,
	".hs": true, ".ml": true, ".clj": true, ".dart": true, ".vue": true, ".svelte": true, ".m": true,
	".mm": true, ".zig": true, ".nim": true, ".tf": true, ".gradle": true, ".groovy": true, ".scss": true,
	".less": true, ".xml": true, ".ini": true, ".cfg": true, ".conf": true, ".ps1": true, ".zsh": true,
}

func isEllipsis(line string) bool {
	s := strings.TrimSpace(line)
	return s == "..." || s == "…"
}

// commentBody returns the text of a line that is a comment and nothing else, in any
// of the usual forms, and whether it is one; a bare ellipsis line counts, with its
// ellipsis as the body.
func commentBody(line string) (string, bool) {
	s := strings.TrimSpace(line)
	switch {
	case s == "...", s == "…", s == "[...]":
		return "...", true
	case strings.HasPrefix(s, "<!--") && strings.HasSuffix(s, "-->"):
		return strings.TrimSpace(s[4 : len(s)-3]), true
	case strings.HasPrefix(s, "/*") && strings.HasSuffix(s, "*/") && len(s) >= 4:
		return strings.TrimSpace(s[2 : len(s)-2]), true
	case strings.HasPrefix(s, "{/*") && strings.HasSuffix(s, "*/}"):
		return strings.TrimSpace(s[3 : len(s)-3]), true
	}
	for _, p := range []string{"//", "#", "--", ";", "%"} {
		if strings.HasPrefix(s, p) {
			return strings.TrimSpace(strings.TrimLeft(s[len(p):], "/#;!*")), true
		}
	}
	return "", false
}

var (
	// An ellipsis with words around it, or alone.
	ellipsis = regexp.MustCompile(`\.\.\.|…|\[\s*\.\.\.\s*\]`)
	// What models write in place of code they leave out.
	keptWords = regexp.MustCompile(`(?i)\b(existing|rest of|remaining|remainder|unchanged|same as (before|above|below|original)|as before|left out|omitted|omit|elided|truncated|previous|original|other (code|methods|functions|fields|cases|imports|tests)|no changes?|unmodified|kept|keep|stays? the same|code here|implementation here|etc)\b`)
	// The same, strong enough without an ellipsis: "rest of the function unchanged".
	strongWords = regexp.MustCompile(`(?i)^((the )?rest of (the )?\w+( \w+)? (is |remains |stays )?(unchanged|the same|as (before|is))|(existing|remaining|other|previous) (code|methods|functions|imports|logic|content|implementation)( (here|remains?|is|stays?|unchanged|omitted|as before|the same))*|(code|content|implementation) (unchanged|omitted|left out|remains the same|stays the same)|(unchanged|omitted|elided) (code|lines|content)( (omitted|elided|here|remains|unchanged))?|keep (existing|the rest)( \w+)*)\W*$`)
)

// isPlaceholder reports whether line is a placeholder comment.
func isPlaceholder(line string) bool {
	body, ok := commentBody(line)
	if !ok {
		return false
	}
	body = strings.TrimSpace(strings.Trim(body, "()[]{}"))
	if body == "..." {
		return true
	}
	if ellipsis.MatchString(body) {
		rest := strings.TrimSpace(ellipsis.ReplaceAllString(body, " "))
		return rest == "" || keptWords.MatchString(rest)
	}
	return strongWords.MatchString(body)
}

// Placeholders reports the first placeholder comment a change puts in place of real
// lines: a placeholder line in New that Old did not have, in a change that deletes at
// least one non-blank line of Old. A placeholder already in the file, a comment that
// merely mentions an ellipsis among other words, and an ellipsis inside a string pass.
func Placeholders(p string, changes []Change) *Placeholder {
	ext := strings.ToLower(path.Ext(p))
	if _, ok := byExt[ext]; !ok && !moreCode[ext] {
		return nil // prose (Markdown's "#" is a heading) and data without comments
	}
	python := byExt[ext] == "python"
	for _, c := range changes {
		oldLines := strings.Split(string(c.Old), "\n")
		newLines := strings.Split(string(c.New), "\n")
		had := map[string]bool{}
		for _, l := range oldLines {
			had[strings.TrimSpace(l)] = true
		}
		at := -1
		for i, l := range newLines {
			if python && isEllipsis(l) {
				continue // "..." is a body in Python (stubs, protocols, abstract methods)
			}
			if isPlaceholder(l) && !had[strings.TrimSpace(l)] {
				at = i
				break
			}
		}
		if at < 0 {
			continue
		}
		if n := deletedLines(oldLines, newLines); n > 0 {
			return &Placeholder{Line: c.Line + at, Text: strings.TrimSpace(newLines[at]), Deleted: n}
		}
	}
	return nil
}

// deletedLines counts the non-blank lines of old that new neither keeps nor changes,
// as a line diff (longest common subsequence of trimmed lines) sees it; for large
// regions, by the lines of old that new lacks altogether.
func deletedLines(old, new []string) int {
	trim := func(ls []string) []string {
		out := make([]string, 0, len(ls))
		for _, l := range ls {
			if t := strings.TrimSpace(l); t != "" {
				out = append(out, t)
			}
		}
		return out
	}
	a, b := trim(old), trim(new)
	for len(a) > 0 && len(b) > 0 && a[0] == b[0] {
		a, b = a[1:], b[1:]
	}
	for len(a) > 0 && len(b) > 0 && a[len(a)-1] == b[len(b)-1] {
		a, b = a[:len(a)-1], b[:len(b)-1]
	}
	if len(a)*len(b) > 4<<20 {
		in := map[string]int{}
		for _, l := range b {
			in[l]++
		}
		kept := 0
		for _, l := range a {
			if in[l] > 0 {
				in[l]--
				kept++
			}
		}
		return unkept(len(a), kept, b)
	}
	// lcs[j] over b, one row of a at a time.
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			switch {
			case a[i-1] == b[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] >= cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	return unkept(len(a), prev[len(b)], b)
}

// unkept is how many of n old lines a change deletes, kept of them being in the new
// lines b: an old line paired with a new real line was changed, not deleted.
func unkept(n, kept int, b []string) int {
	real := 0
	for _, l := range b {
		if !isPlaceholder(l) {
			real++
		}
	}
	return max(0, n-kept-(real-kept))
}

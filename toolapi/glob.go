package toolapi

import (
	"fmt"
	"path"
	"strings"
)

// A glob is a pattern on slash-separated paths, as every tool that takes one reads it
// (list_files' pattern, search_files' glob, Gemini's glob, include and ignore):
//
//   - {a,b} stands for either alternative, nested braces too (*.{ts,tsx},
//     src/{lib,test/{unit,e2e}}/*.go), as ripgrep, VS Code and Gemini CLI read it;
//   - * and ? match within one name, [...] one character of a class, \ escapes the
//     next character (\{ is a brace in a name), as path.Match reads them;
//   - ** as a whole segment stands for any number of folders, none included;
//   - an alternative without a slash matches a name at any depth.
//
// A brace that does not pair is refused: read as a literal it would match nothing,
// and the reply would say there is nothing.
type glob struct {
	alts [][]string // each alternative, split at '/'
}

// maxGlobAlternatives bounds what a pattern's braces expand to: {a,b}{c,d}... doubles
// with each pair.
const maxGlobAlternatives = 256

// maxGlobLen bounds a pattern's length: its expansion costs up to
// maxGlobAlternatives times it, and no path is longer.
const maxGlobLen = 4096

// parseGlob compiles pattern, or says what is wrong with it.
func parseGlob(pattern string) (*glob, error) {
	if len(pattern) > maxGlobLen {
		return nil, fmt.Errorf("the pattern is %d bytes long, over the %d a glob may be: send a shorter one (a path is never that long)", len(pattern), maxGlobLen)
	}
	alts, err := expandBraces(pattern)
	if err != nil {
		return nil, err
	}
	g := &glob{}
	for _, a := range alts {
		if _, err := path.Match(a, ""); err != nil {
			return nil, fmt.Errorf("%q has a '[' without its ']', or ends in a lone '\\'", a)
		}
		g.alts = append(g.alts, strings.Split(a, "/"))
	}
	return g, nil
}

// match reports whether the slash-separated path p matches.
func (g *glob) match(p string) bool {
	var parts []string
	for _, a := range g.alts {
		if len(a) == 1 && a[0] != "**" {
			if ok, _ := path.Match(a[0], path.Base(p)); ok {
				return true
			}
			continue
		}
		if parts == nil {
			parts = strings.Split(p, "/")
		}
		if matchParts(a, parts) {
			return true
		}
	}
	return false
}

// matchParts matches a path's names against a pattern's segments, ** standing for
// any number of names. As a * in a wildcard match, only the latest ** needs trying
// again with one more name: each other segment takes exactly one name, so the walk
// is linear in the path per **, not exponential in the number of **.
func matchParts(pat, parts []string) bool {
	pi, si := 0, 0
	star, mark := -1, 0 // the latest ** and the first name it has not taken
	for si < len(parts) {
		switch {
		case pi < len(pat) && pat[pi] == "**":
			star, mark = pi, si
			pi++
		case pi < len(pat) && nameMatch(pat[pi], parts[si]):
			pi, si = pi+1, si+1
		case star >= 0:
			mark++ // the ** takes one more name
			pi, si = star+1, mark
		default:
			return false
		}
	}
	for pi < len(pat) && pat[pi] == "**" {
		pi++
	}
	return pi == len(pat)
}

func nameMatch(pattern, name string) bool {
	ok, _ := path.Match(pattern, name)
	return ok
}

// expandBraces returns the alternatives pattern's braces stand for, in order. Escapes
// and character classes are copied as they are, for path.Match to read: a brace or a
// comma in them is a character.
func expandBraces(pattern string) ([]string, error) {
	alts, i, err := braceSeq(pattern, 0, false)
	if err != nil {
		return nil, err
	}
	if i < len(pattern) { // only a '}' stops the top level early
		return nil, fmt.Errorf("the '}' at character %d closes no '{': remove it, or write \\} for a brace in a name", i+1)
	}
	return alts, nil
}

// braceSeq expands pattern from i up to its end or, inside braces, up to the ',' or
// '}' that ends the alternative; it returns where it stopped.
func braceSeq(pattern string, i int, inBraces bool) ([]string, int, error) {
	out := []string{""}
	add := func(s string) {
		for k := range out {
			out[k] += s
		}
	}
	for i < len(pattern) {
		switch c := pattern[i]; c {
		case '\\':
			end := min(i+2, len(pattern))
			add(pattern[i:end])
			i = end
		case '[':
			end := classEnd(pattern, i)
			add(pattern[i:end])
			i = end
		case ',':
			if inBraces {
				return out, i, nil
			}
			add(",")
			i++
		case '}':
			return out, i, nil
		case '{':
			open := i
			var alts []string
			for {
				seq, j, err := braceSeq(pattern, i+1, true)
				if err != nil {
					return nil, 0, err
				}
				alts = append(alts, seq...)
				if j >= len(pattern) {
					return nil, 0, fmt.Errorf("the '{' at character %d is never closed: close it with '}', or write \\{ for a brace in a name", open+1)
				}
				i = j
				if pattern[i] == '}' {
					break
				}
			}
			i++ // past the '}'
			if len(out)*len(alts) > maxGlobAlternatives {
				return nil, 0, fmt.Errorf("its braces stand for more than %d patterns: send fewer alternatives, or one call per group", maxGlobAlternatives)
			}
			var next []string
			for _, o := range out {
				for _, a := range alts {
					next = append(next, o+a)
				}
			}
			out = next
		default:
			add(string(c))
			i++
		}
	}
	return out, i, nil
}

// classEnd returns the offset just past the character class that begins at
// pattern[i] ('['), or the pattern's end when it is not closed (path.Match then
// refuses the pattern).
func classEnd(pattern string, i int) int {
	j := i + 1
	if j < len(pattern) && pattern[j] == '^' {
		j++
	}
	for j < len(pattern) {
		switch pattern[j] {
		case '\\':
			j += 2
			continue
		case ']':
			return j + 1
		}
		j++
	}
	return len(pattern)
}

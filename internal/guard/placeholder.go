package guard

import (
	"path"
	"regexp"
	"strings"
	"sync"
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
	case strings.HasPrefix(s, "<!--") && strings.HasSuffix(s, "-->") && len(s) >= 7:
		return strings.TrimSpace(s[4 : len(s)-3]), true
	case strings.HasPrefix(s, "{/*") && strings.HasSuffix(s, "*/}") && len(s) >= 6:
		return strings.TrimSpace(s[3 : len(s)-3]), true
	case strings.HasPrefix(s, "/*") && strings.HasSuffix(s, "*/") && len(s) >= 4:
		return strings.TrimSpace(strings.Trim(s[2:len(s)-2], "*")), true
	case strings.HasPrefix(s, "(*") && strings.HasSuffix(s, "*)") && len(s) >= 4:
		return strings.TrimSpace(s[2 : len(s)-2]), true
	case strings.HasPrefix(s, "{-") && strings.HasSuffix(s, "-}") && len(s) >= 4:
		return strings.TrimSpace(s[2 : len(s)-2]), true
	}
	for _, p := range []string{"//", "#", "--", ";", "%"} {
		if strings.HasPrefix(s, p) {
			return strings.TrimSpace(strings.TrimLeft(s[len(p):], "/#;!*%-")), true
		}
	}
	return "", false
}

// placeholderPatterns are the patterns isPlaceholder matches with. They are
// compiled on first use, not when the program starts: compiling them took longer
// than the rest of the start of a command that guards nothing (vfsctl log, exec).
type placeholderPatterns struct {
	ellipsis, keptWords, notePrefix, phrases, afterDots, wrapped *regexp.Regexp
}

var patterns = sync.OnceValue(func() *placeholderPatterns {
	return &placeholderPatterns{
		// An ellipsis, in the spellings models use (five dots or more are a divider).
		ellipsis: regexp.MustCompile(`\.{3,4}|…|\. \. \.`),
		// Words that, in the few after an ellipsis, say that code was left out
		// ("... existing", "... keep"). Not "etc" or "other": "... etc" and "... other
		// lengths" continue sentences in real comments.
		keptWords: regexp.MustCompile(`\b(existing|remaining|remainder|unchanged|same|as before|left out|omitted|omit|elided|truncated|previous|original|unmodified|kept|keep|snip|code|implementation)\b`),
		// A note a model writes in front of the placeholder ("TODO: same as above").
		notePrefix: regexp.MustCompile(`^(todo|note|fixme|nb|xxx)\b[:\-]?\s*`),
		// Whole comments that say code was left out.
		phrases: regexp.MustCompile("^(?:" + strings.Join([]string{
			// "unchanged", "same as before", "omitted for brevity".
			solo,
			// "rest unchanged", "rest of the function unchanged", "lines 2-4 unchanged",
			// "existing code remains", "code omitted for brevity", "other fields unchanged".
			subject + " " + pred,
			// "existing code", "rest of the file", "previous implementation here".
			alone,
			strongSubject + ` (?:here|below|above|goes here)`,
			// "keep the rest as is", "keep existing code", "leave unchanged", "insert existing code here".
			`(?:keep|leave|retain|preserve|insert|paste|reuse)(?: (?:the|your|all|any))?(?: (?:` + pred + `|` + leftOut + `(?: (?:` + pred + `|in place|here|from before|from above|intact))?))`,
			// "your code here", "code goes here", "implementation here".
			`(?:(?:your|the) )?` + bareNouns + ` (?:goes )?here`,
			// "12 more lines", "snip".
			`\d+ more lines?`,
			`snip(?:ped)?`,
		}, "|") + ")$"),
		// After an ellipsis, what was left out says it alone: "... other methods ...".
		afterDots: regexp.MustCompile("^" + subject + "$"),
		// In brackets, a comment says it stands for something: "(original code)",
		// "<existing code>", "(no changes)", "(omitted)".
		wrapped: regexp.MustCompile("^(?:" + pred + "|" + strongSubject + "|existing|previous|original|no changes?|same|omitted|elided|keep existing)$"),
	}
})

// The parts of p.phrases.
const (
	// nouns are what models say they left out, after "rest of", "other", "remaining".
	nouns = `(?:code|function|functions|func|method|methods|class|classes|file|module|implementation|implementations|impl|body|logic|content|contents|imports?|fields?|cases?|tests?|props|properties|config|configuration|settings|styles?|markup|template|components?|handlers?|routes?|definitions?|helpers?|members?|setup|section|sections|block|blocks|loop|statements?|declarations?|variables?|constants?|types?|interfaces?|exports?|dependencies|queries|query|columns|rows|rules|entries|keys|values|items|details|stuff|parts?|constructor|initialization|validation|error handling|html|css|jsx|script|schema|migrations?|api|endpoints?|calls?|checks?|cells|lines?|code paths?)`
	// coreNouns name code after "existing" or "original" ("original code"), where
	// others read as a sentence going on ("original interface type", "existing file").
	coreNouns = `(?:code|functions?|methods?|class|classes|module|implementation|impl|body|logic|contents?|imports|stuff|markup|styles|handlers|helpers|setup)`
	// bareNouns say "code" with no word before them ("body unchanged"); not "line",
	// "type" or "test", which real comments say unchanged or skipped.
	bareNouns = `(?:code|implementation|impl|body|logic|contents?|imports|constructor|methods|functions|helper functions|helpers|markup|styles|setup|details|function body|method body)`
	// subject is what was left out: "the rest (of the function)", "existing code",
	// "lines 2-4", "everything else", "15 lines".
	subject = `(?:` + strongSubject + `|(?:the )?(?:existing|remaining|other|old|current|same|all) ` + nouns + `(?: ` + nouns + `)?|(?:the )?` + bareNouns + `|everything(?: else)?(?: (?:below|above|after this|before this|here))?|all else|\d+ (?:more |other |unchanged |original )?lines?|lines? \d+(?: ?(?:-|to|through) ?\d+)?)`
	// strongSubject says "what was there".
	strongSubject = `(?:(?:the )?rest(?: of (?:the |this |that |your )?` + nouns + `(?: ` + nouns + `)?)?|(?:the )?remainder(?: of (?:the |this )?` + nouns + `(?: ` + nouns + `)?)?|remaining ` + coreNouns + `|(?:the |your )?(?:existing|previous|prior|original|earlier|unchanged) ` + coreNouns + `(?: ` + coreNouns + `)?)`
	// alone is what says "what was there" without a verb, in a comment of its own:
	// "rest of the file", "existing code", "unchanged code". Not a bare "the rest"
	// or "remainder", which end sentences in real comments, nor "original code",
	// which real code writes above an original kept in a comment.
	alone = `(?:(?:the )?rest of (?:the |this |that |your )?` + nouns + `(?: ` + nouns + `)?|(?:the )?remainder of (?:the |this )?` + nouns + `(?: ` + nouns + `)?|remaining ` + coreNouns + `|(?:the |your )?(?:existing|unchanged) ` + coreNouns + `(?: ` + coreNouns + `)?)`
	// leftOut is what an imperative keeps: "keep the rest", "keep existing code".
	leftOut = `(?:` + strongSubject + `|everything(?: else)?|all else)`
	// pred says it stays as it was, after its subject.
	pred = `(?:(?:is |are |was |were |has been |have been |remains? |stays? |left |kept )?(?:unchanged|untouched|unmodified|intact|the same|same|omitted|elided|left out|not shown|not changed|not modified|as is|as before|as above|as previously|as it was|as they were|as in the original|as original|like before|same as (?:before|above|below|earlier|previously|original|the original|in the original)|same code as before|unchanged from (?:before|the original|above))(?: (?:for brevity|for clarity|for now|here|below|above|from before|from the original|as before|as is))*|remains|stays|no changes?(?: (?:here|below|above|needed|made))?|nothing(?: else)? changed(?: here| below)?|keep existing)`
	// solo is what says it alone: "unchanged", "same as before", "omitted for
	// brevity". Not a bare "omitted", "elided", "same" or "preserved", which end
	// sentences in real comments, nor a bare "no changes" or "nothing changed", which
	// tests say of their own cases.
	solo = `(?:unchanged(?: (?:for brevity|here|below|above|from before|from the original|as before|as is))*|(?:omitted|elided|left out|not shown) (?:for brevity|for clarity|for now|here|below|above)|as before|as above|as previously|like before|same as (?:before|above|below|earlier|previously|original|the original|in the original)|same code as before|unchanged from (?:before|the original|above)|no changes? (?:here|below|above|to the rest)|nothing(?: else)? changed (?:here|below)|keep existing)`
)

// isPlaceholder reports whether line is a placeholder comment: an ellipsis alone,
// one followed by a few words that say code was left out ("// ... existing code ..."),
// or a whole comment that says so in one of the phrases models use ("# rest unchanged",
// "// (same as before)", "-- lines 2-4 unchanged"). A comment that says more than that
// ("// Same as above, but for writes.") is an ordinary comment.
func isPlaceholder(line string) bool {
	body, ok := commentBody(line)
	if !ok {
		return false
	}
	body = strings.ToLower(body)
	if len(body) > 120 || len(body) >= 5 && strings.Trim(body, ".") == "" {
		return false // longer than any placeholder, or a divider of dots
	}
	p := patterns()
	body = p.notePrefix.ReplaceAllString(body, "")
	leads := p.ellipsis.FindStringIndex(strings.TrimLeft(body, "([{< "))
	dots := leads != nil
	body = strings.TrimSpace(p.ellipsis.ReplaceAllString(body, " "))
	if dots && strings.Trim(body, " ()[]<>") == "" {
		return true // "...", "(...)", "[...]"
	}
	inBrackets := isWrapped(strings.TrimRight(body, ".:;"))
	body = strings.Map(func(r rune) rune {
		switch r {
		case '(', ')', '[', ']', '{', '}', '<', '>', '"', '\'', '`', '*', '_', ',', '!', '?', '=', '.':
			return ' '
		}
		return r
	}, body)
	words := strings.Fields(strings.TrimRight(body, ":;- "))
	body = strings.Join(words, " ")
	switch {
	case body == "":
		return false
	case p.phrases.MatchString(body), inBrackets && p.wrapped.MatchString(body):
		return true
	case dots && leads[0] == 0:
		// "... other methods", "... keep": what was left out, or a few words that
		// say so, after an p.ellipsis.
		return p.afterDots.MatchString(body) || len(words) <= 3 && p.keptWords.MatchString(body)
	}
	return false
}

// isWrapped reports a text wholly in one pair of brackets: "(original code)".
func isWrapped(s string) bool {
	if len(s) < 2 {
		return false
	}
	pairs := map[byte]byte{'(': ')', '[': ']', '<': '>', '{': '}'}
	closer, ok := pairs[s[0]]
	return ok && s[len(s)-1] == closer && strings.IndexByte(s[1:len(s)-1], closer) < 0
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

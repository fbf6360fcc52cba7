// Package guard looks at a file's planned new content before it is written and says
// whether the change breaks it: a syntax error the old content did not have, or real
// lines replaced by a placeholder comment ("// ... existing code ...").
//
// It is pure (bytes in, findings out) except for a cache of the last parse of each
// file, which lets tree-sitter reparse only what an edit touched. Syntax is checked
// with the standard parsers where they are exact (go/parser, encoding/json) and with
// tree-sitter for the rest when the build has cgo; without cgo, pure-Go parsers take
// JavaScript and TypeScript (esbuild), TOML and YAML, and other languages go
// unguarded. Active reports which languages are guarded in this build.
//
// Only a file that parsed is guarded: a change that leaves it with a syntax error is
// flagged, wherever the parser places the error (often lines below the edit, for a
// missing brace); a file that was already broken stays editable, since parsers
// recover from errors too differently to tell reliably which errors are new.
package guard

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strings"
	"unicode/utf8"
)

// Mode says what a guard's finding does to a call.
type Mode string

const (
	Refuse Mode = "refuse" // the call is refused, nothing is written (the default)
	Warn   Mode = "warn"   // the change is written, and the reply says what broke
	Off    Mode = "off"    // no guard runs
)

// ParseMode reads a mode as a flag gives it; "" is Refuse.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "":
		return Refuse, nil
	case Refuse, Warn, Off:
		return Mode(s), nil
	}
	return "", fmt.Errorf("guard mode %q: want refuse, warn or off", s)
}

// SyntaxError is a syntax error a change introduced.
type SyntaxError struct {
	Language string
	Line     int    // 1-based, in the new content
	Column   int    // 1-based, in bytes
	Message  string // the parser's words, made short
	Node     string // what the parser flagged (tree-sitter: ERROR or MISSING x)
	// Firm: no version of the language takes it (`except A, B as e:`), so no
	// grammar's lag explains it, and the call sent again is refused again.
	Firm bool
	// Later: a later version of the language takes it (`except A, B:` from Python
	// 3.14): it is refused as a grammar's lag is, and written when sent again.
	Later bool
}

// synErr is one error as a parser reports it. end is the byte offset where the
// flagged text ends, where the parser says (tree-sitter's ERROR nodes); else 0.
type synErr struct {
	line, col int
	end       int
	msg, node string
	firm      bool
	// later: a later version of the language takes it (`except A, B:` from Python
	// 3.14), so a file that has it may be valid for its project, and an edit that
	// leaves it as it was is not refused for it.
	later bool
}

// parseFunc returns the syntax errors of src, in order.
type parseFunc func(src []byte) []synErr

// languages maps a language name to its parser; filled by the files of each backend.
var languages = map[string]parseFunc{}

// extra maps a language to a check whose errors are added to its parser's.
var extra = map[string]parseFunc{}

// exactTokens maps a language to a check of its tokens and indentation that is exact
// where it finds an error, in every build (Python's: tree-sitter's grammar lets an
// unindent to no open level through, and refuses some a line inside brackets). An edit
// of a file it passes is refused on its word alone, and an edit that only changes the
// whitespace that begins lines is decided by it alone.
var exactTokens = map[string]parseFunc{}

// approximate marks the languages only tree-sitter parses: their grammars lag behind
// the languages (a Python 3.13 type parameter default), so a new file in one is
// refused on an exact check's word alone (Python's tokens and indentation), and
// written with a warning where only the grammar finds an error (Doubtful); an edit of
// a file that parsed is refused.
var approximate = map[string]bool{}

// recursive marks the languages whose parsers recurse without a bound of their own
// (go/parser and encoding/json stop at a depth; tree-sitter keeps its own stack).
var recursive = map[string]bool{"javascript": true, "jsx": true, "typescript": true, "tsx": true, "yaml": true, "toml": true}

// maxDepth bounds the nesting of brackets a file may have to be parsed: recursive
// parsers (esbuild's) overflow the stack on a file nested a few hundred thousand deep,
// and the YAML and TOML decoders slow quadratically. No real source nests this deep.
const maxDepth = 500

// tooDeep reports brackets nested deeper than maxDepth, counted roughly (strings are
// not told apart, which can only overcount).
func tooDeep(src []byte) bool {
	d := 0
	for _, c := range src {
		switch c {
		case '(', '[', '{':
			if d++; d > maxDepth {
				return true
			}
		case ')', ']', '}':
			if d > 0 {
				d--
			}
		}
	}
	return false
}

// exact maps a language to its exact parser where the one in languages is a faster,
// approximate one (tree-sitter's Go grammar, confirmed by go/parser).
var exact = map[string]parseFunc{}

// byExt maps a file extension to a language name.
var byExt = map[string]string{
	".go": "go", ".json": "json",
	".py": "python", ".pyi": "python",
	".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "jsx",
	".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
	".yaml": "yaml", ".yml": "yaml", ".toml": "toml",
	".rs": "rust", ".java": "java", ".c": "c", ".h": "c",
	".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp",
	".sh": "bash", ".bash": "bash", ".html": "html", ".htm": "html", ".css": "css",
}

// byShebang maps an interpreter named on a first line "#!" to a language.
var byShebang = map[string]string{
	"python": "python", "python3": "python", "node": "javascript",
	"bash": "bash", "sh": "bash", "deno": "typescript",
}

// Language returns the language of the file at p holding content, by extension and,
// for a file without one, by its shebang; "" when it is not one this package knows, or
// when content is not plainly that language (notPlain): a new file is judged so.
func Language(p string, content []byte) string {
	l := languageByName(p, content)
	if l != "" && notPlain(l, content) {
		return ""
	}
	return l
}

// languageByName is the language of the file at p by its name (its shebang, without
// an extension), whatever its content holds, but for the JSON files that editors and
// TypeScript read with comments (tsconfig.json, .vscode/): those are not JSON.
func languageByName(p string, content []byte) string {
	if l, ok := byExt[strings.ToLower(path.Ext(p))]; ok {
		if l == "json" && jsoncName(p) {
			return ""
		}
		return l
	}
	if path.Ext(p) != "" || !bytes.HasPrefix(content, []byte("#!")) {
		return ""
	}
	line, _, _ := bytes.Cut(content, []byte("\n"))
	fields := strings.Fields(string(line[2:]))
	if len(fields) == 0 {
		return ""
	}
	prog := path.Base(fields[0])
	if prog == "env" {
		prog = ""
		for _, f := range fields[1:] {
			if !strings.HasPrefix(f, "-") {
				prog = f
				break
			}
		}
	}
	prog = strings.TrimRight(prog, "0123456789.")
	if prog == "python" || byShebang[prog] != "" {
		if prog == "python" {
			return "python"
		}
		return byShebang[prog]
	}
	return ""
}

// partial notes languages this build guards only in part.
var partial = map[string]string{}

// notPlain reports whether a new file of a data language is not that language as its
// parser reads it: a template (Helm's, Jinja's: "{{" in YAML, JSON or TOML), or JSON
// with comments. A new one is not guarded: a valid one would be refused. A file that
// exists is judged by whether its content parsed instead (Syntax), so that a "{{" in
// one of its strings never turns its guard off.
func notPlain(lang string, content []byte) bool {
	switch lang {
	case "yaml", "toml":
		return templated(content)
	case "json":
		return templated(content) || jsonComment(content)
	}
	return false
}

// jsoncName reports the JSON files that editors and TypeScript read with comments.
func jsoncName(p string) bool {
	base := strings.ToLower(path.Base(p))
	return strings.HasPrefix(base, "tsconfig") || strings.HasPrefix(base, "jsconfig") || base == "devcontainer.json" ||
		strings.Contains(strings.ToLower(p), ".vscode/")
}

// jsonComment reports a // or /* comment outside JSON strings.
func jsonComment(src []byte) bool {
	in := false
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case !in && c == '/' && i+1 < len(src) && (src[i+1] == '/' || src[i+1] == '*'):
			return true
		}
	}
	return false
}

// templated reports a "{{" that is not a GitHub Actions expression ("${{", valid YAML).
func templated(content []byte) bool {
	for i := bytes.Index(content, []byte("{{")); i >= 0; {
		if i == 0 || content[i-1] != '$' {
			return true
		}
		j := bytes.Index(content[i+2:], []byte("{{"))
		if j < 0 {
			break
		}
		i += 2 + j
	}
	return false
}

// Active lists the languages guarded in this build, sorted, each with a note where it
// is guarded only in part.
func Active() []string {
	out := make([]string, 0, len(languages))
	for l := range languages {
		if n := partial[l]; n != "" {
			l += " (" + n + ")"
		}
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

// Backend says how this build parses: "tree-sitter" with cgo, else "pure Go".
func Backend() string { return backend }

// MaxSize is the largest content, in bytes, whose syntax is checked: a parse costs
// memory and time in proportion to the file, tens of times its size, and the file is
// parsed before and after the change. Measured (TestMeasureGuard) on 2 cores, cold:
// an edit of a file just under 4 MiB took 0.4 to 2.8 s and 50 to 280 MB above what the
// process held (YAML the most); of 30 MiB, 4 to 42 s and 0.4 to 2.4 GB. A file this
// large is generated or data, seldom edited by hand. maxSizeOf raises it for cheaper
// parsers.
const MaxSize = 4 << 20

// maxSizeOf is the bound of the languages whose parser costs less: encoding/json took
// 1 s and 150 MB for a file of 30 MiB.
var maxSizeOf = map[string]int{"json": 32 << 20}

func maxSize(lang string) int {
	if n := maxSizeOf[lang]; n > 0 {
		return n
	}
	return MaxSize
}

// guardedAs is the language the syntax guard parses the file at p as, "" for none. A
// file that exists is guarded by its name, and then only if its old content parses
// (Syntax): neither a "{{" in its strings nor a comment the change adds turns its guard
// off. A template or JSON with comments does not parse, and stays editable as a broken
// file does.
func guardedAs(p string, old, new []byte) string {
	lang := Language(p, new)
	if old != nil {
		lang = languageByName(p, old)
	}
	if languages[lang] == nil {
		return ""
	}
	return lang
}

// Unchecked says why the syntax guard does not look at the change of the file at p from
// old to new, though this build guards its language: the file is too large to parse
// at a bounded cost. It is "" when the guard looks, or when the language is not guarded.
func Unchecked(p string, old, new []byte) string {
	lang := guardedAs(p, old, new)
	if lang == "" {
		return ""
	}
	limit := maxSize(lang)
	if len(old) <= limit && len(new) <= limit {
		return ""
	}
	// The guard parses both: say which is too large, as each stands.
	size := fmt.Sprintf("the file is %d bytes", len(new))
	if len(new) <= limit {
		size = fmt.Sprintf("the file was %d bytes before the change (%d now)", len(old), len(new))
	}
	return fmt.Sprintf("%s, over the guard's limit for %s files of %d MiB (%d bytes): parsing a larger file takes too much memory and time", size, lang, limit>>20, limit)
}

// Syntax reports a syntax error of new when old parsed (or is nil, for a new file), or
// nil. Files of a language this build does not guard pass, and so do files larger than
// its parser's bound (Unchecked). A new file in a language only tree-sitter parses is
// refused on an exact check's word alone (Doubtful tells what its grammar finds).
func Syntax(p string, old, new []byte) *SyntaxError {
	lang := guardedAs(p, old, new)
	old, new = AsParsed(lang, old), AsParsed(lang, new)
	parse := languages[lang]
	if parse == nil || max(len(old), len(new)) > maxSize(lang) || recursive[lang] && (tooDeep(new) || old != nil && tooDeep(old)) {
		return nil
	}
	if old == nil && approximate[lang] {
		// A new file: the grammar may lag behind the language's newest syntax, the
		// exact check does not.
		if check := exactTokens[lang]; check != nil {
			if errs := check(new); len(errs) > 0 {
				return placed(lang, old, new, errs)
			}
		}
		return nil
	}
	if check := exactTokens[lang]; check != nil && old != nil && len(dropLater(check(old), nil, nil)) == 0 {
		if errs := dropLater(check(new), new, old); len(errs) > 0 {
			return placed(lang, old, new, errs)
		}
		if indentOnly(old, new) {
			return nil // the tokens are the old ones, and their indentation holds
		}
	}
	confirm := exact[lang]
	var newErrs []synErr
	if confirm != nil && !cached(p, old) {
		// A file the fast parser has no tree of: the exact parser is quicker than a
		// first full parse (go/parser against tree-sitter's Go grammar). The tree is
		// made meanwhile, so that the next edit of the file is warm.
		warm(p, lang, parse, new)
		if old != nil && len(confirm(old)) > 0 {
			return nil
		}
		if newErrs = confirm(new); len(newErrs) == 0 {
			return nil
		}
		confirm = nil
	} else {
		// The old content first: usually it is cached, and if not, the new content is
		// then parsed incrementally from its tree.
		if old != nil && len(dropLater(parseCached(p, lang, parse, old), nil, nil)) > 0 {
			return nil // it did not parse before: a broken file stays editable
		}
		if newErrs = dropLater(parseCached(p, lang, parse, new), new, old); len(newErrs) == 0 {
			return nil
		}
		if lang == "python" && exactTokens[lang] != nil && len(dropLater(parse(pyBracketLinesIndented(new)), new, old)) == 0 { // the same lines, so new names them
			return nil // the grammar's mistake: lines inside brackets have no indentation
		}
	}
	if confirm != nil {
		// A fast parser flagged the change; the exact one decides, in its own words.
		if newErrs = confirm(new); len(newErrs) == 0 {
			return nil
		}
		if old != nil && len(confirm(old)) > 0 {
			return nil
		}
	}
	return placed(lang, old, new, newErrs)
}

// doubted marks the languages whose grammar's errors in a new file are worth a
// warning: those whose grammar was found to flag no valid file of a real corpus
// (Python's). Tree-sitter's C and shell grammars flag many valid files (macros, C++ in
// a .h, "for f do"), and a warning there would have the model rewrite valid code.
var doubted = map[string]bool{"python": true}

// Doubtful reports the first syntax error of the new file at p, holding new, that
// Syntax lets through because only a grammar that may lag behind the language finds
// it (tree-sitter's): the file is written, and the caller says the error. It is nil
// for a file that parses, a file Syntax refuses, or one of a language not doubted.
func Doubtful(p string, new []byte) *SyntaxError {
	lang := Language(p, new)
	new = AsParsed(lang, new)
	parse := languages[lang]
	if !approximate[lang] || !doubted[lang] || parse == nil || len(new) > maxSize(lang) {
		return nil
	}
	if check := exactTokens[lang]; check != nil && len(check(new)) > 0 {
		return nil // Syntax refuses it
	}
	errs := parseCached(p, lang, parse, new) // the tree warms the file's next edit
	if len(errs) == 0 || lang == "python" && len(parse(pyBracketLinesIndented(new))) == 0 {
		return nil
	}
	return placed(lang, nil, new, errs)
}

// AsParsed is content as the parsers of lang read its lines, the same length, byte
// for byte where they read no line break differently: for Python, a CR alone ends a
// line, as CPython reads source (a file with the line endings of old Macs) and as
// read_file numbers lines, and is given to the parsers as LF (tree-sitter's grammar
// takes it for a space). The lines and columns of a SyntaxError of lang are those of
// AsParsed(lang, content): an excerpt quotes them from it.
func AsParsed(lang string, content []byte) []byte {
	if lang != "python" || bytes.IndexByte(content, '\r') < 0 {
		return content
	}
	out := bytes.Clone(content)
	for i, c := range out {
		if c == '\r' && (i+1 == len(out) || out[i+1] != '\n') {
			out[i] = '\n'
		}
	}
	return out
}

// dropLater leaves out of errs, errors of content src, those a later version of the
// language takes (except A, B:), but for those on a line of src that old does not
// have: a line the change wrote, not one it left as it was (a file of a project on
// that later version). A nil src leaves them all out.
func dropLater(errs []synErr, src, old []byte) []synErr {
	out := errs[:0:0]
	var lines map[string]bool // old's lines, made when first needed
	for _, e := range errs {
		if e.later {
			if src == nil {
				continue
			}
			if lines == nil {
				lines = map[string]bool{}
				for _, l := range bytes.Split(old, []byte("\n")) {
					lines[string(l)] = true
				}
			}
			if old != nil && lines[string(lineAtNumber(src, e.line))] {
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

// lineAtNumber is line n (1-based) of src, without its line break.
func lineAtNumber(src []byte, n int) []byte {
	for ; n > 1; n-- {
		i := bytes.IndexByte(src, '\n')
		if i < 0 {
			return nil
		}
		src = src[i+1:]
	}
	if i := bytes.IndexByte(src, '\n'); i >= 0 {
		src = src[:i]
	}
	return src
}

// placed names the first error of new that ends after the first changed byte: the one
// the change made. An error that spans the change (a parser that recovers late) is
// placed where the change begins.
func placed(lang string, old, new []byte, newErrs []synErr) *SyntaxError {
	if hard := dropLater(newErrs, nil, nil); len(hard) > 0 {
		// What no version takes first: a refusal of what a later one takes gives way
		// when the call is sent again, and would let the rest through with it.
		newErrs = hard
	}
	fc := firstChange(old, new)
	e := newErrs[0]
	for _, c := range newErrs {
		end := c.end
		if end == 0 {
			end = offsetOf(new, c.line, c.col) + 1
		}
		if end > fc {
			e = c
			if offsetOf(new, c.line, c.col) < fc {
				e.line, e.col = lineCol(new, fc)
				if e.node == "ERROR" {
					// The node's own text begins before the change, maybe lines
					// before it: quote the code where the change begins instead.
					e.msg = short(fmt.Sprintf("the code from here does not parse: %q", lineFrom(new, fc, 30)))
				}
			}
			break
		}
	}
	return &SyntaxError{Language: lang, Line: e.line, Column: e.col, Message: e.msg, Node: e.node, Firm: e.firm, Later: e.later}
}

// firstChange is the byte offset where new first differs from old.
func firstChange(old, new []byte) int {
	pre, _ := CommonEnds(old, new)
	return pre
}

// CommonEnds returns the lengths of the common prefix and suffix of a and b, not
// overlapping: what lies between them is what changed.
func CommonEnds(a, b []byte) (int, int) {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	return pre, suf
}

// offsetOf turns a 1-based line and column of src into a byte offset.
func offsetOf(src []byte, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return len(src)
		}
		off += i + 1
	}
	return min(off+max(col-1, 0), len(src))
}

// lineCol turns a byte offset of src into a 1-based line and column.
func lineCol(src []byte, off int) (int, int) {
	off = min(max(off, 0), len(src))
	line := bytes.Count(src[:off], []byte("\n")) + 1
	col := off - (bytes.LastIndexByte(src[:off], '\n') + 1) + 1
	return line, col
}

// short keeps a parser's message to one line of reasonable length.
// lineFrom is the rest of the line of src from off, at most n bytes (cut at a whole
// character).
func lineFrom(src []byte, off, n int) string {
	rest := src[off:]
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	if len(rest) > n {
		rest = rest[:n]
		for len(rest) > 0 && !utf8.Valid(rest) {
			rest = rest[:len(rest)-1]
		}
		return string(rest) + "..."
	}
	return string(rest)
}

func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

// Excerpt renders the lines of content around line (1-based), numbered, with the
// offending one marked, for a refusal a model reads.
func Excerpt(content []byte, line, col int) string {
	lines := strings.Split(string(content), "\n")
	var b strings.Builder
	for n := max(1, line-2); n <= min(len(lines), line+2); n++ {
		mark := "  "
		if n == line {
			mark = "> "
		}
		fmt.Fprintf(&b, "%s%5d\t%s\n", mark, n, strings.TrimRight(lines[n-1], "\r"))
		if n == line && col > 0 {
			pad := strings.Map(func(r rune) rune {
				if r == '\t' {
					return '\t'
				}
				return ' '
			}, lines[n-1][:min(col-1, len(lines[n-1]))])
			fmt.Fprintf(&b, "  %5s\t%s^\n", "", pad)
		}
	}
	return b.String()
}

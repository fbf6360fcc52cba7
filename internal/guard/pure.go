package guard

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	"github.com/evanw/esbuild/pkg/api"
	"github.com/goccy/go-yaml"

	"github.com/vfsctl/vfsctl/internal/lazy"
)

// Pure-Go parsers, exact for their languages, in every build: esbuild for JavaScript
// and TypeScript (tree-sitter's grammars take a curly quote for part of a name), and
// the TOML and YAML decoders.

func init() {
	languages["go"] = parseGo
	languages["json"] = parseJSON
	languages["python"] = parsePython
	exactTokens["python"] = parsePython
	languages["javascript"] = esbuildParser(api.LoaderJSX) // React projects write JSX in .js files
	languages["jsx"] = esbuildParser(api.LoaderJSX)
	languages["typescript"] = esbuildParser(api.LoaderTS)
	languages["tsx"] = esbuildParser(api.LoaderTSX)
	languages["toml"] = parseTOML
	languages["yaml"] = parseYAML
}

func esbuildParser(loader api.Loader) parseFunc {
	return func(src []byte) []synErr {
		res := api.Transform(string(src), api.TransformOptions{Loader: loader, LogLevel: api.LogLevelSilent})
		var out []synErr
		for _, m := range res.Errors {
			e := synErr{line: 1, col: 1, msg: short(m.Text)}
			if m.Location != nil {
				e.line, e.col = m.Location.Line, m.Location.Column+1
			}
			out = append(out, e)
		}
		return out
	}
}

func parseTOML(src []byte) []synErr {
	var v map[string]any
	_, err := toml.Decode(string(src), &v)
	if err == nil {
		return nil
	}
	e := synErr{line: 1, col: 1, msg: short(err.Error())}
	var pe toml.ParseError
	if errors.As(err, &pe) {
		e.line, e.col, e.msg = pe.Position.Line, pe.Position.Col, short(pe.Message)
	}
	return []synErr{e}
}

var yamlPos = lazy.Regexp(`^\[(\d+):(\d+)\]\s*(.*)`)

func parseYAML(src []byte) []synErr {
	var v any
	err := yaml.Unmarshal(src, &v)
	if err == nil {
		return nil
	}
	e := synErr{line: 1, col: 1, msg: short(err.Error())}
	if m := yamlPos().FindStringSubmatch(err.Error()); m != nil {
		e.line, _ = strconv.Atoi(m[1])
		e.col, _ = strconv.Atoi(m[2])
		first, _, _ := cutLine(m[3])
		e.msg = short(first)
	}
	return []synErr{e}
}

func cutLine(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// parsePython finds what CPython's tokenizer refuses and tree-sitter's grammar lets
// through, and what a tokenizer alone can see without cgo: a character outside
// strings and comments that cannot be part of a name (a curly quote typed as a string
// delimiter, an en dash typed as minus, a non-breaking space between tokens),
// brackets that do not pair, and indentation (pyindent.go).
func parsePython(src []byte) []synErr {
	var out []synErr
	flag := func(off int, msg string) {
		line, col := lineCol(src, off)
		out = append(out, synErr{line: line, col: col, msg: msg})
	}
	type open struct {
		c   byte
		off int
	}
	var stack []open
	pair := map[byte]byte{')': '(', ']': '[', '}': '{'}
	i := 0
	if string(src[:min(3, len(src))]) == "\ufeff" {
		i = 3 // CPython reads source as utf-8-sig: a leading BOM is no character
	}
	for i < len(src) {
		c := src[i]
		switch {
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			end, closed := skipPyString(src, i)
			if !closed {
				flag(i, "unterminated string literal")
			}
			i = end
		case c == '(' || c == '[' || c == '{':
			stack = append(stack, open{c, i})
			i++
		case c == ')' || c == ']' || c == '}':
			if len(stack) == 0 || stack[len(stack)-1].c != pair[c] {
				flag(i, fmt.Sprintf("unmatched %q", c))
			} else {
				stack = stack[:len(stack)-1]
			}
			i++
		case c < 0x80:
			i++
		default:
			r, size := utf8.DecodeRune(src[i:])
			if !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Pc, unicode.Nl)) {
				flag(i, fmt.Sprintf("invalid character %q (%U)", r, r))
			}
			i += size
		}
	}
	for _, o := range stack {
		flag(o.off, fmt.Sprintf("%q was never closed", o.c))
	}
	if len(out) > 0 {
		return out // the lines are not told apart right where the tokens are wrong
	}
	out = pyLegacyErrors(src)
	if len(out) > 0 && !out[len(out)-1].later {
		return out
	}
	// None, or only forms a later Python takes: the indentation is checked as well.
	out = append(out, pyIndentErrors(src)...)
	slices.SortStableFunc(out, func(a, b synErr) int { return cmp.Or(cmp.Compare(a.line, b.line), cmp.Compare(a.col, b.col)) })
	return out
}

// skipPyString returns the offset just past the string literal starting at src[i]
// (its quote), and whether it was closed (else the offset is the end of its line, or
// of the file). In an f-string (or t-string) a replacement field may hold strings
// with the same quote (Python 3.12): they are skipped as strings.
func skipPyString(src []byte, i int) (int, bool) {
	q := src[i]
	formatted := false
	k := i
	for k > 0 && strings.IndexByte("rRbBuUfFtT", src[k-1]) >= 0 {
		k--
	}
	if k == 0 || !isNameByte(src[k-1]) {
		formatted = strings.ContainsAny(string(src[k:i]), "fFtT")
	}
	triple := i+2 < len(src) && src[i+1] == q && src[i+2] == q
	if triple {
		i += 3
	} else {
		i++
	}
	for i < len(src) {
		switch c := src[i]; {
		case c == '\\':
			i += 2
		case c == '\n' && !triple:
			return i, false
		case formatted && c == '{' && i+1 < len(src) && src[i+1] == '{':
			i += 2
		case formatted && c == '{':
			i = skipPyField(src, i+1)
		case c == q && (!triple || i+2 < len(src) && src[i+1] == q && src[i+2] == q):
			if triple {
				return i + 3, true
			}
			return i + 1, true
		default:
			i++
		}
	}
	return len(src), false
}

// skipPyField returns the offset just past the replacement field whose body starts at
// src[i], skipping the strings and brackets in it.
func skipPyField(src []byte, i int) int {
	depth := 1
	for i < len(src) {
		switch c := src[i]; c {
		case '"', '\'':
			i, _ = skipPyString(src, i) // an open one is flagged where the file's string ends
			continue
		case '{', '[', '(':
			depth++
		case '}', ']', ')':
			if depth--; depth == 0 {
				return i + 1
			}
		}
		i++
	}
	return i
}

func isNameByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z' || c >= 0x80
}

package guard

import (
	"bytes"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// plainOf maps the typography models type for code characters to those characters.
var plainOf = map[rune]string{
	'“': `"`, '”': `"`, '„': `"`, '‟': `"`, '″': `"`,
	'‘': "'", '’': "'", '‚': "'", '‛': "'", '′': "'",
	'–': "-", '—': "-", '−': "-",
	'\u00a0': " ", '\u2007': " ", '\u2009': " ", '\u202f': " ", '\u200a': " ",
}

// Repair is one typographic character of a change, at Offset in the new content.
type Repair struct {
	Offset int
	Char   rune
	Plain  string
	Kept   bool // it stays as sent: the file parses with it (a string or a comment)
	Like   bool // in a string or a comment, written plain as the same one in code was
}

// maxRepairs bounds the parses a repair may take.
const maxRepairs = 24

// repairBudget bounds the bytes the parses of a repair may read, as each character
// tried costs a parse or two of the whole file (a Go file of 4 MiB with 24 took 25 s):
// all maxRepairs are tried in a file of 256 KiB, one in a file of MaxSize. It is all or
// none: past it no character is tried, the syntax error stands, and the guard says
// where (TypographicAt tells such an error).
const repairBudget = 16 << 20

// Typography looks at a change whose new content fails to parse when its old content
// did not (or it is new): if the typographic characters the change added, at the given
// offsets of new, are all that breaks it, it returns the repairs that make it parse,
// each character written as its plain counterpart where the language needs code
// (a curly quote as a string delimiter, an en dash as minus, a no-break space between
// tokens) and kept as sent where the file parses with it (inside a string or a
// comment). It returns nil when new parses, when other errors remain, or when there
// are too many such characters to try in a file of its size.
func Typography(p string, old, new []byte, offsets []int) []Repair {
	if len(offsets) == 0 || len(offsets) > maxRepairs || (2+2*len(offsets))*len(new) > repairBudget || Syntax(p, old, new) == nil {
		return nil
	}
	sort.Ints(offsets)
	reps := make([]Repair, 0, len(offsets))
	for _, off := range offsets {
		r, _ := utf8.DecodeRune(new[off:])
		plain, ok := plainOf[r]
		if !ok {
			continue
		}
		reps = append(reps, Repair{Offset: off, Char: r, Plain: plain})
	}
	if len(reps) == 0 || Syntax(p, old, ApplyRepairs(new, reps)) != nil {
		return nil // something else is wrong too: the guard says what
	}
	// Each character back as sent, one at a time: where the file still parses, it was
	// inside a string or a comment, and is kept.
	for i := range reps {
		reps[i].Kept = true
		if Syntax(p, old, ApplyRepairs(new, reps)) != nil {
			reps[i].Kept = false
		}
	}
	// A character the code could not hold shows that the model drifts it in this
	// change: the same character in a string or a comment is drift too, unless the
	// file used it before (a "–" typed for minus and one in a message, in one edit).
	drifted := map[string]bool{}
	for _, r := range reps {
		if !r.Kept {
			drifted[r.Plain] = true
		}
	}
	for i := range reps {
		if reps[i].Kept && drifted[reps[i].Plain] && !bytes.ContainsRune(old, reps[i].Char) {
			reps[i].Kept, reps[i].Like = false, true
			if Syntax(p, old, ApplyRepairs(new, reps)) != nil {
				reps[i].Kept, reps[i].Like = true, false // plain, it would end the string
			}
		}
	}
	return reps
}

// ApplyRepairs returns new with every repair not kept written plain.
func ApplyRepairs(new []byte, reps []Repair) []byte {
	out := make([]byte, 0, len(new))
	last := 0
	for _, r := range reps {
		if r.Kept {
			continue
		}
		out = append(out, new[last:r.Offset]...)
		out = append(out, r.Plain...)
		last = r.Offset + utf8.RuneLen(r.Char)
	}
	return append(out, new[last:]...)
}

// Typographic reports whether r is a character Typography may write plain.
func Typographic(r rune) bool { _, ok := plainOf[r]; return ok }

// TypographicAt returns the typographic characters a change added (at the given
// offsets of new) that a syntax error s of new asks to write plain: the one the error
// stands at, and the others on its line that stand in code, not in a string or a
// comment, so that one call sent again with them all plain gets past them. It returns
// nil when the error is not at such a character: a character Typography would try, or
// would have tried in a file under its budget.
//
// Only characters whose plain form cannot change what the model meant are named
// besides the error's own: not an apostrophe inside a word (it’s: in a string the
// scan misread, it would end the string), and in languages with JSX no quote (the
// text between tags reads as code here, and is the page's text), nor anything else on
// a line with a tag.
func TypographicAt(new []byte, offsets []int, s *SyntaxError) []Repair {
	if s == nil {
		return nil
	}
	new = AsParsed(s.Language, new) // its lines, as s counts them
	at := offsetOf(new, s.Line, s.Column)
	if !slices.Contains(offsets, at) {
		return nil
	}
	if r, _ := utf8.DecodeRune(new[at:]); !Typographic(r) {
		return nil
	}
	start, end := bytes.LastIndexByte(new[:at], '\n')+1, len(new)
	if i := bytes.IndexByte(new[at:], '\n'); i >= 0 {
		end = at + i
	}
	syn, ok := syntaxOf[s.Language]
	if !ok {
		syn = codeSyntax{quotes: `"'`}
	}
	// The file is read from its start, so a line that begins inside a comment or a
	// string of the lines above starts in it.
	from, code := 0, inCode(new[:end], syn)
	if !code[at] {
		// The scan went wrong above (a construct it does not know): the error's
		// character is in code, and the line is read from there.
		from, code = at, inCode(new[at:end], syn)
	}
	jsx := syn.jsx && jsxTag(new[start:end])
	var out []Repair
	for _, off := range slices.Sorted(slices.Values(offsets)) {
		if off < max(from, start) || off >= end {
			continue
		}
		r, _ := utf8.DecodeRune(new[off:])
		plain, ok := plainOf[r]
		if !ok {
			continue
		}
		if off != at {
			quote := plain == `"` || plain == "'"
			if !code[off-from] || jsx || syn.jsx && quote || plain == "'" && inWord(new, off) {
				continue
			}
		}
		out = append(out, Repair{Offset: off, Char: r, Plain: plain})
	}
	return out
}

// inWord reports whether the character at off of b has a letter on each side, as an
// apostrophe in a word has.
func inWord(b []byte, off int) bool {
	before, _ := utf8.DecodeLastRune(b[:off])
	_, n := utf8.DecodeRune(b[off:])
	after, _ := utf8.DecodeRune(b[off+n:])
	return unicode.IsLetter(before) && unicode.IsLetter(after)
}

// jsxTag reports whether line holds what may be a JSX tag: "<" before a letter, "/"
// or ">", or "/>".
func jsxTag(line []byte) bool {
	for i, c := range line {
		if c == '/' && i+1 < len(line) && line[i+1] == '>' {
			return true
		}
		if c == '<' && i+1 < len(line) {
			if n := line[i+1]; n == '/' || n == '>' || n >= 'a' && n <= 'z' || n >= 'A' && n <= 'Z' {
				return true
			}
		}
	}
	return false
}

// codeSyntax is how a language marks its comments and strings, as far as telling a
// character of one line in code from one in a string or a comment needs.
type codeSyntax struct {
	comment string // opens a comment to the end of the line
	block   bool   // /* */ comments
	quotes  string // the characters that open a string
	triple  bool   // a quote three times opens a string that only three close
	raw     string // the quotes whose strings take no backslash escapes
	lines   string // the quotes whose strings may go on past the end of a line
	char    bool   // ' opens a one-character literal ('"'), else a lifetime
	rawR    bool   // R"delim( opens a raw string that )delim" closes (C++)
	jsx     bool   // the text between JSX tags reads as code
	js      bool   // ${ } in a ` string holds code; / may open a regular expression
	fstring bool   // { } in a string after an f prefix holds code (Python)
}

var (
	cLike  = codeSyntax{comment: "//", block: true, quotes: `"'`, rawR: true}
	jsLike = codeSyntax{comment: "//", block: true, quotes: "\"'`", lines: "`", js: true}
	jsx    = codeSyntax{comment: "//", block: true, quotes: "\"'`", lines: "`", js: true, jsx: true}
)

var syntaxOf = map[string]codeSyntax{
	"go":         {comment: "//", block: true, quotes: "\"'`", raw: "`", lines: "`"},
	"javascript": jsx, "jsx": jsx, "typescript": jsLike, "tsx": jsx,
	"python": {comment: "#", quotes: `"'`, triple: true, fstring: true},
	"rust":   {comment: "//", block: true, quotes: `"`, lines: `"`, char: true},
	"java":   {comment: "//", block: true, quotes: `"'`, triple: true},
	"c":      cLike, "cpp": cLike,
	"css":  {block: true, quotes: `"'`},
	"bash": {comment: "#", quotes: `"'`, raw: "'", lines: `"'`},
	"toml": {comment: "#", quotes: `"'`, triple: true, raw: "'"},
	"yaml": {comment: "#", quotes: `"'`, raw: "'", lines: `"'`},
	"json": {quotes: `"`},
}

// quoted is a string the scan is in: what ends it, and how its text reads.
type quoted struct {
	close          string // "" in code
	raw, lines     bool   // it takes no escapes; it may span lines
	interp, fields bool   // ${ } in it holds code (a template); { } does (an f-string)
}

// field is code inside a string, as ${c – d} in a template or {c – d} in an
// f-string, and the string it goes back to at its closing brace.
type field struct {
	in     quoted
	braces int  // the braces opened in it and not closed
	parens int  // the ( and [ of an f-string's field, in which a colon is code
	spec   bool // past its format spec's colon: the rest is the string's text
}

// maxFields bounds the fields in fields the scan follows; past it one reads as the
// string's text.
const maxFields = 32

// inCode tells, for each byte of src, whether it stands in code, src read from its
// start in code. Typographic characters delimit nothing in these languages: only
// ASCII quotes, braces and comment marks move it in or out of code. The code in a
// string's fields (${c – d} in a JavaScript template, {c – d} in a Python
// f-string) is code. A string that cannot go on past its line ends there, and the
// fields in it with it, so a construct the scan misreads misleads it for one line
// at most, a ` or a triple quote aside, which spans lines.
//
// A JavaScript / opens a regular expression, whose quotes open no string, where a
// value begins (after an operator, an opening bracket, an arrow or a keyword such
// as return) and a / closes it on its line. After ), ] or } it is read as a
// division: a regular expression there that holds a quote misleads the scan to the
// end of its line.
func inCode(src []byte, syn codeSyntax) []bool {
	code := make([]bool, len(src))
	var (
		cur         quoted  // the string the scan is in; cur.close == "" in code
		fields      []field // the fields around the scan, innermost last
		block, line bool    // in a /* */ comment; in a comment to the end of the line
		prev        = -1    // the last byte of code or of a closed string, for a /
		noRegex     = 0     // no / before it opens a regular expression
	)
	for i := 0; i < len(src); {
		rest := src[i:]
		var top *field
		if len(fields) > 0 {
			top = &fields[len(fields)-1]
		}
		if rest[0] == '\n' && !block && (cur.close == "" || len(cur.close) == 1 && !cur.lines) {
			// A string that cannot span lines ends at the line's end, and with it
			// its fields and any string around them that cannot span lines either.
			cur, line = quoted{}, false
			for len(fields) > 0 && !fields[len(fields)-1].in.lines {
				fields = fields[:len(fields)-1]
			}
			i++
			continue
		}
		switch {
		case line:
		case block:
			if bytes.HasPrefix(rest, []byte("*/")) {
				block, i = false, i+2
				continue
			}
		case cur.close == "" && top != nil && top.spec:
			// A format spec is the string's text: a fill character is meant as sent.
			switch rest[0] {
			case '{':
				top.braces++
			case '}':
				if top.braces--; top.braces < 0 {
					cur, fields = top.in, fields[:len(fields)-1]
				}
			}
		case cur.close != "":
			switch {
			case rest[0] == '\\' && !cur.raw:
				i += 2
				continue
			case bytes.HasPrefix(rest, []byte(cur.close)):
				prev, i = i+len(cur.close)-1, i+len(cur.close)
				cur = quoted{}
				continue
			case cur.interp && bytes.HasPrefix(rest, []byte("${")) && len(fields) < maxFields:
				fields = append(fields, field{in: cur})
				cur, prev, i = quoted{}, i+1, i+2
				continue
			case cur.fields && bytes.HasPrefix(rest, []byte("{{")):
				i += 2 // a brace in the text
				continue
			case cur.fields && rest[0] == '{' && len(fields) < maxFields:
				fields = append(fields, field{in: cur})
				cur = quoted{}
			}
		case top != nil && rest[0] == '}' && top.braces == 0:
			cur, fields = top.in, fields[:len(fields)-1]
		case syn.comment != "" && bytes.HasPrefix(rest, []byte(syn.comment)):
			line = true
		case syn.block && bytes.HasPrefix(rest, []byte("/*")):
			block, i = true, i+2
			continue
		case syn.rawR && rawStringR(src, i) != "":
			cur = quoted{close: rawStringR(src, i), raw: true, lines: true}
			i += bytes.IndexByte(rest, '(') + 1
			continue
		case syn.char && rest[0] == '\'':
			// '"' or '\'' is a character; 'a without a ' after its one character is a
			// lifetime, which is code.
			n := 1
			if len(rest) > 1 && rest[1] == '\\' {
				n = 2
			}
			_, w := utf8.DecodeRune(rest[min(n, len(rest)):])
			if n+w < len(rest) && rest[n+w] == '\'' {
				prev, i = i+n+w, i+n+w+1
				continue
			}
			code[i], prev = true, i
		case syn.js && rest[0] == '/' && i >= noRegex && regexMay(src, prev):
			n := regexEnd(rest)
			if n == 0 {
				// A division; no / later on the line is tried either, so that a
				// line of such is read once.
				noRegex = i + len(rest)
				if j := bytes.IndexByte(rest, '\n'); j >= 0 {
					noRegex = i + j
				}
				code[i], prev = true, i
				break
			}
			prev, i = i+n-1, i+n
			continue
		case strings.IndexByte(syn.quotes, rest[0]) >= 0:
			q := string(rest[:1])
			cur = quoted{close: q, raw: strings.Contains(syn.raw, q), lines: strings.Contains(syn.lines, q)}
			cur.interp = syn.js && q == "`"
			cur.fields = syn.fstring && fPrefix(src, i)
			if syn.triple && bytes.HasPrefix(rest, []byte(strings.Repeat(q, 3))) {
				cur.close, cur.lines = strings.Repeat(q, 3), true
			}
			i += len(cur.close)
			continue
		default:
			code[i] = true
			if rest[0] != ' ' && rest[0] != '\t' && rest[0] != '\r' {
				prev = i
			}
			if top == nil {
				break
			}
			switch rest[0] {
			case '{':
				top.braces++
			case '}':
				top.braces--
			case '(', '[':
				top.parens++
			case ')', ']':
				top.parens = max(0, top.parens-1)
			case ':':
				// In an f-string's field a colon outside brackets opens the format
				// spec (a lambda or := there must be in parentheses).
				if top.in.fields && top.braces == 0 && top.parens == 0 {
					top.spec, code[i] = true, false
				}
			}
		}
		i++
	}
	return code
}

// fPrefix reports whether the quote at src[i] opens a Python f-string: f, F, or
// either with r or R, before it.
func fPrefix(src []byte, i int) bool {
	p := i
	for p > 0 && isIdent(src[p-1]) {
		p--
	}
	switch strings.ToLower(string(src[p:i])) {
	case "f", "rf", "fr":
		return true
	}
	return false
}

// regexKeywords are the words after which a / opens a regular expression.
var regexKeywords = []string{"return", "typeof", "void", "delete", "throw", "case", "do", "else", "yield", "await"}

// regexMay reports whether a / after the byte at src[prev] (none when prev < 0)
// stands where a value begins, so that it opens a regular expression, not a
// division: after an operator (not ++, -- or TypeScript's !, which end a value), an
// opening bracket, a comma or a semicolon, an arrow, or a keyword such as return.
func regexMay(src []byte, prev int) bool {
	if prev < 0 {
		return true
	}
	switch c := src[prev]; {
	case strings.IndexByte("(,=:[&|?{;*%~^", c) >= 0:
		return true
	case c == '!':
		return prev == 0 || !isIdent(src[prev-1]) && src[prev-1] != ')' && src[prev-1] != ']'
	case c == '+' || c == '-':
		return prev == 0 || src[prev-1] != c
	case c == '>':
		return prev > 0 && src[prev-1] == '=' // => but not a tag's >
	case isIdent(c):
		p := prev
		for p > 0 && isIdent(src[p-1]) {
			p--
		}
		return (p == 0 || src[p-1] != '.') && slices.Contains(regexKeywords, string(src[p:prev+1]))
	}
	return false
}

// regexEnd returns the length of the regular expression that rest opens with its /,
// up to its closing / (a / in a [ ] class or after a backslash closes nothing), or 0
// when none closes it on the line.
func regexEnd(rest []byte) int {
	class := false
	for j := 1; j < len(rest); j++ {
		switch rest[j] {
		case '\n':
			return 0
		case '\\':
			j++
		case '[':
			class = true
		case ']':
			class = false
		case '/':
			if !class {
				return j + 1
			}
		}
	}
	return 0
}

// rawStringR returns what closes the C++ raw string that opens at src[i] (R"delim(,
// maybe after a prefix u8, u, U or L), or "" when none opens there.
func rawStringR(src []byte, i int) string {
	if src[i] != 'R' || i+1 >= len(src) || src[i+1] != '"' {
		return ""
	}
	p := i
	for p > 0 && (isIdent(src[p-1])) {
		p--
	}
	switch string(src[p:i]) {
	case "", "u8", "u", "U", "L":
	default:
		return "" // the end of a name, as in FOOR"x"
	}
	open := bytes.IndexByte(src[i+2:min(len(src), i+2+17)], '(')
	if open < 0 || bytes.ContainsAny(src[i+2:i+2+open], " \\)\t\n\"") {
		return ""
	}
	return ")" + string(src[i+2:i+2+open]) + `"`
}

func isIdent(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

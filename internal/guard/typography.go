package guard

import (
	"bytes"
	"slices"
	"sort"
	"strings"
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
func TypographicAt(new []byte, offsets []int, s *SyntaxError) []Repair {
	if s == nil {
		return nil
	}
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
	from, code := start, inCode(new[start:end], syn)
	if !code[at-start] {
		// The line begins inside a string or a comment of lines above: the error's
		// character is in code, and the line is read from there.
		from, code = at, inCode(new[at:end], syn)
	}
	var out []Repair
	for _, off := range slices.Sorted(slices.Values(offsets)) {
		if off < from || off >= end || off != at && !code[off-from] {
			continue
		}
		r, _ := utf8.DecodeRune(new[off:])
		if plain, ok := plainOf[r]; ok {
			out = append(out, Repair{Offset: off, Char: r, Plain: plain})
		}
	}
	return out
}

// codeSyntax is how a language marks its comments and strings, as far as telling a
// character of one line in code from one in a string or a comment needs.
type codeSyntax struct {
	comment string // opens a comment to the end of the line
	block   bool   // /* */ comments
	quotes  string // the characters that open a string
	triple  bool   // a quote three times opens a string that only three close
	raw     string // the quotes whose strings take no backslash escapes
}

var (
	cLike  = codeSyntax{comment: "//", block: true, quotes: `"'`}
	jsLike = codeSyntax{comment: "//", block: true, quotes: "\"'`"}
)

var syntaxOf = map[string]codeSyntax{
	"go":         {comment: "//", block: true, quotes: "\"'`", raw: "`"},
	"javascript": jsLike, "jsx": jsLike, "typescript": jsLike, "tsx": jsLike,
	"python": {comment: "#", quotes: `"'`, triple: true},
	"rust":   {comment: "//", block: true, quotes: `"`}, // ' also begins a lifetime
	"java":   cLike, "c": cLike, "cpp": cLike,
	"css":  {block: true, quotes: `"'`},
	"bash": {comment: "#", quotes: `"'`, raw: "'"},
	"toml": {comment: "#", quotes: `"'`, triple: true, raw: "'"},
	"yaml": {comment: "#", quotes: `"'`, raw: "'"},
	"json": {quotes: `"`},
}

// inCode tells, for each byte of line, whether it stands in code, the line read from
// its start in code. Typographic characters delimit nothing in these languages: only
// ASCII quotes and comment marks move it in or out of code.
func inCode(line []byte, syn codeSyntax) []bool {
	code := make([]bool, len(line))
	quote, block := "", false
	for i := 0; i < len(line); {
		rest := line[i:]
		switch {
		case block:
			if bytes.HasPrefix(rest, []byte("*/")) {
				block, i = false, i+2
				continue
			}
		case quote != "":
			if rest[0] == '\\' && !strings.Contains(syn.raw, quote[:1]) {
				i += 2
				continue
			}
			if bytes.HasPrefix(rest, []byte(quote)) {
				quote, i = "", i+len(quote)
				continue
			}
		case syn.comment != "" && bytes.HasPrefix(rest, []byte(syn.comment)):
			return code
		case syn.block && bytes.HasPrefix(rest, []byte("/*")):
			block, i = true, i+2
			continue
		case strings.IndexByte(syn.quotes, rest[0]) >= 0:
			quote = string(rest[:1])
			if syn.triple && bytes.HasPrefix(rest, []byte(strings.Repeat(quote, 3))) {
				quote = strings.Repeat(quote, 3)
			}
			i += len(quote)
			continue
		default:
			code[i] = true
		}
		i++
	}
	return code
}

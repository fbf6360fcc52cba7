package guard

import (
	"bytes"
	"fmt"
	"strings"
)

// Python's indentation, checked as CPython's tokenizer and parser check it, in every
// build: tree-sitter's grammar accepts an unindent to a level that was never opened,
// and a model breaks Python by its indentation more than by anything else.
//
// The tokenizer measures each logical line's indentation twice: with tabs to the next
// multiple of 8, and with a tab as one column. A line's indentation must match an open
// level by both measures or exceed the innermost by both, else the mix of tabs and
// spaces is ambiguous (TabError). Blank and comment-only lines, lines inside brackets
// or strings and lines continued by a backslash have no indentation of their own. The
// parser then wants a block after each line that ends in ':' (and nowhere else), a
// clause (elif, else, except, finally) after the statement it belongs to, and a
// decorated definition after a decorator.

// pyLine is one logical line of Python.
type pyLine struct {
	off        int    // where its first token begins
	col, alt   int    // its indentation, tabs to 8 columns and tabs as 1
	kw         string // its first word, "@" for a decorator; "async" is skipped
	opensBlock bool   // it ends in ':'
	colon      bool   // it holds a ':' outside brackets (a walrus's is not one)
	end        int    // just past its last token: where a missing ':' goes
	header     bool   // it begins as a compound statement does (def, if, match x, ...)
}

// pyLogicalLines splits src into logical lines as CPython's tokenizer does.
func pyLogicalLines(src []byte) []pyLine {
	var out []pyLine
	i := 0
	for i < len(src) {
		// The indentation of a physical line that begins a statement.
		col, alt, contCol := 0, 0, -1
		for i < len(src) {
			switch c := src[i]; {
			case c == ' ':
				col++
				alt++
			case c == '\t':
				col = (col/8 + 1) * 8
				alt++
			case c == '\f': // Emacs's page break resets the column
				col, alt = 0, 0
			case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
				// Indentation continued on the next line: the first backslash's column counts.
				if contCol < 0 {
					contCol = col
				}
				i++
			case c == '\\' && i+2 < len(src) && src[i+1] == '\r' && src[i+2] == '\n':
				if contCol < 0 {
					contCol = col
				}
				i += 2
			default:
				goto measured
			}
			i++
		}
	measured:
		if i >= len(src) {
			break
		}
		if c := src[i]; c == '#' || c == '\n' || c == '\r' {
			for i < len(src) && src[i] != '\n' {
				i++
			}
			i++
			continue // blank or a comment alone: no indentation of its own
		}
		if contCol > 0 { // CPython's test: a backslash at column 0 does not count
			col, alt = contCol, contCol
		}
		l := pyLine{off: i, col: col, alt: alt}
		l.kw, _ = pyWord(src, i)
		if l.kw == "async" {
			_, j := pyWord(src, i)
			for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
				j++
			}
			l.kw, _ = pyWord(src, j)
		}
		l.header = compound[l.kw]
		if w, j := pyWord(src, i); w == "match" || w == "case" {
			l.header = softHeader(src[j:])
		}
		// The tokens to the end of the logical line: the newline outside brackets that
		// no backslash escapes.
		depth, last := 0, byte(0)
		for i < len(src) {
			c := src[i]
			switch {
			case c == '\n':
				i++
				if depth == 0 {
					goto done
				}
				continue
			case c == '#':
				for i < len(src) && src[i] != '\n' {
					i++
				}
				continue
			case c == '\\' && i+1 < len(src) && (src[i+1] == '\n' || src[i+1] == '\r'):
				i += 2
				if src[i-1] == '\r' && i < len(src) && src[i] == '\n' {
					i++
				}
				continue
			case c == '"' || c == '\'':
				i, _ = skipPyString(src, i)
				last, l.end = c, i
				continue
			case c == ':' && depth == 0 && (i+1 >= len(src) || src[i+1] != '='):
				l.colon = true
			case c == '(' || c == '[' || c == '{':
				depth++
			case c == ')' || c == ']' || c == '}':
				depth = max(depth-1, 0)
			}
			if c != ' ' && c != '\t' && c != '\f' && c != '\r' {
				last, l.end = c, i+1
			}
			i++
		}
	done:
		l.opensBlock = last == ':'
		out = append(out, l)
	}
	return out
}

// pyWord returns the name at src[i] ("@" for a decorator) and the offset past it.
func pyWord(src []byte, i int) (string, int) {
	if i < len(src) && src[i] == '@' {
		return "@", i + 1
	}
	j := i
	for j < len(src) && isNameByte(src[j]) {
		j++
	}
	return string(src[i:j]), j
}

// compound holds the keywords that begin a compound statement, whose first line ends
// in ':' (match and case are names too, and are told apart by softHeader).
var compound = map[string]bool{
	"def": true, "class": true, "if": true, "elif": true, "else": true, "for": true,
	"while": true, "with": true, "try": true, "except": true, "finally": true,
}

// softHeader reports whether rest, what follows a leading "match" or "case", goes on
// as a match statement or a case clause would, not as a statement using a name
// match or case (match = 1, match.group(), case += 1).
func softHeader(rest []byte) bool {
	t := bytes.TrimLeft(rest, " \t")
	if len(t) == len(rest) || len(t) == 0 {
		return false // match(x) is a call; a header puts a space after its keyword
	}
	if bytes.IndexByte([]byte("=.,;:)]}\r\n#"), t[0]) >= 0 {
		return false
	}
	return !(len(t) > 1 && t[1] == '=' && bytes.IndexByte([]byte("+-*/%&|^<>!@"), t[0]) >= 0)
}

// missingColon is the message for a compound statement's first line without its ':'.
func missingColon(l pyLine) string {
	a := "a"
	if strings.ContainsRune("aeiou", rune(l.kw[0])) {
		a = "an"
	}
	return fmt.Sprintf("expected ':' at the end of this line, which begins %s %s block: add the ':' here, where the line ends", a, l.kw)
}

// follows lists the statements (by first word) each clause may follow in its block;
// "tryelse" is the else of a try.
var follows = map[string][]string{
	"elif":    {"if", "elif"},
	"else":    {"if", "elif", "for", "while", "except"},
	"except":  {"try", "except"},
	"finally": {"try", "except", "tryelse"},
}

// pyIndentErrors reports what CPython refuses in src's indentation and block
// structure, at most the first error (the rest follow from it).
func pyIndentErrors(src []byte) []synErr {
	lines := pyLogicalLines(src)
	flagAt := func(off int, format string, args ...any) []synErr {
		line, col := lineCol(src, off)
		return []synErr{{line: line, col: col, msg: fmt.Sprintf(format, args...)}}
	}
	flag := func(l pyLine, format string, args ...any) []synErr {
		return flagAt(l.off, format, args...)
	}
	levels := func(stack []pyLine) string {
		var cols []string
		for _, s := range stack {
			cols = append(cols, fmt.Sprint(s.col))
		}
		return strings.Join(cols, ", ")
	}
	// The open levels, outermost first, the first word of the line that opened each,
	// and the kind of the last statement of each.
	stack := []pyLine{{}}
	heads := []string{""}
	last := []string{""}
	var prev *pyLine
	for k := range lines {
		l := lines[k]
		top := stack[len(stack)-1]
		indent, dedent := false, false
		switch {
		case l.col > top.col:
			if l.alt <= top.alt {
				return flag(l, "inconsistent use of tabs and spaces in indentation (TabError): indent with spaces only, as the lines around do")
			}
			if prev != nil && prev.header && !prev.colon {
				// The line before begins a block but lacks its ':' (a soft keyword's
				// header; a hard one's was flagged on its own line). Dedenting this
				// line would parse, and take the body out of its block.
				return flagAt(prev.end, "%s", missingColon(*prev))
			}
			if prev == nil || !prev.opensBlock {
				return flag(l, "unexpected indent: the line before opens no block; indent this line as the one before it (%d columns)", top.col)
			}
			stack = append(stack, l)
			heads = append(heads, prev.kw)
			last = append(last, "")
			indent = true
		case l.col < top.col:
			dedent = true
			open := levels(stack) // before the blocks this line closes are popped
			for len(stack) > 1 && l.col < stack[len(stack)-1].col {
				if last[len(last)-1] == "try" {
					return flag(l, "expected 'except' or 'finally' block: the try at this level has none")
				}
				stack, heads, last = stack[:len(stack)-1], heads[:len(heads)-1], last[:len(last)-1]
			}
			if top = stack[len(stack)-1]; l.col != top.col {
				return flag(l, "unindent does not match any outer indentation level: %d columns, where the open blocks are indented %s; indent this line as one of them", l.col, open)
			}
			fallthrough
		default:
			if l.alt != top.alt {
				return flag(l, "inconsistent use of tabs and spaces in indentation (TabError): indent with spaces only, as the lines around do")
			}
		}
		if prev != nil && prev.opensBlock && !indent {
			pl, _ := lineCol(src, prev.off)
			return flag(l, "expected an indented block after line %d, which ends in ':'; indent this line deeper than line %d", pl, pl)
		}
		if prev != nil && prev.kw == "@" && (dedent || l.kw != "def" && l.kw != "class" && l.kw != "@") {
			return flag(l, "a decorator must be followed by a def or a class at its indentation")
		}
		kind := l.kw
		d := len(last) - 1
		if heads[d] == "match" && kind != "case" {
			return flag(l, "a match block holds case blocks only; indent this line under a case")
		}
		if kind == "case" && l.opensBlock && heads[d] != "match" {
			return flag(l, "a case block must be indented inside its match block")
		}
		if want, ok := follows[kind]; ok {
			if !contains(want, last[d]) {
				return flag(l, "%q does not follow a statement it belongs to at this indentation (%s)", kind, strings.Join(want, ", "))
			}
			if kind == "else" && last[d] == "except" {
				kind = "tryelse"
			}
		} else if last[d] == "try" {
			return flag(l, "expected 'except' or 'finally' block: the try at this level has none")
		}
		if compound[l.kw] && !l.colon {
			return flagAt(l.end, "%s", missingColon(l))
		}
		last[d] = kind
		prev = &lines[k]
	}
	if prev != nil && prev.opensBlock {
		return flag(*prev, "expected an indented block after this line, which ends in ':'")
	}
	for _, kind := range last {
		if kind == "try" {
			return flag(*prev, "expected 'except' or 'finally' block: a try has none")
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// indentOnly reports whether old and new differ only in the whitespace that begins
// their lines: Python's tokens are then the same, and only their indentation can make
// one parse where the other does not.
func indentOnly(old, new []byte) bool {
	for len(old) > 0 && len(new) > 0 {
		old, new = bytes.TrimLeft(old, " \t\f"), bytes.TrimLeft(new, " \t\f")
		i, j := bytes.IndexByte(old, '\n'), bytes.IndexByte(new, '\n')
		if i < 0 || j < 0 {
			return bytes.Equal(old, new)
		}
		if !bytes.Equal(old[:i], new[:j]) {
			return false
		}
		old, new = old[i+1:], new[j+1:]
	}
	return len(bytes.TrimLeft(old, " \t\f")) == 0 && len(bytes.TrimLeft(new, " \t\f")) == 0
}

// pyBracketLinesIndented is src with each line that begins inside brackets indented
// one step deeper than its statement's first line. Such a line has no indentation of
// its own for CPython, so the two parse alike; tree-sitter's grammar refuses some that
// sit left of their statement (total = (1 +\n2)).
func pyBracketLinesIndented(src []byte) []byte {
	var out []byte
	depth, stmt, i := 0, []byte(nil), 0
	for i < len(src) {
		// At a line's start.
		lead := i
		for lead < len(src) && (src[lead] == ' ' || src[lead] == '\t') {
			lead++
		}
		if depth > 0 {
			out = append(append(out, stmt...), "    "...)
		} else {
			out = append(out, src[i:lead]...)
			stmt = src[i:lead]
		}
		i = lead
		for i < len(src) {
			c := src[i]
			if c == '\n' {
				out = append(out, c)
				i++
				break
			}
			switch {
			case c == '"' || c == '\'':
				end, _ := skipPyString(src, i)
				out = append(out, src[i:end]...)
				i = end
				continue
			case c == '#':
				for i < len(src) && src[i] != '\n' {
					out = append(out, src[i])
					i++
				}
				continue
			case c == '(' || c == '[' || c == '{':
				depth++
			case c == ')' || c == ']' || c == '}':
				depth = max(depth-1, 0)
			}
			out = append(out, c)
			i++
		}
	}
	return out
}

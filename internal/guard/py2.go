package guard

// Python 2 forms that tree-sitter's grammar still accepts and CPython 3 refuses when it
// parses: print and exec statements, `<>`, backticks, `except X, e:`, long (1L) and
// old octal (0777) literals, and a parameter without a default after one with it. A
// model trained on old code writes them into Python 3 files.

// pyLegacyErrors reports such forms in src, in order: the first one no Python takes,
// and before it those a later Python takes (except A, B:), so that one of those does
// not hide a form after it.
func pyLegacyErrors(src []byte) []synErr {
	depth := 0
	start := true // at the start of a statement
	var later []synErr
	flag := func(off int, msg string) []synErr {
		line, col := lineCol(src, off)
		return append(later, synErr{line: line, col: col, msg: msg})
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\f' || c == '\r':
			i++
			continue
		case c == '\\' && i+1 < len(src) && (src[i+1] == '\n' || src[i+1] == '\r'):
			i += 2
			continue
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		case c == '\n':
			if depth == 0 {
				start = true
			}
			i++
			continue
		}
		wasStart := start
		start = false
		switch {
		case c == '"' || c == '\'':
			i, _ = skipPyString(src, i)
		case c == '(' || c == '[' || c == '{':
			depth++
			i++
		case c == ')' || c == ']' || c == '}':
			depth = max(depth-1, 0)
			i++
		case c == ';' || c == ':' && depth == 0 && (i+1 >= len(src) || src[i+1] != '='):
			start = depth == 0
			i++
		case c == '`':
			return flag(i, "backticks are not Python 3: use repr(...)")
		case c == '<' && i+1 < len(src) && src[i+1] == '>':
			return flag(i, "'<>' is not Python 3: use '!='")
		case c >= '0' && c <= '9':
			end, msg := pyNumber(src, i)
			if msg != "" {
				return flag(i, msg)
			}
			i = end
		case c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			i = pyNameEnd(src, i+1) // a float's digits
		case isNameByte(c):
			w, j := pyWord(src, i)
			if j <= i {
				j = i + 1
			}
			if wasStart {
				switch w {
				case "print", "exec":
					if pyOperand(src, j) {
						return flag(i, "Missing parentheses in call to '"+w+"'. Did you mean "+w+"(...)?")
					}
				case "except":
					off, as := pyExceptComma(src, j)
					switch {
					case off < 0:
					case as: // no Python takes it: sent again, it is refused again
						errs := flag(off, "multiple exception types must be parenthesized when using 'as': except (A, B) as e:")
						errs[len(errs)-1].firm = true
						return errs
					default:
						// Taken since 3.14 (PEP 758), refused before: which Python the
						// project runs cannot be told from here, so the refusal gives
						// way when the call is sent again, as for a grammar's lag.
						e := flag(off, "multiple exception types must be parenthesized before Python 3.14: except (A, B): works in every Python 3 (except A as e: for Python 2's name); except A, B: only from 3.14 on")
						e[len(e)-1].later = true
						later = e
					}
				case "def":
					if off := pyDefaultOrder(src, j); off >= 0 {
						return flag(off, "non-default argument follows default argument")
					}
				case "async":
					start = true // async def: the def is looked at next
				}
			}
			i = j
		default:
			i++
		}
	}
	return later
}

// pyNameEnd is the offset past the rest of a number at src[i]: name bytes and dots,
// and the sign of an exponent (1.5e-03).
func pyNameEnd(src []byte, i int) int {
	for i < len(src) && (isNameByte(src[i]) || src[i] == '.') {
		if (src[i] == 'e' || src[i] == 'E') && i+1 < len(src) && (src[i+1] == '-' || src[i+1] == '+') {
			i++
		}
		i++
	}
	return i
}

// pyNumber reads the number literal at src[i] and says what Python 3 refuses in it: a
// long suffix (1L), or an integer with leading zeros (0777).
func pyNumber(src []byte, i int) (int, string) {
	j := i
	digit := func(c byte, hex bool) bool {
		return c >= '0' && c <= '9' || c == '_' || hex && (c|0x20 >= 'a' && c|0x20 <= 'f')
	}
	if src[i] == '0' && i+1 < len(src) && strings2(src[i+1], "xXoObB") {
		for j = i + 2; j < len(src) && digit(src[j], true); j++ {
		}
		if j < len(src) && (src[j] == 'l' || src[j] == 'L') {
			return j, "invalid literal: the long suffix 'L' is not Python 3"
		}
		return pyNameEnd(src, j), ""
	}
	for j < len(src) && digit(src[j], false) {
		j++
	}
	if j < len(src) && strings2(src[j], ".eEjJ") {
		return pyNameEnd(src, j), "" // a float or an imaginary number: zeros may lead
	}
	if j < len(src) && (src[j] == 'l' || src[j] == 'L') && (j+1 >= len(src) || !isNameByte(src[j+1])) {
		return j, "invalid decimal literal: the long suffix 'L' is not Python 3"
	}
	if src[i] == '0' {
		for k := i; k < j; k++ {
			if src[k] != '0' && src[k] != '_' {
				return j, "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers"
			}
		}
	}
	return j, ""
}

func strings2(c byte, set string) bool {
	for k := 0; k < len(set); k++ {
		if set[k] == c {
			return true
		}
	}
	return false
}

// pyOperand tells whether what follows a statement's leading print or exec, on its
// line, is an operand (a name, a string, a number): then it is Python 2's statement.
// An operator or a keyword that can follow an expression (print in x, print is None)
// is Python 3.
func pyOperand(src []byte, j int) bool {
	for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
		j++
	}
	if j >= len(src) {
		return false
	}
	c := src[j]
	switch {
	case c == '"' || c == '\'':
		return true
	case c >= '0' && c <= '9':
		return true
	case c == '.' && j+1 < len(src) && src[j+1] >= '0' && src[j+1] <= '9':
		return true
	case isNameByte(c):
		w, _ := pyWord(src, j)
		switch w {
		case "in", "is", "and", "or", "if", "else", "not", "for", "async":
			return false
		}
		return true
	}
	return false
}

// pyExceptComma returns the offset of the first comma outside brackets in the except
// clause whose text follows src[j], or -1, and whether the clause names the exception
// (as e) outside brackets too. The clause runs to its colon as Python's tokenizer reads
// it: a backslash before the line's end or an open bracket carries it over lines.
func pyExceptComma(src []byte, j int) (comma int, as bool) {
	depth := 0
	comma = -1
	for j < len(src) {
		switch c := src[j]; {
		case c == '\\' && j+1 < len(src) && src[j+1] == '\n':
			j++ // a continuation: the line's end is no end
		case c == '\\' && j+2 < len(src) && src[j+1] == '\r' && src[j+2] == '\n':
			j += 2
		case c == '\n' && depth <= 0:
			return comma, as
		case c == '#':
			for j < len(src) && src[j] != '\n' {
				j++
			}
			continue
		case c == '"' || c == '\'':
			j, _ = skipPyString(src, j)
			continue
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == ':' && depth == 0:
			return comma, as
		case c == ',' && depth == 0 && comma < 0:
			comma = j
		case isNameByte(c):
			w, end := pyWord(src, j)
			as = as || w == "as" && depth == 0
			j = max(end, j+1)
			continue
		}
		j++
	}
	return comma, as
}

// pyDefaultOrder returns the offset of the first positional parameter without a
// default after one with a default, in the def whose name follows src[j], or -1.
func pyDefaultOrder(src []byte, j int) int {
	for j < len(src) && src[j] != '(' && src[j] != '\n' && src[j] != ':' {
		j++
	}
	if j >= len(src) || src[j] != '(' {
		return -1
	}
	depth, j := 1, j+1
	seenDefault, kwOnly := false, false
	pstart, hasDefault := j, false
	end := func(at int) int { // one parameter ends at at
		p := string(trimSpace(dropComments(src[pstart:at])))
		switch {
		case p == "" || p == "/":
		case p[0] == '*':
			kwOnly = true
		case hasDefault:
			seenDefault = true
		case seenDefault && !kwOnly:
			return pstart + len(src[pstart:at]) - len(trimLeftSpace(dropComments(src[pstart:at])))
		}
		return -1
	}
	for j < len(src) {
		switch c := src[j]; {
		case c == '"' || c == '\'':
			j, _ = skipPyString(src, j)
			continue
		case c == '#':
			for j < len(src) && src[j] != '\n' {
				j++
			}
			continue
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			if depth--; depth == 0 {
				return end(j)
			}
		case c == ',' && depth == 1:
			if off := end(j); off >= 0 {
				return off
			}
			pstart, hasDefault = j+1, false
		case c == '=' && depth == 1 && !hasDefault:
			prev, next := src[j-1], byte(0)
			if j+1 < len(src) {
				next = src[j+1]
			}
			hasDefault = !strings2(prev, "=<>!") && next != '='
		}
		j++
	}
	return -1
}

func trimLeftSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r' || b[0] == '\\') {
		b = b[1:]
	}
	return b
}

func trimSpace(b []byte) []byte {
	b = trimLeftSpace(b)
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// dropComments is b without its comments.
func dropComments(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); {
		switch b[i] {
		case '"', '\'':
			end, _ := skipPyString(b, i)
			out = append(out, b[i:end]...)
			i = end
		case '#':
			for i < len(b) && b[i] != '\n' {
				i++
			}
		default:
			out = append(out, b[i])
			i++
		}
	}
	return out
}

package matcher

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// EightBit reports whether data is text in an 8-bit encoding (Latin-1, Windows-1252,
// ...) rather than UTF-8: it is not valid UTF-8 and holds no UTF-8 character beyond
// ASCII. A file that holds some is UTF-8 with stray bytes, and UTF-8 is what an edit
// should add to it.
func EightBit(data []byte) bool {
	if utf8.Valid(data) {
		return false
	}
	for i := 0; i < len(data); {
		if data[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(data[i:])
		if n > 1 || r != utf8.RuneError {
			return false
		}
		i += n
	}
	return true
}

// AddedToEightBit refuses a change of an 8-bit file (EightBit) whose new content
// holds UTF-8 characters beyond ASCII: the model typed them, since what it copied
// from the file (U+FFFD for each of its bytes) is written back as the file's bytes,
// and written they would make a file of two encodings, which no editor or compiler
// reads right. A change that leaves the file all UTF-8 (its only 8-bit characters
// replaced by what they stood for) makes one encoding, and may be made. sent, when
// known (not nil), holds the texts the model sent: a character none holds is the
// file's own bytes made adjacent (a deletion between "\xc3" and "\xa9"), not one the
// model typed. It returns the refusal's message, or "" when the change may be made.
// The scan of the new content runs only for such a file.
func AddedToEightBit(path string, before, after []byte, sent []string) string {
	if !EightBit(before) || utf8.Valid(after) {
		return ""
	}
	var chars []string
	seen := map[rune]bool{}
	var lines []int
	more := false
	EachLine(after, func(n int, line []byte) bool {
		found := false
		for i := 0; i < len(line); {
			r, size := utf8.DecodeRune(line[i:])
			i += size
			if size == 1 || sent != nil && !holds(sent, r) {
				continue // ASCII, or the file's own bytes
			}
			found = true
			if !seen[r] {
				seen[r] = true
				if len(chars) < 5 {
					chars = append(chars, fmt.Sprintf("%q (U+%04X)", r, r))
				} else {
					more = true
				}
			}
		}
		if found {
			lines = append(lines, n)
		}
		return true
	})
	if len(chars) == 0 {
		return ""
	}
	what := strings.Join(chars, ", ")
	if more {
		what += " and others"
	}
	name, q := path, shellWord(path)
	if name == "" {
		name = "the file"
	}
	enc := "LATIN1"
	for _, c := range before {
		if c >= 0x80 && c < 0xA0 {
			enc = "WINDOWS-1252" // Latin-1 has only control codes there
			break
		}
	}
	return fmt.Sprintf("%s is not UTF-8: it is in an 8-bit encoding such as Latin-1 (read_file shows each of its bytes beyond ASCII as U+FFFD). "+
		"This change would write %s on %s as UTF-8 bytes, and the file would mix two encodings. Nothing was written. "+
		"Send the change with those characters in ASCII (what you copy from the file, U+FFFD included, is written back as the file has it), "+
		"or convert the file to UTF-8 first with a command, `%s` (name the file's own encoding there if it is another), then read it again and edit it.",
		name, what, linesWord(lines), convertCommand(enc, "UTF-8", q))
}

// convertCommand is a POSIX shell command that converts the file q (a shell word) from
// one encoding to another in place. The conversion goes to a temporary file outside
// the workspace first and is then copied into the file itself, so that the file keeps
// its mode, owner and links (a file made anew by mv would take the umask's mode and
// lose a script's executable bit); when iconv fails (a byte the encoding does not
// define), the file is not touched, the temporary file is removed, and the command
// fails too.
func convertCommand(from, to, q string) string {
	return fmt.Sprintf(`t=$(mktemp) && iconv -f %s -t %s %s > "$t" && cat "$t" > %s; s=$?; rm -f "$t"; test $s = 0`, from, to, q, q)
}

// linesWord names 1-based lines for a message: "line 2", "lines 2, 5 and 9", at most
// ten of them.
func linesWord(l []int) string {
	if len(l) == 1 {
		return fmt.Sprintf("line %d", l[0])
	}
	return "lines " + listLines(l)
}

// holds reports whether one of texts holds r.
func holds(texts []string, r rune) bool {
	for _, t := range texts {
		if strings.ContainsRune(t, r) {
			return true
		}
	}
	return false
}

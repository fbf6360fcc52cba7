package matcher

import (
	"bytes"
	"fmt"
	"strings"
)

// byteOrderMarks are the marks of the wide Unicode encodings, longest first: their
// text holds NUL bytes, so it reads as binary, but a model can do something with it.
var byteOrderMarks = []struct {
	mark []byte
	enc  string // iconv's name for the encoding, which reads the mark
	name string
}{
	{[]byte{0xFF, 0xFE, 0, 0}, "UTF-32", "UTF-32LE"},
	{[]byte{0, 0, 0xFE, 0xFF}, "UTF-32", "UTF-32BE"},
	{[]byte{0xFF, 0xFE}, "UTF-16", "UTF-16LE"},
	{[]byte{0xFE, 0xFF}, "UTF-16", "UTF-16BE"},
}

// BinaryMessage is the refusal for content that holds NUL bytes, naming the file by
// path. UTF-16 or UTF-32 text with a byte-order mark is named as such, with the
// command that converts it to UTF-8; other content is binary.
func BinaryMessage(path string, content []byte) string {
	name := path
	if name == "" {
		name = "the file"
	}
	for _, b := range byteOrderMarks {
		if !bytes.HasPrefix(content, b.mark) {
			continue
		}
		q := shellWord(path)
		// Both commands convert in place (convertCommand): the file keeps its mode and
		// links, and a failed conversion leaves nothing behind.
		return fmt.Sprintf("%s is %s text (it starts with the byte-order mark % X); the file tools read and edit UTF-8 text only. "+
			"Convert it to UTF-8 with a command, `%s`, then read and edit it here; "+
			"to replace it whole, convert it first, then read_file and write_file. It stays UTF-8 then: where the project needs %s (a Windows .rc or .reg file), "+
			"convert it back when done, `%s`.",
			name, b.name, b.mark, convertCommand(b.enc, "UTF-8", q), b.enc, convertCommand("UTF-8", b.enc, q))
	}
	return fmt.Sprintf("%s contains NUL bytes and looks binary; the file tools read and edit text only.", name)
}

// shellWord quotes a path for a POSIX shell when it needs it; a path that starts
// with "-" gets "./" before it, so that a command does not take it for an option.
func shellWord(p string) string {
	if p == "" {
		return "FILE"
	}
	if strings.HasPrefix(p, "-") {
		p = "./" + p
	}
	if strings.IndexFunc(p, func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("._/+-", r))
	}) < 0 {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}

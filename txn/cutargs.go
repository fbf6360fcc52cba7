package txn

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vfsctl/vfsctl/internal/jsonstr"
)

// Bounds on the arguments a refused call keeps (cutArgs).
const (
	cutString = 512      // bytes kept of each long string, as sent
	maxCut    = 64 << 10 // bytes kept in all
)

// cutArgs is args with every JSON string longer than cutString bytes cut to its start
// and a note of its length as sent, then at most maxCut bytes of that: still valid
// JSON when args were and the total bound is not reached. It reads any bytes.
func cutArgs(args []byte) []byte {
	c := NewArgsCutter(maxCut)
	c.Write(args)
	return c.Bytes()
}

// ArgsCutter cuts a JSON text written to it piece by piece as cutArgs cuts arguments,
// keeping at most max bytes (MaxCutArgs for what a record keeps): so a text too large
// to hold (a request over serve's frame limit) is cut as it is read, in bounded memory.
type ArgsCutter struct {
	max           int
	out           []byte
	inString, esc bool
	str           []byte // the start of the string being read: enough to cut it (cutAt)
	n             int    // the bytes of that string read so far
	done          bool
}

// MaxCutArgs is how many bytes of cut arguments a record keeps.
const MaxCutArgs = maxCut

// strKept is how much of a string's start the cutter holds: a token of cutAt that
// starts before cutString is at most 6 bytes long (\uXXXX).
const strKept = cutString + 6

// NewArgsCutter returns a cutter that keeps at most max bytes.
func NewArgsCutter(max int) *ArgsCutter { return &ArgsCutter{max: max} }

// Write takes the next bytes of the text; it never fails.
func (c *ArgsCutter) Write(p []byte) (int, error) {
	for i := 0; i < len(p); i++ {
		b := p[i]
		if c.inString && !c.esc && len(c.str) >= strKept {
			// The start of the string is kept: on to its next quote or backslash.
			j := jsonstr.StringEnd(p[i:])
			if j < 0 {
				c.n += len(p) - i
				break
			}
			c.n += j
			i += j
			b = p[i]
		}
		if !c.inString {
			c.keep(b)
			if b == '"' {
				c.inString, c.n, c.str = true, 0, c.str[:0]
			}
			continue
		}
		if !c.esc && b == '"' {
			c.endString(true)
			continue
		}
		c.esc = !c.esc && b == '\\'
		c.n++
		if len(c.str) < strKept {
			c.str = append(c.str, b)
		}
	}
	return len(p), nil
}

// keep adds b, unless max bytes are kept already: what comes after is dropped.
func (c *ArgsCutter) keep(b ...byte) {
	if len(c.out) < c.max {
		c.out = append(c.out, b...)
	}
}

// endString adds the string read, cut when it is longer than cutString; closed says
// its closing quote was read (else the text ended in it).
func (c *ArgsCutter) endString(closed bool) {
	c.inString, c.esc = false, false
	switch {
	case c.n > cutString:
		c.keep(c.str[:cutAt(c.str, cutString)]...)
		c.keep(fmt.Appendf(nil, cutOpen+"%d"+cutClose+`"`, c.n)...)
	case closed:
		c.keep(append(c.str, '"')...)
	default:
		c.keep(c.str...)
	}
}

// Bytes ends the text and returns what is kept of it; nothing is written after.
func (c *ArgsCutter) Bytes() []byte {
	if !c.done && c.inString {
		c.endString(false)
	}
	c.done = true
	return c.out[:min(len(c.out), c.max)]
}

// What follows the start kept of a string that was cut: its length as sent.
const cutOpen, cutClose = "… [cut: ", " bytes as sent]"

// WasCut reports whether s, a string of arguments a cutter kept, was cut: it ends
// with the note of its length as sent.
func WasCut(s string) bool {
	rest, ok := strings.CutSuffix(s, cutClose)
	if !ok {
		return false
	}
	i := strings.LastIndex(rest, cutOpen)
	if i < 0 {
		return false
	}
	_, err := strconv.Atoi(rest[i+len(cutOpen):])
	return err == nil
}

// cutAt is where to cut the JSON string text s at most n bytes in: not inside an
// escape or a UTF-8 sequence.
func cutAt(s []byte, n int) int {
	i := 0
	for i < len(s) {
		size := 2
		if s[i] != '\\' {
			_, size = utf8.DecodeRune(s[i:])
		} else if i+1 < len(s) && s[i+1] == 'u' {
			size = 6
		}
		if i+size > n {
			break
		}
		i += size
	}
	return i
}

package matcher

import (
	"strings"
	"testing"
)

// An edit that replaces the only 8-bit characters of a Latin-1 file by the UTF-8
// characters they stood for leaves a file all UTF-8: one encoding, let through. One
// that leaves an 8-bit character beside a UTF-8 one is refused.
func TestAddedToEightBitAllowsAFileMadeAllUTF8(t *testing.T) {
	before := []byte("name = \"caf\xe9\"\nx = 1\n")
	if msg := AddedToEightBit("l1.py", before, []byte("name = \"café\"\nx = 1\n")); msg != "" {
		t.Errorf("the file made all UTF-8 is refused: %s", msg)
	}
	before = []byte("a = \"caf\xe9\"\nb = \"ol\xe9\"\n")
	msg := AddedToEightBit("l2.py", before, []byte("a = \"café\"\nb = \"ol\xe9\"\n"))
	if !strings.Contains(msg, "'é' (U+00E9) on line 1") || !strings.Contains(msg, "mix two encodings") {
		t.Errorf("a file left with both encodings: %q", msg)
	}
}

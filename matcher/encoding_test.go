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
	if msg := AddedToEightBit("l1.py", before, []byte("name = \"café\"\nx = 1\n"), nil); msg != "" {
		t.Errorf("the file made all UTF-8 is refused: %s", msg)
	}
	before = []byte("a = \"caf\xe9\"\nb = \"ol\xe9\"\n")
	msg := AddedToEightBit("l2.py", before, []byte("a = \"café\"\nb = \"ol\xe9\"\n"), nil)
	if !strings.Contains(msg, "'é' (U+00E9) on line 1") || !strings.Contains(msg, "mix two encodings") {
		t.Errorf("a file left with both encodings: %q", msg)
	}
}

// A deletion that makes two of a Latin-1 file's bytes adjacent, reading as a UTF-8
// character ("\xc3" and "\xa9" are "Ã" and "©"), adds no character of the model's:
// let through when the model's text is known, and refused for a character it holds.
func TestAddedToEightBitOnlyForTheModelsCharacters(t *testing.T) {
	before := []byte("a = \"\xc3 \xa9\" + \"\xe9\"\n")
	after := []byte("a = \"\xc3\xa9\" + \"\xe9\"\n")
	if msg := AddedToEightBit("l2.py", before, after, []string{"\ufffd\ufffd"}); msg != "" {
		t.Errorf("a deletion is refused: %s", msg)
	}
	if msg := AddedToEightBit("l2.py", before, after, []string{"\ufffd\ufffd", "é"}); !strings.Contains(msg, "'é' (U+00E9) on line 1") {
		t.Errorf("a character the model sent: %q", msg)
	}
}

package guard

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// jsonOf is a valid JSON array of at least size bytes.
func jsonOf(size int) []byte {
	var b bytes.Buffer
	b.WriteString("[\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "  {\"id\": %d, \"name\": \"package-%d\"},\n", i, i)
	}
	b.WriteString("  {\"id\": -1}\n]\n")
	return b.Bytes()
}

// TestSizeBoundPerLanguage: JSON, whose parser is cheap, is guarded past the bound of
// the others (a comma dropped from a file just over MaxSize is found) and not past its own; a
// file of a language no guard parses gets no word of a guard not run.
func TestSizeBoundPerLanguage(t *testing.T) {
	old := jsonOf(MaxSize + 64<<10)
	broken := bytes.Replace(old, []byte(`"id": 7, "name"`), []byte(`"id": 7 "name"`), 1)
	if s := Syntax("data.json", old, broken); s == nil || s.Line != 9 {
		t.Fatalf("a comma dropped from a JSON file of %d bytes: %+v, want an error on line 9", len(old), s)
	}
	if why := Unchecked("data.json", old, broken); why != "" {
		t.Fatalf("JSON of %d bytes said unchecked: %s", len(old), why)
	}

	huge := jsonOf(maxSizeOf["json"])
	broken = bytes.Replace(huge, []byte(`"id": 7, "name"`), []byte(`"id": 7 "name"`), 1)
	if s := Syntax("data.json", huge, broken); s != nil {
		t.Fatalf("JSON of %d bytes was parsed, past its bound: %+v", len(huge), s)
	}
	if why := Unchecked("data.json", huge, broken); !strings.Contains(why, fmt.Sprintf("%d bytes", len(huge))) {
		t.Fatalf("JSON of %d bytes: %q does not say its size", len(huge), why)
	}

	if why := Unchecked("notes.md", huge, broken); why != "" {
		t.Fatalf("a Markdown file, which no guard parses, said unchecked: %s", why)
	}
}


package toolapi

import (
	"strings"
	"testing"
)

// An offset out of range is refused naming the range it may take, negative
// included: "0 or more" told the model that -20 (the last 20 lines) was wrong.
func TestSignedOffsetRefusal(t *testing.T) {
	a, _ := newAPI(t, map[string]string{"f.txt": "a\nb\n"})
	for _, off := range []string{"-1e30", "1.5", `"x"`} {
		r := call(a, "read_file", `{"path": "f.txt", "offset": `+off+`}`)
		if r.OK || kindOf(r) != "invalid_input" || strings.Contains(r.Text, "0 or more") || !strings.Contains(r.Text, "negative counts from the end") {
			t.Errorf("offset %s: %s %s", off, kindOf(r), r.Text)
		}
	}
	if r := call(a, "read_file", `{"path": "f.txt", "offset": -1}`); !r.OK || !strings.Contains(r.Text, "b") {
		t.Errorf("offset -1: %s", r.Text)
	}
}

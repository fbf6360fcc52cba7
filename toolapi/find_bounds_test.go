package toolapi

import (
	"fmt"
	"strings"
	"testing"
)

// A pattern that compiles to a huge program, or a search that would run it over too
// many bytes, is too_large naming the bound; a plain string over the same files is
// searched.
func TestSearchIsBounded(t *testing.T) {
	big := strings.Repeat(strings.Repeat("a", 99)+"\n", 6000) // 600 KB
	a, _ := newAPI(t, map[string]string{"big.txt": big, "small.txt": "needle\n"})

	r := call(a, SearchFiles, `{"pattern": "(.*){1000}x", "glob": "small.txt"}`)
	if kindOf(r) != "too_large" || !strings.Contains(r.Text, fmt.Sprint(maxPatternInsts)) {
		t.Errorf("a 4,000-instruction pattern: want too_large naming %d, got %s: %s", maxPatternInsts, kindOf(r), r.Text)
	}
	// 403 instructions over 600 KB is over the bound; over the small file alone it is not.
	r = call(a, SearchFiles, `{"pattern": "(.*){100}x"}`)
	if kindOf(r) != "too_large" || !strings.Contains(r.Text, fmt.Sprint(maxSearchWork)) {
		t.Errorf("a search over the work bound: want too_large naming %d, got %s: %s", maxSearchWork, kindOf(r), r.Text)
	}
	if r := call(a, SearchFiles, `{"pattern": "(.*){100}x", "glob": "small.txt"}`); !r.OK {
		t.Errorf("the same pattern over one small file: %s", r.Text)
	}
	if r := call(a, SearchFiles, `{"pattern": "needle", "literal": true}`); !r.OK || r.Text != "small.txt:1: needle" {
		t.Errorf("a plain string: %+v", r)
	}
}

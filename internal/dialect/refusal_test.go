package dialect

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// A refusal carries its structure (the chunk or block at fault, the file lines it
// names) and its message is built from it: it names the hunk and shows the file's
// line as the file has it, in the dialect's words (no oldText, no edits[0]).
func TestRefusalsCarryStructure(t *testing.T) {
	content := []byte("alpha\nbeta\ngamma\ndelta\n")
	cases := []struct {
		name  string
		err   error
		kind  errs.Kind
		edit  int
		lines []int
		says  string
	}{
		{"chunk not found", locateErr(content, []Chunk{{Old: []string{"alpha"}, New: []string{"ALPHA"}}, {Old: []string{"gamma", "xray"}, New: []string{"gamma"}}}),
			errs.TextNotFound, 1, []int{3, 4}, `f chunk 2: its context and removed lines were not found after line 1. The closest region is lines 3-4; it first differs at line 4, where the file has "delta" and the chunk has "xray".`},
		{"ambiguous", locateErr([]byte("x\ny\nx\ny\n"), []Chunk{{Old: []string{"x"}, New: []string{"z"}}}),
			errs.MultipleMatches, 0, []int{1, 3}, "f chunk 1: its context and removed lines match 2 places"},
		{"block not found", blockErr(content, []Block{{Search: "beta\nquux\n", Replace: "BETA\n"}}),
			errs.TextNotFound, 0, []int{2, 3}, `f block 1: its SEARCH section was not found in f. The closest region is lines 2-3; it first differs at line 3, where the file has "gamma" and SEARCH has "quux".`},
		// A line that differs only in what is forgiven (indentation, curly quotes) is
		// not named: the one that kept the lines from being found is.
		{"chunk past forgiven lines", locateErr([]byte("def f():\n    a = \"x\"\n    b = 2\n"), []Chunk{{Old: []string{"a = \u201cx\u201d", "b = 22"}, New: []string{"a = 1", "b = 5"}}}),
			errs.TextNotFound, 0, []int{2, 3}, `it first differs at line 3, where the file has "    b = 2" and the chunk has "b = 22".`},
		{"block past forgiven lines", blockErr([]byte("def f():\n    a = 1\n    b = 2\n"), []Block{{Search: "a = 1\nb = 22\n", Replace: "a = 1\nb = 5\n"}}),
			errs.TextNotFound, 0, []int{2, 3}, `it first differs at line 3, where the file has "    b = 2" and SEARCH has "b = 22".`},
	}
	for _, c := range cases {
		var e *errs.Error
		if !errors.As(c.err, &e) {
			t.Fatalf("%s: %v is not an *errs.Error", c.name, c.err)
		}
		if e.Kind != c.kind || e.Where == nil || e.Where.Edit != c.edit || !slices.Equal(e.Where.Lines, c.lines) {
			t.Errorf("%s: kind %s where %+v, want %s edit %d lines %v", c.name, e.Kind, e.Where, c.kind, c.edit, c.lines)
		}
		if !strings.Contains(e.Message, c.says) {
			t.Errorf("%s: message %q lacks %q", c.name, e.Message, c.says)
		}
		for _, w := range []string{"oldText", "newText", "edits["} {
			if strings.Contains(e.Message, w) {
				t.Errorf("%s: message speaks of %s: %s", c.name, w, e.Message)
			}
		}
	}
}

func locateErr(content []byte, chunks []Chunk) error {
	_, err := LocateChunks("f", content, chunks)
	return err
}

func blockErr(content []byte, blocks []Block) error {
	_, err := LocateBlocks("f", content, blocks)
	return err
}

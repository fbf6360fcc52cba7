package matcher

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// Chained names the earlier edits whose text a missing oldText needs, from one
// that joins two parts of the file by a deletion to several that each write part
// of it; and nothing when the text is missing anyway.
func TestChainedNamesTheEdits(t *testing.T) {
	for _, c := range []struct {
		name, file string
		edits      []Edit
		by         string // "" for a plain miss
		lines      []int
	}{
		{"writes it", "def foo():\n    return 1\n",
			[]Edit{{OldText: "def foo():", NewText: "def bar():"}, {OldText: "def bar():\n    return 1", NewText: "x"}}, "edits[0] writes", []int{1, 1}},
		{"two write it", "a\nb\nc\nd\n",
			[]Edit{{OldText: "a\n", NewText: "x\n"}, {OldText: "d\n", NewText: "q\n"}, {OldText: "c\n", NewText: "y\n"}, {OldText: "x\nb\ny\n", NewText: "z\n"}}, "edits[0] and edits[2] write", []int{1, 3}},
		{"a deletion joins it", "int a;\nint b;\nint c;\n",
			[]Edit{{OldText: "int b;\n", NewText: ""}, {OldText: "int a;\nint c;", NewText: "int d;"}}, "edits[0] writes", []int{2, 2}},
		{"CR line endings", "one\rtwo\r",
			[]Edit{{OldText: "one", NewText: "uno"}, {OldText: "uno\ntwo", NewText: "x"}}, "edits[0] writes", []int{1, 1}},
		{"missing anyway", "def foo():\n    return 1\n",
			[]Edit{{OldText: "def foo():", NewText: "def bar():"}, {OldText: "def baz():", NewText: "x"}}, "", nil},
		{"the first edit", "a\n", []Edit{{OldText: "b", NewText: "c"}}, "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Apply([]byte(c.file), c.edits, Options{Name: "f"})
			var r *errs.Error
			if !errors.As(err, &r) || r.Kind != KindTextNotFound {
				t.Fatalf("want text_not_found, got %v", err)
			}
			if r.Where.Edit != len(c.edits)-1 {
				t.Errorf("refused edit %d", r.Where.Edit)
			}
			if c.by == "" {
				if strings.Contains(r.Message, "writes") || !strings.Contains(r.Message, "Re-read") {
					t.Errorf("a plain miss explained as chained: %q", r.Message)
				}
				return
			}
			if !strings.Contains(r.Message, "it is the text "+c.by) || strings.Contains(r.Message, "Re-read") {
				t.Errorf("%q does not say %q", r.Message, c.by)
			}
			if !reflect.DeepEqual(r.Where.Lines, c.lines) {
				t.Errorf("lines %v, want %v", r.Where.Lines, c.lines)
			}
		})
	}
}

package matcher

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// A short oldText found everywhere in a large file must not cost per occurrence:
// replaceAll past MaxOccurrences, and all edits together past MaxSplices, are
// too_large; a multiple_matches refusal counts no further than it names.
func TestBoundsOnOccurrences(t *testing.T) {
	many := strings.Repeat("a", MaxOccurrences+1)
	refusal := func(t *testing.T, file string, edits []Edit) *Refusal {
		t.Helper()
		_, err := Apply([]byte(file), edits, Options{Name: "f.txt"})
		var r *Refusal
		if !errors.As(err, &r) {
			t.Fatalf("want a refusal, got %v", err)
		}
		return r
	}
	t.Run("replaceAll over the bound", func(t *testing.T) {
		r := refusal(t, many, []Edit{{OldText: "a", NewText: "b", ReplaceAll: true}})
		if r.Kind != KindTooLarge || !strings.Contains(r.Message, fmt.Sprint(MaxOccurrences)) {
			t.Fatalf("want too_large naming %d, got %s: %s", MaxOccurrences, r.Kind, r.Message)
		}
	})
	t.Run("replaceAll at the bound", func(t *testing.T) {
		file := strings.Repeat("ab", MaxOccurrences)
		res, err := Apply([]byte(file), []Edit{{OldText: "a", NewText: "c", ReplaceAll: true}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.Repeat("cb", MaxOccurrences); string(res.Output) != want {
			t.Fatalf("output differs from every a replaced")
		}
	})
	t.Run("edits together over the bound", func(t *testing.T) {
		half := MaxSplices/2 + 1
		file := strings.Repeat("x", half) + "\n" + strings.Repeat("y", half) + "\n"
		r := refusal(t, file, []Edit{{OldText: "x", NewText: "1", ReplaceAll: true}, {OldText: "y", NewText: "2", ReplaceAll: true}})
		if r.Kind != KindTooLarge || !strings.Contains(r.Message, fmt.Sprint(MaxSplices)) {
			t.Fatalf("want too_large naming %d, got %s: %s", MaxSplices, r.Kind, r.Message)
		}
	})
	t.Run("multiple_matches says at least", func(t *testing.T) {
		r := refusal(t, strings.Repeat("a\n", 5000), []Edit{{OldText: "a", NewText: "b"}})
		if r.Kind != KindMultipleMatches {
			t.Fatalf("want multiple_matches, got %s: %s", r.Kind, r.Message)
		}
		if want := fmt.Sprintf("Found at least %d occurrences", MaxNamed+1); !strings.Contains(r.Message, want) {
			t.Errorf("message %q lacks %q", r.Message, want)
		}
		if len(r.Where.Lines) != MaxNamed || r.Where.Lines[MaxNamed-1] != MaxNamed {
			t.Errorf("want the first %d lines named, got %d", MaxNamed, len(r.Where.Lines))
		}
	})
	t.Run("multiple_matches under the bound counts exactly", func(t *testing.T) {
		r := refusal(t, strings.Repeat("a\n", MaxNamed), []Edit{{OldText: "a", NewText: "b"}})
		if want := fmt.Sprintf("Found %d occurrences", MaxNamed); !strings.Contains(r.Message, want) {
			t.Errorf("message %q lacks %q", r.Message, want)
		}
	})
}

// A diff of a change that rewrites a large file is cut at MaxDiffBytes.
func TestDiffIsBounded(t *testing.T) {
	file := append([]byte("a\n"), bytes.Repeat([]byte("x"), 4*MaxDiffBytes)...)
	file = append(file, "\nb\n"...)
	res, err := Apply(file, []Edit{{OldText: "a\nx", NewText: "a\ny"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Diff("f.txt")
	// The cut line's mark and line break, then the note.
	if len(d) > MaxDiffBytes+2+len(diffCut) || !strings.HasSuffix(d, diffCut) {
		t.Fatalf("diff of %d bytes, ending %q: want at most %d, cut", len(d), d[max(len(d)-40, 0):], MaxDiffBytes)
	}
}

// A file over MaxFoldBytes is matched at the exact tier only: folding it would cost
// seconds and tens of times its size in memory.
func TestFoldBound(t *testing.T) {
	line := "say “hi”\n"
	big := strings.Repeat(line, MaxFoldBytes/len(line)+1)
	_, err := Apply([]byte(big), []Edit{{OldText: `say "hi"`, NewText: "x", ReplaceAll: true}}, Options{Name: "f.txt"})
	var r *Refusal
	if !errors.As(err, &r) || r.Kind != KindTextNotFound || !strings.Contains(r.Message, fmt.Sprint(MaxFoldBytes)) {
		t.Fatalf("want text_not_found naming %d, got %v", MaxFoldBytes, err)
	}
	// The same edit of a file under the bound folds the quotes.
	small := strings.Repeat(line, 10)
	res, err := Apply([]byte(small), []Edit{{OldText: `say "hi"`, NewText: "x", ReplaceAll: true}}, Options{})
	if err != nil || string(res.Output) != strings.Repeat("x\n", 10) {
		t.Fatalf("under the bound: %v", err)
	}
}

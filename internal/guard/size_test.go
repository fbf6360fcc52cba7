package guard

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// fileOf is a file of at least size bytes: head, then line i (a format of i, as
// %[1]d) for i = 0, 1, ... until size, then tail.
func fileOf(size int, head, line, tail string) []byte {
	var b bytes.Buffer
	b.WriteString(head)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, line, i)
	}
	b.WriteString(tail)
	return b.Bytes()
}

// jsonOf is a valid JSON array of at least size bytes.
func jsonOf(size int) []byte {
	return fileOf(size, "[\n", "  {\"id\": %[1]d, \"name\": \"package-%[1]d\"},\n", "  {\"id\": -1}\n]\n")
}

// goOf is a valid Go file of about size bytes, ending in a var the tests edit.
func goOf(size int) []byte {
	return fileOf(size, "package big\n\nimport \"fmt\"\n\n", "func f%[1]d(x int) string {\n\treturn fmt.Sprint(x + %[1]d)\n}\n\n", "var names = []string{\"a\"}\n")
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
	if why := Unchecked("data.json", huge, broken); !strings.Contains(why, fmt.Sprintf("the file is %d bytes", len(broken))) {
		t.Fatalf("JSON of %d bytes: %q does not say its size", len(broken), why)
	}

	if why := Unchecked("notes.md", huge, broken); why != "" {
		t.Fatalf("a Markdown file, which no guard parses, said unchecked: %s", why)
	}
}

// TestTypographyWithinBudget: curly quotes typed as string delimiters are written plain
// in a small file; in a file where trying each would parse it too many times, they
// are not tried, and the syntax error stands for the guard to refuse.
func TestTypographyWithinBudget(t *testing.T) {
	const edit = `var names = []string{“a”, “b”, “c”, “d”}`
	for _, c := range []struct {
		size    int
		repairs bool
	}{{64 << 10, true}, {1 << 20, false}} {
		old := goOf(c.size)
		new := bytes.Replace(old, []byte(`var names = []string{"a"}`), []byte(edit), 1)
		var offs []int
		for i, r := range string(new) {
			if Typographic(r) {
				offs = append(offs, i)
			}
		}
		reps := Typography("big.go", old, new, offs)
		if c.repairs && (len(reps) != 8 || Syntax("big.go", old, ApplyRepairs(new, reps)) != nil) {
			t.Fatalf("a file of %d bytes: %d repairs, want the 8 quotes written plain", len(old), len(reps))
		}
		if !c.repairs && reps != nil {
			t.Fatalf("a file of %d bytes: %d quotes tried, past the budget of parses", len(old), len(reps))
		}
		if s := Syntax("big.go", old, new); s == nil || s.Line != bytes.Count(old, []byte("\n")) {
			t.Fatalf("a file of %d bytes: the quotes' syntax error is %+v", len(old), s)
		}
	}
}

// The note says the size of the file as it stands: a change that brings a file over
// the bound under it names the size it had and has, not the old one as the file's.
func TestUncheckedNamesTheSizeAsItStands(t *testing.T) {
	big, small := bytes.Repeat([]byte("x = 1\n"), MaxSize/6+10), []byte("x = 1\n")
	shrunk := Unchecked("a.py", big, small)
	if want := fmt.Sprintf("the file was %d bytes before the change (%d now)", len(big), len(small)); !strings.Contains(shrunk, want) {
		t.Errorf("shrunk: %q, want it to say %q", shrunk, want)
	}
	grown := Unchecked("a.py", small, big)
	if want := fmt.Sprintf("the file is %d bytes", len(big)); !strings.Contains(grown, want) {
		t.Errorf("grown: %q, want it to say %q", grown, want)
	}
	if got := Unchecked("a.py", small, small); got != "" {
		t.Errorf("a small file: %q, want no note", got)
	}
}

package txn

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/guard"
	"github.com/vfsctl/vfsctl/matcher"
)

// pythonOf is a valid Python file of exactly size bytes: numbered functions, then a
// comment to fill.
func pythonOf(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size-200; i++ {
		fmt.Fprintf(&b, "def f%d(x):\n    return x + %d\n\n", i, i)
	}
	b.WriteString("#")
	b.WriteString(strings.Repeat("-", size-b.Len()-1) + "\n")
	return b.String()
}

// A breaking edit of a Python file: the bracket it opens is never closed.
const sizeOld, sizeNew = "    return x + 1000\n", "    return (x + 1000\n"

// breakBigPython makes the breaking edit in big.py, a file holding src: it returns
// the file system, the change and the call's error.
func breakBigPython(t *testing.T, src string) (afero.Fs, *Change, error) {
	t.Helper()
	mem := afero.NewMemMapFs()
	afero.WriteFile(mem, "big.py", []byte(src), 0o644)
	e := memEngine(t, mem)
	defer e.Close()
	var ch *Change
	err := do(e, "s", func(c *Call) error {
		var err error
		ch, err = e.Edit(c, "big.py", []matcher.Edit{{OldText: sizeOld, NewText: sizeNew}}, false)
		return err
	})
	return mem, ch, err
}

// TestGuardSkipsFileOverItsSize: an edit of a Python file larger than the guard parses
// is written as asked, breaking edit included, and the reply says the syntax guard did
// not run, and why.
func TestGuardSkipsFileOverItsSize(t *testing.T) {
	src := pythonOf(guard.MaxSize + 1)
	mem, ch, err := breakBigPython(t, src)
	if err != nil {
		t.Fatalf("the edit of a file over the guard's size was refused: %v", err)
	}
	got, _ := afero.ReadFile(mem, "big.py")
	if want := strings.Replace(src, sizeOld, sizeNew, 1); string(got) != want {
		t.Fatal("big.py on disk is not the file with the edit made")
	}
	notes := strings.Join(ch.Notes, "\n")
	if !strings.Contains(notes, "syntax guard did not run on big.py") || !strings.Contains(notes, fmt.Sprintf("%d bytes", len(src)+1)) {
		t.Fatalf("the reply does not say that the guard did not run, and why: %q", ch.Notes)
	}
}

// TestGuardParsesFileJustUnderItsSize: a file whose edit leaves it at the guard's size
// is still parsed: the breaking edit is refused and the file stays as it was, with no
// word of a guard not run.
func TestGuardParsesFileJustUnderItsSize(t *testing.T) {
	src := pythonOf(guard.MaxSize - 1)
	mem, ch, err := breakBigPython(t, src)
	if errs.KindOf(err) != errs.SyntaxError {
		t.Fatalf("the breaking edit of a file of %d bytes was not refused as a syntax error: %v", len(src)+1, err)
	}
	if ch != nil && strings.Contains(strings.Join(ch.Notes, "\n"), "did not run") {
		t.Fatalf("a note says the guard did not run: %q", ch.Notes)
	}
	if got, _ := afero.ReadFile(mem, "big.py"); string(got) != src {
		t.Fatal("big.py changed though its edit was refused")
	}
}

// Curly quotes typed for a Go string's quotes, in a file too large for the guard to
// try writing them plain (each try parses the whole file): the refusal says to send
// the plain quote, not to send the call again, and a call sent again is refused
// again. The same where the quotes are not all that breaks a small file. Before, it
// said that a call sent again would be written, and so it was: code that does not
// build.
func TestCurlyQuoteRefusalSaysThePlainOne(t *testing.T) {
	const line = `var names = []string{"a"}`
	for _, c := range []struct {
		filler, newText string
	}{
		{strings.Repeat("// filler\n", 120_000), `var names = []string{“a”, “b”, “c”, “d”}`},
		{"", `var names = []string{“a”, “b”, x-}`},
	} {
		src := "package big\n\n" + c.filler + line + "\n"
		mem := afero.NewMemMapFs()
		afero.WriteFile(mem, "big.go", []byte(src), 0o644)
		e := memEngine(t, mem)
		defer e.Close()
		args, _ := json.Marshal(map[string]any{"path": "big.go", "edits": []map[string]string{{"oldText": line, "newText": c.newText}}})
		send := func() error {
			call, err := e.Begin("s", "edit_file", args)
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.Edit(call, "big.go", []matcher.Edit{{OldText: line, NewText: c.newText}}, false)
			call.Finish(err)
			return err
		}
		err := send()
		if errs.KindOf(err) != errs.SyntaxError {
			t.Fatalf("a file of %d bytes, curly quotes in code: %v, want a syntax refusal", len(src), err)
		}
		msg := err.Error()
		if strings.Contains(msg, "send this same call again") || !strings.Contains(msg, `send '"' for '“' and '"' for '”'`) {
			t.Errorf("a file of %d bytes: the refusal does not say to send the plain quote instead of the same call:\n%s", len(src), msg)
		}
		if err := send(); errs.KindOf(err) != errs.SyntaxError {
			t.Errorf("a file of %d bytes: the same call sent again: %v, want it refused again", len(src), err)
		}
		if got, _ := afero.ReadFile(mem, "big.go"); string(got) != src {
			t.Errorf("a file of %d bytes: big.go changed", len(src))
		}
	}
}

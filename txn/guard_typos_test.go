package txn

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/guard"
	"github.com/vfsctl/vfsctl/matcher"
)

// An edit that puts an en dash and curly quotes in code, and a curly apostrophe in a
// string, in a file too large for the guard to try writing them plain: the refusal
// named the dash alone, and the call sent with the dash plain was refused again, for
// the quote. It names each one in code with its plain counterpart, and not the one in
// the string; the call sent with those plain is written, the apostrophe as sent.
func TestTypographyRefusalNamesEveryCodeCharacterOfTheLine(t *testing.T) {
	cases := []struct {
		path, head, filler, line, newText, fixed string
	}{
		{"big.go", "package big\n\n", "// filler\n", `var n = 1`,
			`var n = len(“a”) – len(“b”) – len("it’s")`, `var n = len("a") - len("b") - len("it’s")`},
		{"big.py", "", "# filler\n", `n = 1`,
			`n = len(“a”) – len(“b”) – len("it’s")`, `n = len("a") - len("b") - len("it’s")`},
		{"big.js", "", "// filler\n", `var n = 1;`,
			`var n = len(“a”) – len(“b”) – len("it’s");`, `var n = len("a") - len("b") - len("it’s");`},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			// Over the guard's budget for trying these seven (2+2*7 parses of 1.2 MB).
			src := c.head + strings.Repeat(c.filler, 1_200_000/len(c.filler)) + c.line + "\n"
			if guard.Syntax(c.path, []byte(src), []byte(src+"(\n")) == nil {
				t.Skipf("%s is not guarded in this build", c.path)
			}
			mem := afero.NewMemMapFs()
			afero.WriteFile(mem, c.path, []byte(src), 0o644)
			e := memEngine(t, mem)
			defer e.Close()
			send := func(newText string) error {
				args, _ := json.Marshal(map[string]any{"path": c.path, "edits": []map[string]string{{"oldText": c.line, "newText": newText}}})
				call, err := e.Begin("s", "edit_file", args)
				if err != nil {
					t.Fatal(err)
				}
				_, err = e.Edit(call, c.path, []matcher.Edit{{OldText: c.line, NewText: newText}}, false)
				call.Finish(err)
				return err
			}
			err := send(c.newText)
			if errs.KindOf(err) != errs.SyntaxError {
				t.Fatalf("%s: %v, want a syntax refusal", c.path, err)
			}
			msg := err.Error()
			for _, want := range []string{`'-' for '–'`, `'"' for '“'`, `'"' for '”'`} {
				if !strings.Contains(msg, want) {
					t.Errorf("the refusal does not say to send %s:\n%s", want, msg)
				}
			}
			if strings.Contains(msg, "'’'") || strings.Contains(msg, "send this same call again") {
				t.Errorf("the refusal names the apostrophe in the string, or says to send the call again:\n%s", msg)
			}
			if err := send(c.fixed); err != nil {
				t.Fatalf("sent again with the named characters plain: %v", err)
			}
			want := strings.Replace(src, c.line, c.fixed, 1)
			if got, _ := afero.ReadFile(mem, c.path); string(got) != want {
				t.Errorf("%s is not the file with the plain edit made", c.path)
			}
		})
	}
}

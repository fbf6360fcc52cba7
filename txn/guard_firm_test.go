package txn

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/matcher"
)

// `except A, B as e:`, which no Python takes, is refused again when the call is sent
// again (no grammar's lag explains it), and the file is left as it was; `except A, B:`,
// which Python takes from 3.14 on, is refused once and written when the call is sent
// again unchanged, with a warning, as a form a grammar lags behind.
func TestExceptCommaSentAgain(t *testing.T) {
	src := "try:\n    pass\nexcept ValueError:\n    pass\n"
	for _, c := range []struct {
		newText string
		written bool // on the second send
	}{
		{"except ValueError, TypeError as e:", false},
		{"except ValueError, TypeError:", true},
	} {
		mem := afero.NewMemMapFs()
		afero.WriteFile(mem, "e.py", []byte(src), 0o644)
		e := memEngine(t, mem)
		edit := []matcher.Edit{{OldText: "except ValueError:", NewText: c.newText}}
		args, _ := json.Marshal(map[string]any{"path": "e.py", "edits": edit})
		for try := 1; try <= 2; try++ {
			call, err := e.Begin("s", "edit_file", args)
			if err != nil {
				t.Fatal(err)
			}
			ch, err := e.Edit(call, "e.py", edit, false)
			call.Finish(err)
			if try == 2 && c.written {
				if err != nil || len(ch.Warnings) == 0 {
					t.Errorf("%q sent again: %v, warnings %q; want written with a warning", c.newText, err, ch.Warnings)
				}
				continue
			}
			if errs.KindOf(err) != errs.SyntaxError {
				t.Fatalf("%q sent %d times: %v, want a syntax refusal", c.newText, try, err)
			}
			offers := strings.Contains(err.Error(), "send this same call again")
			if c.written && !strings.Contains(err.Error(), "Python 3.14 or later") {
				t.Errorf("%q: the refusal does not say which Python takes it:\n%s", c.newText, err)
			}
			if offers == !c.written || !c.written && !strings.Contains(err.Error(), "refused again") {
				t.Errorf("%q sent %d times: the refusal's offer to send it again is wrong:\n%s", c.newText, try, err)
			}
		}
		got, _ := afero.ReadFile(mem, "e.py")
		if want := strings.Replace(src, "except ValueError:", c.newText, 1); c.written && string(got) != want || !c.written && string(got) != src {
			t.Errorf("%q: e.py is %q", c.newText, got)
		}
		e.Close()
	}
}

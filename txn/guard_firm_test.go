package txn

import (
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/matcher"
)

// `except A, B:` where the python3 here refuses it (before 3.14): the refusal said to
// send the call again if the code is valid, and the call sent again was written. The
// machine's own Python refuses it, so no grammar's lag explains it: it is refused
// again, saying so, and the file is left as it was.
func TestExceptCommaRefusedAgainWhereThePython3HereRefusesIt(t *testing.T) {
	out, err := exec.Command("python3", "-c", "import sys; print(sys.version_info[1])").Output()
	if err != nil {
		t.Skip("no python3 here")
	}
	if minor, _ := strconv.Atoi(strings.TrimSpace(string(out))); minor >= 14 {
		t.Skipf("python3 here is 3.%d, which takes except A, B:", minor)
	}
	src := "try:\n    pass\nexcept ValueError:\n    pass\n"
	mem := afero.NewMemMapFs()
	afero.WriteFile(mem, "e.py", []byte(src), 0o644)
	e := memEngine(t, mem)
	defer e.Close()
	edit := []matcher.Edit{{OldText: "except ValueError:", NewText: "except ValueError, TypeError:"}}
	args, _ := json.Marshal(map[string]any{"path": "e.py", "edits": edit})
	for try := 1; try <= 2; try++ {
		call, err := e.Begin("s", "edit_file", args)
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Edit(call, "e.py", edit, false)
		call.Finish(err)
		if errs.KindOf(err) != errs.SyntaxError {
			t.Fatalf("sent %d times: %v, want a syntax refusal", try, err)
		}
		if msg := err.Error(); strings.Contains(msg, "send this same call again") || !strings.Contains(msg, "refused again") {
			t.Errorf("sent %d times, the refusal offers sending it again, or does not say it is refused again:\n%s", try, msg)
		}
	}
	if got, _ := afero.ReadFile(mem, "e.py"); string(got) != src {
		t.Errorf("e.py is %q", got)
	}
}

package guard

import (
	"context"
	"os/exec"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// Some Python is valid in one version and not in another: `except A, B:` is refused
// before 3.14 and taken since (PEP 758). The guard judges it as the machine's python3
// would, the Python the code here most likely runs under, and refuses nothing it cannot
// tell: without a python3 that answers, the form is let through.

// pyVersion returns the minor version of the machine's python3 (11 for 3.11), and
// whether it is known. It is asked once, and only when a file holds such a form.
var pyVersion = sync.OnceValues(askPython)

var pyVersionRE = regexp.MustCompile(`^Python 3\.(\d+)`)

// askPython runs `python3 --version`, which runs no code of the workspace: exec finds
// python3 on PATH but never in a relative folder of it, such as the workspace.
func askPython() (int, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "python3", "--version").Output()
	if err != nil {
		return 0, false
	}
	m := pyVersionRE.FindSubmatch(out)
	if m == nil {
		return 0, false
	}
	minor, err := strconv.Atoi(string(m[1]))
	return minor, err == nil
}

package matcher

import (
	"os"
	"os/exec"
	"testing"
)

// runAdvice runs a command a refusal advises, literally, in sh from dir, with its
// temporary files in tmp (so that a test sees what it leaves there).
func runAdvice(t *testing.T, dir, tmp, cmd string) error {
	t.Helper()
	sh := exec.Command("sh", "-c", cmd)
	sh.Dir, sh.Env = dir, append(os.Environ(), "TMPDIR="+tmp)
	out, err := sh.CombinedOutput()
	t.Logf("%s: %v %s", cmd, err, out)
	return err
}

// entryNames lists the names in dir.
func entryNames(dir string) []string {
	es, _ := os.ReadDir(dir)
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

package toolapi

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The names of issue 34 through the tools: each is refused, with its kind, and nothing
// of it reaches the disk, whichever tool names it.
func TestNamesGitWouldRefuse(t *testing.T) {
	a, dir := patchAPI(t, map[string]string{"a.txt": "a\n"})
	reserved := []string{".g\u200cit/config", ".git./config", "GIT~1/config", "\uff0egit/config", "sub/.GiT\u200c/hooks/pre-commit", ".git::$INDEX_ALLOCATION/hooks/x", ".vfsctl./holder", "VFSCTL~1/holder"}
	for _, p := range reserved {
		args, _ := json.Marshal(map[string]string{"path": p, "content": "[core]\n\thooksPath = hooks-of-mine\n"})
		if r := call(a, CreateFile, string(args)); kindOf(r) != "path_reserved" {
			t.Errorf("create_file %q: %+v", p, r)
		}
		if r := patchCall(a, "*** Begin Patch\n*** Add File: "+p+"\n+x\n*** End Patch"); kindOf(r) != "path_reserved" {
			t.Errorf("apply_patch add %q: %+v", p, r)
		}
	}
	args, _ := json.Marshal(map[string]string{"path": "x\u202etxt.exe", "content": "x"})
	r := call(a, CreateFile, string(args))
	if kindOf(r) != "invalid_input" || !strings.Contains(r.Text, "U+202E RIGHT-TO-LEFT OVERRIDE") {
		t.Errorf("create_file with a right-to-left override: %+v", r)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "a.txt" && e.Name() != ".vfsctl" {
			t.Errorf("left on disk: %q", e.Name())
		}
	}
	for _, p := range []string{".github/workflows/ci.yml", ".gitignore", ".gitattributes", "git~2.txt"} {
		args, _ := json.Marshal(map[string]string{"path": p, "content": "x\n"})
		if r := call(a, CreateFile, string(args)); !r.OK {
			t.Errorf("create_file %q: %+v", p, r)
		} else if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

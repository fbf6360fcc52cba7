package toolapi_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

// A data file that parsed is guarded whatever its strings hold: a "{{ a }}" written
// into a string (valid) does not turn the guard off for the calls after it.
func TestGuardStaysOnAfterATemplateString(t *testing.T) {
	for _, c := range []struct {
		path, content    string
		old1, new1       string // the valid change that writes "{{ a }}" into a string
		old2, new2       string // the change that breaks the file
		wantAfterFirstOK string
	}{
		{"conf.json", "{\n  \"v\": \"x\",\n  \"list\": [1, 2, 3]\n}\n",
			`"v": "x",`, `"v": "{{ a }}",`, `"list": [1, 2, 3]`, `"list": [1, 2, 3,,,`,
			"{\n  \"v\": \"{{ a }}\",\n  \"list\": [1, 2, 3]\n}\n"},
		{"conf.yaml", "v: x\nlist: [1, 2, 3]\n",
			"v: x", `v: "{{ a }}"`, "list: [1, 2, 3]", "list: [1, 2, 3,,,",
			"v: \"{{ a }}\"\nlist: [1, 2, 3]\n"},
		{"conf.toml", "v = \"x\"\nlist = [1, 2, 3]\n",
			`v = "x"`, `v = "{{ a }}"`, "list = [1, 2, 3]", "list = [1, 2, 3,,,",
			"v = \"{{ a }}\"\nlist = [1, 2, 3]\n"},
	} {
		eng, ws := guardEngine(t, "refuse", map[string]string{c.path: c.content})
		if r := call(t, eng, "edit_file", edit(c.path, c.old1, c.new1)); !r.OK {
			t.Fatalf("%s: the valid change was refused: %+v", c.path, r)
		}
		r := call(t, eng, "edit_file", edit(c.path, c.old2, c.new2))
		if r.OK || *r.Kind != "syntax_error" {
			t.Errorf("%s: a change that breaks the file after a \"{{\" was written into it: %+v", c.path, r)
		}
		if got := testutil.ReadFile(t, filepath.Join(ws, c.path)); got != c.wantAfterFirstOK {
			t.Errorf("%s: on disk %q, want %q", c.path, got, c.wantAfterFirstOK)
		}
		eng.Close()
	}
}

// A template that does not parse as its data language stays editable, as any file
// that was already broken.
func TestGuardLetsATemplateBeEdited(t *testing.T) {
	helm := "spec:\n  {{- if .Values.on }}\n  replicas: {{ .Values.replicas }}\n  {{- end }}\n"
	eng, ws := guardEngine(t, "refuse", map[string]string{"chart/templates/deploy.yaml": helm})
	defer eng.Close()
	r := call(t, eng, "edit_file", edit("chart/templates/deploy.yaml", "  {{- end }}\n", "  {{- end }}\n  {{- with .Values.x }}\n"))
	if !r.OK {
		t.Fatalf("a template that never parsed was refused: %+v", r)
	}
	if got := testutil.ReadFile(t, filepath.Join(ws, "chart/templates/deploy.yaml")); got != helm+"  {{- with .Values.x }}\n" {
		t.Errorf("on disk: %q", got)
	}
}

// The placeholders of issue 34, each where it takes the place of real lines, are
// refused under refuse and nothing is written; the same comment added above lines it
// keeps is written.
func TestPlaceholdersOfTheIssueRefused(t *testing.T) {
	py := "def f(x):\n    a = x + 1\n    b = a * 2\n    c = b - 3\n    return c\n"
	js := "function f(x) {\n  const a = x + 1;\n  const b = a * 2;\n  const c = b - 3;\n  return c;\n}\n"
	for _, ph := range []string{
		"# rest unchanged", "# unchanged", "# same as before", "# (same as before)", "# omitted for brevity",
		"# lines 2-4 unchanged", "# as before", "# (original code)", "# <existing code>",
		"// rest unchanged", "// same as before",
	} {
		path, content, old, keep := "f.py", py, "    b = a * 2\n    c = b - 3\n    return c\n", "    b = a * 2\n"
		if ph[0] == '/' {
			path, content, old, keep = "f.js", js, "  const b = a * 2;\n  const c = b - 3;\n  return c;\n", "  const b = a * 2;\n"
		}
		indent := keep[:len(keep)-len(strings.TrimLeft(keep, " "))]
		eng, ws := guardEngine(t, "refuse", map[string]string{path: content})
		r := call(t, eng, "edit_file", edit(path, old, indent+ph+"\n"))
		if r.OK || *r.Kind != "placeholder_text" {
			t.Errorf("%q in place of 3 lines: %+v", ph, r)
		}
		if got := testutil.ReadFile(t, filepath.Join(ws, path)); got != content {
			t.Errorf("%q: the file changed: %q", ph, got)
		}
		r = call(t, eng, "edit_file", edit(path, keep, indent+ph+"\n"+keep))
		if !r.OK {
			t.Errorf("%q added above a line it keeps: %+v", ph, r)
		}
		eng.Close()
	}
}

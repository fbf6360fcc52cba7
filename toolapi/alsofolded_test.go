package toolapi

import (
	"path/filepath"
	"strings"
	"testing"
)

// The reply to an edit that matched one place exactly names the place that matches
// only once quotes are folded; the file there is untouched.
func TestEditNamesPlaceMatchingAfterFolding(t *testing.T) {
	readme := "# Greeting\n\nCall it as say(“hi”) to greet.\n\n```python\nsay(\"hi\")\n```\n"
	e, dir := openWorkspace(t, map[string]string{"README.md": readme})
	text := mustCall(t, e, "edit_file", `{"path": "README.md", "edits": [{"oldText": "say(“hi”)", "newText": "say(“hello”)"}]}`)
	if !strings.Contains(text, "also matches line 6 once quotes") {
		t.Errorf("reply does not name line 6: %q", text)
	}
	fileIs(t, filepath.Join(dir, "README.md"), strings.Replace(readme, "say(“hi”)", "say(“hello”)", 1), 0o644)
}

// Gemini's count refusal names the places that match only after folding, and does
// not advise an expected_replacements that would replace the exact one alone.
func TestGeminiCountNamesFoldedPlaces(t *testing.T) {
	e, dir := openGemini(t, map[string]string{"g.py": "a = \"x\"\nb = \"x\"\nc = “x”\n"})
	args := `{"file_path": "` + filepath.ToSlash(filepath.Join(dir, "g.py")) + `", "old_string": "“x”", "new_string": "“z”", "expected_replacements": 3}`
	text := refused(t, e, "replace", args, "text_not_found")
	for _, w := range []string{"found 1 exactly (at line 3)", "also matches lines 1, 2", "in a separate call"} {
		if !strings.Contains(text, w) {
			t.Errorf("%q lacks %q", text, w)
		}
	}
	if strings.Contains(text, "to replace them all") || strings.Contains(text, "lines 3") {
		t.Errorf("misleading advice: %q", text)
	}
}

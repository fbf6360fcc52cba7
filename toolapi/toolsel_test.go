package toolapi

import (
	"strings"
	"testing"
)

// "all" with other names keeps all's rule (the first tool of a name): all,glob and
// all,replace choose what all does, not a clash of two write_files; an unknown name's
// refusal lists each tool once.
func TestSelectToolsAllWithOthers(t *testing.T) {
	all, err := selectTools("all")
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{"all,glob", "all,replace", "glob, all", "all,gemini"} {
		got, err := selectTools(spec)
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		if a, b := strings.Join(toolNames(got), ","), strings.Join(toolNames(all), ","); a != b {
			t.Errorf("%s chooses %s, want all's %s", spec, a, b)
		}
	}
	if _, err := selectTools("native,gemini"); err == nil {
		t.Errorf("native,gemini chose two write_files")
	}
	_, err = selectTools("bogus")
	if err == nil {
		t.Fatal("bogus chose tools")
	}
	_, list, _ := strings.Cut(err.Error(), "the tools ")
	seen := map[string]bool{}
	for _, n := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' }) {
		if n == "and" {
			continue
		}
		if seen[n] {
			t.Errorf("the refusal lists %s twice: %s", n, err)
		}
		seen[n] = true
	}
	if !seen["read_file"] || !seen["edit_lines"] {
		t.Errorf("the refusal lists: %s", list)
	}
}

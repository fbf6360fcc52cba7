package toolapi

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"
)

// globFiles is the workspace of the glob tests; each file holds the word the searches
// look for, so a search lists every file its glob takes.
var globFiles = []string{
	"a.py", "b.txt", "c.md", "odd,name.py", "docs/{x}.md",
	"src/app.ts", "src/app.tsx", "src/lib/util.js", "src/lib/util.ts", "src/lib/deep/x.ts",
	"test/unit/t.go", "test/e2e/t.go",
}

// globCases are patterns and the files each takes, written out by hand.
var globCases = []struct {
	pattern string
	want    []string
}{
	{"*.{py,txt}", []string{"a.py", "b.txt", "odd,name.py"}},
	{"**/*.{ts,tsx}", []string{"src/app.ts", "src/app.tsx", "src/lib/util.ts", "src/lib/deep/x.ts"}},
	{"src/**/*.{js,ts}", []string{"src/app.ts", "src/lib/util.js", "src/lib/util.ts", "src/lib/deep/x.ts"}},
	{"test/{unit,e2e}/*.go", []string{"test/unit/t.go", "test/e2e/t.go"}},
	{"{src/{lib,lib/deep},test/unit}/*.{ts,go}", []string{"src/lib/util.ts", "src/lib/deep/x.ts", "test/unit/t.go"}},
	{"*.{md}", []string{"c.md", "docs/{x}.md"}},
	{`docs/\{x\}.md`, []string{"docs/{x}.md"}},
	{"docs/[{]x[}].md", []string{"docs/{x}.md"}},
	{"odd,name.py", []string{"odd,name.py"}},
	{"src/*.ts{,x}", []string{"src/app.ts", "src/app.tsx"}},
	{"*.{rb,rs}", nil}, // nothing: the reply must say so
}

// Brace alternatives in every tool that takes a glob: list_files' pattern,
// search_files' glob, Gemini's glob pattern and search_file_content's include each
// take the files written out by hand for the pattern; a pattern that matches nothing
// says so.
func TestGlobBracesInEveryTool(t *testing.T) {
	files := map[string]string{}
	for _, f := range globFiles {
		files[f] = "needle\n"
	}
	native, _ := newAPI(t, files)
	gemini, _ := openGemini(t, files)
	gcall := func(tool, args string) Result {
		return gemini.Call(context.Background(), "g", tool, json.RawMessage(args))
	}
	// Each tool: its call for a pattern, how its reply lists the paths, and how it
	// says there are none.
	tools := []struct {
		name  string
		call  func(pattern string) Result
		paths func(text string) []string
		none  string
	}{
		{"list_files", func(p string) Result { return call(native, ListFiles, args("pattern", p)) }, listedFiles, "(nothing listed below"},
		{"search_files", func(p string) Result {
			return call(native, SearchFiles, args("pattern", "needle", "glob", p))
		}, searchedFiles, "(no match in"},
		{"glob", func(p string) Result { return gcall(GeminiGlob, args("pattern", p)) }, globbedFiles, "No files found matching"},
		{"search_file_content", func(p string) Result {
			return gcall(GeminiSearch, args("pattern", "needle", "include", p))
		}, searchedFiles, "No matches found"},
	}
	for _, tool := range tools {
		for _, c := range globCases {
			r := tool.call(c.pattern)
			if !r.OK {
				t.Errorf("%s %q: refused: %s", tool.name, c.pattern, r.Text)
				continue
			}
			if c.want == nil {
				if !strings.HasPrefix(r.Text, tool.none) {
					t.Errorf("%s %q: %q, want a reply saying there is none", tool.name, c.pattern, r.Text)
				}
				continue
			}
			got, want := tool.paths(r.Text), slices.Clone(c.want)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("%s %q: got %q, want %q\n%s", tool.name, c.pattern, got, want, r.Text)
			}
		}
	}
}

// A brace that does not pair is refused by every tool, saying which and how to write
// a brace in a name; so is a pattern whose braces multiply past the bound. None is
// answered "nothing found".
func TestGlobMalformedRefused(t *testing.T) {
	native, _ := newAPI(t, map[string]string{"a.py": "needle\n"})
	gemini, _ := openGemini(t, map[string]string{"a.py": "needle\n"})
	gcall := func(tool, args string) Result {
		return gemini.Call(context.Background(), "g", tool, json.RawMessage(args))
	}
	calls := map[string]func(p string) Result{
		"list_files.pattern":          func(p string) Result { return call(native, ListFiles, args("pattern", p)) },
		"search_files.glob":           func(p string) Result { return call(native, SearchFiles, args("pattern", "needle", "glob", p)) },
		"glob.pattern":                func(p string) Result { return gcall(GeminiGlob, args("pattern", p)) },
		"search_file_content.include": func(p string) Result { return gcall(GeminiSearch, args("pattern", "needle", "include", p)) },
		"list_directory.ignore": func(p string) Result {
			b, _ := json.Marshal(map[string]any{"path": ".", "ignore": []string{p}})
			return gcall("list_directory", string(b))
		},
	}
	bad := []struct{ pattern, says string }{
		{"*.{py", "the '{' at character 3 is never closed"},
		{"*.py}", "the '}' at character 5 closes no '{'"},
		{"{a,{b}/*.py", "the '{' at character 1 is never closed"},
		{`docs/\{x}.md`, "the '}' at character 9 closes no '{'"},
		{"*.[py", "'[' without its ']'"},
		{strings.Repeat("{a,b}", 9), "more than 256 patterns"},
		{strings.Repeat("a", 5000), "over the 4096 a glob may be"},
	}
	for arg, call := range calls {
		for _, b := range bad {
			r := call(b.pattern)
			if r.OK || kindOf(r) != "invalid_input" || !strings.Contains(r.Text, arg) || !strings.Contains(r.Text, b.says) {
				t.Errorf("%s %q: %v %s %q, want invalid_input naming %s and saying %q", arg, b.pattern, r.OK, kindOf(r), r.Text, arg, b.says)
			}
		}
	}
}

// Gemini's list_directory leaves out the names its ignore globs take, braces
// included.
func TestListDirectoryIgnoreBraces(t *testing.T) {
	gemini, _ := openGemini(t, map[string]string{"a.py": "", "b.md": "", "c.go": "", "sub/d.py": ""})
	r := gemini.Call(context.Background(), "g", "list_directory", json.RawMessage(`{"path": ".", "ignore": ["*.{py,md}"]}`))
	if want := "Directory listing for the workspace root:\n[DIR] sub\nc.go"; r.Text != want {
		t.Errorf("got %q, want %q", r.Text, want)
	}
}

// Expansions written out by hand: nesting, empty alternatives, escapes and classes
// kept for path.Match.
func TestExpandBraces(t *testing.T) {
	cases := map[string][]string{
		"a":              {"a"},
		"a{b,c}d":        {"abd", "acd"},
		"a{b,c{d,e}}f":   {"abf", "acdf", "acef"},
		"{a,b}{c,d}":     {"ac", "ad", "bc", "bd"},
		"x{,y}":          {"x", "xy"},
		"{}":             {""},
		"a,b":            {"a,b"},
		`\{a,b\}`:        {`\{a,b\}`},
		`{a\,b,c}`:       {`a\,b`, "c"},
		"[{,}]{x,y}":     {"[{,}]x", "[{,}]y"},
		`[\]{]{p,q}`:     {`[\]{]p`, `[\]{]q`},
		"**/*.{ts,tsx}":  {"**/*.ts", "**/*.tsx"},
		"{src,lib}/**/x": {"src/**/x", "lib/**/x"},
	}
	for in, want := range cases {
		got, err := expandBraces(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%q: %q, %v; want %q", in, got, err, want)
		}
	}
}

// args is a JSON object of string arguments, given as name, value pairs.
func args(kv ...string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// listedFiles reads list_files' lines, folders left out.
func listedFiles(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l != "" && !strings.HasSuffix(l, "/") {
			out = append(out, l)
		}
	}
	return out
}

// searchedFiles reads the paths of "path:line: text" lines.
func searchedFiles(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if p, _, ok := strings.Cut(l, ":1: "); ok {
			out = append(out, p)
		}
	}
	return out
}

// globbedFiles reads Gemini glob's paths, below its "Found N files" line.
func globbedFiles(text string) []string {
	head, rest, _ := strings.Cut(text, "\n")
	if !strings.HasPrefix(head, "Found ") {
		return []string{fmt.Sprintf("(no list: %s)", head)}
	}
	return strings.Split(rest, "\n")
}

// matchParts against the definition read recursively (a ** takes none, or one name
// and stays), over every pattern and path of a small alphabet up to a few segments:
// the linear walk answers as the definition does.
func TestMatchPartsAgreesWithDefinition(t *testing.T) {
	var byDefinition func(pat, parts []string) bool
	byDefinition = func(pat, parts []string) bool {
		switch {
		case len(pat) == 0:
			return len(parts) == 0
		case pat[0] == "**":
			return byDefinition(pat[1:], parts) || len(parts) > 0 && byDefinition(pat, parts[1:])
		case len(parts) == 0:
			return false
		}
		ok, _ := path.Match(pat[0], parts[0])
		return ok && byDefinition(pat[1:], parts[1:])
	}
	all := func(alphabet []string, n int) [][]string {
		out := [][]string{{}}
		for k := 0; k < len(out); k++ {
			if len(out[k]) < n {
				for _, s := range alphabet {
					out = append(out, append(slices.Clone(out[k]), s))
				}
			}
		}
		return out
	}
	pats, paths := all([]string{"**", "a", "*", "b?"}, 5), all([]string{"a", "bc", "b"}, 5)
	checked := 0
	for _, pat := range pats {
		for _, p := range paths {
			if got, want := matchParts(pat, p), byDefinition(pat, p); got != want {
				t.Fatalf("%q against %q: %v, by definition %v", strings.Join(pat, "/"), strings.Join(p, "/"), got, want)
			}
			checked++
		}
	}
	t.Logf("%d pairs", checked)
}

// Many ** against a deep path: linear per **, where trying every split of the path
// among them took half a second a path.
func BenchmarkGlobManyDoubleStars(b *testing.B) {
	g, err := parseGlob(strings.Repeat("**/a/", 7) + "x")
	if err != nil {
		b.Fatal(err)
	}
	p := strings.Repeat("a/", 30) + "y"
	for range b.N {
		g.match(p)
	}
}

package guard

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

// moduleDir is where the module cache holds mod, or "".
func moduleDir(mod string) string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", mod).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// Real files of each language, from the Go tree, the Python standard library and the
// modules this one depends on (JavaScript and TypeScript from esbuild, TOML from
// BurntSushi/toml, YAML from goccy/go-yaml). In each file that parses, a line that
// cannot stand where it is put is refused on its line; a comment (or, for JSON, a blank
// line) put in the same place passes; and once the file is broken, an edit elsewhere
// passes too.
func TestRealFilesPerLanguage(t *testing.T) {
	goroot := testutil.GOROOT()
	esb, tml, yml := moduleDir("github.com/evanw/esbuild"), moduleDir("github.com/BurntSushi/toml"), moduleDir("github.com/goccy/go-yaml")
	sets := []struct {
		lang, dir, ext string
		// anchor: a line the bad line is put before; bad, good: the lines put there.
		anchor    func(string) bool
		bad, good string
	}{
		{"go", filepath.Join(goroot, "src", "net"), ".go", prefix("func "), ")", "// checked"},
		{"python", pythonLib(), ".py", prefix("def "), ")", "# checked"},
		{"javascript", filepath.Join(esb, "scripts"), ".js", prefix("function ", "const ", "async function "), ")", "// checked"},
		{"typescript", filepath.Join(esb, "lib", "shared"), ".ts", prefix("export ", "function ", "const "), ")", "// checked"},
		{"json", filepath.Join(goroot, "src"), ".json", prefix(`  "`), `  "unclosed": [`, ""},
		{"toml", filepath.Join(tml, "internal", "toml-test", "tests", "valid"), ".toml", prefix("["), "= nothing named", "# checked"},
		{"yaml", yml, ".yml", func(l string) bool { return l != "" && l[0] >= 'a' && l[0] <= 'z' && strings.Contains(l, ":") }, "key: [unclosed", "# checked"},
	}
	for _, set := range sets {
		if !guarded(set.lang) {
			t.Logf("%s: not guarded in this build", set.lang)
			continue
		}
		if _, err := os.Stat(set.dir); set.dir == "" || err != nil {
			t.Logf("%s: no files here (%s)", set.lang, set.dir)
			continue
		}
		var paths []string
		filepath.WalkDir(set.dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, set.ext) && len(paths) < 200 {
				paths = append(paths, p)
			}
			return nil
		})
		tried := 0
		for _, p := range paths {
			if tried >= 8 {
				break
			}
			src, err := os.ReadFile(p)
			if err != nil || len(src) > 1<<20 || Language(p, src) != set.lang || Syntax(p, nil, src) != nil {
				continue // unreadable, large, a template or JSON with comments, or broken
			}
			lines := strings.SplitAfter(string(src), "\n")
			at := -1
			for _, from := range []int{len(lines) / 2, 1} { // from the middle (past headers), else the top
				for i := from; i < len(lines) && at < 0; i++ {
					if set.anchor(strings.TrimRight(lines[i], "\r\n")) && !inString(lines[:i]) {
						at = i
					}
				}
			}
			if at < 0 {
				continue
			}
			with := func(line string) []byte {
				return []byte(strings.Join(lines[:at], "") + line + "\n" + strings.Join(lines[at:], ""))
			}
			tried++
			broken := with(set.bad)
			e := Syntax(p, src, broken)
			switch {
			case e == nil:
				t.Errorf("%s: %q put before line %d passed", p, set.bad, at+1)
				continue
			case e.Line < at+1 || e.Line > at+2:
				t.Errorf("%s: %q put at line %d flagged at line %d: %s", p, set.bad, at+1, e.Line, e.Message)
			}
			if e := Syntax(p, src, with(set.good)); e != nil {
				t.Errorf("%s: %q put at line %d flagged: %+v", p, set.good, at+1, e)
			}
			more := bytes.Replace(broken, []byte("\n"), []byte("\n\n"), 1)
			if e := Syntax(p, broken, more); e != nil {
				t.Errorf("%s: an edit of the broken file flagged: %+v", p, e)
			}
		}
		t.Logf("%s: %d real files tried", set.lang, tried)
		if tried == 0 {
			t.Errorf("%s: no real file could be tried in %s", set.lang, set.dir)
		}
	}
}

func prefix(ps ...string) func(string) bool {
	return func(l string) bool {
		for _, p := range ps {
			if strings.HasPrefix(l, p) {
				return true
			}
		}
		return false
	}
}

// inString reports whether the lines end inside a Python triple-quoted string or a Go
// raw string, where a line put in would be text, not code.
func inString(lines []string) bool {
	n := 0
	for _, l := range lines {
		n += strings.Count(l, `"""`) + strings.Count(l, "'''") + strings.Count(l, "`")
	}
	return n%2 == 1
}

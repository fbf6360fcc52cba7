package guard

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// readCases reads a testdata list: one case a line, "#=" lines and blank lines left out.
func readCases(t *testing.T, name string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "#=") {
			out = append(out, l)
		}
	}
	return out
}

// Every phrasing of the list is caught where it replaces real lines, in a code file of
// any language; none is where it only adds a line; none of the ordinary comments of the
// second list is caught anywhere.
func TestPlaceholderPhrasings(t *testing.T) {
	old := "a = 1\nb = 2\nc = 3\n"
	phrasings := readCases(t, "placeholders.txt")
	caught := 0
	for _, ph := range phrasings {
		got := Placeholders("f.js", []Change{{Old: []byte(old), New: []byte("a = 1\n" + ph + "\n"), Line: 1}})
		if got == nil {
			t.Errorf("not caught: %q", ph)
			continue
		}
		caught++
		if added := Placeholders("f.js", []Change{{Old: []byte(old), New: []byte("a = 1\n" + ph + "\nb = 2\nc = 3\n"), Line: 1}}); added != nil {
			t.Errorf("%q refused where it deletes nothing: %+v", ph, added)
		}
	}
	t.Logf("placeholder phrasings caught: %d of %d", caught, len(phrasings))
	if len(phrasings) < 100 {
		t.Errorf("only %d phrasings", len(phrasings))
	}
	for _, c := range readCases(t, "comments.txt") {
		if isPlaceholder(c) {
			t.Errorf("an ordinary comment taken for a placeholder: %q", c)
		}
	}
}

// corpus is a tree of real code and the comment markers of its files.
type corpus struct {
	name string
	dir  string
	exts map[string]bool
	hash bool // # comments (Python), else // and /* */
	max  int  // files read at most; 0 for all
}

// TestPlaceholderCorpus counts the comment lines of real code that the placeholder
// check would take for a placeholder: none must be, but for lines with an ellipsis
// ("// ...", "// ... setup ..."), which is how examples in comments leave code out and
// what models write most often in place of code; those are counted and reported. By default it reads a part of the
// Go tree this test runs with; VFSCTL_COMMENT_CORPUS=1 reads the whole Go tree, the
// Python standard library (python3 on PATH) and, when VFSCTL_NPM_CORPUS names a
// node_modules folder, the .js and .ts files of the npm packages in it.
func TestPlaceholderCorpus(t *testing.T) {
	full := os.Getenv("VFSCTL_COMMENT_CORPUS") != ""
	goSrc := filepath.Join(runtime.GOROOT(), "src")
	corpora := []corpus{{name: "go", dir: goSrc, exts: map[string]bool{".go": true}, max: 400}}
	if full {
		corpora[0].max = 0
		if out, err := exec.Command("python3", "-c", `import sysconfig; print(sysconfig.get_paths()["stdlib"])`).Output(); err == nil {
			corpora = append(corpora, corpus{name: "python", dir: strings.TrimSpace(string(out)), exts: map[string]bool{".py": true}, hash: true})
		} else {
			t.Errorf("python3: %v", err)
		}
		if npm := os.Getenv("VFSCTL_NPM_CORPUS"); npm != "" {
			corpora = append(corpora, corpus{name: "npm", dir: npm, exts: map[string]bool{".js": true, ".ts": true, ".mjs": true, ".cjs": true, ".mts": true, ".cts": true}})
		}
	}
	for _, c := range corpora {
		if _, err := os.Stat(c.dir); err != nil {
			t.Logf("%s: %v; skipped", c.name, err)
			continue
		}
		files, lines, flagged, dotted := 0, 0, 0, 0
		filepath.WalkDir(c.dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() && d.Name() == "site-packages" {
				return filepath.SkipDir // installed packages, not the standard library
			}
			if err != nil || d.IsDir() || !c.exts[filepath.Ext(p)] || strings.HasSuffix(p, ".min.js") || c.max > 0 && files >= c.max {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil || bytes.IndexByte(data, 0) >= 0 {
				return nil
			}
			files++
			for _, l := range commentLines(data, c.hash) {
				lines++
				if !isPlaceholder(l) {
					continue
				}
				flagged++
				if body, _ := commentBody(l); patterns().ellipsis.MatchString(body) {
					// "// ..." or "// ... setup ..." in an example: a placeholder by
					// its text alone, refused only where it takes the place of real
					// lines.
					dotted++
					continue
				}
				if flagged-dotted <= 40 {
					rel, _ := filepath.Rel(c.dir, p)
					t.Errorf("%s: %s: %q taken for a placeholder", c.name, rel, strings.TrimSpace(l))
				}
			}
			return nil
		})
		t.Logf("%s: %d files, %d comment lines, %d taken for a placeholder: %d with an ellipsis, %d without", c.name, files, lines, flagged, dotted, flagged-dotted)
		if lines == 0 {
			t.Errorf("%s: no comment lines read from %s", c.name, c.dir)
		}
	}
}

// commentLines returns the lines of src that hold a comment and nothing else: lines
// that start with # (hash), or with //, or that a /* */ comment covers, told apart
// line by line (strings are not tracked, which a real tree rarely needs).
func commentLines(src []byte, hash bool) []string {
	var out []string
	in := false
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		l := sc.Text()
		s := strings.TrimSpace(l)
		if len(s) > 400 {
			continue // generated or minified
		}
		switch {
		case hash:
			if strings.HasPrefix(s, "#") {
				out = append(out, l)
			}
		case in:
			out = append(out, l)
			in = !strings.Contains(s, "*/")
		case strings.HasPrefix(s, "//"):
			out = append(out, l)
		case strings.HasPrefix(s, "/*"):
			out = append(out, l)
			in = !strings.Contains(s[2:], "*/")
		}
	}
	return out
}

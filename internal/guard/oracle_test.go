package guard

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

// The guard against independent parsers, over random one-line changes of real files:
// CPython for Python, gofmt for Go, node for JavaScript. Where the reference accepts
// a file, the guard must refuse a change of it exactly when the reference refuses the
// changed file. Each test tries a few hundred changes; VFSCTL_GUARD_ORACLE=N tries N
// (.ci/run tries thousands).

// oracleChanges is how many changes a test tries (def, or VFSCTL_GUARD_ORACLE), and
// the largest file it changes: small ones by default, since the references take
// their time over large ones.
func oracleChanges(def int) (int, int64) {
	if n, err := strconv.Atoi(os.Getenv("VFSCTL_GUARD_ORACLE")); err == nil && n > 0 {
		return n, 200 << 10
	}
	if testing.Short() {
		return def / 4, 16 << 10
	}
	return def, 16 << 10
}

// cpython is CPython's own parser behind a pipe: a source in (its length on a line,
// then its bytes), a verdict out ("ok", or the error on one line).
type cpython struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

const cpythonLoop = `
import ast, sys, sysconfig, warnings
warnings.filterwarnings("ignore")
r, w = sys.stdin.buffer, sys.stdout
w.write(sysconfig.get_paths()["stdlib"] + "\n")
w.flush()
while True:
    n = r.readline()
    if not n:
        break
    src = r.read(int(n))
    try:
        ast.parse(src)
        w.write("ok\n")
    except Exception as e:
        w.write(type(e).__name__ + ": " + " ".join(str(e).split()) + "\n")
    w.flush()
`

// startCPython starts python3, or skips the test where there is none. It returns
// its standard library's folder too, which the loop says first.
func startCPython(t *testing.T) (*cpython, string) {
	t.Helper()
	cmd := exec.Command("python3", "-c", cpythonLoop)
	in, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Skipf("no python3 here: %v", err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	out := bufio.NewReader(stdout)
	lib, err := out.ReadString('\n')
	if err != nil {
		t.Skipf("python3: %v", err)
	}
	return &cpython{cmd, in, out}, strings.TrimSpace(lib)
}

// parse returns "" when CPython accepts src, else its error.
func (c *cpython) parse(t *testing.T, src []byte) string {
	t.Helper()
	fmt.Fprintf(c.in, "%d\n", len(src))
	c.in.Write(src)
	line, err := c.out.ReadString('\n')
	if err != nil {
		t.Fatalf("python3 stopped: %v", err)
	}
	if line = strings.TrimSpace(line); line == "ok" {
		return ""
	}
	return line
}

// filesUnder lists the files under dir ending in ext, at most max bytes each.
func filesUnder(dir, ext string, max int64) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == "site-packages" || d.Name() == "dist-packages") {
			return filepath.SkipDir
		}
		if info, err := d.Info(); err == nil && !d.IsDir() && strings.HasSuffix(p, ext) && info.Size() <= max {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// reindent changes the leading whitespace of one random line of src that holds code
// or a comment, as a model's edit might: spaces added or taken away, a tab for spaces
// or added, the indentation of a nearby line, or none.
func reindent(rng *rand.Rand, src []byte) []byte {
	lines := bytes.SplitAfter(src, []byte("\n"))
	for range 20 {
		i := rng.Intn(len(lines))
		l := lines[i]
		body := bytes.TrimLeft(l, " \t\f")
		if len(bytes.TrimSpace(body)) == 0 {
			continue
		}
		ind := string(l[:len(l)-len(body)])
		var to string
		switch rng.Intn(7) {
		case 0: // spaces added
			to = ind + strings.Repeat(" ", 1+rng.Intn(8))
		case 1: // spaces taken away
			k := min(1+rng.Intn(8), len(ind))
			to = ind[k:]
		case 2: // a tab for up to eight spaces
			k := strings.Index(ind, strings.Repeat(" ", 1+rng.Intn(8)))
			if k < 0 {
				to = "\t" + ind
				break
			}
			n := 1 + rng.Intn(8)
			to = ind[:k] + "\t" + strings.TrimPrefix(ind[k:], strings.Repeat(" ", n))
		case 3: // every four spaces a tab
			to = strings.ReplaceAll(ind, "    ", "\t")
		case 4: // a tab added, before or after
			if rng.Intn(2) == 0 {
				to = "\t" + ind
			} else {
				to = ind + "\t"
			}
		case 5: // a nearby line's indentation
			j := min(max(i+rng.Intn(11)-5, 0), len(lines)-1)
			to = string(lines[j][:len(lines[j])-len(bytes.TrimLeft(lines[j], " \t\f"))])
		case 6: // none
			to = ""
		}
		if to == ind {
			continue
		}
		var b bytes.Buffer
		for j, l := range lines {
			if j == i {
				b.WriteString(to)
				b.Write(body)
			} else {
				b.Write(l)
			}
		}
		return b.Bytes()
	}
	return nil
}

// tally counts the changes a test tried, and where guard and reference differ.
type tally struct {
	lang                   string
	tried, refRefused      int
	guardOnly, guardMisses int
	shown                  int
}

func (c *tally) check(t *testing.T, p string, src, changed []byte, refErr string) {
	t.Helper()
	c.tried++
	if refErr != "" {
		c.refRefused++
	}
	g := Syntax(fmt.Sprintf("%s.%d%s", p, c.tried, filepath.Ext(p)), src, changed)
	if (g != nil) == (refErr != "") {
		return
	}
	pre, _ := CommonEnds(src, changed)
	line, _ := lineCol(changed, pre)
	what := "written though the reference refuses it: " + refErr
	if g != nil {
		c.guardOnly++
		what = fmt.Sprintf("refused though the reference accepts it: line %d: %s", g.Line, g.Message)
	} else {
		c.guardMisses++
	}
	if c.shown++; c.shown <= 15 {
		t.Errorf("%s, change at line %d, %q: %s", p, line, lineFrom(changed, pre-(pre-bytes.LastIndexByte(changed[:pre], '\n')-1), 60), what)
	}
}

func (c *tally) report(t *testing.T) {
	t.Logf("%s (%s): %d changes tried, %d refused by the reference; the guard agreed on %d, refused %d the reference accepts, wrote %d the reference refuses",
		c.lang, Backend(), c.tried, c.refRefused, c.tried-c.guardOnly-c.guardMisses, c.guardOnly, c.guardMisses)
	if c.tried == 0 {
		t.Error("no change could be tried")
	}
}

// Random changes of the indentation of one line of files of Python's standard
// library: the guard refuses exactly what CPython refuses (an unindent to a level
// never opened, an unexpected indent, a block left empty, tabs mixed ambiguously).
func TestPythonIndentAgreesWithCPython(t *testing.T) {
	if !guarded("python") {
		t.Skip("python is not guarded in this build")
	}
	py, lib := startCPython(t)
	n, size := oracleChanges(300)
	files := filesUnder(lib, ".py", size)
	if len(files) == 0 {
		t.Skipf("no Python files under %s", lib)
	}
	rng := rand.New(rand.NewSource(39))
	c := &tally{lang: "python"}
	for c.tried < n {
		p := files[rng.Intn(len(files))]
		src, err := os.ReadFile(p)
		if err != nil || py.parse(t, src) != "" {
			continue // CPython refuses the file itself (a test of bad syntax)
		}
		for range 5 {
			if changed := reindent(rng, src); changed != nil {
				c.check(t, p, src, changed, py.parse(t, changed))
			}
		}
	}
	c.report(t)
}

// New files made of files of Python's standard library with the indentation of one
// random line changed: the guard refuses a new file exactly when CPython refuses it.
// Its check of tokens and indentation does not lag behind the language as tree-sitter's
// grammar can, so it refuses a new file as it refuses an edit.
func TestNewPythonFileIndentAgreesWithCPython(t *testing.T) {
	if !guarded("python") {
		t.Skip("python is not guarded in this build")
	}
	py, lib := startCPython(t)
	n, size := oracleChanges(100)
	files := filesUnder(lib, ".py", size)
	if len(files) == 0 {
		t.Skipf("no Python files under %s", lib)
	}
	rng := rand.New(rand.NewSource(41))
	tried, refused, wrong := 0, 0, 0
	for tried < n {
		p := files[rng.Intn(len(files))]
		src, err := os.ReadFile(p)
		if err != nil || py.parse(t, src) != "" {
			continue
		}
		for range 5 {
			changed := reindent(rng, src)
			if changed == nil {
				continue
			}
			tried++
			ref := py.parse(t, changed)
			if ref != "" {
				refused++
			}
			g := Syntax(fmt.Sprintf("new%d.py", tried), nil, changed)
			if (g != nil) == (ref != "") {
				continue
			}
			if wrong++; wrong > 15 {
				continue
			}
			if g != nil {
				t.Errorf("%s as a new file: refused though CPython accepts it: line %d: %s", p, g.Line, g.Message)
			} else {
				t.Errorf("%s as a new file: written though CPython refuses it: %s", p, ref)
			}
		}
	}
	t.Logf("python (%s): %d new files, %d refused by CPython, %d where the guard disagrees", Backend(), tried, refused, wrong)
}

// lineChange makes one change a model makes by mistake to one random line of src that
// holds code: deletes it, unindents it, drops one of its brackets, or doubles it.
func lineChange(rng *rand.Rand, src []byte) []byte {
	lines := bytes.SplitAfter(src, []byte("\n"))
	for range 20 {
		i := rng.Intn(len(lines))
		l := lines[i]
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var to []byte
		switch rng.Intn(4) {
		case 0: // deleted
		case 1: // unindented
			to = bytes.TrimLeft(l, " \t")
		case 2: // a bracket dropped
			var at []int
			for j, c := range l {
				if bytes.IndexByte([]byte("()[]{}"), c) >= 0 {
					at = append(at, j)
				}
			}
			if len(at) == 0 {
				continue
			}
			j := at[rng.Intn(len(at))]
			to = append(append([]byte{}, l[:j]...), l[j+1:]...)
		case 3: // doubled
			to = append(append([]byte{}, l...), l...)
		}
		if bytes.Equal(to, l) {
			continue
		}
		var b bytes.Buffer
		for j, l := range lines {
			if j == i {
				b.Write(to)
			} else {
				b.Write(l)
			}
		}
		return b.Bytes()
	}
	return nil
}

// gofmt returns "" when gofmt -e accepts src, else its first error. gofmt takes a list
// of declarations or statements without a package clause too (it formats fragments);
// such a change is counted apart, since a Go file needs its package clause.
func gofmt(t *testing.T, src []byte) string {
	cmd := exec.Command(filepath.Join(testutil.GOROOT(), "bin", "gofmt"), "-e")
	cmd.Stdin = bytes.NewReader(src)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		first, _, _ := strings.Cut(stderr.String(), "\n")
		return "gofmt: " + first
	}
	return ""
}

// hasPackageClause reports whether src's first word outside comments is "package".
func hasPackageClause(src []byte) bool {
	for s := src; len(s) > 0; {
		s = bytes.TrimLeft(s, " \t\r\n")
		switch {
		case bytes.HasPrefix(s, []byte("//")):
			_, s, _ = bytes.Cut(s, []byte("\n"))
		case bytes.HasPrefix(s, []byte("/*")):
			_, s, _ = bytes.Cut(s, []byte("*/"))
		default:
			return bytes.HasPrefix(s, []byte("package"))
		}
	}
	return false
}

// Random one-line mistakes in files of the Go tree: the guard refuses exactly what
// gofmt -e refuses, and refuses besides a file left without its package clause.
func TestGoChangesAgreeWithGofmt(t *testing.T) {
	if _, err := os.Stat(filepath.Join(testutil.GOROOT(), "bin", "gofmt")); err != nil {
		t.Skip("no gofmt here")
	}
	n, size := oracleChanges(60) // a gofmt per change
	files := filesUnder(filepath.Join(testutil.GOROOT(), "src"), ".go", size)
	if len(files) == 0 {
		t.Skip("no Go sources")
	}
	rng := rand.New(rand.NewSource(39))
	c := &tally{lang: "go"}
	fragments := 0
	for c.tried < n {
		p := files[rng.Intn(len(files))]
		src, err := os.ReadFile(p)
		if err != nil || strings.Contains(p, "testdata") || gofmt(t, src) != "" {
			continue
		}
		for range 3 {
			changed := lineChange(rng, src)
			if changed == nil {
				continue
			}
			ref := gofmt(t, changed)
			if ref == "" && !hasPackageClause(changed) {
				if fragments++; Syntax(p, src, changed) == nil {
					t.Errorf("%s: a change that leaves no package clause was written", p)
				}
				continue
			}
			c.check(t, p, src, changed, ref)
		}
	}
	t.Logf("go: besides, %d changes left no package clause: gofmt takes them as a fragment, the guard refuses them", fragments)
	c.report(t)
}

// node is V8's parser behind a pipe, as node --check uses it: a file is compiled as
// CommonJS (in node's function wrapper) and, where that fails, as an ES module.
type node struct{ cpython }

const nodeLoop = `
const fs = require("fs"), vm = require("vm");
let buf = Buffer.alloc(0);
function more() {
  const b = Buffer.alloc(1 << 16);
  let n;
  try { n = fs.readSync(0, b, 0, b.length, null); } catch (e) { if (e.code === "EAGAIN") return; throw e; }
  if (n === 0) process.exit(0);
  buf = Buffer.concat([buf, b.subarray(0, n)]);
}
for (;;) {
  let nl;
  while ((nl = buf.indexOf(10)) < 0) more();
  const n = parseInt(buf.subarray(0, nl).toString());
  buf = buf.subarray(nl + 1);
  while (buf.length < n) more();
  const src = buf.subarray(0, n).toString();
  buf = buf.subarray(n);
  let res = "ok";
  try {
    vm.compileFunction(src, ["exports", "require", "module", "__filename", "__dirname"]);
  } catch (e) {
    try { new vm.SourceTextModule(src); } catch (e2) { res = "node: " + String(e.message).split("\n")[0]; }
  }
  fs.writeSync(1, res + "\n");
}
`

// jsFiles lists JavaScript files this machine holds: esbuild's scripts (a module this
// one builds with), the Go tree's, and the npm packages .ci/run installs
// ($VFSCTL_NPM_CORPUS, $VFSCTL_DUCKDB).
func jsFiles(size int64) []string {
	var out []string
	for _, dir := range []string{moduleDir("github.com/evanw/esbuild"), testutil.GOROOT(), os.Getenv("VFSCTL_NPM_CORPUS"), os.Getenv("VFSCTL_DUCKDB")} {
		if dir != "" {
			out = append(out, filesUnder(dir, ".js", size)...)
		}
	}
	return out
}

// Random one-line mistakes in JavaScript files: the guard refuses exactly what node
// refuses.
func TestJavaScriptChangesAgreeWithNode(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node here")
	}
	n, size := oracleChanges(100)
	files := jsFiles(size)
	if len(files) == 0 {
		t.Skip("no JavaScript files")
	}
	cmd := exec.Command("node", "--experimental-vm-modules", "--no-warnings", "-e", nodeLoop)
	in, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Skipf("node: %v", err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	ref := &node{cpython{cmd, in, bufio.NewReader(stdout)}}
	rng := rand.New(rand.NewSource(39))
	c := &tally{lang: "javascript"}
	for skipped := 0; c.tried < n && skipped < 1000; {
		p := files[rng.Intn(len(files))]
		src, err := os.ReadFile(p)
		if err != nil || ref.parse(t, src) != "" || Syntax(p, nil, src) != nil {
			skipped++
			continue
		}
		for range 3 {
			if changed := lineChange(rng, src); changed != nil {
				c.check(t, p, src, changed, ref.parse(t, changed))
			}
		}
	}
	c.report(t)
}

package guard

import (
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

// TestMeasureGuard measures what the guard of one edit of a large file costs:
// VFSCTL_GUARD_MEASURE=python:30 builds a valid Python file of about 30 MiB, edits a
// line in its middle, and reports the time of the guard (as the engine runs it, cold)
// and the process's peak memory above what it held before (Linux: /proc/self). Run
// one per process; VFSCTL_GUARD_MEASURE=python:4080k builds one of 4,080 KiB.
func TestMeasureGuard(t *testing.T) {
	spec := os.Getenv("VFSCTL_GUARD_MEASURE")
	if spec == "" {
		t.Skip("VFSCTL_GUARD_MEASURE=lang:MiB (or lang:KiBk) measures the guard of a large file")
	}
	lang, mib, _ := strings.Cut(spec, ":")
	n, _ := strconv.Atoi(strings.TrimSuffix(mib, "k"))
	n <<= 20
	if strings.HasSuffix(mib, "k") { // in KiB
		n >>= 10
	}
	name, old, comment := measureFile(t, lang, n)
	mid := bytes.IndexByte(old[len(old)/2:], '\n') + len(old)/2 + 1
	if lang == "yaml" { // not inside a block scalar
		mid = bytes.Index(old[len(old)/2:], []byte("\n  - name:")) + len(old)/2 + 1
	}
	new := append(append(append([]byte{}, old[:mid]...), comment+"\n"...), old[mid:]...)
	if lang == "json" {
		new = bytes.Replace(old, []byte(`"n": 1`), []byte(`"n": 2`), 1)
	}
	runtime.GC()
	debug.FreeOSMemory()
	base := procStatus("VmRSS")
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	rs := []Change{{Old: nil, New: []byte(comment + "\n"), Line: 1}} // edit_file's splice
	if os.Getenv("VFSCTL_GUARD_MEASURE_WRITE") != "" {               // write_file's: the whole file
		rs = []Change{{Old: old, New: new, Line: 1}}
	}
	Placeholders(name, rs)
	ph := time.Since(start)
	s := Syntax(name, old, new)
	took := time.Since(start)
	for {
		cache.Lock()
		busy := len(cache.warming) > 0
		cache.Unlock()
		if !busy {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	all := time.Since(start)
	peak := procStatus("VmHWM")
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if s != nil {
		t.Errorf("the edit of the measured file broke it: %+v", s)
	}
	t.Logf("%s %.1f MiB (%d lines): placeholders %.2fs, guard %.2fs (with background parse %.2fs), peak RSS +%d MiB (base %d MiB), Go heap alloc total %d MiB, result %v, unchecked: %q",
		lang, float64(len(old))/(1<<20), bytes.Count(old, []byte("\n")), ph.Seconds(), took.Seconds(), all.Seconds(), (peak-base)>>10, base>>10, ms.TotalAlloc>>20, s, Unchecked(name, old, new))
}

// npmRoot is the folder of npm's global packages (npm's own among them): CommonJS
// modules, each of which parses alone.
func npmRoot(t *testing.T) string {
	out, err := exec.Command("npm", "root", "-g").Output()
	if err != nil {
		t.Skip("no npm here for JavaScript files")
	}
	return strings.TrimSpace(string(out))
}

// procStatus reads a field of /proc/self/status, in KiB.
func procStatus(field string) int {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			n, _ := strconv.Atoi(strings.Fields(v)[0])
			return n
		}
	}
	return 0
}

// measureFile builds a valid file of lang of about size bytes: real files of the
// language where the machine has them, else real-looking functions, repeated. It
// returns the file's name and content, and a comment line of the language.
func measureFile(t *testing.T, lang string, size int) (string, []byte, string) {
	var b bytes.Buffer
	fill := func(unit func(i int) string) {
		for i := 0; b.Len() < size; i++ {
			b.WriteString(unit(i))
		}
	}
	realFiles := func(dir, ext string, ok func([]byte) bool, wrap func(string) string) {
		var units []string
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ext) {
				if c, err := os.ReadFile(p); err == nil && len(c) < 200<<10 && ok(c) {
					if u := wrap(string(c)); u != "" {
						units = append(units, u)
					}
				}
			}
			return nil
		})
		if len(units) == 0 {
			t.Fatalf("no %s files in %s", ext, dir)
		}
		// Whole units only, up to size: a large one is left out near the end.
		for i, misses := 0, 0; misses < len(units); i++ {
			if u := units[i%len(units)]; b.Len()+len(u) <= size {
				b.WriteString(u)
				misses = 0
			} else {
				misses++
			}
		}
	}
	switch lang {
	case "go":
		b.WriteString("package big\n\n")
		all := func([]byte) bool { return true }
		realFiles(filepath.Join(testutil.GOROOT(), "src", "net", "http"), ".go", all, func(s string) string {
			// The declarations after the imports (a name declared twice still parses).
			f, err := parser.ParseFile(token.NewFileSet(), "", s, parser.ImportsOnly)
			if err != nil || len(f.Decls) == 0 {
				return ""
			}
			return s[f.Decls[len(f.Decls)-1].End()-1:] + "\n"
		})
		return "big.go", b.Bytes(), "// edited"
	case "python":
		realFiles(pythonLib(), ".py", func(c []byte) bool {
			return !bytes.Contains(c, []byte("__future__")) && len(languages["python"](c)) == 0
		}, func(s string) string { return s + "\n" })
		return "big.py", b.Bytes(), "# edited"
	case "javascript", "jsx":
		realFiles(npmRoot(t), ".js", func(c []byte) bool {
			return !bytes.Contains(c, []byte("import ")) && !bytes.Contains(c, []byte("export ")) && !bytes.HasPrefix(c, []byte("#!")) &&
				len(languages["javascript"]([]byte("(function () {\n"+string(c)+"\n})();\n"))) == 0
		}, func(s string) string { return "(function () {\n" + s + "\n})();\n" })
		ext := ".js"
		if lang == "jsx" {
			ext = ".jsx"
		}
		return "big" + ext, b.Bytes(), "// edited"
	case "typescript", "tsx":
		fill(func(i int) string {
			return fmt.Sprintf(`namespace N%[1]d {
  export interface Item%[1]d<T extends object = {}> {
    id: number;
    name: string;
    tags?: readonly string[];
    meta: Record<string, T>;
  }

  export function score%[1]d(items: Item%[1]d[], weight = %[1]d): Map<string, number> {
    const out = new Map<string, number>();
    for (const it of items) {
      const prev = out.get(it.name) ?? 0;
      out.set(it.name, prev + (it.tags?.length ?? 0) * weight);
    }
    return out;
  }

  export class Store%[1]d<K, V> {
    private readonly data = new Map<K, V>();
    constructor(private limit: number) {}
    get(k: K): V | undefined { return this.data.get(k); }
    set(k: K, v: V): this {
      if (this.data.size >= this.limit) { throw new Error(`+"`full: ${this.limit}`"+`); }
      this.data.set(k, v);
      return this;
    }
  }
}
`, i)
		})
		ext := ".ts"
		if lang == "tsx" {
			ext = ".tsx"
		}
		return "big" + ext, b.Bytes(), "// edited"
	case "json":
		b.WriteString("[\n")
		fill(func(i int) string {
			return fmt.Sprintf(`  {"id": %d, "name": "package-%d", "version": "1.%d.0", "n": 1, "resolved": "https://registry.example.org/package-%d/-/package-%d-1.%d.0.tgz", "dependencies": {"left-pad": "^1.3.0", "lodash": "^4.17.%d"}, "dev": false, "ratio": %d.5},`+"\n", i, i, i%50, i, i, i%50, i%21, i)
		})
		b.WriteString(`  {"id": -1, "n": 1}` + "\n]\n")
		return "big.json", b.Bytes(), ""
	case "yaml":
		b.WriteString("packages:\n")
		fill(func(i int) string {
			return fmt.Sprintf(`  - name: package-%d
    version: "1.%d.0"
    resolved: https://registry.example.org/package-%d.tgz
    dev: false
    dependencies:
      left-pad: ^1.3.0
      lodash: ^4.17.%d
    scripts: {build: "tsc -p .", test: "node test.js --seed %d"}
    notes: |
      Built for release %d.
      Plain text here.
`, i, i%50, i, i%21, i, i)
		})
		return "big.yaml", b.Bytes(), "# edited"
	case "toml":
		b.WriteString("version = 3\n\n")
		fill(func(i int) string {
			return fmt.Sprintf(`[[package]]
name = "crate-%d"
version = "0.%d.1"
source = "registry+https://github.com/rust-lang/crates.io-index"
checksum = "%064x"
dependencies = [
 "libc",
 "serde %d.0.1",
]

`, i, i%40, i*7919, i%3)
		})
		return "Cargo.toml", b.Bytes(), "# edited"
	case "rust":
		fill(func(i int) string {
			return fmt.Sprintf(`/// Parses a line of record %[1]d.
pub fn parse_%[1]d(line: &str) -> Result<Vec<(String, u64)>, String> {
    let mut out = Vec::new();
    for part in line.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').ok_or_else(|| format!("no = in {part:?}"))?;
        let n: u64 = v.parse().map_err(|e| format!("{k}: {e}"))?;
        out.push((k.to_string(), n + %[1]d));
    }
    Ok(out)
}

impl Record%[1]d {
    pub fn total(&self) -> u64 {
        self.items.iter().map(|(_, n)| *n).sum()
    }
}

`, i)
		})
		return "big.rs", b.Bytes(), "// edited"
	case "java":
		b.WriteString("package big;\n\nimport java.util.*;\n\npublic class Big {\n")
		fill(func(i int) string {
			return fmt.Sprintf(`    /** Counts the words of record %[1]d. */
    static Map<String, Integer> count%[1]d(List<String> lines) {
        Map<String, Integer> out = new HashMap<>();
        for (String line : lines) {
            for (String w : line.split("\\s+")) {
                if (w.isEmpty()) { continue; }
                out.merge(w.toLowerCase(), 1, Integer::sum);
            }
        }
        return out.size() > %[1]d ? out : Collections.emptyMap();
    }

`, i)
		})
		b.WriteString("}\n")
		return "Big.java", b.Bytes(), "// edited"
	case "c", "cpp":
		if lang == "cpp" {
			b.WriteString("#include <string>\n#include <vector>\n\nnamespace big {\n")
		} else {
			b.WriteString("#include <stdio.h>\n#include <string.h>\n\n")
		}
		fill(func(i int) string {
			s := fmt.Sprintf(`/* Sums the digits of record %[1]d. */
static int sum_%[1]d(const char *s, size_t n)
{
	int total = 0;
	for (size_t i = 0; i < n && s[i] != '\0'; i++) {
		if (s[i] >= '0' && s[i] <= '9')
			total += s[i] - '0';
		else if (s[i] == '-')
			return -1;
	}
	return total > %[1]d ? total : 0;
}

`, i)
			if lang == "cpp" {
				s += fmt.Sprintf("class Item%[1]d {\npublic:\n    explicit Item%[1]d(std::string n) : name_(std::move(n)) {}\n    const std::string& name() const { return name_; }\nprivate:\n    std::string name_;\n    std::vector<int> parts_{%[1]d, 2, 3};\n};\n\n", i)
			}
			return s
		})
		if lang == "cpp" {
			b.WriteString("} // namespace big\n")
			return "big.cpp", b.Bytes(), "// edited"
		}
		return "big.c", b.Bytes(), "// edited"
	case "bash":
		b.WriteString("#!/bin/bash\nset -euo pipefail\n\n")
		fill(func(i int) string {
			return fmt.Sprintf(`# Copies the files of step %[1]d.
step_%[1]d() {
	local src="$1" dst="${2:-/tmp/out}"
	for f in "$src"/*.txt; do
		[ -e "$f" ] || continue
		if grep -q "needle %[1]d" "$f"; then
			cp -- "$f" "$dst/$(basename "$f" .txt).%[1]d"
		fi
	done
	echo "step %[1]d: $(ls "$dst" | wc -l) files"
}

`, i)
		})
		return "big.sh", b.Bytes(), "# edited"
	case "html":
		b.WriteString("<!DOCTYPE html>\n<html>\n<head><title>Big</title></head>\n<body>\n")
		fill(func(i int) string {
			return fmt.Sprintf(`<section id="s%[1]d" class="card">
  <h2>Section %[1]d</h2>
  <p>Some <em>text</em> with a <a href="/page/%[1]d?x=1&amp;y=2">link</a>.</p>
  <ul>
    <li>first</li>
    <li>second</li>
  </ul>
</section>
`, i)
		})
		b.WriteString("</body>\n</html>\n")
		return "big.html", b.Bytes(), "<!-- edited -->"
	case "css":
		fill(func(i int) string {
			return fmt.Sprintf(`.card-%[1]d > .title, .card-%[1]d:hover .title {
  color: #%06[2]x;
  margin: 0 auto %[3]dpx;
  font: 600 1.2rem/1.4 system-ui, sans-serif;
}

@media (max-width: %[4]dpx) {
  .card-%[1]d { display: none; }
}

`, i, i*97%0xffffff, i%40, 400+i%800)
		})
		return "big.css", b.Bytes(), "/* edited */"
	}
	t.Fatalf("no generator for %q", lang)
	return "", nil, ""
}

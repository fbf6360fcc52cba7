package matcher

import (
	"errors"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// A model that quotes lines with their common indentation dropped, starting on an
// aligned continuation line: its columns are the file's, shifted, and a new line goes
// where its column says (attack4 D2). Before, the continuation line made the model's
// unit 1 column, and each model column counted as a file unit.
func TestReindentContinuationLines(t *testing.T) {
	loop := "class C:\n    def f(self, a, b):\n        result = compute(a,\n                         b)\n        for x in result:\n            if x:\n                print(x)\n"
	ret := "class C:\n    def f(self, a, b):\n        result = compute(a,\n                         b)\n        if result:\n            return 1\n        return 0\n"
	runCases(t, []applyCase{
		{name: "dedented line stays in the loop", file: loop,
			edits: []Edit{e("                 b)\nfor x in result:\n    if x:\n        print(x)", "                 b)\nfor x in result:\n    if x:\n        print(x)\n    done(x)")},
			want:  loop + "            done(x)\n", tier: TierIndentation},
		{name: "body line one level deeper", file: ret,
			edits: []Edit{e("                 b)\nif result:\n    return 1", "                 b)\nif result:\n    log(result)\n    return 1")},
			want:  "class C:\n    def f(self, a, b):\n        result = compute(a,\n                         b)\n        if result:\n            log(result)\n            return 1\n        return 0\n", tier: TierIndentation},
		{name: "model's own unit learned past a continuation line", file: ret,
			edits: []Edit{e("result = compute(a,\n          b)\nif result:\n  return 1", "result = compute(a,\n          b)\nif result:\n  log(result)\n  if b:\n    return 1")},
			want:  "class C:\n    def f(self, a, b):\n        result = compute(a,\n                         b)\n        if result:\n            log(result)\n            if b:\n                return 1\n        return 0\n", tier: TierIndentation},
		{name: "inconsistent quoting is refused, not guessed", file: loop,
			edits: []Edit{e("for x in result:\n  if x:\n        print(x)", "for x in result:\n  if x:\n        print(x)\n      done(x)")},
			kind:  KindTextNotFound, msg: []string{"lines 5-7", "a guess", "            if x:", "Send oldText and newText"}},
	})
}

// Text indented in another step than the file's (YAML in a Python or Go string): a
// line the model moves is placed by the columns of the lines it quotes (attack4 D1).
func TestReindentOtherStepInString(t *testing.T) {
	py := "class A:\n    def f(self):\n        if self:\n            return 1\n\n    def g(self):\n        return 2\n\n\nCONFIG = \"\"\"\nserver:\n  port: 80\n  tls:\n    cert: a.pem\n  key: a.key\n\"\"\"\n"
	goFile := "package cfg\n\nconst doc = `\n    server:\n      port: 80\n      tls:\n        cert: a.pem\n      key: a.key\n`\n\nfunc f() {\n\tif doc == \"\" {\n\t\tpanic(1)\n\t}\n}\n"
	runCases(t, []applyCase{
		{name: "python: yaml key moved under tls", file: py,
			edits: []Edit{e("      tls:\n        cert: a.pem\n      key: a.key", "      tls:\n        cert: a.pem\n        key: a.key")},
			want:  "class A:\n    def f(self):\n        if self:\n            return 1\n\n    def g(self):\n        return 2\n\n\nCONFIG = \"\"\"\nserver:\n  port: 80\n  tls:\n    cert: a.pem\n    key: a.key\n\"\"\"\n", tier: TierIndentation},
		{name: "go: yaml key moved under tls", file: goFile,
			edits: []Edit{e("  tls:\n    cert: a.pem\n  key: a.key", "  tls:\n    cert: a.pem\n    key: a.key")},
			want:  "package cfg\n\nconst doc = `\n    server:\n      port: 80\n      tls:\n        cert: a.pem\n        key: a.key\n`\n\nfunc f() {\n\tif doc == \"\" {\n\t\tpanic(1)\n\t}\n}\n", tier: TierIndentation},
		{name: "python: yaml quoted in the model's 4-space step", file: py,
			edits: []Edit{e("tls:\n    cert: a.pem\nkey: a.key", "tls:\n    cert: a.pem\n        ca: b.pem\nkey: a.key")},
			want:  "class A:\n    def f(self):\n        if self:\n            return 1\n\n    def g(self):\n        return 2\n\n\nCONFIG = \"\"\"\nserver:\n  port: 80\n  tls:\n    cert: a.pem\n      ca: b.pem\n  key: a.key\n\"\"\"\n", tier: TierIndentation},
	})
}

// Trailing special spaces the model added are trailing whitespace too: not written
// (attack4 D3).
func TestTrailingSpecialSpaceNotWritten(t *testing.T) {
	runCases(t, []applyCase{
		{name: "nbsp", file: "a = 1\nb = 2\n",
			edits: []Edit{e("a = 1\u00a0\nb = 2\u00a0", "a = 1\u00a0\nb = 3\u00a0\nc = 4\u00a0")}, want: "a = 1\nb = 3\nc = 4\n", tier: TierTypography},
		{name: "ideographic space after a space", file: "a = 1\nb = 2\n",
			edits: []Edit{e("a = 1 \u3000\nb = 2", "a = 1 \u3000\nb = 2\nc = 4 \u3000")}, want: "a = 1\nb = 2\nc = 4\n", tier: TierTypography},
	})
}

// TestReindentOnRealFiles quotes snippets of real Go and Python files the way models
// do at the indentation tier: common indentation dropped, quoted deeper than the
// file, re-indented by 2 columns a level, one aligned line drifted by a column, or the
// first line quoted from its first character on. The
// model's newText inserts a copy of one quoted line, at that line's own column, after
// another. The oracle is the file's own lines: the file must come out with the
// original bytes of the copied line inserted there, or the edit be refused; never
// another indentation.
func TestReindentOnRealFiles(t *testing.T) {
	goFiles, pyFiles := sourceFiles(t)
	if len(goFiles) < 100 {
		t.Skip("Go sources not found")
	}
	rng := rand.New(rand.NewSource(11))
	n := 600
	if testing.Short() {
		n = 150
	}
	if v, err := strconv.Atoi(os.Getenv("VFSCTL_REINDENT_DRAWS")); err == nil {
		n = v // longer local runs
	}
	// Each way of quoting turns the file's columns, with their common indentation
	// dropped, into the columns the model sends (model) for the snippet s; it returns
	// the line it drifted off its level (-1 for none), or ok false where the snippet
	// has no line it fits. Where it sends the first line at 0, a copy of that line
	// would be at 0 of the others' columns too, so another is copied.
	modes := []struct {
		name           string
		quote          func(s snippet, model []int) (drifted int, ok bool)
		neverCopyFirst bool
	}{
		{name: "dedented", quote: func(snippet, []int) (int, bool) { return -1, true }},
		{name: "quoted deeper", quote: func(_ snippet, model []int) (int, bool) {
			for i := range model {
				model[i] += 2
			}
			return -1, true
		}},
		{name: "2 columns a level", quote: func(s snippet, model []int) (int, bool) {
			for i := range model {
				if s.offLevel(i) {
					return -1, false // only for lines at whole levels
				}
				model[i] /= 2
			}
			return -1, true
		}},
		{name: "a line off its level drifted", quote: func(s snippet, model []int) (int, bool) {
			drifted := -1
			for i := range model {
				if s.offLevel(i) {
					drifted = i
				}
			}
			if drifted >= 0 {
				model[drifted]++
			}
			return drifted, drifted >= 0
		}},
		{name: "first line from its text", quote: func(_ snippet, model []int) (int, bool) {
			ok := model[0] > 0
			model[0] = 0
			return -1, ok
		}, neverCopyFirst: true},
	}
	applied, refused := make([]int, len(modes)), make([]int, len(modes))
	kinds := map[string]int{} // refusals by kind ("guess": an indentation the matcher would guess)
	for k := 0; k < n; k++ {
		files := goFiles
		if len(pyFiles) > 0 && k%2 == 1 {
			files = pyFiles
		}
		path := files[rng.Intn(len(files))]
		data, err := os.ReadFile(path)
		if err != nil || !utf8.Valid(data) || strings.ContainsAny(string(data), "\r\x00") {
			continue
		}
		lines := strings.Split(string(data), "\n")
		cnt := 3 + rng.Intn(6)
		if len(lines) < cnt+2 {
			continue
		}
		from := rng.Intn(len(lines) - cnt)
		region := lines[from : from+cnt]
		tabs := strings.HasSuffix(path, ".go")
		ws, ok := make([]int, cnt), true
		c := 1 << 30
		for i, l := range region {
			lead := leadWSString(l)
			// In Go, tabs only: the model sends spaces for them, and for the spaces of a
			// raw string, and which one a new line means is not the question here.
			if strings.TrimSpace(l) == "" || strings.TrimRight(l, " \t") != l || strings.Contains(lead, " \t") || tabs && strings.Contains(lead, " ") {
				ok = false
				break
			}
			ws[i] = width(lead)
			c = min(c, ws[i])
		}
		if !ok {
			continue
		}
		mode := rng.Intn(len(modes))
		model := make([]int, cnt)
		for i := range region {
			model[i] = ws[i] - c
		}
		drifted, ok := modes[mode].quote(snippet{region, ws, tabs}, model)
		at, j := rng.Intn(cnt), rng.Intn(cnt)
		if modes[mode].neverCopyFirst {
			j = max(j, 1)
		}
		if !ok || j == drifted {
			continue
		}
		P := make([]string, cnt)
		for i, l := range region {
			P[i] = strings.Repeat(" ", model[i]) + strings.TrimLeft(l, " \t")
		}
		Q := append(append(append([]string(nil), P[:at+1]...), P[j]), P[at+1:]...)
		want := strings.Join(append(append(append([]string(nil), lines[:from+at+1]...), region[j]), lines[from+at+1:]...), "\n")
		res, err := Apply(data, []Edit{e(strings.Join(P, "\n"), strings.Join(Q, "\n"))}, Options{Name: path})
		if err != nil {
			var r *Refusal
			if !errors.As(err, &r) {
				t.Fatalf("%s: not a refusal: %v", path, err)
			}
			refused[mode]++
			kind := string(r.Kind)
			if strings.Contains(r.Message, "would be a guess") {
				kind = "guess"
			}
			kinds[kind]++
			continue
		}
		if string(res.Output) != want {
			got := strings.Split(string(res.Output), "\n")
			t.Errorf("%s lines %d-%d, %s, line %d copied after line %d:\noldText %q\nnewText %q\nwrote %q\nwant  %q", path, from+1, from+cnt, modes[mode].name, from+j+1, from+at+1,
				P, Q, got[from:min(len(got), from+cnt+1)], strings.Split(want, "\n")[from:from+cnt+1])
			continue
		}
		applied[mode]++
	}
	t.Logf("refusals by kind: %v", kinds)
	for i, m := range modes {
		t.Logf("%-28s applied %4d  refused %3d", m.name, applied[i], refused[i])
		if applied[i]+refused[i] == 0 && !testing.Short() {
			t.Errorf("%s: no draw", m.name) // a line off its level is rare: drawn, not always applied
		}
	}
	if applied[0] == 0 {
		t.Error("nothing applied")
	}
}

// snippet is the run of a file's lines a draw quotes: the lines, the width of each
// one's leading white space, and whether the file is Go (indented by tabs).
type snippet struct {
	region []string
	ws     []int
	tabs   bool
}

// offLevel reports whether line i sits off the file's whole levels: alignment spaces
// in Go, a column not a multiple of 4 elsewhere.
func (s snippet) offLevel(i int) bool {
	if s.tabs {
		return strings.Contains(leadWSString(s.region[i]), " ")
	}
	return s.ws[i]%4 != 0
}

// More of the attack's triggers: an aligned line anywhere in oldText, a first line sent
// without its indentation, alignment spaces after tabs.
func TestReindentMoreTriggers(t *testing.T) {
	w11 := "class C:\n    def f(self):\n        x = foo(a,\n               b)\n        if x:\n            if y:\n                z()\n        return x\n"
	w12 := "package p\n\nfunc f(x int) error {\n\tvar err error\n\tif x == -1 {\n\t\terr = g()\n\t}\n\treturn err\n}\n"
	wal := "package x\n\n/*\nint open_wrapper(const CTX *ctx, uint8_t *out,\n\t\t\t\t  size_t exp_out_len,\n\t\t\t\t  const uint8_t *nonce, size_t nonce_len,\n\t\t\t\t  const uint8_t *in, size_t in_len) {\n\treturn 0;\n}\n*/\nimport \"C\"\n\nfunc F() {\n\tif true {\n\t\tprintln(1)\n\t}\n}\n"
	runCases(t, []applyCase{
		{name: "aligned line in the middle of oldText", file: w11,
			edits: []Edit{e("x = foo(a,\n       b)\nif x:\n    if y:\n        z()", "x = foo(a,\n       b)\nif x:\n    if y:\n        z()\n    w()")},
			want:  strings.Replace(w11, "                z()\n", "                z()\n            w()\n", 1), tier: TierIndentation},
		{name: "first line without its indentation, tabs as spaces", file: w12,
			edits: []Edit{e("if x == -1 {\n        err = g()\n    }", "if x == -1 {\n        if y {\n            err = g()\n        }\n    }")},
			want:  strings.Replace(w12, "\t\terr = g()\n", "\t\tif y {\n\t\t\terr = g()\n\t\t}\n", 1), tier: TierIndentation},
	})
	// Alignment spaces after tabs, the model's 4 columns deeper: one more tab, or 4 more
	// spaces, never tabs after the spaces.
	res, err := Apply([]byte(wal), []Edit{e("int open_wrapper(const CTX *ctx, uint8_t *out,\n                  size_t exp_out_len,\n                  const uint8_t *nonce, size_t nonce_len,",
		"int open_wrapper(const CTX *ctx, uint8_t *out,\n                  size_t exp_out_len,\n                      const uint8_t *nonce, size_t nonce_len,")}, Options{})
	if err == nil {
		line := strings.Split(string(res.Output), "\n")[5]
		if line != "\t\t\t\t\t  const uint8_t *nonce, size_t nonce_len," && line != "\t\t\t\t      const uint8_t *nonce, size_t nonce_len," {
			t.Errorf("aligned line moved 4 columns: wrote %q", line)
		}
	}
}

// A Go file whose lines are mostly the spaces of a large HTML string: its code is still
// in tabs, and a line the model nests deeper there takes a tab (attack4 D1, mmu.go).
func TestReindentTabsAmongSpaces(t *testing.T) {
	html := strings.Repeat("  <div>\n    <p>x</p>\n      <b>y</b>\n  </div>\n", 30)
	file := "package p\n\nconst page = `\n" + html + "`\n\nfunc f(mu [][]int) {\n\tfor _, m := range mu {\n\t\tif m[0] < 0 {\n\t\t\tpanic(m)\n\t\t}\n\t}\n}\n"
	runCases(t, []applyCase{
		{name: "tabs sent as 4 spaces, a line nested deeper", file: file,
			edits: []Edit{e("    for _, m := range mu {\n        if m[0] < 0 {\n            panic(m)\n        }", "    for _, m := range mu {\n        if m[0] < 0 {\n            if m[1] < 0 {\n                panic(m)\n            }\n        }")},
			want:  strings.Replace(file, "\t\t\tpanic(m)\n", "\t\t\tif m[1] < 0 {\n\t\t\t\tpanic(m)\n\t\t\t}\n", 1), tier: TierIndentation},
	})
}

// newText that carries oldText's pasted line numbers on some lines only: the numbers
// are not written into the file (attack4 D6).
func TestGutterOnSomeNewLinesRefused(t *testing.T) {
	runCases(t, []applyCase{
		{name: "an added line without a number", file: "# Notes\n\nFirst point.\nSecond point.\nThird point.\n",
			edits: []Edit{e("     3\tFirst point.\n     4\tSecond point.", "     3\tFirst point.\n     4\tSecond point, revised.\nAn added point.")},
			kind:  KindInvalidInput, msg: []string{"line 3", "An added point.", "without the line numbers"}},
		{name: "every line numbered still stripped", file: "# Notes\n\nFirst point.\nSecond point.\nThird point.\n",
			edits: []Edit{e("     3\tFirst point.\n     4\tSecond point.", "     3\tFirst point.\n     4\tSecond point, revised.")},
			want:  "# Notes\n\nFirst point.\nSecond point, revised.\nThird point.\n"},
	})
}

// The star lines of a JSDoc block sit one column in from its "/**": alignment, not a
// level. Before, that column won as the unit of the lines oldText quotes, and a line
// the model nested one level deeper (2 columns in its copy) was written 2 columns in
// where the file steps by 4, and the call succeeded.
func TestReindentCommentStars(t *testing.T) {
	ts := "export class Store {\n    /**\n     * The items.\n     */\n    items = new Map<string, Item>();\n\n    /**\n     * Loads an item.\n     * @param id the id\n     */\n    load(id: string) {\n        return this.items.get(id);\n    }\n}\n"
	doc := "/**\n * Loads an item.\n * @param id the id\n */\nload(id: string) {"
	runCases(t, []applyCase{
		{name: "a body line after a JSDoc block quoted without indentation", file: ts,
			edits: []Edit{e(doc, doc+"\n  if (!id) throw new Error(\"no id\");")},
			want:  strings.Replace(ts, "    load(id: string) {\n", "    load(id: string) {\n        if (!id) throw new Error(\"no id\");\n", 1), tier: TierIndentation},
		{name: "the model's unit learned past two JSDoc blocks", file: ts,
			edits: []Edit{e("/**\n * The items.\n */\nitems = new Map<string, Item>();\n\n"+doc+"\n  return this.items.get(id);",
				"/**\n * The items.\n */\nitems = new Map<string, Item>();\n\n"+doc+"\n  if (!id) {\n    return undefined;\n  }\n  return this.items.get(id);")},
			want: strings.Replace(ts, "    load(id: string) {\n", "    load(id: string) {\n        if (!id) {\n            return undefined;\n        }\n", 1), tier: TierIndentation},
		{name: "a star line added under the opener", file: ts,
			edits: []Edit{e(doc+"\n  return this.items.get(id);", "/**\n * Returns the item, or undefined.\n"+doc[4:]+"\n  return this.items.get(id);")},
			want:  strings.Replace(ts, "     * Loads an item.\n", "     * Returns the item, or undefined.\n     * Loads an item.\n", 1), tier: TierIndentation},
		// The quote begins inside the comment: its star lines are still no level.
		{name: "a body line after a quote that starts inside a JSDoc block", file: ts,
			edits: []Edit{e(" * @param id the id\n */\nload(id: string) {", " * @param id the id\n */\nload(id: string) {\n  if (!id) return;")},
			want:  strings.Replace(ts, "    load(id: string) {\n", "    load(id: string) {\n        if (!id) return;\n", 1), tier: TierIndentation},
		{name: "a JSDoc block added above a method", file: ts,
			edits: []Edit{e("load(id: string) {\n  return this.items.get(id);", "/**\n * Loads.\n */\nload(id: string) {\n  return this.items.get(id);")},
			want:  strings.Replace(ts, "    load(id: string) {\n", "    /**\n     * Loads.\n     */\n    load(id: string) {\n", 1), tier: TierIndentation},
	})
}

// Where the lines oldText quotes are all at one level, the model's unit is read from
// its new lines. A step of 4 columns in a file indented by 2 may be one level of the
// model's or two of the file's: refused, where before 2 levels were written. A step of
// the file's own 2 is one level.
func TestReindentUnknownStep(t *testing.T) {
	ts := "export class Store {\n  /**\n   * Loads an item.\n   */\n  load(id: string) {\n    return this.items.get(id);\n  }\n}\n"
	doc := "/**\n * Loads an item.\n */\nload(id: string) {"
	yaml := "server:\n  port: 80\n  tls:\n    cert: a.pem\n"
	py := "def f(a, b):\n    x = 1\n    y = 2\n    return x\n"
	runCases(t, []applyCase{
		{name: "4 columns after a JSDoc block, the file in 2", file: ts,
			edits: []Edit{e(doc, doc+"\n    if (!id) return;")},
			kind:  KindTextNotFound, msg: []string{"would be a guess", "step of 4 columns", "     5\t  load(id: string) {", "Send oldText and newText"}},
		{name: "4 columns under two yaml lines at one level, the file in 2", file: yaml,
			edits: []Edit{e("port: 80\ntls:", "port: 80\ntls:\n    key: a.key")},
			kind:  KindTextNotFound, msg: []string{"would be a guess", "     3\t  tls:"}},
		{name: "2 columns after a JSDoc block, the file in 2", file: ts,
			edits: []Edit{e(doc, doc+"\n  if (!id) return;")},
			want:  strings.Replace(ts, "  load(id: string) {\n", "  load(id: string) {\n    if (!id) return;\n", 1), tier: TierIndentation},
		// A hanging continuation 8 columns in, in a file of 4: two of the file's
		// levels, as PEP 8 writes it, not a guess.
		{name: "8 columns of continuation, the file in 4", file: py,
			edits: []Edit{e("x = 1\ny = 2", "x = 1\nresult = compute(\n        a, b)\ny = 2")},
			want:  strings.Replace(py, "    x = 1\n", "    x = 1\n    result = compute(\n            a, b)\n", 1), tier: TierIndentation},
	})
}

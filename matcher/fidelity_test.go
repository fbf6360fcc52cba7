package matcher

import (
	"strings"
	"testing"
)

// The model's drift in oldText never reaches the file: what it adds is written the way
// the file spells what it drifted, and its own trailing whitespace is not written.
func TestDriftNeverReachesFile(t *testing.T) {
	runCases(t, []applyCase{
		{name: "curly quotes in a changed middle", file: "import x\nprint(\"a\")\n",
			edits: []Edit{e("print(“a”)", "print(“a”, “b”)")}, want: "import x\nprint(\"a\", \"b\")\n", tier: TierTypography},
		{name: "en dash", file: "x = 1 - 2\n",
			edits: []Edit{e("x = 1 – 2", "x = 1 – 2 – 3")}, want: "x = 1 - 2 - 3\n", tier: TierTypography},
		{name: "nbsp in code", file: "x = 1\n",
			edits: []Edit{e("x\u00a0= 1", "x\u00a0= 2\u00a0+ 1")}, want: "x = 2 + 1\n", tier: TierTypography},
		{name: "thin space in go", file: "\tn := a + b\n",
			edits: []Edit{e("\tn := a\u2009+ b", "\tn := a\u2009+ b\u2009+ c")}, want: "\tn := a + b + c\n", tier: TierTypography},
		{name: "model-added trailing whitespace", file: "a = 1\nb = 2\n",
			edits: []Edit{e("a = 1 \nb = 2 ", "a = 1 \nb = 3 \nc = 4 ")}, want: "a = 1\nb = 3\nc = 4\n", tier: TierTypography},
		{name: "added lines of a changed block", file: "def f():\n    return \"x\"\n",
			edits: []Edit{e("def f():\n    return “x”", "def f():\n    y = “z”\n    return “x”")},
			want:  "def f():\n    y = \"z\"\n    return \"x\"\n", tier: TierTypography},
		{name: "closing quote only in newText", file: "s = 'a'\n",
			edits: []Edit{e("s = ‘a’", "s = ‘a’ + ‘b’")}, want: "s = 'a' + 'b'\n", tier: TierTypography},
		{name: "file's curly quotes kept, model's straight", file: "say(“hi”)\n",
			edits: []Edit{e(`say("hi")`, `say("hi", "there")`)}, want: "say(“hi”, \"there\")\n", tier: TierTypography},
		{name: "undrifted fancy character written as sent", file: "x = 1  \ny = 2\n",
			edits: []Edit{e("x = 1\ny = 2", "x = 1 # “ok” – fine\ny = 2")}, want: "x = 1 # “ok” – fine  \ny = 2\n", tier: TierTypography},
		{name: "zero-width from model dropped", file: "foobar = 1\n",
			edits: []Edit{e("foo\u200bbar = 1", "foo\u200bbar = 2\nfoo\u200bbaz = 3")}, want: "foobar = 2\nfoobaz = 3\n", tier: TierTypography},
		{name: "nfd from model written nfc like the file", file: "caf\u00e9 = 1\n",
			edits: []Edit{e("cafe\u0301 = 1", "cafe\u0301 = 1\ncafe\u0301_2 = 2")}, want: "caf\u00e9 = 1\ncaf\u00e9_2 = 2\n", tier: TierTypography},
		{name: "equal after folding is context", file: "a  \n“b”\nc\n",
			edits: []Edit{e("a\n\"b\"\nc", "a \n\"b\"\nC")}, want: "a  \n“b”\nC\n", tier: TierTypography},
		{name: "exact line change is meant: straighten a quote", file: "x = “a”\ny = 1  \nz\n",
			edits: []Edit{e("x = “a”\ny = 1\nz", "x = \"a\"\ny = 2\nz")}, want: "x = \"a\"\ny = 2  \nz\n", tier: TierTypography},
		{name: "exact line change is meant: drop trailing spaces", file: "x = 1   \n“y”\n",
			edits: []Edit{e("x = 1   \n\"y\"", "x = 1\n\"y\"")}, want: "x = 1\n“y”\n", tier: TierTypography},
		{name: "drift inside the changed middle, file nbsp kept", file: "a\u00a0=\u00a0f(\"x\")\n",
			edits: []Edit{e("a = f(“x”)", "a = g(“x”, “y”)")}, want: "a\u00a0=\u00a0g(\"x\", \"y\")\n", tier: TierTypography},
	})
}

func TestDriftReport(t *testing.T) {
	res, err := Apply([]byte("print(\"a\")\n"), []Edit{e("print(“a”)", "print(“a”, “b”)")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := strings.Join(res.Edits[0].Translated, "; ")
	if !strings.Contains(tr, "'“' '”' in newText written as the file's '\"'") {
		t.Errorf("translation note %q", tr)
	}
	res, err = Apply([]byte("x = 1  \ny\n"), []Edit{e("x = 1\ny", "x = 1 # “ok”\ny")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Edits[0].Translated) != 0 {
		t.Errorf("nothing was translated, the report says %q", res.Edits[0].Translated)
	}
}

func TestIndentationAnchors(t *testing.T) {
	file := "func f() {\n\tif a {\n\t\tx()\n\t}\n\ty()\n}\n"
	runCases(t, []applyCase{
		{name: "added after the anchor, not the first line", file: file,
			edits: []Edit{e("if a {\n  x()\n}\ny()", "if a {\n  x()\n}\ny()\nz()")},
			want:  "func f() {\n\tif a {\n\t\tx()\n\t}\n\ty()\n\tz()\n}\n", tier: TierIndentation},
		{name: "added inside, anchored before", file: file,
			edits: []Edit{e("if a {\n  x()\n}", "if a {\n  x()\n  w()\n}")},
			want:  "func f() {\n\tif a {\n\t\tx()\n\t\tw()\n\t}\n\ty()\n}\n", tier: TierIndentation},
		{name: "structure contradicts the file", file: file,
			edits: []Edit{e("if a {\n  x()\n}\n  y()", "if a {\n  x()\n}\n  y()\n  z()")},
			kind:  KindTextNotFound, msg: []string{"contradicts", "line 5", "\t}", "\ty()"}},
		{name: "contradiction without added lines is no guess", file: file,
			edits: []Edit{e("if a {\n  x()\n}\n  y()", "if a {\n  x()\n}\n  y(1)")},
			want:  "func f() {\n\tif a {\n\t\tx()\n\t}\n\ty(1)\n}\n", tier: TierIndentation},
	})
}

func TestInvalidUTF8Fold(t *testing.T) {
	latin1 := "name = \"caf\xe9\"\nx = 1\n"
	runCases(t, []applyCase{
		{name: "U+FFFD stands for an invalid byte", file: latin1,
			edits: []Edit{e("name = \"caf\ufffd\"", "name = \"caf\ufffd!\"")}, want: "name = \"caf\xe9!\"\nx = 1\n", tier: TierTypography},
		{name: "invalid bytes in context lines kept", file: latin1,
			edits: []Edit{e("name = \"caf\ufffd\"\nx = 1", "name = \"caf\ufffd\"\nx = 2")}, want: "name = \"caf\xe9\"\nx = 2\n", tier: TierTypography},
		{name: "U+FFFD in added text is the file's byte", file: latin1,
			edits: []Edit{e("name = \"caf\ufffd\"", "name = \"caf\ufffd\"\nold = \"caf\ufffd\"")}, want: "name = \"caf\xe9\"\nold = \"caf\xe9\"\nx = 1\n", tier: TierTypography},
	})
}

func TestGutterPicksOccurrence(t *testing.T) {
	file := "a\nfoo()\nb\nfoo()\nc\n"
	runCases(t, []applyCase{
		{name: "gutter line chooses", file: file, edits: []Edit{e("     4\tfoo()", "     4\tbar()")}, want: "a\nfoo()\nb\nbar()\nc\n"},
		{name: "gutter line matches none", file: file, edits: []Edit{e("     3\tfoo()", "bar()")},
			kind: KindMultipleMatches, msg: []string{"lines 2 and 4"}},
		{name: "no gutter stays ambiguous", file: file, edits: []Edit{e("foo()", "bar()")}, kind: KindMultipleMatches},
	})
	res, err := Apply([]byte(file), []Edit{e("     2\tfoo()", "     2\tbar()")}, Options{})
	if err != nil || res.Edits[0].GutterLine != 2 || string(res.Output) != "a\nbar()\nb\nfoo()\nc\n" {
		t.Fatalf("gutter line 2: err %v, report %+v", err, res)
	}
}

func TestNotFoundMessages(t *testing.T) {
	code := "func a() {\n\tx := 1\n\ty := 2\n\treturn x + y\n}\n"
	runCases(t, []applyCase{
		{name: "extra blank line named as such", file: code,
			edits: []Edit{e("\tx := 1\n\n\ty := 2\n\treturn x + y", "z")}, kind: KindTextNotFound,
			msg: []string{"oldText has a line the file does not have there: its line 2, \"\", after line 2"}},
		{name: "left-out line named as such", file: code,
			edits: []Edit{e("\tx := 1\n\treturn x + y", "z")}, kind: KindTextNotFound,
			msg: []string{"the file has line 3, \"\\ty := 2\", which oldText leaves out"}},
		{name: "case only", file: code,
			edits: []Edit{e("\tX := 1\n\ty := 2", "z")}, kind: KindTextNotFound,
			msg: []string{"line 2", "only letter case differs"}},
		{name: "tab inside a line", file: "a\tb := 1\n",
			edits: []Edit{e("a b := 1", "z")}, kind: KindTextNotFound,
			msg: []string{"tab where oldText has spaces"}},
		{name: "double-escaped newlines", file: code,
			edits: []Edit{e(`\tx := 1\n\ty := 2`, "z")}, kind: KindTextNotFound,
			msg: []string{`literal \n escapes`, "found at line 2", `not \\n`}},
		{name: "invalid bytes near", file: "name = \"caf\xe9\"\n",
			edits: []Edit{e("name = \"cafe\"", "z")}, kind: KindTextNotFound,
			msg: []string{"line 1 is not valid UTF-8", "U+FFFD"}},
	})
}

// Three rules found by sending the changes of real commits (toolapi's
// TestRealCommitFidelity): what the model adds in the file's own style is its own, a
// trailing space is written once, and a final line break is dropped as sent where that
// leaves whole lines.
func TestRealCommitRules(t *testing.T) {
	goFile := "func f() {\n\tif a {\n\t\tx()\n\t}\n\treturn\n}\n"
	runCases(t, []applyCase{
		{name: "added lines in the file's tabs kept under context sent with spaces", file: goFile,
			edits: []Edit{e("  if a {\n    x()\n  }", "  if a {\n    x()\n\t\ty()\n\t\tz()\n  }")},
			want:  "func f() {\n\tif a {\n\t\tx()\n\t\ty()\n\t\tz()\n\t}\n\treturn\n}\n", tier: TierIndentation},
		{name: "a changed line in the file's tabs kept", file: goFile,
			edits: []Edit{e("  if a {\n    x()\n  }\n  return", "  if a {\n    x()\n  }\n\treturn nil")},
			want:  "func f() {\n\tif a {\n\t\tx()\n\t}\n\treturn nil\n}\n", tier: TierIndentation},
		{name: "the style is the anchor line's in a file that mixes both",
			file:  "var s = `\n    a\n    b\n    c\n    d\n`\n\nfunc f() {\n\tif a {\n\t\tx()\n\t}\n}\n",
			edits: []Edit{e("  if a {\n    x()\n  }", "  if a {\n    x()\n\t\ty()\n  }")},
			want:  "var s = `\n    a\n    b\n    c\n    d\n`\n\nfunc f() {\n\tif a {\n\t\tx()\n\t\ty()\n\t}\n}\n", tier: TierIndentation},
		{name: "an em dash the model did not drift written as sent", file: "x = a - b\n",
			edits: []Edit{e("x = a – b", "x = a – b\n// a note — in prose")}, want: "x = a - b\n// a note — in prose\n", tier: TierTypography},
		{name: "the quoted lines' style where the anchor has no indentation",
			file:  "var s = `\n    a\n    b\n    c\n    d\n    e\n`\n\nimport (\n\t\"fmt\"\n\t\"io\"\n)\n\nfunc f() {\n\tx()\n}\n",
			edits: []Edit{e("import (\n    \"fmt\"\n    \"io\"\n)\n\nfunc f() {", "import (\n    \"fmt\"\n    \"io\"\n\t\"os\"\n)\n\nfunc f() {\n\t// note\n\ty := 1")},
			want:  "var s = `\n    a\n    b\n    c\n    d\n    e\n`\n\nimport (\n\t\"fmt\"\n\t\"io\"\n\t\"os\"\n)\n\nfunc f() {\n\t// note\n\ty := 1\n\tx()\n}\n", tier: TierIndentation},
		{name: "added lines in spaces still re-indented", file: goFile,
			edits: []Edit{e("  if a {\n    x()\n  }", "  if a {\n    x()\n    y()\n  }")},
			want:  "func f() {\n\tif a {\n\t\tx()\n\t\ty()\n\t}\n\treturn\n}\n", tier: TierIndentation},
		{name: "trailing space written once on a changed last line", file: "x\na = 1 \nb\n",
			edits: []Edit{e("x\na = 1", "x\na = 3 ")}, want: "x\na = 3 \nb\n", tier: TierExact},
		{name: "trailing space written once on one line", file: "a = 1 \n",
			edits: []Edit{e("a = 1", "a = 1 + 2 ")}, want: "a = 1 + 2 \n", tier: TierExact},
		{name: "trailing space written once after a fuzzy match", file: "a = “x” \nb = 1 \n",
			edits: []Edit{e("a = \"x\"\nb = 1", "a = \"x\"\nb = 2 ")}, want: "a = “x” \nb = 2 \n", tier: TierTypography},
		{name: "the file's trailing space kept when newText ends without one", file: "x\na = 1 \n",
			edits: []Edit{e("x\na = 1", "x\na = 3")}, want: "x\na = 3 \n", tier: TierExact},
		{name: "final line break dropped where the next line is blank", file: "a\nb\n\nc\n",
			edits: []Edit{e("a\nb\n", "a")}, want: "a\nc\n", tier: TierExact},
		{name: "final line break kept where dropping it would join two lines", file: "a\nb\nc\n",
			edits: []Edit{e("a\nb\n", "a")}, want: "a\nc\n", tier: TierExact},
		{name: "final line break dropped at the end of the file", file: "x\na\nb\n",
			edits: []Edit{e("a\nb\n", "a")}, want: "x\na", tier: TierExact},
		{name: "final line break dropped at the end of the file after a fuzzy match", file: "x\n“a”\nb\n",
			edits: []Edit{e("x\n\"a\"\nb\n", "x\n\"a\"")}, want: "x\n“a”", tier: TierTypography},
		{name: "final line break kept after a fuzzy match where dropping it would join two lines", file: "“a”\nb\nc\n",
			edits: []Edit{e("\"a\"\nb\n", "\"a\"")}, want: "“a”\nc\n", tier: TierTypography},
		{name: "a deletion of whole lines still deletes them", file: "a\nb\n\nc\n",
			edits: []Edit{e("b\n", "")}, want: "a\n\nc\n", tier: TierExact},
	})
}

// Lines a model adds inside a Go raw string whose lines are indented with spaces, in a
// file otherwise indented with tabs that the model quoted with spaces (found by
// TestRealCommitFidelity on this repository's own usage texts and embedded
// JavaScript). The matcher parses no language: what tells these lines from the model's
// own indentation is what the file does where they go, and what the model does in the
// other lines it adds.
func TestRawStringLinesKeptAsSent(t *testing.T) {
	usage := "package main\n\nconst usage = `Usage: tool run [--fast]\n\nRuns the thing.\n\nExamples:\n  tool run --fast\n  tool run\n`\n\nfunc main() {\n\tif len(os.Args) > 1 {\n\t\tfmt.Print(usage)\n\t}\n}\n"
	// More lines indented with tabs than with spaces, as in a Go file.
	tabbed := "\nfunc b() {\n\tif x {\n\t\ty()\n\t}\n\tz()\n}\n"
	formats := "package main\n\nconst formats = `Formats:\n  json            one object per line\n  text            aligned columns, for people,\n                  widths from the terminal\n`\n\nfunc main() {\n\tfmt.Print(formats)\n}\n" + tabbed
	code := "package main\n\nfunc a() int {\n\treturn 1\n}\n"
	runCases(t, []applyCase{
		{name: "a line aligned under the first line of the string, where its nearest indented lines have spaces", file: usage,
			edits: []Edit{e("const usage = `Usage: tool run [--fast]\n\nRuns the thing.\n\nExamples:\n  tool run --fast\n  tool run\n`\n\nfunc main() {\n    if len(os.Args) > 1 {",
				"const usage = `Usage: tool run [--fast]\n       tool run --list\n\nRuns the thing.\n\nExamples:\n  tool run --fast\n  tool run\n`\n\nfunc main() {\n    if len(os.Args) > 1 {")},
			want: "package main\n\nconst usage = `Usage: tool run [--fast]\n       tool run --list\n\nRuns the thing.\n\nExamples:\n  tool run --fast\n  tool run\n`\n\nfunc main() {\n\tif len(os.Args) > 1 {\n\t\tfmt.Print(usage)\n\t}\n}\n",
			tier: TierIndentation},
		{name: "an entry and its continuation beside entries quoted with the file's spaces", file: formats,
			edits: []Edit{e("  json            one object per line\n  text            aligned columns, for people,\n                  widths from the terminal\n`\n\nfunc main() {\n    fmt.Print(formats)",
				"  json            one object per line\n  csv             comma-separated values,\n                  one row per call\n  text            aligned columns, for people,\n                  widths from the terminal\n`\n\nfunc main() {\n    fmt.Print(formats)")},
			want: "package main\n\nconst formats = `Formats:\n  json            one object per line\n  csv             comma-separated values,\n                  one row per call\n  text            aligned columns, for people,\n                  widths from the terminal\n`\n\nfunc main() {\n\tfmt.Print(formats)\n}\n" + tabbed,
			tier: TierIndentation},
		{name: "a line of the string mended from tabs to the spaces of the lines around it", file: "package main\n\nconst script = `\nif [ -n \"$a\" ]; then\n\t\t  echo a\n    echo b\nfi\n`\n\nfunc main() {\n\tfmt.Print(script)\n\tos.Exit(0)\n}\n",
			edits: []Edit{e("if [ -n \"$a\" ]; then\n          echo a\n    echo b\nfi\n`\n\nfunc main() {\n    fmt.Print(script)",
				"if [ -n \"$a\" ]; then\n    echo a\n    echo b\nfi\n`\n\nfunc main() {\n    fmt.Print(script)")},
			want: "package main\n\nconst script = `\nif [ -n \"$a\" ]; then\n    echo a\n    echo b\nfi\n`\n\nfunc main() {\n\tfmt.Print(script)\n\tos.Exit(0)\n}\n",
			tier: TierIndentation},
		{name: "added lines in tabs, then spaces that align, kept under context sent with spaces",
			file: "package main\n\nconst want = `{\n\t\t\t\"name\": \"a\",\n\t\t\t\"flags\": null\n}`\n\nfunc f() {\n\tg()\n}\n",
			edits: []Edit{e("            \"name\": \"a\",\n            \"flags\": null",
				"            \"name\": \"a\",\n\t\t\t\"flags\": [\n\t\t\t  {\n\t\t\t\t\"name\": \"x\"\n\t\t\t  }\n\t\t\t]")},
			want: "package main\n\nconst want = `{\n\t\t\t\"name\": \"a\",\n\t\t\t\"flags\": [\n\t\t\t  {\n\t\t\t\t\"name\": \"x\"\n\t\t\t  }\n\t\t\t]\n}`\n\nfunc f() {\n\tg()\n}\n",
			tier: TierIndentation},
		{name: "a string of spaces among added lines in the file's tabs", file: code,
			edits: []Edit{e("func a() int {\n    return 1\n}",
				"func a() int {\n    return 1\n}\n\nfunc b() string {\n\treturn script\n}\n\nconst script = `\nfor (;;) {\n  if (x) {\n    y();\n  }\n}\n`")},
			want: "package main\n\nfunc a() int {\n\treturn 1\n}\n\nfunc b() string {\n\treturn script\n}\n\nconst script = `\nfor (;;) {\n  if (x) {\n    y();\n  }\n}\n`\n",
			tier: TierIndentation},
		{name: "a context line in spaces among added lines in tabs still re-indented", file: "func f() {\n\tif a {\n\t\tx()\n\t}\n\treturn\n}\n",
			edits: []Edit{e("    if a {\n        x()\n    }\n    return", "    if a {\n        x()\n\t\tz()\n    }\n\tif b {\n\t\ty()\n\t}\n    return")},
			want:  "func f() {\n\tif a {\n\t\tx()\n\t\tz()\n\t}\n\tif b {\n\t\ty()\n\t}\n\treturn\n}\n", tier: TierIndentation},
		{name: "code added after a string still re-indented where its nearest lines have tabs", file: usage,
			edits: []Edit{e("  tool run\n`\n\nfunc main() {\n    if len(os.Args) > 1 {\n        fmt.Print(usage)\n    }",
				"  tool run\n`\n\nfunc main() {\n    if len(os.Args) > 1 {\n        fmt.Print(usage)\n        os.Exit(2)\n    }")},
			want: "package main\n\nconst usage = `Usage: tool run [--fast]\n\nRuns the thing.\n\nExamples:\n  tool run --fast\n  tool run\n`\n\nfunc main() {\n\tif len(os.Args) > 1 {\n\t\tfmt.Print(usage)\n\t\tos.Exit(2)\n\t}\n}\n",
			tier: TierIndentation},
	})
}

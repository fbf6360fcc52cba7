package matcher

import (
	"errors"
	"strings"
	"testing"
)

type applyCase struct {
	name  string
	file  string
	edits []Edit
	want  string // expected output, when the call succeeds
	kind  Kind   // expected refusal, when it does not
	tier  Tier   // expected tier of edits[0] on success
	msg   []string
}

func e(old, new string) Edit { return Edit{OldText: old, NewText: new} }

func runCases(t *testing.T, cases []applyCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Apply([]byte(c.file), c.edits, Options{Name: "f.txt"})
			if c.kind != "" {
				var r *Refusal
				if !errors.As(err, &r) {
					t.Fatalf("want refusal %s, got err=%v output=%q", c.kind, err, output(res))
				}
				if r.Kind != c.kind {
					t.Fatalf("want kind %s, got %s: %s", c.kind, r.Kind, r.Message)
				}
				for _, s := range c.msg {
					if !strings.Contains(r.Message, s) {
						t.Errorf("message %q lacks %q", r.Message, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected refusal: %v", err)
			}
			if string(res.Output) != c.want {
				t.Fatalf("output\n got %q\nwant %q", res.Output, c.want)
			}
			if res.Edits[0].Tier != c.tier {
				t.Errorf("tier: got %s, want %s", res.Edits[0].Tier, c.tier)
			}
			checkResult(t, []byte(c.file), c.edits, res)
		})
	}
}

func output(r *Result) []byte {
	if r == nil {
		return nil
	}
	return r.Output
}

func TestTypography(t *testing.T) {
	runCases(t, []applyCase{
		{name: "file has curly quotes", file: "a\nsay(“hi”)\nb\n",
			edits: []Edit{e(`say("hi")`, `say("bye")`)}, want: "a\nsay(“bye”)\nb\n", tier: TierTypography},
		{name: "model sent curly quotes", file: "a\nsay(\"hi\")\nb\n",
			edits: []Edit{e(`say(“hi”)`, `say(“bye”)`)}, want: "a\nsay(\"bye\")\nb\n", tier: TierTypography},
		{name: "single curly apostrophe", file: "it’s here\n",
			edits: []Edit{e("it's here", "it's there")}, want: "it’s there\n", tier: TierTypography},
		{name: "en dash in file", file: "pages 1–9 of x\n",
			edits: []Edit{e("pages 1-9 of x", "pages 1-9 of y")}, want: "pages 1–9 of y\n", tier: TierTypography},
		{name: "em dash from model", file: "a - b - c\n",
			edits: []Edit{e("a — b — c", "a — b — d")}, want: "a - b - d\n", tier: TierTypography},
		{name: "nbsp in file", file: "x\u00a0=\u00a01\n",
			edits: []Edit{e("x = 1", "x = 2")}, want: "x\u00a0=\u00a02\n", tier: TierTypography},
		{name: "thin space from model", file: "10 000 items\n",
			edits: []Edit{e("10\u2009000 items", "10\u2009000 things")}, want: "10 000 things\n", tier: TierTypography},
		{name: "nfd file nfc model", file: "cafe\u0301 menu\n",
			edits: []Edit{e("caf\u00e9 menu", "caf\u00e9 list")}, want: "cafe\u0301 list\n", tier: TierTypography},
		{name: "nfc file nfd model", file: "caf\u00e9 menu\n",
			edits: []Edit{e("cafe\u0301 menu", "cafe\u0301 list")}, want: "caf\u00e9 list\n", tier: TierTypography},
		{name: "ellipsis in file", file: "loading…\ndone\n",
			edits: []Edit{e("loading...\ndone", "loading...\nfinished")}, want: "loading…\nfinished\n", tier: TierTypography},
		{name: "ellipsis from model", file: "wait...\n",
			edits: []Edit{e("wait…", "wait… more")}, want: "wait... more\n", tier: TierTypography},
		{name: "zero width in file", file: "foo\u200bbar = 1\n",
			edits: []Edit{e("foobar = 1", "foobar = 2")}, want: "foo\u200bbar = 2\n", tier: TierTypography},
		{name: "trailing whitespace dropped by model", file: "a = 1   \nb = 2\t\nc\n",
			edits: []Edit{e("a = 1\nb = 2", "a = 10\nb = 20")}, want: "a = 10   \nb = 20\t\nc\n", tier: TierTypography},
		{name: "trailing whitespace added by model", file: "a = 1\nb = 2\n",
			edits: []Edit{e("a = 1  \nb = 2 ", "a = 1  \nb = 3 ")}, want: "a = 1\nb = 3\n", tier: TierTypography},
		{name: "snippet mid-line with curly quotes", file: "x := f(“a”, “b”) + g()\n",
			edits: []Edit{e(`f("a", "b")`, `f("a", "c")`)}, want: "x := f(“a”, “c”) + g()\n", tier: TierTypography},
		{name: "context padding written from file", file: "// “one”\nx = 1\n// “two”\n",
			edits: []Edit{e("// \"one\"\nx = 1\n// \"two\"", "// \"one\"\nx = 2\n// \"two\"")},
			want:  "// “one”\nx = 2\n// “two”\n", tier: TierTypography},
	})
}

func TestLineEndings(t *testing.T) {
	runCases(t, []applyCase{
		{name: "crlf file, lf model", file: "a\r\nb\r\nc\r\n",
			edits: []Edit{e("b\n", "B\nB2\n")}, want: "a\r\nB\r\nB2\r\nc\r\n"},
		{name: "crlf file, crlf model", file: "a\r\nb\r\nc\r\n",
			edits: []Edit{e("a\r\nb", "a\r\nX")}, want: "a\r\nX\r\nc\r\n"},
		{name: "lone cr file", file: "a\rb\rc\r",
			edits: []Edit{e("b\nc", "b\nC\nD")}, want: "a\rb\rC\rD\r"},
		{name: "mixed endings kept", file: "a\r\nb\nc\rd\n",
			edits: []Edit{e("c", "C")}, want: "a\r\nb\nC\rd\n"},
		{name: "mixed endings, new line takes replaced line's ending", file: "a\r\nb\nc\n",
			edits: []Edit{e("a\nb", "a\nx\ny")}, want: "a\r\nx\ny\nc\n"},
		{name: "bom kept", file: "\ufeffa\nb\n",
			edits: []Edit{e("a", "A")}, want: "\ufeffA\nb\n"},
		{name: "bom and crlf", file: "\ufeffa\r\nb\r\n",
			edits: []Edit{e("a\nb", "A\nB")}, want: "\ufeffA\r\nB\r\n"},
		{name: "no final newline kept", file: "a\nb",
			edits: []Edit{e("b", "c")}, want: "a\nc"},
		{name: "no final newline, model ends with newline", file: "a\nb",
			edits: []Edit{e("b\n", "c\n")}, want: "a\nc", tier: TierTypography},
		{name: "exact tier writes the model's final newline", file: "a\nb",
			edits: []Edit{e("b", "c\n")}, want: "a\nc\n"},
		{name: "final newline supplied", file: "a\nb\nc\n",
			edits: []Edit{e("a\n", "x")}, want: "x\nb\nc\n"},
		{name: "empty newText deletes lines", file: "a\nb\nc\n",
			edits: []Edit{e("b\n", "")}, want: "a\nc\n"},
		{name: "delete last line without newline", file: "a\nb",
			edits: []Edit{e("\nb", "")}, want: "a"},
	})
}

func TestIndentation(t *testing.T) {
	runCases(t, []applyCase{
		{name: "spaces sent for tab file", file: "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n",
			edits: []Edit{e("    if x {\n        return 1\n    }", "    if x {\n        y()\n        return 2\n    }")},
			want:  "func f() {\n\tif x {\n\t\ty()\n\t\treturn 2\n\t}\n}\n", tier: TierIndentation},
		{name: "off by a level", file: "class A:\n    def f(self):\n        return 1\n",
			edits: []Edit{e("def f(self):\n    return 1", "def f(self):\n    x = 2\n    return x")},
			want:  "class A:\n    def f(self):\n        x = 2\n        return x\n", tier: TierIndentation},
		{name: "two-space file, four-space model", file: "a:\n  b:\n    c: 1\n",
			edits: []Edit{e("    b:\n        c: 1", "    b:\n        c: 1\n        d: 2")},
			want:  "a:\n  b:\n    c: 1\n    d: 2\n", tier: TierIndentation},
		{name: "dedent new line", file: "\t\tx()\n\t\ty()\n",
			edits: []Edit{e("x()\ny()", "x()\ny()\n}")}, want: "\t\tx()\n\t\ty()\n\t\t}\n", tier: TierIndentation},
		{name: "changed line keeps file indentation", file: "\tif a {\n\t\tb()\n\t}\n",
			edits: []Edit{e("  if a {\n    b()\n  }", "  if a {\n    c()\n  }")},
			want:  "\tif a {\n\t\tc()\n\t}\n", tier: TierIndentation},
		{name: "indent tier is whole lines only", file: "x = foo(1)\n",
			edits: []Edit{e("  foo(1)", "  foo(2)")}, kind: KindTextNotFound},
	})
}

func TestMidLine(t *testing.T) {
	runCases(t, []applyCase{
		{name: "exact snippet inside a line", file: "x := compute(a, b) // keep\n",
			edits: []Edit{e("compute(a, b)", "compute(b, a)")}, want: "x := compute(b, a) // keep\n"},
		{name: "snippet spanning two line parts", file: "if a { b()\nc() } else {}\n",
			edits: []Edit{e("b()\nc()", "d()")}, want: "if a { d() } else {}\n"},
	})
}

func TestSeveralEdits(t *testing.T) {
	f := "one\ntwo\nthree\nfour\nfive\n"
	runCases(t, []applyCase{
		{name: "any order", file: f, edits: []Edit{e("four", "4"), e("two", "2")}, want: "one\n2\nthree\n4\nfive\n"},
		{name: "adjacent lines", file: f, edits: []Edit{e("two", "2"), e("three", "3")}, want: "one\n2\n3\nfour\nfive\n"},
		{name: "oldText is what another edit writes", file: f,
			edits: []Edit{e("one", "two"), e("two", "TWO")}, want: "two\nTWO\nthree\nfour\nfive\n"},
		{name: "swap", file: "a\nb\n", edits: []Edit{e("a", "b"), e("b", "a")}, want: "b\na\n"},
		{name: "overlapping", file: f, edits: []Edit{e("two\nthree", "x"), e("three\nfour", "y")},
			kind: KindOverlappingEdits, msg: []string{"edits[0] and edits[1]", "line 3"}},
		{name: "same line different parts", file: "a b c\n", edits: []Edit{e("a", "A"), e("c", "C")},
			kind: KindOverlappingEdits},
	})
}

func TestIntentionalWhitespaceChange(t *testing.T) {
	runCases(t, []applyCase{
		{name: "remove trailing spaces", file: "x = 1   \ny\n", edits: []Edit{e("x = 1   ", "x = 1")}, want: "x = 1\ny\n"},
		{name: "curly to straight", file: "say “hi”\n", edits: []Edit{e("say “hi”", `say "hi"`)}, want: "say \"hi\"\n"},
		{name: "straight to curly", file: "say \"hi\"\n", edits: []Edit{e(`say "hi"`, "say “hi”")}, want: "say “hi”\n"},
		{name: "tabs to spaces", file: "\tx\n", edits: []Edit{e("\tx", "    x")}, want: "    x\n"},
		{name: "no-op after folding", file: "say \"hi\"\n", edits: []Edit{e("say “hi”", `say "hi"`)},
			kind: KindNoChange, msg: []string{"edits[0]", "already there"}},
	})
}

func TestRefusals(t *testing.T) {
	runCases(t, []applyCase{
		{name: "two occurrences", file: "x\nfoo()\ny\nfoo()\n", edits: []Edit{e("foo()", "bar()")},
			kind: KindMultipleMatches, msg: []string{"Found 2 occurrences of edits[0] in f.txt (lines 2 and 4)", "replaceAll"}},
		{name: "overlapping occurrences count", file: "aaa\n", edits: []Edit{e("aa", "b")},
			kind: KindMultipleMatches, msg: []string{"Found 2"}},
		{name: "multiple at a fuzzy tier", file: "“a”\n\"a\"x\n“a”\n", edits: []Edit{e("\"a\"\n", "b\n")},
			kind: KindMultipleMatches, msg: []string{"lines 1 and 3", "typography"}},
		{name: "replaceAll", file: "foo foo\nbar\nfoo\n", edits: []Edit{{OldText: "foo", NewText: "baz", ReplaceAll: true}},
			want: "baz baz\nbar\nbaz\n"},
		{name: "equal texts", file: "a\n", edits: []Edit{e("a", "a")}, kind: KindNoChange, msg: []string{"edits[0]"}},
		{name: "empty oldText", file: "a\n", edits: []Edit{e("", "a")}, kind: KindInvalidInput, msg: []string{"write_file"}},
		{name: "no edits", file: "a\n", kind: KindInvalidInput},
		{name: "binary", file: "a\x00b\n", edits: []Edit{e("a", "b")}, kind: KindBinaryFile},
		{name: "not found names closest region", file: "func a() {\n\treturn x+1\n}\n",
			edits: []Edit{e("func a() {\n\treturn x + 1\n}", "y")}, kind: KindTextNotFound,
			msg: []string{"lines 1-3", "line 2", `"\treturn x+1"`}},
		{name: "literal backslash-n", file: "a\nb\n", edits: []Edit{e(`a\nb`, "c")}, kind: KindTextNotFound,
			msg: []string{`literal \n`}},
		{name: "no case folding", file: "Hello\n", edits: []Edit{e("hello", "bye")}, kind: KindTextNotFound},
		{name: "invalid utf-8 exact only", file: "a\xffb “q”\n", edits: []Edit{e(`a`+"\xff"+`b "q"`, "c")}, kind: KindTextNotFound},
		{name: "invalid utf-8 exact works", file: "a\xffb\n", edits: []Edit{e("a\xffb", "c")}, want: "c\n"},
	})
}

func TestGutter(t *testing.T) {
	runCases(t, []applyCase{
		{name: "tab gutter", file: "a\nb\nc\n", edits: []Edit{e("     2\tb\n     3\tc", "     2\tB\n     3\tC")}, want: "a\nB\nC\n"},
		{name: "arrow gutter, plain newText", file: "a\nb\n", edits: []Edit{e("1→a\n2→b", "x\ny")}, want: "x\ny\n"},
		{name: "numbers must count up", file: "a\nb\n", edits: []Edit{e("1→a\n3→b", "x")}, kind: KindTextNotFound},
	})
}

func TestReport(t *testing.T) {
	res, err := Apply([]byte("a\n“b”\nc\n"), []Edit{e("a\n\"b\"\nc", "a\n\"B\"\nc")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Edits[0]
	if r.Tier != TierTypography || len(r.Folded) != 1 || r.Folded[0] != "curly quotes" {
		t.Errorf("report %+v", r)
	}
	if r.ContextLines != 2 || r.ContextBytes != 2 {
		t.Errorf("context %d lines %d bytes, want 2 and 2", r.ContextLines, r.ContextBytes)
	}
	if r.Lines[0] != [2]int{1, 3} {
		t.Errorf("lines %v", r.Lines)
	}
	if string(res.Output) != "a\n“B”\nc\n" {
		t.Errorf("output %q", res.Output)
	}
}

func TestNotFoundByPrefix(t *testing.T) {
	runCases(t, []applyCase{
		{name: "closest line by its start", file: "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n",
			edits: []Edit{e(`    println("bye")`, "x")}, kind: KindTextNotFound,
			msg: []string{"line 4", `"\tprintln(\"hi\")"`}},
		{name: "nothing close", file: "abc\n", edits: []Edit{e("zzzz", "x")}, kind: KindTextNotFound},
	})
}

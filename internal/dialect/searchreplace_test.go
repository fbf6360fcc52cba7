package dialect

import (
	"reflect"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
)

func TestSearchReplaceParsesBothFamilies(t *testing.T) {
	diff := "------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n\n<<<<<<< SEARCH\nc\nd\n=======\n>>>>>>> REPLACE\n"
	got, err := ParseSearchReplace(diff, "f.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := []Block{{Search: "a\n", Replace: "b\n", Line: 1}, {Search: "c\nd\n", Replace: "", Line: 7}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v", got)
	}
}

func TestSearchReplaceTolerantMarkers(t *testing.T) {
	want := []Block{{Search: "a\n", Replace: "b\n", Line: 2}}
	for name, diff := range map[string]string{
		"ShortMarkers":     "\n--- SEARCH\na\n===\nb\n+++ REPLACE",
		"LongMarkers":      "\n---------- SEARCH\na\n==========\nb\n++++++++++ REPLACE",
		"TrailingSpaces":   "\n<<<<<<< SEARCH  \na\n=======\t\nb\n>>>>>>> REPLACE \n",
		"TrailingAngle":    "\n------- SEARCH>\na\n=======\nb\n+++++++ REPLACE>",
		"CodeFence":        "```\n------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n```\n",
		"CRLF":             "\r\n------- SEARCH\r\na\r\n=======\r\nb\r\n+++++++ REPLACE\r\n",
		"StartLineIgnored": "",
	} {
		if diff == "" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			got, err := ParseSearchReplace(diff, "f.txt")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got %#v", got)
			}
		})
	}
}

func TestSearchReplaceStartLineHint(t *testing.T) {
	for name, diff := range map[string]string{
		"WithSeparator":    "<<<<<<< SEARCH\n:start_line:12\n-------\nx\n=======\ny\n>>>>>>> REPLACE",
		"WithoutSeparator": "<<<<<<< SEARCH\n:start_line: 12\nx\n=======\ny\n>>>>>>> REPLACE",
		"WithEndLine":      "<<<<<<< SEARCH\n:start_line:12\n:end_line:12\n-------\nx\n=======\ny\n>>>>>>> REPLACE",
	} {
		t.Run(name, func(t *testing.T) {
			got, err := ParseSearchReplace(diff, "f.txt")
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].StartLine != 12 || got[0].Search != "x\n" || got[0].Replace != "y\n" {
				t.Fatalf("%#v", got)
			}
		})
	}
}

func TestSearchReplaceMalformedNamesLine(t *testing.T) {
	cases := []struct{ name, diff, want string }{
		{"Unclosed", "------- SEARCH\na\n=======\nb\n", "line 5: expected '+++++++ REPLACE'"},
		{"NoDivider", "------- SEARCH\na\n+++++++ REPLACE\n", "line 3: expected '======='"},
		{"TextOutside", "here is my change\n------- SEARCH\na\n=======\nb\n+++++++ REPLACE", "line 1: expected a '------- SEARCH'"},
		{"NoBlocks", "", "no SEARCH/REPLACE block"},
		{"NestedSearch", "------- SEARCH\na\n=======\n------- SEARCH\n", "line 4: expected '+++++++ REPLACE'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseSearchReplace(c.diff, "f.txt")
			wantKind(t, err, errs.InvalidInput)
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%q lacks %q", err, c.want)
			}
		})
	}
}

func sr(t *testing.T, content, diff string) (string, error) {
	t.Helper()
	blocks, err := ParseSearchReplace(diff, "f.txt")
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	sp, err := LocateBlocks("f.txt", []byte(content), blocks)
	if err != nil {
		return "", err
	}
	return string(applySplices(t, []byte(content), sp)), nil
}

func block(search, replace string) string {
	return "------- SEARCH\n" + search + "=======\n" + replace + "+++++++ REPLACE\n"
}

func TestSearchReplaceLocate(t *testing.T) {
	cases := []struct{ name, file, diff, want string }{
		{"Simple", "a\nb\nc\n", block("b\n", "B\n"), "a\nB\nc\n"},
		{"CRLFKept", "a\r\nb\r\nc\r\n", block("b\n", "B\nB2\n"), "a\r\nB\r\nB2\r\nc\r\n"},
		{"BOMKept", "\ufeffa\nb\n", block("a\n", "A\n"), "\ufeffA\nb\n"},
		{"NoFinalNewline", "a\nb", block("b\n", "B\n"), "a\nB"},
		{"DeleteLastLineNoFinalNewline", "a\nb", block("b\n", ""), "a"},
		// Lines added after the last line of a CRLF file that ends without a line break:
		// written in CRLF, and the file still ends without one.
		{"CRLFNoFinalNewlineLinesAdded", "package p\r\n\r\nfunc F() {\r\n}", block("func F() {\n}\n", "func F() {\n}\n\nfunc G() {\n}\n"), "package p\r\n\r\nfunc F() {\r\n}\r\n\r\nfunc G() {\r\n}"},
		{"CurlyQuotesFileKeepsStraight", "say(\"hi\")\nx = 1\n", block("say(“hi”)\nx = 1\n", "say(“hi”)\nx = 2\n"), "say(\"hi\")\nx = 2\n"},
		{"EmptySearchFillsEmptyFile", "", block("", "hello\n"), "hello\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := sr(t, c.file, c.diff)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Fatalf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestSearchReplaceBlocksMatchOriginal(t *testing.T) {
	// Block 2 searches for text as the ORIGINAL has it; after block 1 it would no
	// longer exist (sequential application, as Cline does, would fail here).
	got, err := sr(t, "a\nb\nc\n", block("a\n", "b\n")+block("b\n", "x\n"))
	if err != nil || got != "b\nx\nc\n" {
		t.Fatalf("%q %v", got, err)
	}
	// All or nothing: a later block that is missing refuses the whole diff.
	_, err = sr(t, "a\nb\n", block("a\n", "A\n")+block("zzz\n", "y\n"))
	wantKind(t, err, errs.TextNotFound)
	if !strings.Contains(err.Error(), "f.txt block 2") {
		t.Fatal(err)
	}
}

func TestSearchReplaceStartLinePicksMatch(t *testing.T) {
	file := "x = 1\na\nx = 1\nb\nx = 1\n"
	hint := func(n string) string {
		return "<<<<<<< SEARCH\n:start_line:" + n + "\n-------\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"
	}
	_, err := sr(t, file, block("x = 1\n", "x = 2\n"))
	wantKind(t, err, errs.MultipleMatches)
	if !strings.Contains(err.Error(), "lines 1, 3, 5") || !strings.Contains(err.Error(), ":start_line:") {
		t.Fatal(err)
	}
	got, err := sr(t, file, hint("3"))
	if err != nil || got != "x = 1\na\nx = 2\nb\nx = 1\n" {
		t.Fatalf("exact hint: %q %v", got, err)
	}
	got, err = sr(t, file, hint("6")) // nearest: line 5
	if err != nil || got != "x = 1\na\nx = 1\nb\nx = 2\n" {
		t.Fatalf("near hint: %q %v", got, err)
	}
	_, err = sr(t, file, hint("2")) // lines 1 and 3 are equally near
	wantKind(t, err, errs.MultipleMatches)
	_, err = sr(t, file, hint("100")) // too far from every match
	wantKind(t, err, errs.MultipleMatches)
}

func TestSearchReplaceEmptySearchOnlyForEmptyFile(t *testing.T) {
	_, err := sr(t, "a\n", block("", "b\n"))
	wantKind(t, err, errs.InvalidInput)
	if !strings.Contains(err.Error(), "write_file") {
		t.Fatal(err)
	}
}

func TestSearchReplaceOverlappingBlocksAreRefused(t *testing.T) {
	_, err := sr(t, "a\nb\nc\n", block("a\nb\n", "x\n")+block("b\nc\n", "y\n"))
	wantKind(t, err, errs.OverlappingEdits)
	if !strings.Contains(err.Error(), "block 1 and block 2") {
		t.Fatal(err)
	}
}

func TestSearchReplaceNoChangeIsRefused(t *testing.T) {
	_, err := sr(t, "a\n", block("a\n", "a\n"))
	wantKind(t, err, errs.NoChange)
}

func FuzzParseSearchReplace(f *testing.F) {
	for _, s := range []string{
		block("a\n", "b\n"),
		"<<<<<<< SEARCH\n:start_line:3\n-------\nx\n=======\ny\n>>>>>>> REPLACE",
		"```\n--- SEARCH\n===\n+++ REPLACE\n```",
		"------- SEARCH\n=======\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		blocks, err := ParseSearchReplace(s, "f.txt")
		if err != nil {
			if errs.KindOf(err) != errs.InvalidInput {
				t.Fatalf("kind %s", errs.KindOf(err))
			}
			return
		}
		for _, b := range blocks {
			if b.Line < 1 || (b.Search != "" && !strings.HasSuffix(b.Search, "\n")) {
				t.Fatalf("%#v", b)
			}
		}
	})
}

// Aider's models put the file's name on a line of its own before each block's fence:
// taken when it names the call's file, and refused, saying why, when it names another.
func TestSearchReplaceAiderFileLine(t *testing.T) {
	diff := "strings/clone.go\n```go\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n"
	for _, path := range []string{"strings/clone.go", "src/strings/clone.go", "./strings/clone.go"} {
		blocks, err := ParseSearchReplace(diff, path)
		if err != nil || len(blocks) != 1 || blocks[0].Search != "a\n" || blocks[0].Replace != "b\n" {
			t.Errorf("path %s: %#v %v", path, blocks, err)
		}
	}
	_, err := ParseSearchReplace(strings.Replace(diff, "strings/clone.go", "other.go", 1), "strings/clone.go")
	wantKind(t, err, errs.InvalidInput)
	if !strings.Contains(err.Error(), "line 1 names other.go") {
		t.Errorf("%v", err)
	}
	// A name with no block after it is not one.
	_, err = ParseSearchReplace("clone.go\nmore text\n"+block("a\n", "b\n"), "clone.go")
	wantKind(t, err, errs.InvalidInput)
}

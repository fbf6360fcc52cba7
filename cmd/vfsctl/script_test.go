package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/vfsctl/vfsctl/journal"
)

// cliName is the name under which this test binary runs as the vfsctl CLI.
const cliName = "vfsctl"

func TestMain(m *testing.M) {
	// The CLI in a process of its own: asked for by the environment (trust_test.go), or
	// by this binary's name (buildVfsctl).
	if os.Getenv("VFSCTL_TEST_RUN") == "1" || strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe") == cliName {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	if os.Getenv("VFSCTL_TEST_COMMAND") == "1" { // a command for vfsctl exec (testCommand)
		os.Exit(testCommand(os.Args[1:]))
	}
	if dir := os.Getenv("VFSCTL_TEST_SHIP"); dir != "" { // a serving process to kill (adopt_test.go)
		shipChild(dir)
		os.Exit(0)
	}
	testscript.Main(m, map[string]func(){
		"vfsctl": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the CLI scripts in testdata/script: a workspace, commands, and the
// expected output, one file per behaviour.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: "testdata/script", Cmds: map[string]func(*testscript.TestScript, bool, []string){
		// cptree FROM TO copies a folder and all it holds to a new folder, as cp -a
		// does, on systems without cp (Windows).
		"cptree": func(ts *testscript.TestScript, neg bool, args []string) {
			if neg || len(args) != 2 {
				ts.Fatalf("usage: cptree FROM TO")
			}
			ts.Check(os.CopyFS(ts.MkAbs(args[1]), os.DirFS(ts.MkAbs(args[0]))))
		},
	}})
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(dir+"/f.txt", []byte("a\n"), 0o644)
	cases := []struct {
		args  []string
		stdin string
		code  int
	}{
		{[]string{"call", "--root", dir}, `{"tool": "read_file", "args": {"path": "f.txt"}}`, exitOK},
		{[]string{"call", "--root", dir}, "{\"tool\": \"read_file\", \"args\": {\"path\": \"f.txt\"}}\nnot json\n", exitRefused},
		{[]string{"call", "--root", dir + "/missing"}, "", exitUsage},
		{[]string{"call", "--bogus"}, "", exitUsage},
		{[]string{"call", "extra"}, "", exitUsage},
		{[]string{"nope"}, "", exitUsage},
		{[]string{}, "", exitUsage},
		{[]string{"tools"}, "", exitOK},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		if got := run(c.args, strings.NewReader(c.stdin), &out, &errb); got != c.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", c.args, got, c.code, errb.String())
		}
	}
}

// TestBusy: while another process holds the workspace journal, log waits --wait and
// then fails with busy, naming the holder.
func TestBusy(t *testing.T) {
	dir := t.TempDir()
	holder := journal.New(filepath.Join(dir, ".vfsctl", "journal.db"), journal.Options{Holder: "vfsctl serve"})
	if err := holder.Acquire(); err != nil {
		t.Fatal(err)
	}
	defer holder.Release()
	var out, errb bytes.Buffer
	start := time.Now()
	code := run([]string{"log", "--root", dir, "--wait", "300ms"}, nil, &out, &errb)
	if code == exitOK || !strings.Contains(errb.String(), "busy with the calls of process") || !strings.Contains(errb.String(), "vfsctl serve") || !strings.Contains(errb.String(), "--wait") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	if time.Since(start) < 300*time.Millisecond {
		t.Errorf("did not wait")
	}
	out.Reset()
	code = run([]string{"call", "--root", dir, "--wait", "100ms"}, strings.NewReader(`{"tool": "read_file", "args": {"path": "x"}}`), &out, &errb)
	if code != exitRefused || !strings.Contains(out.String(), `"kind":"busy"`) || !strings.Contains(out.String(), "Retry this call shortly") || strings.Contains(out.String(), "--wait") {
		t.Fatalf("call while busy: exit %d, %s", code, out.String())
	}
}

// TestStatsHTML: the page parses, and it loads nothing from anywhere (no script, no
// stylesheet link, no src or href attribute).
func TestStatsHTML(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o644)
	calls := `{"tool": "edit_file", "args": {"path": "a.txt", "edits": [{"oldText": "one", "newText": "1"}]}}
{"tool": "edit_file", "args": {"path": "a.txt", "edits": [{"oldText": "nope", "newText": "1"}]}}
{"tool": "edit_file", "args": {"path": "a.txt", "edits": [{"oldText": "two  ", "newText": "<2 & \"3\">"}]}}
`
	var out, errb bytes.Buffer
	run([]string{"call", "--root", dir}, strings.NewReader(calls), &out, &errb)
	page := filepath.Join(dir, "stats.html")
	if code := run([]string{"stats", "--root", dir, "--html", page}, nil, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	data, _ := os.ReadFile(page)
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict, dec.AutoClose, dec.Entity = true, xml.HTMLAutoClose, xml.HTMLEntity
	svgs := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the page does not parse: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			switch se.Name.Local {
			case "script", "link", "img", "iframe", "object":
				t.Errorf("the page has a <%s> element", se.Name.Local)
			case "svg":
				svgs++
			}
			for _, a := range se.Attr {
				if a.Name.Local == "src" || a.Name.Local == "href" {
					t.Errorf("<%s> has %s=%q", se.Name.Local, a.Name.Local, a.Value)
				}
			}
		}
	}
	if svgs != 3 {
		t.Errorf("%d charts, want 3", svgs)
	}
}

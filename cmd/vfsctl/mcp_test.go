package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// buildVfsctl gives, once per test run, a program that runs as the vfsctl binary
// does: this test binary, linked (or copied) under the name vfsctl, which TestMain
// then runs as the CLI, as main does. Building the real binary (cgo and tree-sitter
// included) took a minute of the suite on a busy machine. A link, not a shell script
// that sets an environment variable: Windows runs no shell script.
func buildVfsctl(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		self, err := os.Executable()
		if err != nil {
			buildErr = err
			return
		}
		dir, err := os.MkdirTemp("", "vfsctl-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, cliName)
		if runtime.GOOS == "windows" {
			builtBin += ".exe"
		}
		if os.Link(self, builtBin) == nil {
			return
		}
		data, err := os.ReadFile(self)
		if err == nil {
			err = os.WriteFile(builtBin, data, 0o755)
		}
		buildErr = err
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// TestMCPProtocolErrors speaks raw JSON-RPC to vfsctl serve: an unknown tool, bad
// params and an unknown method are JSON-RPC errors, not tool results.
func TestMCPProtocolErrors(t *testing.T) {
	bin := buildVfsctl(t)
	dir := t.TempDir()
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nope","arguments":{}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":"bad"}
{"jsonrpc":"2.0","id":4,"method":"no/such"}
`
	cmd := exec.Command(bin, "serve", "--root", dir)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()                                                   // ends the server
	stop := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() }) // a server that hangs fails the test
	defer stop.Stop()
	io.WriteString(stdin, in)
	replies := map[float64]map[string]any{}
	sc := bufio.NewScanner(stdout)
	for len(replies) < 4 && sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			t.Fatalf("stdout holds a line that is not JSON-RPC: %q", sc.Text())
		}
		if id, ok := m["id"].(float64); ok {
			replies[id] = m
		}
	}
	for id, code := range map[float64]float64{2: -32602, 3: -32602, 4: -32601} {
		e, _ := replies[id]["error"].(map[string]any)
		if e == nil || e["code"] != code {
			t.Errorf("request %v: %v, want error code %v", id, replies[id], code)
		}
	}
}

func textOf(r *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestMCPEndToEnd starts `vfsctl serve` as a child process and drives it with the
// SDK's client over stdio.
func TestMCPEndToEnd(t *testing.T) {
	bin := buildVfsctl(t)
	dir := e2eWorkspace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "e2e-client", Version: "1"}, nil)
	var serverLog bytes.Buffer
	cmd := exec.Command(bin, "serve", "--root", dir)
	cmd.Stderr = &serverLog
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	checkToolList(t, ctx, cs)

	call := func(name string, args string) *sdk.CallToolResult {
		t.Helper()
		r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return r
	}
	structured := func(r *sdk.CallToolResult) map[string]any {
		b, _ := json.Marshal(r.StructuredContent)
		var m map[string]any
		json.Unmarshal(b, &m)
		return m
	}

	// A successful edit (the model's curly quotes forgiven).
	r := call("edit_file", `{"path": "app.py", "edits": [{"oldText": "print(“hi”)", "newText": "print(“bye”)"}]}`)
	if r.IsError || structured(r)["ok"] != true || structured(r)["txn"] == nil {
		t.Fatalf("edit: %s %v", textOf(r), structured(r))
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "app.py")); string(got) != "print(\"bye\")\nx = 1\n" {
		t.Fatalf("app.py is %q", got)
	}

	// A refused edit: isError, its kind, and the same text `vfsctl call` gives.
	refused := `{"path": "app.py", "edits": [{"oldText": "y = 2", "newText": "y = 3"}]}`
	r = call("edit_file", refused)
	if !r.IsError || structured(r)["kind"] != "text_not_found" {
		t.Fatalf("refused edit: %s %v", textOf(r), structured(r))
	}
	sameAsCall(t, bin, refused, textOf(r))

	// create_file over an existing file.
	r = call("create_file", `{"path": "app.py", "content": "x"}`)
	if !r.IsError || structured(r)["kind"] != "file_exists" {
		t.Fatalf("create over existing: %s", textOf(r))
	}

	// An unknown tool is a protocol error.
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "delete_everything", Arguments: map[string]any{}}); err == nil {
		t.Error("an unknown tool was not a protocol error")
	}

	concurrentEdits(t, ctx, cs, bin, dir)

	// One connection is one session, named after the client; the log went to stderr.
	cs.Close()
	all, _ := exec.Command(bin, "log", "--root", dir, "--json").Output()
	if !strings.Contains(string(all), `"session":"mcp-e2e-client-`) {
		t.Errorf("records do not name the client's session:\n%s", all)
	}
	if !strings.Contains(serverLog.String(), "serving") {
		t.Errorf("server log: %q", serverLog.String())
	}
}

// e2eWorkspace holds app.py and many.txt, twenty lines to edit at once.
func e2eWorkspace(t *testing.T) string {
	dir := t.TempDir()
	var lines strings.Builder
	for i := range 20 {
		fmt.Fprintf(&lines, "line %02d = old\n", i)
	}
	files := map[string]string{"app.py": "print(\"hi\")\nx = 1\n", "many.txt": lines.String()}
	for p, c := range files {
		os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644)
	}
	return dir
}

// checkToolList checks the tools the server lists: every one with its schemas and
// annotations, and the hints that matter to a client.
func checkToolList(t *testing.T, ctx context.Context, cs *sdk.ClientSession) {
	t.Helper()
	// The tools, with schemas and annotations.
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*sdk.Tool{}
	for _, tl := range lt.Tools {
		tools[tl.Name] = tl
	}
	for _, name := range []string{"read_file", "edit_file", "create_file", "write_file", "apply_changes", "undo_edit"} {
		tl := tools[name]
		if tl == nil || tl.InputSchema == nil || tl.OutputSchema == nil || tl.Annotations == nil {
			t.Fatalf("tool %s: %+v", name, tl)
		}
	}
	if a := tools["read_file"].Annotations; !a.ReadOnlyHint {
		t.Errorf("read_file is not read-only: %+v", a)
	}
	if a := tools["create_file"].Annotations; a.DestructiveHint == nil || *a.DestructiveHint {
		t.Errorf("create_file is marked destructive: %+v", a)
	}
	if a := tools["edit_file"].Annotations; a.ReadOnlyHint || (a.DestructiveHint != nil && !*a.DestructiveHint) || a.IdempotentHint {
		t.Errorf("edit_file annotations: %+v", a)
	}
}

// sameAsCall checks that vfsctl call, in a workspace like the server's, refuses the
// edit args with the text the server gave (mcpText).
func sameAsCall(t *testing.T, bin, args, mcpText string) {
	t.Helper()
	twin := t.TempDir()
	os.WriteFile(filepath.Join(twin, "app.py"), []byte("print(\"bye\")\nx = 1\n"), 0o644)
	c := exec.Command(bin, "call", "--root", twin)
	c.Stdin = strings.NewReader(`{"tool": "edit_file", "args": ` + args + "}\n")
	out, _ := c.Output()
	var viaCall struct{ Text string }
	json.Unmarshal(out, &viaCall)
	if viaCall.Text != mcpText {
		t.Errorf("MCP and vfsctl call differ:\n mcp  %q\n call %q", mcpText, viaCall.Text)
	}
}

// concurrentEdits sends twenty concurrent calls on one file, while another process asks
// for the log: every edit lands, and the log answers.
func concurrentEdits(t *testing.T, ctx context.Context, cs *sdk.ClientSession, bin, dir string) {
	t.Helper()
	// Twenty concurrent calls on one file, while another process asks for the log.
	var wg sync.WaitGroup
	errsCh := make(chan string, 20)
	for i := range 20 {
		wg.Go(func() {
			args := fmt.Sprintf(`{"path": "many.txt", "edits": [{"oldText": "line %02d = old", "newText": "line %02d = new"}]}`, i, i)
			r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "edit_file", Arguments: json.RawMessage(args)})
			if err != nil || r.IsError {
				errsCh <- fmt.Sprintf("edit %d: %v %s", i, err, textOf(r))
			}
		})
	}
	time.Sleep(20 * time.Millisecond)
	start := time.Now()
	logOut, logErr := exec.Command(bin, "log", "--root", dir, "--json", "--limit", "1").CombinedOutput()
	logTook := time.Since(start)
	wg.Wait()
	close(errsCh)
	for e := range errsCh {
		t.Error(e)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "many.txt")); strings.Count(string(got), "= new") != 20 {
		t.Fatalf("%d of 20 concurrent edits in the file:\n%s", strings.Count(string(got), "= new"), got)
	}
	if logErr != nil || !strings.Contains(string(logOut), `"seq"`) {
		t.Fatalf("log from another process: %v %s", logErr, logOut)
	}
	// Not busy (that would be an error above); how long it took is a figure, not a test.
	t.Logf("vfsctl log from another process answered in %v while 20 calls ran", logTook.Round(time.Millisecond))
}

// serveE2E starts `vfsctl serve` with args on a fresh e2eWorkspace and connects an MCP
// client to it, as a runtime does; it returns the client's context, the session, the
// workspace and the tools listed. The server stops with the test.
func serveE2E(t *testing.T, args ...string) (context.Context, *sdk.ClientSession, string, *sdk.ListToolsResult) {
	t.Helper()
	bin := buildVfsctl(t)
	dir := e2eWorkspace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	client := sdk.NewClient(&sdk.Implementation{Name: "e2e-client", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: exec.Command(bin, append([]string{"serve", "--root", dir}, args...)...)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ctx, cs, dir, lt
}

// TestMCPFileTools drives the tools that move, delete and make files and folders, and
// read several files, over MCP: their annotations say which may destroy and which
// only look, and each call does over MCP what it does through vfsctl call.
func TestMCPFileTools(t *testing.T) {
	ctx, cs, dir, lt := serveE2E(t)
	tools := map[string]*sdk.Tool{}
	for _, tl := range lt.Tools {
		tools[tl.Name] = tl
	}
	for _, name := range []string{"move_file", "delete_file"} {
		a := tools[name].Annotations
		if a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint {
			t.Errorf("%s is not marked destructive: %+v", name, a)
		}
	}
	for _, name := range []string{"read_files", "file_info"} {
		if a := tools[name].Annotations; a == nil || !a.ReadOnlyHint {
			t.Errorf("%s is not marked read-only: %+v", name, a)
		}
	}
	if a := tools["create_directory"].Annotations; a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint {
		t.Errorf("create_directory annotations: %+v", a)
	}

	call := func(name, args string) (string, bool) {
		t.Helper()
		r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return textOf(r), !r.IsError
	}
	if text, ok := call("read_files", `{"paths": ["app.py", "none.txt"]}`); !ok || !strings.Contains(text, "==> app.py <==\n     1\tprint(\"hi\")") || !strings.Contains(text, "(not read: file_not_found)") {
		t.Errorf("read_files: %v %s", ok, text)
	}
	if text, ok := call("move_file", `{"source": "app.py", "destination": "pkg/main.py"}`); !ok {
		t.Fatalf("move_file: %s", text)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "pkg/main.py")); string(got) != "print(\"hi\")\nx = 1\n" {
		t.Errorf("pkg/main.py is %q", got)
	}
	if text, ok := call("move_file", `{"source": "many.txt", "destination": "pkg/main.py"}`); ok || !strings.Contains(text, "never overwrites") {
		t.Errorf("move onto an existing file: %v %s", ok, text)
	}
	if text, ok := call("file_info", `{"path": "pkg"}`); !ok || !strings.Contains(text, "kind: folder\nentries: 1\n") {
		t.Errorf("file_info: %v %s", ok, text)
	}
	if text, ok := call("delete_file", `{"path": "pkg"}`); ok || !strings.Contains(text, "holds 1 entry") {
		t.Errorf("delete of a full folder: %v %s", ok, text)
	}
	if text, ok := call("delete_file", `{"path": "pkg/main.py"}`); !ok {
		t.Fatalf("delete_file: %s", text)
	}
	if text, ok := call("create_directory", `{"path": "out/a"}`); !ok || !strings.Contains(text, "Made the folder out/a/") {
		t.Errorf("create_directory: %v %s", ok, text)
	}
	if text, ok := call("undo_edit", `{"path": "pkg/main.py"}`); !ok {
		t.Fatalf("undo of the delete: %s", text)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "pkg/main.py")); string(got) != "print(\"hi\")\nx = 1\n" {
		t.Errorf("after undo, pkg/main.py is %q", got)
	}
}

// TestMCPGemini serves the gemini set: its tools are listed under Gemini CLI's names,
// and replace with expected_replacements works over MCP as through vfsctl call.
func TestMCPGemini(t *testing.T) {
	ctx, cs, dir, lt := serveE2E(t, "--tools", "gemini")
	var names []string
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if got := strings.Join(names, ","); got != "glob,list_directory,read_file,replace,search_file_content,write_file" {
		t.Errorf("tools %s", got)
	}
	r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "replace", Arguments: json.RawMessage(`{"file_path": "many.txt", "old_string": "= old", "new_string": "= new", "expected_replacements": 19}`)})
	if err != nil || !r.IsError || !strings.Contains(textOf(r), "but found 20") {
		t.Fatalf("a wrong count: %v %s", err, textOf(r))
	}
	r, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "replace", Arguments: json.RawMessage(`{"file_path": "many.txt", "old_string": "= old", "new_string": "= new", "expected_replacements": 20}`)})
	if err != nil || r.IsError {
		t.Fatalf("the right count: %v %s", err, textOf(r))
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "many.txt")); strings.Count(string(got), "= new") != 20 {
		t.Errorf("many.txt:\n%s", got)
	}
}

// TestMCPUdiff serves the udiff set: apply_diff beside the reading tools, annotated as
// a tool that changes files; a diff applies over MCP as through vfsctl call, and a
// refused one changes nothing and says which hunk.
func TestMCPUdiff(t *testing.T) {
	ctx, cs, dir, lt := serveE2E(t, "--tools", "udiff")
	var names []string
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
		if tl.Name == "apply_diff" {
			a := tl.Annotations
			if a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint || a.IdempotentHint {
				t.Errorf("apply_diff annotations %+v", a)
			}
		}
	}
	slices.Sort(names)
	if got := strings.Join(names, ","); got != "apply_diff,list_files,read_file,search_files" {
		t.Errorf("tools %s", got)
	}
	r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "apply_diff", Arguments: json.RawMessage(`{"diff": "--- a/many.txt\n+++ b/many.txt\n@@ ... @@\n-line 03 = old\n+line 03 = new\n--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-print(\"bye\")\n+print(1)\n"}`)})
	if err != nil || !r.IsError || !strings.Contains(textOf(r), "app.py hunk 1: its context and removed lines were not found.") {
		t.Fatalf("a hunk not found: %v %s", err, textOf(r))
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "many.txt")); strings.Contains(string(got), "= new") {
		t.Errorf("a refused diff changed many.txt:\n%s", got)
	}
	r, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "apply_diff", Arguments: json.RawMessage(`{"diff": "--- a/many.txt\n+++ b/many.txt\n@@ -4,1 +4,1 @@\n-line 03 = old\n+line 03 = new\n--- /dev/null\n+++ b/docs/new.md\n@@ -0,0 +1 @@\n+# New\n"}`)})
	if err != nil || r.IsError {
		t.Fatalf("the diff: %v %s", err, textOf(r))
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "many.txt")); !strings.Contains(string(got), "line 02 = old\nline 03 = new\nline 04 = old\n") {
		t.Errorf("many.txt:\n%s", got)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "docs/new.md")); string(got) != "# New\n" {
		t.Errorf("docs/new.md: %q", got)
	}
}

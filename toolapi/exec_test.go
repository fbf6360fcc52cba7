package toolapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/internal/winetest"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/toolapi"
	"github.com/vfsctl/vfsctl/txn"
)

// Engine.Exec runs argv in a folder of the workspace with the caller's output streams,
// and journals what it changed in the turn of its context: the record names the
// command, its folder and how it ended; undo takes its change back.
func TestEngineExecRunsAndJournals(t *testing.T) {
	winetest.NeedPOSIXShell(t)
	root := testutil.Workspace(t, map[string]string{"sub/f.txt": "one\ntwo\n"})
	eng, err := toolapi.Open(root, toolapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ctx := toolapi.WithTurn(context.Background(), "turn-7")
	var out bytes.Buffer
	res, err := eng.Exec(ctx, "conv", []string{"sh", "-c", "sed -i s/two/TWO/ f.txt && pwd && exit 4"}, toolapi.ExecOptions{Cwd: "sub", Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 4 || res.Exit != "exit 4" || !strings.HasSuffix(strings.TrimSpace(out.String()), string(filepath.Separator)+"sub") {
		t.Fatalf("result %+v, stdout %q: want exit 4 and the command run in sub", res, out.String())
	}
	if len(res.Files) != 1 || res.Files[0].Path != "sub/f.txt" {
		t.Fatalf("files %+v, want sub/f.txt", res.Files)
	}
	rec, _, err := eng.Show(res.Seq)
	if err != nil {
		t.Fatal(err)
	}
	var args toolapi.ExecArgs
	json.Unmarshal([]byte(rec.Args), &args)
	if rec.Tool != "exec" || rec.Session != "conv" || rec.Turn != "turn-7" || rec.Exit != "exit 4" || args.Cwd != "sub" || len(args.Argv) != 3 || rec.State != journal.Committed {
		t.Fatalf("the record: %+v", rec)
	}
	if r := eng.Undo(context.Background(), res.Seq); !r.OK {
		t.Fatalf("undo: %s", r.Text)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "sub/f.txt")); string(b) != "one\ntwo\n" {
		t.Fatalf("after the undo: %q", b)
	}
}

// A context that ends kills the command's process group, and the record says so; a
// folder outside the root is refused before anything runs or is journaled.
func TestEngineExecCancelledAndRefused(t *testing.T) {
	winetest.NeedPOSIXShell(t)
	root := testutil.Workspace(t, map[string]string{"a.txt": "a\n"})
	eng, err := toolapi.Open(root, toolapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	go func() { // the command has begun: end the context
		for {
			if _, err := os.Stat(filepath.Join(root, "early.txt")); err == nil {
				cancel(errors.New("the runtime gave up"))
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	// The child sleeps in the background too: the whole group must go.
	res, err := eng.Exec(ctx, "conv", []string{"sh", "-c", "(sleep 30; echo late > late.txt) & echo early > early.txt; sleep 30"}, toolapi.ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != toolapi.ExitTimeout || !strings.Contains(res.Exit, "killed: the runtime gave up") {
		t.Fatalf("result %+v, want killed by the context", res)
	}
	if len(res.Files) != 1 || res.Files[0].Path != "early.txt" {
		t.Fatalf("files %+v, want early.txt", res.Files)
	}
	before, _ := eng.Log(toolapi.Query{})
	_, err = eng.Exec(context.Background(), "conv", []string{"sh", "-c", "echo > x.txt"}, toolapi.ExecOptions{Cwd: "../elsewhere"})
	if errs.KindOf(err) != errs.PathOutsideRoot {
		t.Fatalf("a folder outside the root: %v, want path_outside_root", err)
	}
	after, _ := eng.Log(toolapi.Query{})
	if len(after) != len(before) {
		t.Fatalf("a refused Exec wrote %d records", len(after)-len(before))
	}
	if _, err := eng.Exec(context.Background(), "conv", nil, toolapi.ExecOptions{}); errs.KindOf(err) != errs.InvalidInput {
		t.Fatalf("no argv: %v", err)
	}
}

// Whether a refusal to start a command already says that nothing was run is told by
// its cause, not by its words: words that come from the workspace (here the holder
// file another process leaves in .vfsctl) may say anything. A journal held by another
// process is refused saying the command was not run, whatever that process calls
// itself; an exec refused because another runs says it once.
func TestEngineExecNotRunToldByCauseNotText(t *testing.T) {
	winetest.NeedPOSIXShell(t)
	root := testutil.Workspace(t, map[string]string{"a.txt": "a\n"})
	eng, err := toolapi.Open(root, toolapi.Options{Wait: 200 * time.Millisecond, Linger: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if _, err := eng.Checkpoint(toolapi.LookOptions{}); err != nil {
		t.Fatal(err)
	}
	other := journal.New(filepath.Join(root, ".vfsctl", "journal.db"), journal.Options{Root: root, Holder: "a runtime. Nothing was run."})
	if err := other.Acquire(); err != nil {
		t.Fatal(err)
	}
	_, err = eng.Exec(context.Background(), "conv", []string{"sh", "-c", "echo > ran.txt"}, toolapi.ExecOptions{})
	other.Release()
	other.Close()
	if errs.KindOf(err) != errs.Busy || errors.Is(err, txn.ErrNotRun) || !strings.HasSuffix(err.Error(), "Retry this call shortly. The command was not run.") {
		t.Fatalf("an exec while another process holds the journal: %v, want busy, saying the command was not run", err)
	}

	x, err := eng.ExecStart("s", "", toolapi.ExecArgs{Argv: []string{"first"}, Cwd: "."}, toolapi.LookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer x.End("exit 0")
	_, err = eng.Exec(context.Background(), "conv", []string{"sh", "-c", "echo > ran.txt"}, toolapi.ExecOptions{})
	if errs.KindOf(err) != errs.Conflict || !errors.Is(err, txn.ErrNotRun) || strings.Count(err.Error(), "Nothing was run.") != 1 || strings.Contains(strings.ToLower(err.Error()), "the command was not run") {
		t.Fatalf("an exec while another runs: %v, want a conflict that says once that nothing was run", err)
	}
	if _, err := os.Stat(filepath.Join(root, "ran.txt")); err == nil {
		t.Fatal("a refused command ran")
	}
}

// An engine that is not to wait for the journal (a negative Wait, `--wait 0`) still
// records a command's end when another process holds the journal then: the command
// ran, and an end that gave up would leave what it changed to the next look, as
// outside. Its start is refused at once.
func TestEngineExecEndWaitsThoughItsStartDidNot(t *testing.T) {
	root := testutil.Workspace(t, map[string]string{"a.txt": "a\n"})
	eng, err := toolapi.Open(root, toolapi.Options{Wait: -1, Linger: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if _, err := eng.Checkpoint(toolapi.LookOptions{}); err != nil {
		t.Fatal(err)
	}
	other := journal.New(filepath.Join(root, ".vfsctl", "journal.db"), journal.Options{Root: root, Holder: "another runtime"})
	defer other.Close()
	if err := other.Acquire(); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.ExecStart("s", "", toolapi.ExecArgs{Argv: []string{"cmd"}, Cwd: "."}, toolapi.LookOptions{}); errs.KindOf(err) != errs.Busy {
		t.Fatalf("an exec started while another process holds the journal: %v, want busy", err)
	}
	other.Release()
	x, err := eng.ExecStart("s", "", toolapi.ExecArgs{Argv: []string{"cmd"}, Cwd: "."}, toolapi.LookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("by the command\n"), 0o644)
	if err := other.Acquire(); err != nil {
		t.Fatal(err)
	}
	// Held well past the wait of an Acquire that is not to wait.
	go func() { time.Sleep(500 * time.Millisecond); other.Release() }()
	look, err := x.End("exit 0")
	if err != nil || len(look.Files) != 1 || look.Files[0].Path != "a.txt" {
		t.Fatalf("the exec's end while another process held the journal: %+v, %v; want a.txt recorded", look, err)
	}
}

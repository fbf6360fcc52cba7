package toolapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/toolapi"
)

// A folder call's committed record is written with the process's next journal
// transaction; another process that opens the journal meanwhile (an operator's
// vfsctl log) settles the call from its pending record, which did not know the
// folders' bits yet. The folders keep the bits they were made with.
func TestFoldersKeepTheirBitsWhenAnotherProcessSettlesThem(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows keeps no permission bits on folders")
	}
	root := t.TempDir()
	eng, err := toolapi.Open(root, toolapi.Options{Tools: "all"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ctx := context.Background()
	if res := eng.Call(ctx, "agent", "create_directory", json.RawMessage(`{"path": "src/pkg"}`)); !res.OK {
		t.Fatal(res.Text)
	}
	want := map[string]os.FileMode{}
	for _, p := range []string{"src", "src/pkg"} {
		fi, err := os.Stat(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		want[p] = fi.Mode().Perm()
	}
	settled, _ := settleElsewhere(t, root)
	for p, bits := range want {
		fi, err := os.Stat(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != bits {
			t.Errorf("%s/ has mode %04o after another process read the log, was %04o", p, got, bits)
		}
	}
	if len(settled) > 0 {
		t.Errorf("the operator's open said it settled calls of a live process: %+v", settled)
	}
	if res := eng.Call(ctx, "agent", "create_file", json.RawMessage(`{"path": "src/pkg/main.go", "content": "package main\n"}`)); !res.OK {
		t.Errorf("the agent's next call: %s", res.Text)
	}
}

// Undoing, out of order, a move out of a folder and then the folder's deletion: the
// first undo makes the folder again for the file it puts back, under the umask, and
// says so; the second finds the folder standing and is refused as no_change, naming
// the bits it has and those the deletion found, never recorded as a change of
// nothing.
func TestUndoOfAFolderDeletionWhoseFolderStands(t *testing.T) {
	root, eng := privateFolderCalls(t, []struct{ tool, args string }{
		{"move_file", `{"source": "d/a.txt", "destination": "b.txt"}`},
		{"delete_file", `{"path": "d"}`},
	})
	ctx := context.Background()
	res := eng.Undo(ctx, 1)
	if !res.OK || !strings.Contains(res.Text, "d/ made again for it") {
		t.Fatalf("undo 1 does not say it made d/: %s", res.Text)
	}
	fi, err := os.Stat(filepath.Join(root, "d"))
	if err != nil {
		t.Fatal(err)
	}
	made := fi.Mode().Perm()
	res = eng.Undo(ctx, 2)
	want := fmt.Sprintf("d/ has mode %04o, where call 2 found 0750", made)
	if res.OK || res.Kind == nil || *res.Kind != "no_change" || !strings.Contains(res.Text, want) {
		t.Errorf("undo 2, d/ standing: ok=%v, want no_change saying %q: %s", res.OK, want, res.Text)
	}
	var last *toolapi.Record
	if recs, err := eng.Log(toolapi.Query{}); err == nil && len(recs) > 0 {
		last = recs[0]
	}
	if last == nil || last.State == "committed" {
		t.Errorf("the refused undo's record: %+v", last)
	}
	if data, err := os.ReadFile(filepath.Join(root, "d", "a.txt")); err != nil || string(data) != "a\n" {
		t.Errorf("d/a.txt after the undos: %q, %v", data, err)
	}
}

// The same deletion, its folder standing again, as the latest call: a bare undo
// passes over it (its undo would change nothing) to the call before, says so, and a
// bare redo re-applies that undo. Before, every bare undo was refused as no_change
// at the deletion and never reached the earlier calls.
func TestBareUndoPassesOverAFolderDeletionWhoseFolderStands(t *testing.T) {
	root, eng := privateFolderCalls(t, []struct{ tool, args string }{
		{"create_file", `{"path": "e.txt", "content": "early\n"}`},     // call 1
		{"move_file", `{"source": "d/a.txt", "destination": "b.txt"}`}, // call 2
		{"delete_file", `{"path": "d"}`},                               // call 3
	})
	ctx := context.Background()
	if res := eng.Undo(ctx, 2); !res.OK || !strings.Contains(res.Text, "d/ made again for it") {
		t.Fatalf("undo 2 does not say it made d/: %s", res.Text)
	}
	exists := func(p string) bool { _, err := os.Lstat(filepath.Join(root, p)); return err == nil }

	// A model's undo_edit of d/: nothing of its own left to undo there, and it is told why.
	res := eng.Call(ctx, "s", "undo_edit", json.RawMessage(`{"path": "d"}`))
	if res.OK || res.Kind == nil || *res.Kind != "no_change" || !strings.Contains(res.Text, "Call 3 (delete_file) passed over") {
		t.Errorf("undo_edit of d: ok=%v, want no_change naming call 3 passed over: %s", res.OK, res.Text)
	}

	rep := eng.Revert(ctx, toolapi.UndoRequest{})
	if !rep.OK || rep.Target != 1 {
		t.Fatalf("bare undo: ok=%v target=%d, want call 1 undone: %s", rep.OK, rep.Target, rep.Text)
	}
	if len(rep.Passed) != 1 || !strings.Contains(rep.Text, "Call 3 (delete_file) passed over") || !strings.Contains(rep.Text, "d/ stands again already") {
		t.Errorf("bare undo does not say it passed over call 3: passed=%q text=%s", rep.Passed, rep.Text)
	}
	if exists("e.txt") {
		t.Errorf("e.txt stands after the bare undo said it reverted call 1")
	}
	if !exists("d/a.txt") {
		t.Errorf("d/a.txt is gone after the bare undo")
	}

	rep = eng.Revert(ctx, toolapi.UndoRequest{})
	if rep.OK || rep.Kind != "no_change" || !strings.Contains(rep.Text, "There is no change to undo") || !strings.Contains(rep.Text, "Call 3 (delete_file) passed over") {
		t.Errorf("the next bare undo: ok=%v kind=%s, want no_change naming call 3: %s", rep.OK, rep.Kind, rep.Text)
	}

	rep = eng.Revert(ctx, toolapi.UndoRequest{Redo: true})
	if !rep.OK || rep.Target == 0 || !exists("e.txt") {
		t.Fatalf("bare redo: ok=%v target=%d, e.txt there %v: %s", rep.OK, rep.Target, exists("e.txt"), rep.Text)
	}
	if data, err := os.ReadFile(filepath.Join(root, "e.txt")); err != nil || string(data) != "early\n" {
		t.Errorf("e.txt after the redo: %q, %v", data, err)
	}
	if !exists("d/a.txt") || exists("b.txt") {
		t.Errorf("the redo of call 1's undo moved other things: d/a.txt %v, b.txt %v", exists("d/a.txt"), exists("b.txt"))
	}
}

// The same, but someone removes the folder the call made before the other process
// opens the journal: the call had finished, so the folder is not made again (empty,
// with bits of recovery's choosing); the record says it was removed after.
func TestAFolderRemovedAfterItsCallIsNotMadeAgainByAnotherProcess(t *testing.T) {
	root := t.TempDir()
	eng, err := toolapi.Open(root, toolapi.Options{Tools: "all"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ctx := context.Background()
	if res := eng.Call(ctx, "agent", "create_directory", json.RawMessage(`{"path": "src/pkg"}`)); !res.OK {
		t.Fatal(res.Text)
	}
	if err := os.Remove(filepath.Join(root, "src", "pkg")); err != nil {
		t.Fatal(err)
	}
	settled, recs := settleElsewhere(t, root)
	if _, err := os.Lstat(filepath.Join(root, "src", "pkg")); err == nil {
		t.Errorf("src/pkg/, removed after its call, was made again by the operator's open")
	}
	if len(settled) != 1 || !strings.Contains(settled[0].Note, "src/pkg/ is gone") || settled[0].State != "committed" {
		t.Errorf("recovery said %+v, want the call committed and src/pkg/ named as removed after it", settled)
	}
	if len(recs) == 0 || recs[0].State != "committed" {
		t.Errorf("the call's record after the operator's open: %+v", recs)
	}
}

// The mirror: a delete_file of a folder has finished, and someone makes the folder
// again before another process opens the journal: it is not removed again.
func TestAFolderMadeAgainAfterItsDeletionIsNotRemovedByAnotherProcess(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	eng, err := toolapi.Open(root, toolapi.Options{Tools: "all"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if res := eng.Call(context.Background(), "agent", "delete_file", json.RawMessage(`{"path": "d"}`)); !res.OK {
		t.Fatal(res.Text)
	}
	if err := os.Mkdir(filepath.Join(root, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	settled, _ := settleElsewhere(t, root)
	if fi, err := os.Stat(filepath.Join(root, "d")); err != nil || !fi.IsDir() {
		t.Errorf("d/, made again after its deletion, was removed by the operator's open: %v", err)
	}
	if len(settled) != 1 || !strings.Contains(settled[0].Note, "d/ stands") {
		t.Errorf("recovery said %+v, want d/ named as made again after the call", settled)
	}
}

// A folder's deletion that a bare undo passed over stays passed over once the call
// that made the folder is undone: bare undos walk back to before every call, where the
// folder never was. Before, after the undo of the create that made d (which removes
// d, made for its file), the next bare undo took back the deletion and made d again,
// a folder that stood at no point before the calls.
func TestBareUndoDoesNotComeBackToAPassedOverDeletion(t *testing.T) {
	root := t.TempDir()
	eng, err := toolapi.Open(root, toolapi.Options{Tools: "all"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ctx := context.Background()
	for _, call := range []struct{ tool, args string }{
		{"create_file", `{"path": "d/a.txt", "content": "a\n"}`},       // call 1: makes d
		{"move_file", `{"source": "d/a.txt", "destination": "b.txt"}`}, // call 2: leaves d empty
		{"delete_file", `{"path": "d"}`},                               // call 3
	} {
		if res := eng.Call(ctx, "s", call.tool, json.RawMessage(call.args)); !res.OK {
			t.Fatalf("%s: %s", call.tool, res.Text)
		}
	}
	if res := eng.Undo(ctx, 2); !res.OK || !strings.Contains(res.Text, "d/ made again for it") {
		t.Fatalf("undo 2 does not say it made d/: %s", res.Text)
	}
	// Bare undos until there is nothing left: call 3 passed over, call 1 undone.
	for i := 0; i < 4; i++ {
		rep := eng.Revert(ctx, toolapi.UndoRequest{})
		if !rep.OK {
			if rep.Kind != "no_change" {
				t.Fatalf("bare undo %d: %s %s", i, rep.Kind, rep.Text)
			}
			break
		}
	}
	// The oracle: before call 1 the workspace held nothing but the journal.
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if e.Name() != ".vfsctl" {
			names = append(names, e.Name())
		}
	}
	if len(names) > 0 {
		t.Errorf("after bare undos back to before every call, the workspace holds %v, want nothing", names)
	}
}

// privateFolderCalls makes folder d, mode 0750, holding a.txt, and makes calls on it
// in session s through an engine that serves every tool; the test ends when one is
// refused. Windows keeps no folder bits: skipped there.
func privateFolderCalls(t *testing.T, calls []struct{ tool, args string }) (string, *toolapi.Engine) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("Windows keeps no permission bits on folders")
	}
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "d"), 0o750); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(root, "d"), 0o750) // past the umask
	if err := os.WriteFile(filepath.Join(root, "d", "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	eng, err := toolapi.Open(root, toolapi.Options{Tools: "all"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	for _, call := range calls {
		if res := eng.Call(context.Background(), "s", call.tool, json.RawMessage(call.args)); !res.OK {
			t.Fatalf("%s: %s", call.tool, res.Text)
		}
	}
	return root, eng
}

// settleElsewhere opens root's journal as another process does (an operator's vfsctl
// log), which settles the calls it finds pending, and returns what it settled and
// the log it read.
func settleElsewhere(t *testing.T, root string) ([]toolapi.Settled, []*toolapi.Record) {
	t.Helper()
	var settled []toolapi.Settled
	op, err := toolapi.Open(root, toolapi.Options{OnSettle: func(s toolapi.Settled) { settled = append(settled, s) }})
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	recs, err := op.Log(toolapi.Query{})
	if err != nil {
		t.Fatal(err)
	}
	return settled, recs
}

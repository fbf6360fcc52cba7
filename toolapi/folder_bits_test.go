package toolapi_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
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
	var settled []toolapi.Settled
	op, err := toolapi.Open(root, toolapi.Options{OnSettle: func(s toolapi.Settled) { settled = append(settled, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.Log(toolapi.Query{}); err != nil {
		t.Fatal(err)
	}
	op.Close()
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

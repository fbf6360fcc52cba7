package toolapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/toolapi"
	"github.com/vfsctl/vfsctl/vfs"
)

// While calls edit, write and create through folder a/, another process keeps
// exchanging a/ with a symlink to .git (RENAME_EXCHANGE, so a/ is always one or the
// other). Every reply is checked against the disk at once, through a handle on the
// real folder: a call that says ok changed that folder's file as it says, a refused
// call changed nothing. At the end .git is byte for byte as it was and no temp file is
// left anywhere. VFSCTL_SWAP_SECONDS sets the length (3 s by default, 10 s with
// VFSCTL_FULL=1).
func TestSymlinkSwapRace(t *testing.T) {
	secs := 3
	if toolapi.FullTests() {
		secs = 10
	}
	if s, err := strconv.Atoi(os.Getenv("VFSCTL_SWAP_SECONDS")); err == nil && s > 0 {
		secs = s
	}
	ws := testutil.Workspace(t, map[string]string{
		"a/f.txt":     "v0\n",
		".git/f.txt":  "v0\n", // a naive tool would happily edit this one
		".git/config": "[core]\n",
	})
	if err := os.Symlink(".git", filepath.Join(ws, "s")); err != nil {
		t.Fatal(err)
	}
	gitBefore := testutil.Snapshot(t, filepath.Join(ws, ".git"))
	real, err := os.Open(filepath.Join(ws, "a")) // the real folder, wherever it goes
	if err != nil {
		t.Fatal(err)
	}
	defer real.Close()
	inReal := func(name string) (string, bool) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/self/fd/%d/%s", real.Fd(), name))
		return string(b), err == nil
	}
	if _, ok := inReal("f.txt"); !ok {
		t.Skip("no /proc/self/fd here")
	}
	if err := exchangePaths(filepath.Join(ws, "a"), filepath.Join(ws, "s")); err != nil {
		t.Skipf("RENAME_EXCHANGE: %v", err)
	}

	eng, err := toolapi.Open(ws, toolapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()

	var stop atomic.Bool
	swaps := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			exchangePaths(filepath.Join(ws, "a"), filepath.Join(ws, "s"))
			swaps++
		}
	}()

	ctx := context.Background()
	call := func(tool string, args any) toolapi.Result {
		b, _ := json.Marshal(args)
		return eng.Call(ctx, "race", tool, b)
	}
	kinds := map[string]int{}
	tally := func(r toolapi.Result) {
		if r.OK {
			kinds["ok"]++
		} else {
			if kinds[string(*r.Kind)] == 0 {
				t.Logf("first %s: %s", *r.Kind, r.Text)
			}
			kinds[string(*r.Kind)]++
		}
	}
	cur := 0 // f.txt holds "v<cur>\n" in the real folder
	deadline := time.Now().Add(time.Duration(secs) * time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		switch i % 3 {
		case 0:
			r := call("edit_file", map[string]any{"path": "a/f.txt", "edits": []map[string]string{{"oldText": fmt.Sprintf("v%d", cur), "newText": fmt.Sprintf("v%d", cur+1)}}})
			tally(r)
			if r.OK {
				cur++
			}
			if got, _ := inReal("f.txt"); got != fmt.Sprintf("v%d\n", cur) {
				t.Fatalf("call %d: edit replied ok=%v (%s), but f.txt holds %q, want v%d", i, r.OK, r.Text, got, cur)
			}
		case 1:
			name := fmt.Sprintf("n%d.txt", i)
			r := call("create_file", map[string]any{"path": "a/" + name, "content": name + "\n"})
			tally(r)
			got, exists := inReal(name)
			if r.OK != exists || (exists && got != name+"\n") {
				t.Fatalf("call %d: create replied ok=%v (%s), but the file exists=%v holding %q", i, r.OK, r.Text, exists, got)
			}
		case 2:
			rd := call("read_file", map[string]any{"path": "a/f.txt"})
			tally(rd)
			if !rd.OK {
				continue
			}
			r := call("write_file", map[string]any{"path": "a/f.txt", "content": fmt.Sprintf("v%d\n", cur+1)})
			tally(r)
			if r.OK {
				cur++
			}
			if got, _ := inReal("f.txt"); got != fmt.Sprintf("v%d\n", cur) {
				t.Fatalf("call %d: write replied ok=%v (%s), but f.txt holds %q, want v%d", i, r.OK, r.Text, got, cur)
			}
		}
	}
	stop.Store(true)
	<-done
	t.Logf("%d s, %d swaps, replies: %v", secs, swaps, kinds)
	if kinds["ok"] == 0 {
		t.Error("no call succeeded: the race was not exercised")
	}

	// .git lies wherever its name is; compare it by name.
	testutil.SameSnapshot(t, gitBefore, testutil.Snapshot(t, filepath.Join(ws, ".git")))
	filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), vfs.TempPrefix) {
			t.Errorf("temp file left: %s", p)
		}
		return nil
	})
}

package txn_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/toolapi"
	"github.com/vfsctl/vfsctl/txn"
)

// Every tool that changes files plans before it holds the journal: while one call of
// each is stopped after its plan (before it takes the journal), another process's
// edit and an operator's look at the log go through, where they used to wait for the
// plan and be turned away as busy. Then the stopped call commits.
func TestToolsPlanWithoutTheJournal(t *testing.T) {
	patch := "*** Begin Patch\n*** Update File: f.txt\n@@\n-beta\n+BETA\n*** End Patch\n"
	calls := []struct {
		tool string
		args string
		want map[string]string // files after the call; "": none there
	}{
		{"edit_file", `{"path": "f.txt", "edits": [{"oldText": "beta", "newText": "BETA"}]}`, map[string]string{"f.txt": "alpha\nBETA\n"}},
		{"apply_changes", `{"changes": [{"path": "f.txt", "edits": [{"oldText": "beta", "newText": "BETA"}]}, {"path": "n.txt", "create": "new\n"}]}`,
			map[string]string{"f.txt": "alpha\nBETA\n", "n.txt": "new\n"}},
		{"replace_in_file", `{"path": "f.txt", "diff": "------- SEARCH\nbeta\n=======\nBETA\n+++++++ REPLACE\n"}`, map[string]string{"f.txt": "alpha\nBETA\n"}},
		{"apply_patch", mustJSON(map[string]string{"input": patch}), map[string]string{"f.txt": "alpha\nBETA\n"}},
		{"apply_diff", `{"diff": "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+BETA\n"}`, map[string]string{"f.txt": "alpha\nBETA\n"}},
		{"str_replace_based_edit_tool", `{"command": "str_replace", "path": "f.txt", "old_str": "beta", "new_str": "BETA"}`, map[string]string{"f.txt": "alpha\nBETA\n"}},
		{"replace", `{"file_path": "f.txt", "old_string": "beta", "new_string": "BETA"}`, map[string]string{"f.txt": "alpha\nBETA\n"}},
		{"create_file", `{"path": "n.txt", "content": "new\n"}`, map[string]string{"n.txt": "new\n"}},
		{"write_file", `{"path": "f.txt", "content": "whole\n"}`, map[string]string{"f.txt": "whole\n"}},
		{"move_file", `{"source": "f.txt", "destination": "g.txt"}`, map[string]string{"g.txt": "alpha\nbeta\n", "f.txt": ""}},
		{"delete_file", `{"path": "f.txt"}`, map[string]string{"f.txt": ""}},
	}
	for _, tc := range calls {
		t.Run(tc.tool, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "f.txt"), []byte("alpha\nbeta\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "other.txt"), []byte("one\n"), 0o644)
			a, err := toolapi.Open(dir, toolapi.Options{Tools: "all", Linger: -1})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			b, err := toolapi.Open(dir, toolapi.Options{Wait: 50 * time.Millisecond, Linger: -1})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			ctx := context.Background()
			if r := a.Call(ctx, "s", "read_file", json.RawMessage(`{"path": "f.txt"}`)); !r.OK {
				t.Fatal(r.Text)
			}

			var once sync.Once
			entered, release := make(chan struct{}), make(chan struct{})
			txn.SetTestHookPlanned(func() {
				first := false
				once.Do(func() { first = true })
				if first {
					close(entered)
					<-release
				}
			})
			defer txn.SetTestHookPlanned(nil)
			done := make(chan toolapi.Result, 1)
			go func() { done <- a.Call(ctx, "s", tc.tool, json.RawMessage(tc.args)) }()
			select {
			case <-entered:
			case r := <-done:
				t.Fatalf("the call ended without planning: %+v", r)
			}
			other := b.Call(ctx, "other", "edit_file", json.RawMessage(`{"path": "other.txt", "edits": [{"oldText": "one", "newText": "two"}]}`))
			_, logErr := b.Log(toolapi.Query{Limit: 5})
			close(release)
			if r := <-done; !r.OK {
				t.Fatalf("%s: %s", tc.tool, r.Text)
			}
			if !other.OK {
				t.Errorf("another process's edit while %s planned: %s", tc.tool, other.Text)
			}
			if logErr != nil {
				t.Errorf("an operator's log while %s planned: %v", tc.tool, logErr)
			}
			tc.want["other.txt"] = "two\n"
			for name, want := range tc.want {
				got, err := os.ReadFile(filepath.Join(dir, name))
				if want == "" && !os.IsNotExist(err) {
					t.Errorf("%s = %q (%v), want it gone", name, got, err)
				} else if want != "" && string(got) != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
		})
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

package toolapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/vfsctl/vfsctl/toolapi"
)

// A runtime that runs commands itself wraps each in Observe: what the command changed
// is journaled in the turn, and a rewind of the turn takes it back with the turn's
// tool calls.
func ExampleEngine_Observe() {
	root, _ := os.MkdirTemp("", "workspace")
	defer os.RemoveAll(root)
	os.WriteFile(filepath.Join(root, "app.py"), []byte("rate = 1\ntotal = 0\n"), 0o644)
	eng, err := toolapi.Open(root, toolapi.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eng.Close()
	eng.Checkpoint(toolapi.LookOptions{}) // when the session starts: the first snapshot
	ctx := toolapi.WithTurn(context.Background(), "turn-1")
	res := eng.Call(ctx, "conversation-1", "edit_file", json.RawMessage(`{"path": "app.py", "edits": [{"oldText": "rate = 1", "newText": "rate = 2"}]}`))
	fmt.Println("edit", res.OK)
	look, err := eng.Observe(ctx, "conversation-1", "sed -i", func() error {
		cmd := exec.Command("sed", "-i", "s/total = 0/total = rate/", "app.py")
		cmd.Dir = root
		return cmd.Run()
	})
	fmt.Println("command changed", len(look.Files), "file", err)

	rw := eng.Rewind(context.Background(), "conversation-1", "turn-1")
	fmt.Println("rewind", rw.OK)
	data, _ := os.ReadFile(filepath.Join(root, "app.py"))
	fmt.Print(string(data))
	// Output:
	// edit true
	// command changed 1 file <nil>
	// rewind true
	// rate = 1
	// total = 0
}

package toolapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/vfsctl/vfsctl/toolapi"
)

// A runtime labels each call with its conversation turn and, when the user asks to
// go back to before a request, rewinds the session to before that turn.
func ExampleEngine_Rewind() {
	root, _ := os.MkdirTemp("", "workspace")
	defer os.RemoveAll(root)
	os.WriteFile(filepath.Join(root, "app.py"), []byte("rate = 1\ntotal = 0\n"), 0o644)
	eng, err := toolapi.Open(root, toolapi.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eng.Close()
	ctx := context.Background()
	call := func(turn, tool, args string) {
		res := eng.Call(toolapi.WithTurn(ctx, turn), "conversation-1", tool, json.RawMessage(args))
		fmt.Println(turn, res.OK)
	}
	call("turn-1", "edit_file", `{"path": "app.py", "edits": [{"oldText": "rate = 1", "newText": "rate = 2"}]}`)
	call("turn-2", "edit_file", `{"path": "app.py", "edits": [{"oldText": "total = 0", "newText": "total = rate"}]}`)
	call("turn-2", "create_file", `{"path": "notes/todo.md", "content": "check rate\n"}`)

	rw := eng.Rewind(ctx, "conversation-1", "turn-2")
	fmt.Println("rewind", rw.OK)
	data, _ := os.ReadFile(filepath.Join(root, "app.py"))
	fmt.Print(string(data))
	_, err = os.Stat(filepath.Join(root, "notes"))
	fmt.Println("notes/ exists:", err == nil)

	// The rewind is one transaction: undoing it brings turn-2 back.
	fmt.Println("undo", eng.Undo(ctx, uint64(*rw.Txn)).OK)
	data, _ = os.ReadFile(filepath.Join(root, "app.py"))
	fmt.Print(string(data))
	// Output:
	// turn-1 true
	// turn-2 true
	// turn-2 true
	// rewind true
	// rate = 2
	// total = 0
	// notes/ exists: false
	// undo true
	// rate = 2
	// total = rate
}

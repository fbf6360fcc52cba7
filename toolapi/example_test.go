package toolapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vfsctl/vfsctl/toolapi"
)

// An agent runtime in Go opens an engine on its workspace, hands the tools to the
// model, and dispatches the model's calls by name.
func ExampleEngine() {
	root, _ := os.MkdirTemp("", "workspace")
	defer os.RemoveAll(root)
	os.WriteFile(filepath.Join(root, "app.py"), []byte("print(\"hi\")\n"), 0o644)

	eng, err := toolapi.Open(root, toolapi.Options{Holder: "my-agent"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eng.Close()
	fmt.Println(len(eng.Tools()) > 0)

	ctx := context.Background()
	// The model typed curly quotes; the file has straight ones.
	res := eng.Call(ctx, "conversation-1", "edit_file",
		json.RawMessage(`{"path": "app.py", "edits": [{"oldText": "print(“hi”)", "newText": "print(“bye”)"}]}`))
	fmt.Println(res.OK, strings.SplitN(res.Text, "\n", 2)[0])
	data, _ := os.ReadFile(filepath.Join(root, "app.py"))
	fmt.Print(string(data))

	// A refusal carries a stable kind and a message the model can act on.
	res = eng.Call(ctx, "conversation-1", "create_file", json.RawMessage(`{"path": "app.py", "content": "x"}`))
	fmt.Println(res.OK, *res.Kind)

	// Undo by transaction.
	undo := eng.Undo(ctx, 1)
	fmt.Println(undo.OK, strings.SplitN(undo.Text, "\n", 2)[0])
	data, _ = os.ReadFile(filepath.Join(root, "app.py"))
	fmt.Print(string(data))
	// Output:
	// true
	// true Edited app.py with 1 edit (line 1).
	// print("bye")
	// false file_exists
	// true Reverted call 1 (app.py) as call 3.
	// print("hi")
}

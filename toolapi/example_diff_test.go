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

// A runtime whose model writes unified diffs offers the udiff set: apply_diff and the
// tools that read. The hunk's line number is off by two (the model's count drifted);
// its context places it, and the call says nothing changed when a hunk is not found.
func ExampleEngine_applyDiff() {
	root, _ := os.MkdirTemp("", "workspace")
	defer os.RemoveAll(root)
	os.WriteFile(filepath.Join(root, "app.py"), []byte("def main():\n    print(\"hi\")\n    return 0\n"), 0o644)

	eng, err := toolapi.Open(root, toolapi.Options{Holder: "my-agent", Tools: "udiff"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eng.Close()
	ctx := context.Background()
	diff := func(d string) toolapi.Result {
		args, _ := json.Marshal(map[string]string{"diff": d})
		return eng.Call(ctx, "conversation-1", "apply_diff", args)
	}
	res := diff("--- a/app.py\n+++ b/app.py\n@@ -3,3 +3,3 @@\n def main():\n-    print(\"hi\")\n+    print(\"bye\")\n     return 0\n")
	fmt.Println(res.OK, strings.Split(res.Text, "\n")[2])
	res = diff("--- a/app.py\n+++ b/app.py\n@@ ... @@\n-    print(\"hi\")\n+    print(\"ho\")\n")
	fmt.Println(res.OK, *res.Kind)
	data, _ := os.ReadFile(filepath.Join(root, "app.py"))
	fmt.Print(string(data))
	// Output:
	// true Updated app.py (line 2).
	// false text_not_found
	// def main():
	//     print("bye")
	//     return 0
}

package toolapi_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

// An edit_file call on a TypeScript file with a JSDoc block, quoted without the file's
// indentation: the line the model nests one level deeper (2 columns in its copy) is
// written one level of the file's (8 columns), not at the 6 that the stars' one-column
// step gave, with a reply of success.
func TestReindentAfterJSDoc(t *testing.T) {
	const ts = "export class Store {\n    /**\n     * Loads an item.\n     * @param id the id\n     */\n    load(id: string) {\n        return this.items.get(id);\n    }\n}\n"
	const doc = "/**\n * Loads an item.\n * @param id the id\n */\nload(id: string) {"
	eng, ws := guardEngine(t, "", map[string]string{"store.ts": ts})
	r := call(t, eng, "edit_file", edit("store.ts", doc, doc+"\n  if (!id) throw new Error(\"no id\");"))
	got := testutil.ReadFile(t, filepath.Join(ws, "store.ts"))
	want := strings.Replace(ts, "    load(id: string) {\n", "    load(id: string) {\n        if (!id) throw new Error(\"no id\");\n", 1)
	if !r.OK || got != want {
		t.Fatalf("ok=%v %s\nthe file:\n%s", r.OK, r.Text, got)
	}
}

// The same quote in a file indented by 2, where the model's new line is 4 columns in:
// one level of the model's, or two of the file's. Nothing the quoted lines show tells
// which, so the call is refused, the file unchanged, before 6 columns were written.
func TestReindentAfterJSDocUnknownStep(t *testing.T) {
	const ts = "export class Store {\n  /**\n   * Loads an item.\n   * @param id the id\n   */\n  load(id: string) {\n    return this.items.get(id);\n  }\n}\n"
	const doc = "/**\n * Loads an item.\n * @param id the id\n */\nload(id: string) {"
	eng, ws := guardEngine(t, "", map[string]string{"store.ts": ts})
	r := call(t, eng, "edit_file", edit("store.ts", doc, doc+"\n    if (!id) throw new Error(\"no id\");"))
	if got := testutil.ReadFile(t, filepath.Join(ws, "store.ts")); r.OK || got != ts {
		t.Fatalf("ok=%v %s\nthe file:\n%s", r.OK, r.Text, got)
	}
	for _, want := range []string{"would be a guess", "4 columns", "     6\t  load(id: string) {", "Send oldText and newText with the lines indented as the file has them"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("the refusal lacks %q:\n%s", want, r.Text)
		}
	}
}

package txn

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// largeSource is a file over warmFold: n distinct lines holding string literals.
func largeSource(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "\tlog.Printf(\"request %%s served by handler %06d\", path)\n", i)
	}
	return b.String()
}

// TestReadWarmsTheFold: a read of a large file folds it in the background, and the
// first fuzzy edit plans on that View; a file changed on disk after the read (same
// size, other bytes) is planned on its new bytes, never on the View of the old ones.
func TestReadWarmsTheFold(t *testing.T) {
	data := largeSource(3000)
	e, dir := diskEngine(t, map[string]string{"big.go": data})
	defer e.Close()
	if err := read(e, "s", "big.go"); err != nil {
		t.Fatal(err)
	}
	e.folds.mu.Lock()
	en, ok := e.folds.files["big.go"]
	e.folds.mu.Unlock()
	if !ok || en.data == nil {
		t.Fatalf("the read of a %d-byte file kept no View to fold", len(data))
	}
	warm := en.view()
	got := e.folds.view("big.go", en.id, "", []byte(data))
	if got != warm {
		t.Fatal("a plan on the bytes just read did not get the View the read folded")
	}

	// The file changes on disk, same size, and is not read again: the plan must see
	// the new bytes.
	changed := strings.Replace(data, "handler 001500", "handler 00150X", 1)
	if err := os.WriteFile(filepath.Join(dir, "big.go"), []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := edit(e, "s", "big.go", "log.Printf(“request %s served by handler 00150X”, path)", "log.Printf(“request %s served by handler 1500”, path)"); err != nil {
		t.Fatal(err)
	}
	out, _ := os.ReadFile(filepath.Join(dir, "big.go"))
	if want := strings.Replace(data, "handler 001500", "handler 1500", 1); string(out) != want {
		t.Fatalf("the fuzzy edit after the file changed wrote the wrong content")
	}
}

package toolapi

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The embedding example is found where an embedder looks: at the façade type in the
// package's documentation (an example named after Engine, with its output checked by
// go test), and the package doc that go doc prints shows the calls and names it.
func TestEmbeddingExampleIsAtTheFacade(t *testing.T) {
	fset := token.NewFileSet()
	var files []*ast.File
	paths, _ := filepath.Glob("*_test.go")
	for _, p := range paths {
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	found := false
	for _, ex := range doc.Examples(files...) {
		found = found || ex.Name == "Engine" && ex.Output != ""
	}
	if !found {
		t.Error("no ExampleEngine with an // Output: section: the documentation shows the example at Engine only under that name")
	}
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"toolapi.Open(", "eng.Call(", "ExampleEngine"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the package doc lacks %q", want)
		}
	}
}

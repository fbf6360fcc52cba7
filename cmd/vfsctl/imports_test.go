package main

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The CLI parses flags, calls the engine's façade and prints: of the project, its code
// imports toolapi and the MCP front end only, never the packages behind the façade.
func TestCLIImportsOnlyTheFacade(t *testing.T) {
	const module = "github.com/vfsctl/vfsctl"
	allowed := map[string]bool{module + "/toolapi": true, module + "/toolapi/mcp": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	seen := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		seen++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if (p == module || strings.HasPrefix(p, module+"/")) && !allowed[p] {
				t.Errorf("%s imports %s: the CLI goes through toolapi.Engine", name, p)
			}
		}
	}
	if seen == 0 {
		t.Fatal("no source files found")
	}
}

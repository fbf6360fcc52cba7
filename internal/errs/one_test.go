package errs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneErrorType fails when a type other than errs.Error gets an Error() string
// method in the project's code: callers branch on one type's fields, so a second error
// type would bring back bridges that copy messages and matching on words.
func TestOneErrorType(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	var found []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Name.Name != "Error" || fn.Type.Params.NumFields() != 0 {
				continue
			}
			if r := fn.Type.Results; r == nil || r.NumFields() != 1 || !isIdent(r.List[0].Type, "string") {
				continue
			}
			recv := fn.Recv.List[0].Type
			if s, ok := recv.(*ast.StarExpr); ok {
				recv = s.X
			}
			rel, _ := filepath.Rel(root, p)
			// winfs stands in for the system's own errors on Windows: its notDir is
			// what syscall.ENOTDIR is on Unix (errors.Is against syscall values), no
			// refusal of vfsctl's that a caller branches on.
			osErr := filepath.ToSlash(rel) == "internal/winfs/winfs_windows.go" && isIdent(recv, "notDir")
			if !osErr && !(filepath.ToSlash(rel) == "internal/errs/errs.go" && isIdent(recv, "Error")) {
				found = append(found, fset.Position(fn.Pos()).String())
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s: a second type implements error; return *errs.Error instead", f)
	}
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

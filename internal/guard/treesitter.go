//go:build cgo

package guard

import (
	"context"
	"fmt"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/bash"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/css"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/html"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/rust"
)

// With cgo, tree-sitter parses the languages no exact pure-Go parser covers (Python,
// Rust, Java, C, C++, shell, HTML, CSS) and Go, incrementally from the file's last
// parse; Go's errors are then confirmed by go/parser. Python's characters are also
// checked as CPython's tokenizer would (tree-sitter takes a curly quote for a letter).

const backend = "tree-sitter"

var grammars = map[string]*sitter.Language{
	"go":     golang.GetLanguage(),
	"python": python.GetLanguage(),
	"rust":   rust.GetLanguage(),
	"java":   java.GetLanguage(),
	"c":      c.GetLanguage(),
	"cpp":    cpp.GetLanguage(),
	"bash":   bash.GetLanguage(),
	"html":   html.GetLanguage(),
	"css":    css.GetLanguage(),
}

func init() {
	for lang, g := range grammars {
		if lang != "go" {
			approximate[lang] = true
		}
		languages[lang] = func(src []byte) []synErr {
			errs, _ := parseTree(g, nil, nil, src)
			if more := extra[lang]; more != nil {
				errs = append(more(src), errs...)
			}
			return errs
		}
	}
	exact["go"] = parseGo
	extra["python"] = parsePython
	incremental = func(lang string, prev *entry, src []byte) ([]synErr, any, bool) {
		g := grammars[lang]
		if g == nil {
			return nil, nil, false
		}
		var old *sitter.Tree
		var oldSrc []byte
		if prev != nil {
			old, _ = prev.tree.(*sitter.Tree)
			oldSrc = prev.content
		}
		errs, tree := parseTree(g, old, oldSrc, src)
		if more := extra[lang]; more != nil {
			errs = append(more(src), errs...) // first: the exact check, in CPython's words
		}
		return errs, tree, true
	}
}

var parsers = sync.Pool{New: func() any { return sitter.NewParser() }}

// parseTree parses src, from old (the tree of oldSrc) when there is one: the edit
// between the two is their common prefix and suffix.
func parseTree(g *sitter.Language, old *sitter.Tree, oldSrc, src []byte) ([]synErr, *sitter.Tree) {
	p := parsers.Get().(*sitter.Parser)
	defer parsers.Put(p)
	p.SetLanguage(g)
	var base *sitter.Tree
	if old != nil {
		base = old.Copy()
		pre, suf := CommonEnds(oldSrc, src)
		base.Edit(sitter.EditInput{
			StartIndex:  uint32(pre),
			OldEndIndex: uint32(len(oldSrc) - suf),
			NewEndIndex: uint32(len(src) - suf),
			StartPoint:  point(oldSrc, pre),
			OldEndPoint: point(oldSrc, len(oldSrc)-suf),
			NewEndPoint: point(src, len(src)-suf),
		})
	}
	tree, err := p.ParseCtx(context.Background(), base, src)
	if err != nil || tree == nil {
		return []synErr{{line: 1, col: 1, msg: "the parser gave up"}}, nil
	}
	errs := treeErrors(tree.RootNode(), src)
	if base != nil && len(errs) > 0 {
		// Positions and errors of a refusal come from a full parse: an incremental
		// one reuses subtrees whose row numbers the edit may have shifted.
		errs, tree = parseTree(g, nil, nil, src)
	}
	return errs, tree
}

func point(src []byte, off int) sitter.Point {
	l, c := lineCol(src, off)
	return sitter.Point{Row: uint32(l - 1), Column: uint32(c - 1)}
}

// treeErrors lists the ERROR and MISSING nodes under n, in order, with positions
// taken from byte offsets.
func treeErrors(n *sitter.Node, src []byte) []synErr {
	var out []synErr
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		switch {
		case n.IsMissing():
			l, c := lineCol(src, int(n.StartByte()))
			out = append(out, synErr{line: l, col: c, msg: fmt.Sprintf("missing %q", n.Type()), node: "MISSING " + n.Type()})
			return
		case n.IsError():
			l, c := lineCol(src, int(n.StartByte()))
			text := n.Content(src)
			if len(text) > 30 {
				text = text[:30] + "..."
			}
			out = append(out, synErr{line: l, col: c, end: int(n.EndByte()), msg: short(fmt.Sprintf("unexpected %q", text)), node: "ERROR"})
			return
		}
		if !n.HasError() {
			return
		}
		for i := 0; i < int(n.ChildCount()); i++ {
			walk(n.Child(i))
		}
	}
	walk(n)
	return out
}

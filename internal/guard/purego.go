package guard

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/parser"
	"go/scanner"
	"go/token"
)

// The standard library's parsers: exact, and in every build.

func parseGo(src []byte) []synErr {
	_, err := parser.ParseFile(token.NewFileSet(), "", src, parser.AllErrors|parser.SkipObjectResolution)
	var list scanner.ErrorList
	if !errors.As(err, &list) {
		if err != nil {
			return []synErr{{line: 1, col: 1, msg: short(err.Error())}}
		}
		return nil
	}
	out := make([]synErr, 0, len(list))
	for _, e := range list {
		out = append(out, synErr{line: e.Pos.Line, col: e.Pos.Column, msg: short(e.Msg)})
	}
	return out
}

// parseJSON reports the first error only (encoding/json stops there). Whitespace
// alone is an empty file, not an error.
func parseJSON(src []byte) []synErr {
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf")) // a BOM is no syntax error
	if len(bytes.TrimSpace(src)) == 0 {
		return nil
	}
	var v any
	err := json.Unmarshal(src, &v)
	if err == nil {
		return nil
	}
	off := len(src)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = int(se.Offset) - 1
	}
	line, col := lineCol(src, off)
	return []synErr{{line: line, col: col, msg: short(err.Error())}}
}

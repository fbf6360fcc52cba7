//go:build !cgo

package guard

// Without cgo there is no tree-sitter: the pure-Go parsers guard their languages,
// Python is checked by its tokens and indentation only (characters it cannot hold in
// code, brackets, blocks), and the languages only tree-sitter parses go unguarded.
const backend = "pure Go"

func init() { partial["python"] = "tokens and indentation only" }

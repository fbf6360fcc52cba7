// Package matcher turns a model's edit call into byte splices of a file, or refuses it.
//
// It is pure: the original bytes and the edits go in, splices (or a typed *Refusal) come
// out. It does no I/O, so it can be tested on any input and fuzzed freely.
//
// Its one project import is the leaf package internal/errs, which imports nothing of
// the project and does no I/O: a refusal is the project's one error type (Refusal is
// an alias of errs.Error), carrying its structure in Where, so no layer above has to
// translate or copy the matcher's errors, and purity is kept.
//
// # Model
//
// Every edit is located against the ORIGINAL content, never against the result of an
// earlier edit, so the order of edits in a call does not matter. Each edit is looked for
// tier by tier, stopping at the first tier that finds anything:
//
//   - exact: byte-exact on the LF view of the file (CRLF and lone CR read as LF);
//   - typography: per line NFKC, curly quotes, dashes and special spaces folded to
//     ASCII, zero-width characters dropped, trailing whitespace ignored;
//   - indentation: as typography, with leading whitespace ignored too, whole lines only;
//   - the same three again with a pasted read_file line-number gutter stripped.
//
// More than one match at the tier that found something is a refusal unless the edit
// sets ReplaceAll. There are no similarity thresholds, no case folding and no
// anchor-only matching: they edit the wrong place.
//
// # Invariants
//
//   - Every byte outside the returned splices is identical to the original (fuzzed).
//   - Context lines that the model padded its edit with are written from the file.
//   - A line matched fuzzily and changed by the model receives only the model's
//     character-level change; the rest of the line stays as the file has it, the
//     characters between its changes included (aligned after folding). Where that
//     alignment can be read more than one way, or lines are replaced rather than
//     paired, the model's text is written and EditReport.Unkept names the line.
//   - New lines take the file's line ending; the BOM and the presence or absence of a
//     final newline are kept (the exact tier writes the model's bytes, and an oldText
//     that ends with a line break, at the file's end, replaced by a newText without
//     one, drops it as the literal tools do).
//   - Folding is per line, so line numbers never move between the views.
package matcher

// Package dialect reads the edit formats that models were trained on and turns them
// into byte splices of a file, or refuses them. It is pure: text in, a typed plan or
// a typed error (internal/errs) out; the tool layer reads and writes the files.
//
// Three dialects:
//
//   - V4A, the apply_patch format of the Codex CLI and of the Responses API's
//     apply_patch tool: ParsePatch reads a whole patch (`*** Begin Patch` ...
//     `*** End Patch`), ParseOperation one Responses API operation, and
//     LocateChunks places one Update's chunks in a file.
//   - SEARCH/REPLACE blocks, as Cline's replace_in_file and Roo Code's apply_diff
//     send them: ParseSearchReplace reads the diff, LocateBlocks places the blocks.
//   - Unified diffs, as git diff, diff -u and Aider's udiff write them (vfsctl's
//     apply_diff): ParseUnifiedDiff reads them into the same FileOps, PlanHunks
//     places a file's hunks with the chunks' code, anywhere in the file, the
//     headers' line numbers only choosing among several places.
//
// # Invariants
//
//   - Locating goes through the matcher's tiers (exact, typography, indentation), so
//     a model's curly quotes, dashes, NBSP, dropped trailing spaces and wrong
//     indentation are forgiven, and the unchanged context is written back as the
//     file has it. The file's line endings, BOM and final newline (or its absence)
//     are kept; new lines take the file's line ending.
//   - Nothing is guessed: context that fits more than one place is refused with the
//     lines it fits, and so is a chunk or block that is not found, overlaps another
//     or changes nothing. A refusal names the file and the hunk (1-based).
//   - Every byte outside the returned splices is the original's.
//
// # Where vfsctl is stricter than the peers
//
// Codex applies a chunk at the first place its context fits after the cursor; here
// context that fits several places after its anchors is refused (add an `@@`
// anchor). Codex matches lines trimmed; here a chunk's lines must match whole lines
// of the file through the matcher's folds (a line is never matched by a part of
// another). Cline applies blocks in sequence, each against the result of the
// previous; here every block is located in the original, all or nothing.
package dialect

// Package txn runs each tool call as a transaction against the workspace: resolve the
// path, take the file's queue, read the original, plan with the matcher, and commit
// with an atomic replace.
//
// Invariants:
//   - Calls on one file run one after another (a queue per canonical path, symlinks
//     resolved); calls on different files run in parallel.
//   - A refused call changes nothing on disk.
//   - A file whose bytes changed between the call's read and its write is a conflict:
//     nothing is written and the model is told to re-read.
//   - write_file replaces a file only when the session has read its current content.
package txn

// Package txn runs each tool call as a transaction against the workspace and records it
// in the journal: resolve the paths, take the files' queues in path order, read the
// originals, plan with the matcher, then commit:
//
//  1. journal: a pending record (splices, before and after hashes, and the prior
//     content as a blob where splices cannot rebuild it), synced;
//  2. each file: temp file in its own directory, write, fsync, rename, fsync the
//     directory; a file whose bytes changed since the call read it is a conflict;
//  3. journal: the record marked committed, synced.
//
// Invariants:
//   - Nothing reaches a file before its pending record is durable, so after a crash
//     recovery (run whenever a workspace is opened, before anything else) finds every
//     half-done call: all files at their after-hash roll forward, anything else rolls
//     back to the before state; a file changed by someone else is left alone and
//     reported in the record's notes.
//   - A refused call changes nothing on disk; it is journaled as failed.
//   - Calls on one file run one after another (a queue per canonical path); across
//     processes the journal's lock, held for the whole call, does the same.
//   - write_file replaces a file only when the session has seen its current content
//     (read it, or wrote it), as recorded in the journal, so this holds across
//     processes.
package txn

// Package txn runs each tool call as a transaction against the workspace and records it
// in the journal: resolve the paths, take the files' queues in path order, read the
// originals, plan with the matcher, then commit:
//
//  1. journal: a pending record (splices, before and after hashes, and the prior
//     content as a blob where splices cannot rebuild it), synced, in one transaction
//     with the other calls of the process committing at that moment;
//  2. each file: temp file in its own directory, write, fsync, rename, fsync the
//     directory; a file changed since the call read it (by identity, else by its
//     bytes) is a conflict;
//  3. journal: the record marked committed, deferred into the process's next
//     transaction (see the journal package for why that is safe).
//
// That is the file-durable mode. In the journal-durable mode (Options.Durability,
// checkpoint.go) step 1 also lists the call as unsynced and, for the first change of
// a file since the last checkpoint, keeps the file's prior content as a blob; step 2
// skips both fsyncs, and the call is acknowledged after it. A checkpoint (every
// CheckpointEvery calls, CheckpointInterval after the first unsynced write, and at
// Close) syncs the files and folders, then takes the calls off the list. Recovery
// redoes from the journal each listed file whose bytes a power loss took.
//
// Invariants:
//   - Nothing reaches a file before its pending record is durable, so after a crash
//     recovery (run whenever a workspace is opened, before anything else) finds every
//     half-done call: all files at their after-hash roll forward, a file still at its
//     before-hash rolls back what was written; a file changed by someone else is left
//     alone and reported in the record's notes.
//   - Journal-durable: recovery touches only the files that listed calls wrote, only
//     as a call could write them, and only when what it finds is explained by their
//     chain (a version of it, torn or emptied); anything else changed outside vfsctl.
//   - A refused call changes nothing on disk; it is journaled as failed. A panic while
//     files are written rolls them back, or leaves the record pending for recovery.
//   - A deletion (or the source of a move) destroys nothing before the commit point,
//     when every file of the call is written: it renames the file to a name in its
//     own folder that the pending record holds (vfs.SetAside), a rollback or recovery
//     renames that same inode back, and only the commit point, or recovery rolling
//     the call forward, removes it.
//   - A move that keeps the content renames the file its deletion set aside to the
//     new path (vfs.MoveFile, never over a file): the same inode, hard links kept.
//     The pending record names it (File.From); recovery knows the rename happened by
//     the set-aside name being gone, and a rollback, or an undo, renames it back.
//   - Calls on one file run one after another (a queue per canonical path); across
//     processes the journal's lock does the same. A call begun by Begin holds it for
//     the whole call. One begun by BeginWrite plans without it, then holds it from the
//     check of its plan (every path resolves as it did, every file read keeps its
//     identity, else its bytes; what the plan reads of the journal is decided then)
//     to its record, and plans again, holding it, when that check fails: no plan is
//     committed against content that is no longer on disk.
//   - write_file replaces a file only when the session has seen all of its current
//     content (read every line of it, or wrote it), as recorded in the journal, so this
//     holds across processes.
//   - Content is read and hashed once: a file that keeps the identity of what this
//     engine wrote (inode, size, modification and change times, the latter taken
//     just after the rename) is planned from the content the engine holds (known.go),
//     and its next version is hashed from the SHA-256 state at the last 64 KiB before
//     the first change. This trusts the identity exactly as the conflict check does:
//     a write in place that sets the modification time back still changes the change
//     time, which no program can set back.
//   - write_file's licence (the journal's reads): a whole read, or the session's own
//     create or write, grants it; the session's edit keeps a licence it had; an undo
//     or redo, which may be an operator's, grants none.
package txn

// Package journal is the bbolt store of every tool call: one record per call,
// successes, refusals and reads alike, with the splices and content hashes of each file
// it touched, compressed content-addressed blobs where splices cannot rebuild content,
// and indexes by path, session and error kind.
//
// The file lives at <root>/.vfsctl/journal.db. One process at a time uses the journal:
// a Journal opens the file when a call begins and closes it when the last call of the
// process ends. Processes queue for it in order (queue.go): a waiting process holds a
// ticket, and a holder that sees one admits no new call, so its hold ends with the
// calls it has in flight and an operator's `vfsctl log` gets the journal within a
// call's time. A process that does not get the journal within Options.Wait fails with
// a busy error naming the holder.
//
// Every fresh open runs the OnOpen hook (txn's recovery) before anything else, so what
// any command sees is settled.
//
// # Trust
//
// Everything in the workspace may be hostile, .vfsctl/ included. The journal's folder
// and files are opened by handle below Options.Root, never through a symlink and only
// as regular files (files.go). A journal is used only in the folder that created it
// and only when this process's user owns it (identity.go); any other is refused,
// before recovery or any read, until `vfsctl adopt`. A damaged file is an io_error
// naming the journal: bbolt's panics and faults on it are caught at this package's
// boundary (open, View, Update, the group commit), never a panic or a hang. The log
// (wal.go) is used only when it verifies with a key kept in an extended attribute of
// the journal file; any other is ignored.
//
// # The commit protocol
//
// A call that changes files costs one durable journal transaction:
//
//  1. the pending record (the call, its splices, before and after hashes, blobs for
//     what splices cannot rebuild) is committed and made durable, together with
//     whatever other calls of the process commit at the same moment (Commit, a group
//     commit) and the writes deferred by earlier calls. The first write of a hold is
//     synced by bbolt (two fdatasyncs); from the second on, bbolt commits without
//     syncing and the transaction's changes are appended to the log (.vfsctl/wal,
//     wal.go) as one frame, synced with one fdatasync;
//  2. each file is written: temp file, fsync, rename, fsync of the directory. The
//     temp file is written and synced while step 1 runs (its name noted first in the
//     temps file, so that a crash leaves nothing behind); only the rename waits;
//  3. the call's number is appended to the marks file (marks.go, not synced: it follows
//     synced files), and the committed mark is deferred (Defer) into the process's
//     next transaction. The call is acknowledged now.
//
// Why this is safe: nothing reaches a file before its pending record is durable (step
// 1 precedes step 2). A record left pending, because the process died or because its
// mark was still deferred when the journal was closed, is settled by the next open's
// recovery from the files themselves: every file at its new content rolls it forward,
// a file still at its old content means the call never finished (it was never
// acknowledged) and rolls back what it wrote. A call the marks file lists landed: it
// is marked committed without looking at its files, which may have changed since. An
// acknowledged call therefore always ends committed. A later call on the same file
// commits its own pending record only in a transaction that also carries the earlier
// call's mark, so recovery never sees two unsettled calls of one file. Where the marks
// file is silent (lost with the page cache) and every file of a pending call changed
// outside vfsctl since, recovery cannot tell and labels the call unknown, undoing
// nothing.
//
// The mark is not written with bbolt's NoSync alone: a later synced transaction may
// reuse pages that an unsynced one freed, and a power loss between the two could leave
// the last durable tree pointing at overwritten pages. The log (wal.go) is what makes
// unsynced bbolt commits safe: it keeps the last synced tree from reuse, and recovery
// returns to it before replaying the log.
//
// Layout (buckets):
//
//	meta       schema version and application name; the lazy list (lazy.go):
//	           calls written without fsync since the last checkpoint
//	records    seq (8 bytes, big-endian) -> codec byte + Record: the compact form
//	           (codec.go), or in records written before it JSON, flate-compressed;
//	           a before hash may refer to an earlier record's after hash, and a
//	           diff the splices give back is kept as them only (diff.go)
//	facts      seq -> what stats read of the record, and its state and duration
//	           (facts.go); a record in the compact form is written once, as pending,
//	           and only its fact follows it to committed
//	pending    seq -> nil, for records whose files may be half-committed
//	blobs      sha256 -> codec byte + content (flate-compressed when smaller)
//	heads      path -> hash of the last content the journal can rebuild for it
//	reads      session \x00 path -> hash of the content the session last saw, with
//	           the lines seen when it has seen only part of it
//	by_path    path \x00 seq -> the path's next calls after seq, up to 31, as uvarint
//	           differences (index.go); empty in journals before schema 3
//	by_session session \x00 seq -> the same, for the session
//	by_kind    kind \x00 seq -> nil
//	by_time    unix-nanoseconds (8 bytes) seq -> nil, written by journals before
//	           this one; unused: a time range is read from the facts
//	history    seq -> origin, undo or redo, session and paths of a committed change;
//	           for a record with a fact, which holds its session and paths, only
//	           undo or redo and how many calls back its origin is
//	latest     origin seq -> the seq of its latest record, where that is not the
//	           origin itself (both built by the first undo of a journal that has
//	           neither, kept by every Put from then on)
//	snapshot   path -> JSON of SnapEntry: the workspace as the last look saw it
//	           (snapshot.go); made by the first look
package journal

// Package journal is the bbolt store of every tool call: one record per call,
// successes, refusals and reads alike, with the splices and content hashes of each file
// it touched, compressed content-addressed blobs where splices cannot rebuild content,
// and indexes by path, session, error kind and time.
//
// The file lives at <root>/.vfsctl/journal.db. bbolt takes an exclusive lock on it, so
// one process at a time uses the journal: a Journal opens the file when a call begins
// and closes it when the last call of the process ends, so that an operator's
// `vfsctl log` in another process gets its turn between calls. A process that cannot
// get the lock within Options.Wait fails with a busy error naming the holder.
//
// Every fresh open runs the OnOpen hook (txn's recovery) before anything else, so what
// any command sees is settled.
//
// Layout (buckets):
//
//	meta       schema version and application name
//	records    seq (8 bytes, big-endian) -> codec byte + Record (JSON, flate-compressed)
//	pending    seq -> nil, for records whose files may be half-committed
//	blobs      sha256 -> codec byte + content (flate-compressed when smaller)
//	heads      path -> hash of the last content the journal can rebuild for it
//	reads      session \x00 path -> hash of the content the session last saw
//	by_path    path \x00 seq -> nil
//	by_session session \x00 seq -> nil
//	by_kind    kind \x00 seq -> nil
//	by_time    unix-nanoseconds (8 bytes) seq -> nil
package journal

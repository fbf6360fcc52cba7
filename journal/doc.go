// Package journal will hold the bbolt store of every tool call: records, blobs,
// indexes and queries. Until it lands, transactions are not journaled.
package journal

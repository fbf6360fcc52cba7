package journal

import (
	"bytes"
	"encoding/binary"
)

// Lazy calls: in the journal-durable mode a call is acknowledged once its record is
// synced, and its files are written without fsync, to be synced in batches (txn's
// checkpoint). Until that batch is synced, the call's number is listed here, in the
// same transaction as its pending record: recovery rolls forward from the journal
// every file of a listed call whose bytes a power loss took, and only those. A
// checkpoint, once it has synced the files and their folders, takes the numbers off.
// Each number carries the machine's boot it was listed in: recovery in that same boot
// knows no power loss came between, so the page cache kept every byte the call wrote,
// and a file not as the calls left it was changed by someone else since.
//
// The list lives in the meta bucket under lazyPrefix, so that a journal written before
// the mode existed needs no new bucket, and one written by this version opens in an
// older one (which ignores the keys, and syncs every file itself).

var lazyPrefix = []byte("lazy\x00")

func lazyKey(seq uint64) []byte { return listKey(lazyPrefix, seq) }

// listKey is the meta key of call seq in the list under prefix (lazy, left): the
// prefix, then seqKey, so that a cursor walks the list in order.
func listKey(prefix []byte, seq uint64) []byte {
	return append(prefix[:len(prefix):len(prefix)], seqKey(seq)...)
}

// MarkLazy lists call seq as written without fsync, by a process of the machine's
// boot boot ("" where it has none to tell).
func (t *Tx) MarkLazy(seq uint64, boot string) error {
	return t.b(bMeta).Put(lazyKey(seq), []byte(boot))
}

// LazyBoot is the boot that listed call seq, as MarkLazy was given it; "" if none was.
// Anyone may have written it: recovery trusts it only to leave files alone.
func (t *Tx) LazyBoot(seq uint64) string {
	v := t.b(bMeta).Get(lazyKey(seq))
	if len(v) > 64 {
		return ""
	}
	return string(v)
}

// Lazy returns the calls listed as written without fsync, in order.
func (t *Tx) Lazy() []uint64 {
	var out []uint64
	c := t.b(bMeta).Cursor()
	for k, _ := c.Seek(lazyPrefix); k != nil && bytes.HasPrefix(k, lazyPrefix); k, _ = c.Next() {
		if len(k) == len(lazyPrefix)+8 {
			out = append(out, binary.BigEndian.Uint64(k[len(lazyPrefix):]))
		}
	}
	return out
}

// ClearLazy takes calls off the list: their files and folders are synced.
func (t *Tx) ClearLazy(seqs []uint64) error {
	b := t.b(bMeta)
	for _, s := range seqs {
		if err := b.Delete(lazyKey(s)); err != nil {
			return err
		}
	}
	return nil
}

// clearAllLazy empties the list, keys that Lazy would not read included.
func (t *Tx) clearAllLazy() error {
	b := t.b(bMeta)
	var keys [][]byte
	c := b.Cursor()
	for k, _ := c.Seek(lazyPrefix); k != nil && bytes.HasPrefix(k, lazyPrefix); k, _ = c.Next() {
		keys = append(keys, bytes.Clone(k))
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

package journal

import (
	"bytes"
	"encoding/binary"
	"math"

	bolt "go.etcd.io/bbolt"
)

// An index (by_path, by_session, by_kind) lists the records that carry a name: a
// path, a session, a kind. A key is the name, a 0 byte and a sequence number; its
// value lists the sequence numbers that follow it under that key, as uvarint
// differences, up to runMax in all: a run. Runs of one name never overlap, so the
// keys in order give the records in order.
//
// A key per record (an empty value, a run of one) is what journals before schema 3
// wrote, and what by_kind still writes; both read as runs. A run holds a path's
// calls in a few bytes each, where a key of their own cost bbolt's 16-byte element
// header and the key again, and left pages half full where the keys of many paths
// interleave.
const runMax = 32

// run appends the sequence numbers of index entry k, v (under prefix) to out; ok is
// false for a key that only shares the prefix's bytes, or a damaged value.
func run(out []uint64, prefix, k, v []byte) (_ []uint64, ok bool) {
	if len(k) != len(prefix)+8 {
		return out, false
	}
	seq := binary.BigEndian.Uint64(k[len(prefix):])
	out = append(out, seq)
	for len(v) > 0 {
		d, n := binary.Uvarint(v)
		if n <= 0 || d == 0 {
			return out, false
		}
		seq += d
		out = append(out, seq)
		v = v[n:]
	}
	return out, true
}

// lastBefore moves c to the last key before key, and returns it (nil if none).
func lastBefore(c *bolt.Cursor, key []byte) (k, v []byte) {
	if k, _ = c.Seek(key); k == nil {
		return c.Last()
	}
	return c.Prev()
}

// newestIn calls fn with the sequence numbers that bucket lists under name, below
// below (0: all), newest first, until fn returns true or an error.
func (t *Tx) newestIn(bucket, name string, below uint64, fn func(seq uint64) (bool, error)) error {
	prefix := append([]byte(name), 0)
	c := t.b(bucket).Cursor()
	if below == 0 {
		below = math.MaxUint64 // no record has it
	}
	k, v := lastBefore(c, indexKey(name, below))
	var seqs []uint64
	for ; k != nil && bytes.HasPrefix(k, prefix); k, v = c.Prev() {
		seqs, _ = run(seqs[:0], prefix, k, v)
		for i := len(seqs) - 1; i >= 0; i-- {
			if seqs[i] >= below {
				continue
			}
			if stop, err := fn(seqs[i]); err != nil || stop {
				return err
			}
		}
	}
	return nil
}

// oldestIn lists the sequence numbers that bucket lists under name above after,
// oldest first.
func (t *Tx) oldestIn(bucket, name string, after uint64) []uint64 {
	prefix := append([]byte(name), 0)
	c := t.b(bucket).Cursor()
	start := indexKey(name, after+1)
	k, v := c.Seek(start)
	if !bytes.Equal(k, start) {
		// The run before may reach past after.
		if k, v = lastBefore(c, start); k == nil || !bytes.HasPrefix(k, prefix) || len(k) != len(prefix)+8 {
			k, v = c.Seek(start)
		}
	}
	var out, seqs []uint64
	for ; k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		seqs, _ = run(seqs[:0], prefix, k, v)
		for _, s := range seqs {
			if s > after {
				out = append(out, s)
			}
		}
	}
	return out
}

// index lists record seq under name in bucket: in the run that reaches it, else at
// the end of the name's last run while it holds fewer than runMax, else in a run of
// its own. A record already listed is left as it is.
func (t *Tx) index(bucket, name string, seq uint64) error {
	b := t.b(bucket)
	prefix := append([]byte(name), 0)
	key := indexKey(name, seq)
	k, v := lastBefore(b.Cursor(), indexKey(name, seq+1))
	seqs, ok := run(nil, prefix, k, v)
	if k == nil || !bytes.HasPrefix(k, prefix) || !ok {
		return b.Put(key, nil)
	}
	i := len(seqs)
	for i > 0 && seqs[i-1] >= seq {
		i--
	}
	switch {
	case i < len(seqs) && seqs[i] == seq:
		return nil
	case i == len(seqs) && len(seqs) >= runMax:
		return b.Put(key, nil)
	}
	seqs = append(seqs[:i], append([]uint64{seq}, seqs[i:]...)...)
	var nv []byte
	for j := 1; j < len(seqs); j++ {
		nv = binary.AppendUvarint(nv, seqs[j]-seqs[j-1])
	}
	return b.Put(append([]byte(nil), k...), nv)
}

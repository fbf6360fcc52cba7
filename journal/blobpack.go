package journal

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Blob packs. bbolt stores a value over a page's room on pages of its own, rounded
// up to whole 4 KiB pages: the compressed sources of a workspace, most of a few KiB,
// lost about a sixth of the first snapshot's size to the pages' rest (6.9 MB of
// 42 MB for the Go tree). PutBlobsPacked, used for a first snapshot, writes the
// compressed contents one after the other into values of about packSize in bucket
// "blobpacks" (key: the pack's 8-byte number), and under each hash in "blobs" a
// reference instead of the content: codecPacked, uvarint pack number, offset and
// length of the content's stored form (codecRaw or codecFlate, as a blob's own)
// within the pack. A blob is read in one piece either way: a reference costs one more
// lookup, and nothing else is decompressed. Journals before packs have no
// references, and read as they did.

const (
	bBlobPacks  = "blobpacks"
	codecPacked = 5
	// packSize: a pack's value is about this size; its last page's rest is the
	// only room lost, about 2 KiB per MiB.
	packSize = 1 << 20
)

var errPackRef = errors.New("a packed blob's reference does not resolve")

// PutBlobsPacked stores each content of data not already stored, compressed at
// level 6 (as PutBlobCompact), in packs.
func (t *Tx) PutBlobsPacked(data [][]byte) error {
	if len(data) == 0 {
		return nil
	}
	blobs := t.b(bBlobs)
	if t.b(bBlobPacks) == nil {
		if err := t.createBucket(bBlobPacks); err != nil {
			return err
		}
	}
	packs := t.b(bBlobPacks)
	var pack []byte
	var keys [][]byte
	var spans [][2]int
	seen := map[string]bool{}
	flush := func() error {
		if len(pack) == 0 {
			return nil
		}
		n, err := packs.NextSequence()
		if err != nil {
			return err
		}
		if err := packs.Put(seqKey(n), pack); err != nil {
			return fmt.Errorf("journal blob pack %d: %w", n, err)
		}
		for i, k := range keys {
			ref := []byte{codecPacked}
			ref = binary.AppendUvarint(ref, n)
			ref = binary.AppendUvarint(ref, uint64(spans[i][0]))
			ref = binary.AppendUvarint(ref, uint64(spans[i][1]))
			if err := blobs.Put(k, ref); err != nil {
				return err
			}
		}
		pack, keys, spans = nil, nil, nil
		return nil
	}
	for _, d := range data {
		key, _ := hexKey(Hash(d))
		if seen[string(key)] || blobs.Get(key) != nil {
			continue
		}
		seen[string(key)] = true
		v := packCompact(d)
		if len(pack) > 0 && len(pack)+len(v) > packSize {
			if err := flush(); err != nil {
				return err
			}
		}
		keys = append(keys, key)
		spans = append(spans, [2]int{len(pack), len(v)})
		pack = append(pack, v...)
	}
	return flush()
}

// blobValue is the stored form of a blob whose value in "blobs" is v: v itself, or
// the part of a pack a reference names.
func (t *Tx) blobValue(v []byte) ([]byte, error) {
	if len(v) == 0 || v[0] != codecPacked {
		return v, nil
	}
	d := snapDecoder{v: v[1:]}
	n, off, size := d.uvarint(), d.uvarint(), d.uvarint()
	if d.bad || len(d.v) != 0 {
		return nil, errPackRef
	}
	packs := t.b(bBlobPacks)
	if packs == nil {
		return nil, errPackRef
	}
	p := packs.Get(seqKey(n))
	if off > uint64(len(p)) || size > uint64(len(p))-off || size == 0 {
		return nil, errPackRef
	}
	return p[off : off+size], nil
}

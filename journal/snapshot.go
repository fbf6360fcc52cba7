package journal

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"strings"
)

// The snapshot: the last known state of every path of the workspace (bucket
// "snapshot", path -> SnapEntry in the form of encodeSnap; the first journals with a
// snapshot wrote JSON, which is still read), kept so that what commands and other
// writers changed between two looks can be told and journaled (txn's exec and
// checkpoint). The contents of its regular files are blobs (PutBlob), stored once
// whatever number of paths or records name them; a file over the snapshot's size
// limit is kept by hash only. The bucket is made by the first snapshot a journal
// takes; a journal without it has no snapshot yet.

const bSnapshot = "snapshot"

// SnapEntry is one path of the snapshot.
type SnapEntry struct {
	Kind   string `json:"kind"` // file, dir, symlink, fifo, socket, device, other
	Mode   uint32 `json:"mode"` // permission bits with setuid, setgid, sticky
	Size   int64  `json:"size,omitempty"`
	Dev    uint64 `json:"dev,omitempty"`
	Ino    uint64 `json:"ino,omitempty"`
	Mtime  int64  `json:"mtime,omitempty"` // nanoseconds
	Ctime  int64  `json:"ctime,omitempty"`
	Hash   string `json:"hash,omitempty"`   // a regular file's content
	Target string `json:"target,omitempty"` // a symlink's
	// Large: the content is over the size limit, recorded by hash only and not
	// restorable from the journal.
	Large bool `json:"large,omitempty"`
}

// HasSnapshot reports whether a snapshot was ever taken.
func (t *Tx) HasSnapshot() bool { return t.b(bSnapshot) != nil }

// Snapshot returns the snapshot by path (empty when none was taken). An entry that
// does not decode (a damaged or hostile journal) is left out: the next look records
// its path as new.
func (t *Tx) Snapshot() map[string]SnapEntry {
	out, _ := t.SnapshotDigest(true)
	return out
}

// snapSeed keys the digests of SnapshotDigest: they are compared within a process only.
var snapSeed = maphash.MakeSeed()

// SnapshotDigest is a digest of the snapshot as stored, every path and entry, and,
// when decode is set, the snapshot by path too. Two equal digests in one process mean
// the same snapshot: a look tells by it whether another look recorded one since it
// read it, without decoding it again.
func (t *Tx) SnapshotDigest(decode bool) (map[string]SnapEntry, uint64) {
	var out map[string]SnapEntry
	var h maphash.Hash
	h.SetSeed(snapSeed)
	b := t.b(bSnapshot)
	if b == nil {
		return map[string]SnapEntry{}, 0
	}
	var strs *snapStrings
	if decode {
		// Sized from the pages' counts: grown from empty, the map of a tree of
		// 12,000 entries was built several times over.
		n := b.Stats().KeyN
		out = make(map[string]SnapEntry, n)
		strs = &snapStrings{}
		strs.b.Grow(n * 128) // a path and a hash each, about
	}
	b.ForEach(func(k, v []byte) error {
		h.Write(k)
		h.WriteByte(0) // no path holds a NUL
		var n [4]byte
		binary.LittleEndian.PutUint32(n[:], uint32(len(v)))
		h.Write(n[:])
		h.Write(v)
		if decode {
			if e, err := strs.decode(v); err == nil {
				out[strs.of(k)] = e
			}
		}
		return nil
	})
	return out, h.Sum64() | 1 // never 0, which is no snapshot
}

// The stored forms of a snapshot entry: JSON (the first journals with a snapshot;
// it starts with '{'), or snapBinary followed by, in order: the kind's index in
// snapKinds, uvarint mode, size, dev, ino, varint mtime, ctime, a flags byte
// (snapLarge, snapRawHash), the hash (32 bytes where snapRawHash, else uvarint length
// and the text), uvarint length and the symlink's target. About a third of the JSON's
// size, and decoded without reflection: a look decodes every entry of the workspace.
const (
	snapBinary  = 1
	snapLarge   = 1 << 0
	snapRawHash = 1 << 1
)

// snapKinds are the kinds the binary form names by index; another is stored as JSON.
var snapKinds = []string{"file", "dir", "symlink", "fifo", "socket", "device", "other"}

var errSnapForm = errors.New("a snapshot entry that does not decode")

// encodeSnap is the stored form of e.
func encodeSnap(e SnapEntry) ([]byte, error) {
	kind := -1
	for i, k := range snapKinds {
		if k == e.Kind {
			kind = i
		}
	}
	if kind < 0 {
		return json.Marshal(e)
	}
	out := make([]byte, 0, 64+len(e.Target))
	out = append(out, snapBinary, byte(kind))
	out = binary.AppendUvarint(out, uint64(e.Mode))
	out = binary.AppendUvarint(out, uint64(e.Size))
	out = binary.AppendUvarint(out, e.Dev)
	out = binary.AppendUvarint(out, e.Ino)
	out = binary.AppendVarint(out, e.Mtime)
	out = binary.AppendVarint(out, e.Ctime)
	var flags byte
	if e.Large {
		flags |= snapLarge
	}
	raw, err := hex.DecodeString(e.Hash)
	// Only a hash that hex gives back as it was is stored raw.
	if err == nil && len(raw) == 32 && hex.EncodeToString(raw) == e.Hash {
		flags |= snapRawHash
	}
	out = append(out, flags)
	if flags&snapRawHash != 0 {
		out = append(out, raw...)
	} else {
		out = binary.AppendUvarint(out, uint64(len(e.Hash)))
		out = append(out, e.Hash...)
	}
	out = binary.AppendUvarint(out, uint64(len(e.Target)))
	return append(out, e.Target...), nil
}

// snapStrings holds the strings of a decoded snapshot, its paths and hashes, in one
// buffer: decoded each by its own allocation, the Go tree's 12,800 entries made
// 38,000 of them on every look. A string taken from it stays valid however the buffer
// grows later (the bytes it points at are never written again).
type snapStrings struct{ b strings.Builder }

// of is p as a string: in the buffer, or on its own when s is nil.
func (s *snapStrings) of(p []byte) string {
	if s == nil {
		return string(p)
	}
	n := s.b.Len()
	s.b.Write(p)
	return s.b.String()[n:]
}

// hex is raw in hexadecimal, as of gives a string.
func (s *snapStrings) hex(raw []byte) string {
	if s == nil {
		return hex.EncodeToString(raw)
	}
	n := s.b.Len()
	var h [2 * 32]byte
	for i := 0; i < len(raw); i += 32 {
		m := hex.Encode(h[:], raw[i:min(i+32, len(raw))])
		s.b.Write(h[:m])
	}
	return s.b.String()[n:]
}

// decodeSnap reads a stored entry in either form.
func decodeSnap(v []byte) (SnapEntry, error) { return (*snapStrings)(nil).decode(v) }

// decode is decodeSnap keeping the entry's strings in s (nil: each its own).
func (s *snapStrings) decode(v []byte) (SnapEntry, error) {
	var e SnapEntry
	if len(v) == 0 {
		return e, errSnapForm
	}
	if v[0] != snapBinary {
		// Its own variable: e's address given to json would put every e on the heap.
		var j SnapEntry
		err := json.Unmarshal(v, &j)
		return j, err
	}
	d := snapDecoder{v: v[1:]}
	kind := d.byte()
	if int(kind) >= len(snapKinds) {
		return e, errSnapForm
	}
	e.Kind = snapKinds[kind]
	mode := d.uvarint()
	if mode > 0xffffffff {
		return e, errSnapForm
	}
	e.Mode = uint32(mode)
	e.Size = int64(d.uvarint())
	e.Dev, e.Ino = d.uvarint(), d.uvarint()
	e.Mtime, e.Ctime = d.varint(), d.varint()
	flags := d.byte()
	e.Large = flags&snapLarge != 0
	if flags&snapRawHash != 0 {
		e.Hash = s.hex(d.bytes(32))
	} else {
		e.Hash = s.of(d.bytes(d.uvarint()))
	}
	if t := d.bytes(d.uvarint()); len(t) > 0 {
		e.Target = s.of(t)
	}
	if d.bad || len(d.v) != 0 || e.Size < 0 {
		return SnapEntry{}, errSnapForm
	}
	return e, nil
}

// snapDecoder reads the binary form; the first fault sticks.
type snapDecoder struct {
	v   []byte
	bad bool
}

func (d *snapDecoder) byte() byte {
	if len(d.v) == 0 {
		d.bad = true
		return 0
	}
	c := d.v[0]
	d.v = d.v[1:]
	return c
}

func (d *snapDecoder) uvarint() uint64 {
	x, n := binary.Uvarint(d.v)
	if n <= 0 {
		d.bad = true
		return 0
	}
	d.v = d.v[n:]
	return x
}

func (d *snapDecoder) varint() int64 {
	x, n := binary.Varint(d.v)
	if n <= 0 {
		d.bad = true
		return 0
	}
	d.v = d.v[n:]
	return x
}

func (d *snapDecoder) bytes(n uint64) []byte {
	if d.bad || n > uint64(len(d.v)) {
		d.bad = true
		return nil
	}
	b := d.v[:n]
	d.v = d.v[n:]
	return b
}

// UpdateSnapshot writes the entries that differ from old, the previous snapshot, and
// removes those now absent, making the bucket on first use.
func (t *Tx) UpdateSnapshot(old, now map[string]SnapEntry) error {
	if t.b(bSnapshot) == nil {
		if err := t.createBucket(bSnapshot); err != nil {
			return err
		}
	}
	b := t.b(bSnapshot)
	for p, e := range now {
		if o, ok := old[p]; ok && o == e {
			continue
		}
		v, err := encodeSnap(e)
		if err != nil {
			return err
		}
		if err := b.Put([]byte(p), v); err != nil {
			return fmt.Errorf("journal snapshot %s: %w", p, err)
		}
	}
	for p := range old {
		if _, ok := now[p]; !ok {
			if err := b.Delete([]byte(p)); err != nil {
				return err
			}
		}
	}
	return nil
}

// UpdateSnapshotAt is UpdateSnapshot where now differs from old at most at paths (a
// look's changed paths): it goes through those, not through every path of both.
func (t *Tx) UpdateSnapshotAt(old, now map[string]SnapEntry, paths []string) error {
	if t.b(bSnapshot) == nil {
		if err := t.createBucket(bSnapshot); err != nil {
			return err
		}
	}
	b := t.b(bSnapshot)
	for _, p := range paths {
		o, had := old[p]
		e, has := now[p]
		switch {
		case has && (!had || o != e):
			v, err := encodeSnap(e)
			if err != nil {
				return err
			}
			if err := b.Put([]byte(p), v); err != nil {
				return fmt.Errorf("journal snapshot %s: %w", p, err)
			}
		case had && !has:
			if err := b.Delete([]byte(p)); err != nil {
				return err
			}
		}
	}
	return nil
}

// SetSnapshotEntry sets path's entry of the snapshot (nil: none), where a snapshot
// was taken: an undo that put a folder or a symlink back says so, so that the next
// look does not take it for a change made outside vfsctl.
func (t *Tx) SetSnapshotEntry(path string, e *SnapEntry) error {
	b := t.b(bSnapshot)
	if b == nil {
		return nil
	}
	if e == nil {
		return b.Delete([]byte(path))
	}
	v, err := encodeSnap(*e)
	if err != nil {
		return err
	}
	return b.Put([]byte(path), v)
}

// snapExcludeKey keys, in the meta bucket, the content of .git/info/exclude that the
// snapshot's walk applied, after a byte 1; no key: it applied none.
var snapExcludeKey = []byte("snapshot_exclude")

// SnapshotExclude is the content of .git/info/exclude that the walk of the snapshot
// applied (nil: none), so that a look tells what a change of it brought into the
// walk's sight or took out of it, as for a .gitignore, whose content the snapshot
// holds as a file.
func (t *Tx) SnapshotExclude() []byte {
	v := t.b(bMeta).Get(snapExcludeKey)
	if len(v) == 0 || v[0] != 1 {
		return nil
	}
	return append([]byte{}, v[1:]...)
}

// SetSnapshotExclude keeps data as SnapshotExclude (nil: none); nothing is written
// when it is kept already.
func (t *Tx) SetSnapshotExclude(data []byte) error {
	meta, old := t.b(bMeta), t.b(bMeta).Get(snapExcludeKey)
	switch {
	case data == nil && old == nil:
		return nil
	case data == nil:
		return meta.Delete(snapExcludeKey)
	case len(old) > 0 && old[0] == 1 && bytes.Equal(old[1:], data):
		return nil
	}
	return meta.Put(snapExcludeKey, append([]byte{1}, data...))
}

package journal

import (
	"encoding/json"
	"fmt"
)

// The snapshot: the last known state of every path of the workspace (bucket
// "snapshot", path -> JSON of SnapEntry), kept so that what commands and other
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
	out := map[string]SnapEntry{}
	b := t.b(bSnapshot)
	if b == nil {
		return out
	}
	b.ForEach(func(k, v []byte) error {
		var e SnapEntry
		if json.Unmarshal(v, &e) == nil {
			out[string(k)] = e
		}
		return nil
	})
	return out
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
		v, err := json.Marshal(e)
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
	v, err := json.Marshal(e)
	if err != nil {
		return err
	}
	return b.Put([]byte(path), v)
}

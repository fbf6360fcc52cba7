package txn

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"

	"github.com/vfsctl/vfsctl/vfs"
)

// known is what this engine last wrote to a file, with the identity the file had then.
// While the file keeps that identity (a write by anyone else changes its inode, size,
// or change time), the engine neither reads nor hashes it again: the next edit
// plans from data and takes hash as the prior content's.
type known struct {
	id    vfs.Identity
	hash  string
	marks hashMarks
	data  []byte // nil when not kept (see knownBudget)
}

const (
	maxKnown = 4096
	// knownBudget bounds the content kept in memory across files; past it, only the
	// newest file's content is kept.
	knownBudget = 64 << 20
)

// lookup returns what is known of path while it has identity id.
func (e *Engine) lookup(path string, id vfs.Identity) (known, bool) {
	e.kmu.Lock()
	defer e.kmu.Unlock()
	k, ok := e.known[path]
	if !ok || !k.id.SameFile(id) {
		return known{}, false
	}
	return k, true
}

// knownOf returns what is known of path, whatever its identity now.
func (e *Engine) knownOf(path string) (known, bool) {
	e.kmu.Lock()
	defer e.kmu.Unlock()
	k, ok := e.known[path]
	return k, ok
}

// remember records what this engine wrote to path. data must never change afterwards;
// nil keeps only the hash.
func (e *Engine) remember(path string, k known) {
	e.kmu.Lock()
	defer e.kmu.Unlock()
	if old, ok := e.known[path]; ok {
		e.kdata -= len(old.data)
		delete(e.known, path)
	}
	if !k.id.Known() {
		return
	}
	if e.known == nil || len(e.known) >= maxKnown {
		e.known, e.kdata = map[string]known{}, 0
	}
	if e.kdata+len(k.data) > knownBudget {
		for p, o := range e.known {
			o.data = nil
			e.known[p] = o
		}
		e.kdata = 0
	}
	if len(k.data) > knownBudget {
		k.data = nil
	}
	e.known[path] = k
	e.kdata += len(k.data)
}

// knownData is the content this engine wrote to path, while the file keeps the
// identity id; nil when it must be read.
func (e *Engine) knownData(path string, id vfs.Identity) []byte {
	k, _ := e.lookup(path, id)
	return k.data
}

// hashMarks are the running states of a SHA-256 hash, taken every markEvery bytes of
// the content. A new version of the content that keeps its first n bytes is hashed
// from the last mark within them: an edit near the end of a large file costs a hash of
// the end only. The hash is the same as hashing the whole content.
type hashMarks [][]byte

const markEvery = 64 << 10

// hashFrom hashes data, resuming from marks taken of content whose first same bytes
// data shares; it returns the hash and data's own marks.
func hashFrom(data []byte, prev hashMarks, same int) (string, hashMarks) {
	h := sha256.New()
	n := min(same, len(data)) / markEvery // marks that lie within the shared prefix
	n = min(n, len(prev))
	marks := make(hashMarks, n, len(data)/markEvery)
	copy(marks, prev[:n])
	pos := 0
	if n > 0 {
		if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(prev[n-1]); err != nil {
			return hashFrom(data, nil, 0)
		}
		pos = n * markEvery
	}
	for ; pos+markEvery <= len(data); pos += markEvery {
		h.Write(data[pos : pos+markEvery])
		st, err := h.(encoding.BinaryMarshaler).MarshalBinary()
		if err != nil {
			panic(err) // sha256's state always marshals
		}
		marks = append(marks, st)
	}
	h.Write(data[pos:])
	return hex.EncodeToString(h.Sum(nil)), marks
}

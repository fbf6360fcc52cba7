package txn

import (
	"crypto/sha256"
	"sync"
)

// Hash identifies file content.
type Hash [sha256.Size]byte

// HashOf returns the content hash of data.
func HashOf(data []byte) Hash { return sha256.Sum256(data) }

// reads remembers, per session and canonical path, the content the session last saw:
// what it read, or what its own change wrote. write_file requires it to match the file.
type reads struct {
	mu   sync.Mutex
	seen map[string]map[string]Hash
}

func (r *reads) record(session, path string, h Hash) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		r.seen = map[string]map[string]Hash{}
	}
	if r.seen[session] == nil {
		r.seen[session] = map[string]Hash{}
	}
	r.seen[session][path] = h
}

func (r *reads) lookup(session, path string) (Hash, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.seen[session][path]
	return h, ok
}

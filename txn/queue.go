package txn

import (
	"sort"
	"sync"
)

// queues serializes calls per file. A queue is keyed by the file's canonical path
// inside the root: an atomic rename gives every commit a new inode, so inode numbers
// are no lasting key.
type queues struct {
	mu    sync.Mutex
	locks map[string]*queueLock
}

type queueLock struct {
	mu   sync.Mutex
	refs int
}

// lock takes the queues of paths in sorted order (so two multi-file calls cannot
// deadlock) and returns the function that releases them.
func (q *queues) lock(paths ...string) func() {
	ps := append([]string(nil), paths...)
	sort.Strings(ps)
	ps = dedup(ps)
	held := make([]*queueLock, len(ps))
	for i, p := range ps {
		q.mu.Lock()
		if q.locks == nil {
			q.locks = map[string]*queueLock{}
		}
		l := q.locks[p]
		if l == nil {
			l = &queueLock{}
			q.locks[p] = l
		}
		l.refs++
		q.mu.Unlock()
		l.mu.Lock()
		held[i] = l
	}
	return func() {
		for i := len(held) - 1; i >= 0; i-- {
			held[i].mu.Unlock()
			q.mu.Lock()
			held[i].refs--
			if held[i].refs == 0 {
				delete(q.locks, ps[i])
			}
			q.mu.Unlock()
		}
	}
}

func dedup(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

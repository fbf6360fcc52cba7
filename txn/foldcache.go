package txn

import (
	"bytes"
	"sync"

	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/vfs"
)

// foldCache keeps, per file, the matcher's View of the content this engine last
// wrote there: its folded lines, so that a fuzzy edit of a large file does not fold
// every line again. The matcher stays pure; the cache lives here, keyed like known
// (known.go) by the file's identity and the hash of its content. A file changed by
// anyone else has another identity, and its entry is dropped on the next look.
//
// After a commit, the entry is derived from the previous one and the splices the call
// made (matcher.View.Update), which folds only the changed lines.
type foldCache struct {
	mu    sync.Mutex
	files map[string]foldEntry
	bytes int // content held across entries
}

type foldEntry struct {
	id   vfs.Identity
	hash string
	size int                  // of the content
	data []byte               // the content, for an entry of a read (whose hash is not known)
	view func() *matcher.View // waits for the View while it is being derived
}

// warmFold is the least size of a file whose read folds it ahead (warm): below it,
// folding on the first fuzzy edit costs that edit little.
const warmFold = 64 << 10

const (
	maxFoldFiles = 256
	// foldBudget bounds the content whose views are kept. A view holds about its
	// content's size again in folded text (more for non-ASCII lines), and shares the
	// content itself with known.
	foldBudget = 64 << 20
)

// view returns the kept View of path while the file has identity id and content of
// hash h, else a new View of data (kept by the caller's put after a commit).
func (c *foldCache) view(path string, id vfs.Identity, h string, data []byte) *matcher.View {
	c.mu.Lock()
	defer c.mu.Unlock()
	if en, ok := c.files[path]; ok {
		if h != "" && en.hash == h && en.id.SameFile(id) && en.size == len(data) {
			return en.view()
		}
		if en.data != nil && bytes.Equal(en.data, data) {
			return en.view() // folded after a read of the same bytes
		}
		c.dropLocked(path)
	}
	return matcher.NewView(data)
}

// put keeps the View of path while it has identity id and content of hash h: v,
// which derives it, in the background for a large file, so that the call that
// committed the content does not wait for it; the next call of the file may, and
// derives a small file's itself (keepLocked). n is the content's size.
func (c *foldCache) put(path string, id vfs.Identity, h string, n int, v func() *matcher.View) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropLocked(path)
	if !id.Known() || h == "" || n > foldBudget {
		return
	}
	c.keepLocked(path, foldEntry{id: id, hash: h, size: n, view: sync.OnceValue(v)})
}

// keepLocked keeps en as path's entry and, for a file of warmFold bytes or more,
// starts deriving its View. A smaller file's View is derived by the next call that
// needs it: that takes less than waking another thread to do it, which a process fed
// one call at a time would pay at each call, its threads asleep between calls.
func (c *foldCache) keepLocked(path string, en foldEntry) {
	c.dropLocked(path)
	if c.files == nil || len(c.files) >= maxFoldFiles || c.bytes+en.size > foldBudget {
		c.files, c.bytes = map[string]foldEntry{}, 0 // rare: start over rather than track ages
	}
	c.files[path] = en
	if en.size >= warmFold {
		go en.view()
	}
	c.bytes += en.size
}

// warm keeps the View of data, just read from path, with its typography view built in
// the background: the read's reply does not wait for it, and the first fuzzy edit of
// the file finds it folded. Only large files are warmed. The View is used only for
// the same bytes.
func (c *foldCache) warm(path string, id vfs.Identity, data []byte) {
	if len(data) < warmFold || len(data) > foldBudget {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if en, ok := c.files[path]; ok && en.size == len(data) && (en.data != nil && bytes.Equal(en.data, data) || en.id.SameFile(id)) {
		return // kept already, by a commit of this content or an earlier read
	}
	c.keepLocked(path, foldEntry{id: id, size: len(data), data: data, view: sync.OnceValue(func() *matcher.View {
		v := matcher.NewView(data)
		v.Fold()
		return v
	})})
}

// drop forgets path.
func (c *foldCache) drop(path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropLocked(path)
}

func (c *foldCache) dropLocked(path string) {
	if en, ok := c.files[path]; ok {
		c.bytes -= en.size
		delete(c.files, path)
	}
}

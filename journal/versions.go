package journal

import "fmt"

// Content rebuilds the content that path had under hash from the journal alone: the
// blob where one is stored (what create and write produced, prior content that splices
// could not rebuild), else the committed edit that produced it applied to the content
// before it, and so on down a chain of splices that ends at a blob. The result is
// checked against hash.
func (t *Tx) Content(path, hash string) ([]byte, error) {
	return t.ContentCached(path, hash, nil, 0)
}

// ContentCached is Content with a cache of versions already rebuilt (hash -> content),
// which it reads and fills, and a bound: when below is not 0, the version is known to
// come from a call before call below, so the walk starts there. Replaying many calls
// of one file, oldest first, then walks each chain once.
func (t *Tx) ContentCached(path, hash string, cache map[string][]byte, below uint64) ([]byte, error) {
	if data, ok := cache[hash]; ok {
		return data, nil
	}
	if data, err := t.Blob(hash); data != nil || err != nil {
		if cache != nil && data != nil {
			cache[hash] = data
		}
		return data, err
	}
	// Walk the path's records newest first: the edit that produced a version is older
	// than any record that starts from it, so one pass follows the whole chain.
	want := hash
	var chain [][]Splice
	var base []byte
	err := t.newestIn(bByPath, path, below, func(seq uint64) (bool, error) {
		r, err := t.Get(seq)
		if err != nil || r == nil || r.State != Committed {
			return false, err
		}
		for _, f := range r.Files {
			if f.Path != path || f.Op != OpEdit || f.After != want {
				continue
			}
			chain = append(chain, f.Splices)
			want = f.Before
			if data, ok := cache[want]; ok {
				base = data
				return true, nil
			}
			data, err := t.Blob(want)
			base = data
			return base != nil, err
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	if base == nil {
		return nil, fmt.Errorf("the journal cannot rebuild %s at %.12s: no blob or chain of edits leads to it", path, hash)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		next, ok := ApplySplices(base, chain[i])
		if !ok {
			return nil, fmt.Errorf("the journal's splices for %s do not apply at %.12s", path, hash)
		}
		base = next
	}
	if Hash(base) != hash {
		return nil, fmt.Errorf("the journal rebuilt %s at %.12s with another hash", path, hash)
	}
	if cache != nil {
		cache[hash] = base
	}
	return base, nil
}

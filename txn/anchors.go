package txn

import "github.com/vfsctl/vfsctl/journal"

// AnchoredVersion is a version of a file whose lines the session was shown with
// anchors, with its content as the journal rebuilds it.
type AnchoredVersion struct {
	journal.Anchored
	Data []byte
}

// AnchoredVersions returns the versions of path (canonical) that session was shown
// with anchors, newest first. A version the journal cannot rebuild (compacted away,
// or a damaged journal) is left out: its anchors can no longer be mapped.
func (e *Engine) AnchoredVersions(session, path string) ([]AnchoredVersion, error) {
	if err := e.j.Flush(); err != nil {
		return nil, err
	}
	var out []AnchoredVersion
	err := e.j.View(func(t *journal.Tx) error {
		for _, a := range t.AnchoredVersions(session, path) {
			data, err := t.Content(path, a.Hash)
			if err != nil || data == nil {
				continue
			}
			out = append(out, AnchoredVersion{Anchored: a, Data: data})
		}
		return nil
	})
	return out, err
}

// AnchoredFrom records, on an edit_lines call, the versions of its file that the
// session had been shown with anchors as the call ran (AnchoredVersions): what its
// anchors name, for a replay to place them against the same.
func (c *Call) AnchoredFrom(versions []AnchoredVersion) {
	c.rec.Anchored = nil
	for _, v := range versions {
		c.rec.Anchored = append(c.rec.Anchored, v.Anchored)
	}
}

// SeedAnchored tells the journal that session was shown versions of path with
// anchors, as a recorded edit_lines call had been (Record.Anchored), keeping each
// version's content: for replaying that call in an engine whose journal never saw
// its reads.
func (e *Engine) SeedAnchored(session, path string, versions []AnchoredVersion) {
	e.j.Defer(func(t *journal.Tx) error {
		for i := len(versions) - 1; i >= 0; i-- { // oldest first: each new one goes first
			v := versions[i]
			if _, err := t.PutBlob(v.Data); err != nil {
				return err
			}
			if err := t.AddAnchored(session, path, v.Hash, v.Spans); err != nil {
				return err
			}
		}
		return nil
	})
}

// SeedAnchors tells the journal that session was shown all of data, the content of
// path, with anchors: for replaying an edit_lines call in an engine whose journal
// never saw its reads (Seed keeps the content itself).
func (e *Engine) SeedAnchors(session, path string, data []byte) {
	h, n := journal.Hash(data), CountLines(data)
	e.j.Defer(func(t *journal.Tx) error {
		return t.AddAnchored(session, path, h, [][2]int{{1, max(n, 1)}})
	})
}

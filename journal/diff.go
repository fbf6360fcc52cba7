package journal

import (
	"fmt"
	"sort"

	"github.com/vfsctl/vfsctl/matcher"
)

// A file's diff is most of what a one-line edit's record would hold, and the record
// keeps what gives it back: the splices and the content before them, which the
// journal rebuilds (Content). So a record keeps the diff only where rendering the
// splices again would not give the same bytes (a dialect that numbers lines its own
// way, a path sent in another spelling than the journal keeps, a diff cut at
// MaxDiff, a change without splices, a file over omitMax); elsewhere
// Diffs renders it when read. Records written so render with matcher.PlacedDiff as
// it is: a change to how it renders changes what show prints of past calls
// (TestOmittedDiffs holds its text).

// OmitDiff drops the file's diff when rendering its splices over before, the content
// they apply to, gives back the same bytes: the record then keeps the splices only,
// and Diffs renders the diff when the record is read. The check renders the diff once
// more: a count of the file's line breaks and the lines around the change.
func (f *File) OmitDiff(before []byte) {
	if f.Diff == "" || before == nil || len(f.Splices) == 0 || f.Op != OpEdit {
		return
	}
	// Rendering a past call's diff rebuilds the content it started from, applying each
	// edit since the nearest content kept whole: a step copies the file, so a large
	// file keeps its diffs (and rendering one indexes its lines: 1.4 ms for 1 MiB with
	// CR line breaks).
	if len(before) > omitMax {
		return
	}
	if spliceDiff(f.Path, before, f.Splices) == f.Diff {
		f.Diff, f.diffOmitted = "", true
	}
}

// omitMax is the size past which a file keeps its diffs.
const omitMax = 64 << 10

// DiffOmitted reports whether the record keeps the file's diff as its splices only,
// for Diffs to render.
func (f *File) DiffOmitted() bool { return f.diffOmitted }

// spliceDiff is the diff of splices over before, as the call's reply showed it.
func spliceDiff(path string, before []byte, sp []Splice) string {
	ms := make([]matcher.Splice, len(sp))
	for i, s := range sp {
		ms[i] = matcher.Splice{Start: s.Start, End: s.Start + len(s.Old), Text: s.New}
	}
	return matcher.PlacedDiff(path, before, ms)
}

// Diffs fills in the diff of every file of recs that its record keeps as splices
// only, rendered over the content before the call, which it rebuilds from the
// journal. It reads the records oldest first, so that each version of a file is
// rebuilt from the one before. A diff that cannot be rebuilt (a chain of versions
// broken) is left "", and DiffError says why.
func (t *Tx) Diffs(recs ...*Record) {
	order := make([]*Record, 0, len(recs))
	for _, r := range recs {
		for _, f := range r.Files {
			if f.diffOmitted {
				order = append(order, r)
				break
			}
		}
	}
	if len(order) == 0 {
		return
	}
	sort.Slice(order, func(i, j int) bool { return order[i].Seq < order[j].Seq })
	// The versions rebuilt, by hash: each path's latest, which the next record of
	// the path most often starts from, within a bound on their bytes.
	cache, latest, held := map[string][]byte{}, map[string]string{}, 0
	for _, r := range order {
		for i := range r.Files {
			f := &r.Files[i]
			if !f.diffOmitted {
				continue
			}
			f.diffOmitted = false
			before, err := t.ContentCached(f.Path, f.Before, cache, r.Seq)
			if err != nil {
				f.DiffError = err.Error()
				continue
			}
			after, ok := ApplySplices(before, f.Splices)
			if !ok {
				f.DiffError = fmt.Sprintf("the splices of %s do not apply at %.12s", f.Path, f.Before)
				continue
			}
			f.Diff = spliceDiff(f.Path, before, f.Splices)
			if Hash(after) != f.After {
				continue
			}
			if h, ok := latest[f.Path]; ok {
				held -= len(cache[h])
				delete(cache, h)
			}
			if held+len(after) > diffCacheBytes {
				clear(cache)
				clear(latest)
				held = 0
			}
			cache[f.After], latest[f.Path] = after, f.After
			held += len(after)
		}
	}
}

// diffCacheBytes bounds the versions Diffs holds at once.
const diffCacheBytes = 64 << 20

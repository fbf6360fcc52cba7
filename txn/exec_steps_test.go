package txn

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/vfs"
)

// allLineSplices is lineSplices without leaving out the lines both share first: a
// diff of all their lines.
func allLineSplices(from, to []byte) []matcher.Splice {
	fl, tl := splitLines(from), splitLines(to)
	off := make([]int, len(fl)+1)
	for i, l := range fl {
		off[i+1] = off[i] + len(l)
	}
	var out []matcher.Splice
	for _, h := range matcher.ChangedLines(fl, tl) {
		out = append(out, matcher.Splice{Start: off[h.A1], End: off[h.A2], Text: []byte(strings.Join(tl[h.B1:h.B2], ""))})
	}
	return out
}

// lineSplices gives the splices a diff of all the lines gives, and they turn from
// into to, for texts of few distinct lines (many equal runs) whose line breaks mix
// LF, CRLF and lone CR, the last line with or without one.
func TestLineSplicesAsAllLines(t *testing.T) {
	pieces := []string{"a\n", "b\n", "a\r\n", "a\r", "\r", "\n", "b", "a", "\r\n"}
	r := rand.New(rand.NewPCG(1, 2))
	text := func(n int) []byte {
		var b []byte
		for range n {
			b = append(b, pieces[r.IntN(len(pieces))]...)
		}
		return b
	}
	for i := range 20000 {
		from := text(r.IntN(12))
		// to: from with a few pieces put in, taken out or replaced at random places,
		// or another text altogether.
		to := slices.Clone(from)
		if i%10 == 0 {
			to = text(r.IntN(12))
		}
		for range r.IntN(3) {
			at := r.IntN(len(to) + 1)
			cut := min(at+r.IntN(3), len(to))
			to = slices.Concat(to[:at], text(r.IntN(2)), to[cut:])
		}
		got, want := lineSplices(from, to), allLineSplices(from, to)
		if !slices.EqualFunc(got, want, func(a, b matcher.Splice) bool {
			return a.Start == b.Start && a.End == b.End && string(a.Text) == string(b.Text)
		}) {
			t.Fatalf("lineSplices(%q, %q) = %v, a diff of all lines gives %v", from, to, got, want)
		}
		var out []byte
		prev := 0
		for _, s := range got {
			out = append(append(out, from[prev:s.Start]...), s.Text...)
			prev = s.End
		}
		if out = append(out, from[prev:]...); string(out) != string(to) {
			t.Fatalf("the splices of %q -> %q give %q", from, to, out)
		}
	}
}

// snapOf names each path where the walk's snapshot differs from the one before it
// (made, changed, removed), once, and no other: a look then tells and writes only
// those. The oracle is what the test itself did to each path: the paths it removed,
// changed, made, or made unreadable with other bits are the changed ones; those it
// left, made unreadable with the same bits, or left in a folder that could not be
// listed are not, and stay in the snapshot.
func TestSnapOfNamesEveryChangedPath(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for round := range 200 {
		old := map[string]journal.SnapEntry{}
		var paths []string
		for i := range r.IntN(40) {
			p := fmt.Sprintf("p%d", i)
			old[p] = journal.SnapEntry{Kind: vfs.KindFile, Mode: 0o644, Size: int64(i), Mtime: int64(i), Hash: fmt.Sprint(i)}
			paths = append(paths, p)
		}
		scan := &vfs.Scan{}
		var changedHere, keptHere, removedHere []string
		for _, p := range paths {
			o := old[p]
			switch r.IntN(6) {
			case 0: // removed: not walked
				changedHere = append(changedHere, p)
				removedHere = append(removedHere, p)
			case 1: // could not be read: keeps its entry, with the bits the walk saw
				mode := o.Mode
				if r.IntN(2) == 0 {
					mode = 0
				}
				scan.Unreadable = append(scan.Unreadable, vfs.Entry{Path: p, Kind: o.Kind, Mode: mode})
				if mode != o.Mode {
					changedHere = append(changedHere, p)
				} else {
					keptHere = append(keptHere, p)
				}
			case 2: // changed
				scan.Entries = append(scan.Entries, vfs.Entry{Path: p, Kind: o.Kind, Mode: o.Mode, Size: o.Size + 1, Hash: "x", ID: vfs.Identity{Size: o.Size + 1, Mtime: o.Mtime + 1}})
				changedHere = append(changedHere, p)
			default: // as it was
				scan.Entries = append(scan.Entries, vfs.Entry{Path: p, Kind: o.Kind, Mode: o.Mode, Size: o.Size, Hash: o.Hash, ID: vfs.Identity{Size: o.Size, Mtime: o.Mtime}})
				keptHere = append(keptHere, p)
			}
		}
		for i := range r.IntN(5) {
			p := fmt.Sprintf("new%d", i)
			scan.Entries = append(scan.Entries, vfs.Entry{Path: p, Kind: vfs.KindDir, Mode: 0o755})
			changedHere = append(changedHere, p)
			if r.IntN(2) == 0 {
				scan.Unreadable = append(scan.Unreadable, vfs.Entry{Path: fmt.Sprintf("gone%d", i), Kind: vfs.KindFile}) // unread, never known: not in either
			}
		}
		if r.IntN(2) == 0 { // a folder that could not be listed: what it held stays
			old["u"] = journal.SnapEntry{Kind: vfs.KindDir, Mode: 0o755}
			scan.Entries = append(scan.Entries, vfs.Entry{Path: "u", Kind: vfs.KindDir, Mode: 0o755})
			scan.Unlisted = append(scan.Unlisted, "u")
			keptHere = append(keptHere, "u")
			for i := range r.IntN(3) {
				p := fmt.Sprintf("u/q%d", i)
				old[p] = journal.SnapEntry{Kind: vfs.KindFile, Mode: 0o600, Hash: p}
				keptHere = append(keptHere, p)
			}
		}
		now, changed := snapOf(scan, old)
		got := slices.Clone(changed)
		slices.Sort(got)
		slices.Sort(changedHere)
		if !slices.Equal(got, changedHere) {
			t.Fatalf("round %d: snapOf names %v, the test changed %v", round, got, changedHere)
		}
		for _, p := range keptHere {
			if now[p] != old[p] {
				t.Fatalf("round %d: %s was left as it was, and the snapshot has %+v for %+v", round, p, now[p], old[p])
			}
		}
		var nowPaths []string
		for p := range now {
			nowPaths = append(nowPaths, p)
		}
		slices.Sort(nowPaths)
		wantPaths := append(slices.Clone(keptHere), changedHere...)
		wantPaths = slices.DeleteFunc(wantPaths, func(p string) bool { return slices.Contains(removedHere, p) })
		slices.Sort(wantPaths)
		if !slices.Equal(nowPaths, wantPaths) {
			t.Fatalf("round %d: the snapshot holds %v, want %v (all but the removed)", round, nowPaths, wantPaths)
		}
	}
}

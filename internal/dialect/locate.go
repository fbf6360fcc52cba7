package dialect

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"sort"
	"strings"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/matcher"
)

// LocateChunks places one Update's chunks in content (a file's bytes: any line
// endings, a BOM, with or without a final newline) and returns the splices that
// apply them, sorted by Start; Splice.Edit is the chunk's index. It refuses with an
// *errs.Error naming the file and the chunk (1-based).
//
// Rules: each chunk's anchors are found in order, each as a whole line after the
// previous anchor and after the previous chunk; the chunk's old lines (context and
// removed) must then match whole lines of the file at exactly one place after its
// anchors, through the matcher's tiers. A pure addition (no old lines) goes right
// after its last anchor line, or at the end of the file without anchors; `*** End
// of File` pins a chunk to the file's last lines. Chunks must not overlap, and the
// patch must change something.
func LocateChunks(path string, content []byte, chunks []Chunk) ([]matcher.Splice, error) {
	sp, _, err := locateChunks(path, content, chunks)
	return sp, err
}

// PlanChunks is LocateChunks as a planned change: the new content, the splices and
// one report per chunk (how its lines matched: exact, or after which folds), for a
// transaction to commit and a reply to describe.
func PlanChunks(path string, content []byte, chunks []Chunk) (*matcher.Result, error) {
	sp, reports, err := locateChunks(path, content, chunks)
	if err != nil {
		return nil, err
	}
	return matcher.FromSplices(content, sp, reports)
}

// Bounds on placing one file's chunks. Each chunk is found by an index of the file's
// lines at the exact tier; only the fuzzy tiers search the rest of the file, and
// together they search at most MaxFuzzyBytes.
const (
	// MaxChunks is the most chunks one file's section of a patch may hold.
	MaxChunks = 1000
	// MaxAnchors is the most stacked @@ lines one chunk may have.
	MaxAnchors = 8
	// MaxFuzzyBytes bounds the bytes the matcher's fuzzy tiers search for one file
	// (a file over matcher.MaxFoldBytes is placed at the exact tier only).
	MaxFuzzyBytes = 4 * matcher.MaxFoldBytes
	// MaxLineChecks bounds the places the exact tier compares with chunks, per file.
	MaxLineChecks = 4_000_000
)

// PlanHunks places the hunks of one file of a unified diff (ParseUnifiedDiff) as
// PlanChunks places chunks, with a unified diff's rules: each hunk is found anywhere
// in the file, not only after the one before it (models send hunks out of order);
// where its lines fit several places, the one nearest to its header's line (Near)
// is taken, and a tie is refused; a hunk with no context or removed lines goes only
// into an empty file; `\ No newline at end of file` adds or takes away the file's
// final line break. Refusals name the hunk.
func PlanHunks(path string, content []byte, hunks []Chunk) (*matcher.Result, error) {
	sp, reports, err := locate(path, content, hunks, true)
	if err != nil {
		return nil, err
	}
	return matcher.FromSplices(content, sp, reports)
}

func locateChunks(path string, content []byte, chunks []Chunk) ([]matcher.Splice, []matcher.EditReport, error) {
	return locate(path, content, chunks, false)
}

func locate(path string, content []byte, chunks []Chunk, unified bool) ([]matcher.Splice, []matcher.EditReport, error) {
	f, err := newFile(path, content)
	if err != nil {
		return nil, nil, err
	}
	f.unit = "chunk"
	if unified {
		f.unified, f.unit = true, "hunk"
	}
	if len(chunks) > MaxChunks {
		return nil, nil, errs.New(errs.TooLarge, path, "%s: the %s has %d %ss for it; at most %d are placed in one call. Send the change in several calls, or replace the file whole.", f.name, f.source(), len(chunks), f.unit, MaxChunks)
	}
	for ci, c := range chunks {
		if len(c.Anchors) > MaxAnchors {
			return nil, nil, refusal(errs.TooLarge, f.path, ci, nil, "%s chunk %d has %d stacked @@ lines; at most %d are taken. Name the class and the function line above the change, not every line before it.", f.name, ci+1, len(c.Anchors), MaxAnchors)
		}
	}
	sp, reports, err := f.place(chunks)
	if f.fuzzy > fuzzyBudget {
		// Whatever the search ended with, it stopped for the bound.
		return nil, nil, errs.New(errs.TooLarge, path, "%s: placing the %s's %ss needed the fuzzy tiers (quotes, spaces, indentation forgiven) over more than %d bytes of the file, the most one call may search. Copy the context lines exactly from the file, so that they match as they are, or send fewer %ss per call.", f.name, f.source(), f.unit, fuzzyBudget, f.unit)
	}
	return sp, reports, err
}

// place places the chunks in f.
func (f *file) place(chunks []Chunk) ([]matcher.Splice, []matcher.EditReport, error) {
	var out []matcher.Splice
	reports := make([]matcher.EditReport, len(chunks))
	cursor := 0 // first line (0-based) a chunk may start at
	// offset is how far from their @@ lines the hunks placed so far were found: a
	// model that numbered a file some lines longer or shorter is off by the same for
	// every hunk, so a later hunk whose lines fit several places is looked for at its
	// @@ line moved by that much, as patch(1) does.
	offset := 0
	for ci, c := range chunks {
		if f.unified && c.Near > 0 {
			c.Near = max(c.Near+offset, 1)
		}
		hunk := fmt.Sprintf("%s %s %d", f.name, f.unit, ci+1)
		if f.unified {
			cursor = 0 // a unified diff's hunks are placed anywhere, each on its own
		}
		for _, a := range c.Anchors {
			at := f.findAnchor(a, cursor)
			if at < 0 {
				msg := fmt.Sprintf("%s: its @@ anchor %q was not found as a line", hunk, a)
				lines := []int(nil)
				if cursor > 0 {
					msg += fmt.Sprintf(" after line %d", cursor)
					if before := f.findAnchor(a, 0); before >= 0 && before < cursor {
						msg += fmt.Sprintf(" (it is at line %d, before the previous anchor or chunk; chunks go in file order)", before+1)
						lines = []int{before + 1}
					}
				}
				return nil, nil, refusal(errs.TextNotFound, f.path, ci, lines, "%s. An @@ line names a whole line of the file (a class or function line above the change); copy it from the file.", msg)
			}
			cursor = at + 1
		}
		if len(c.Old) == 0 && f.unified && f.nlines > 0 {
			return nil, nil, refusal(errs.InvalidInput, f.path, ci, nil, "%s has only '+' lines, so nothing in it says where they go in the file (its @@ line numbers alone do not place it). Send the 3 lines before them as ' ' context lines.", hunk)
		}
		if len(c.Old) == 0 {
			if len(c.New) == 0 {
				return nil, nil, refusal(errs.NoChange, f.path, ci, nil, "%s changes nothing: it has no lines. Send ' ' context, '-' removed and '+' added lines.", hunk)
			}
			var sp matcher.Splice
			if len(c.Anchors) == 0 || c.EndOfFile || cursor >= f.nlines {
				sp = f.appendLines(c.New)
			} else {
				sp = f.insertBefore(cursor, c.New)
			}
			sp.Edit = ci
			out = append(out, sp)
			continue
		}
		if c.OldNoEOL != c.NewNoEOL {
			f.finalEOL, f.finalEdit = 1, ci // the final line break is added
			if c.NewNoEOL {
				f.finalEOL = -1 // or taken away
			}
		}
		if equalLines(c.Old, c.New) {
			if f.finalEOL != 0 {
				// Only the final line break changes: the lines must be the file's last.
				if _, err := f.findLines(hunk, ci, c.Old, cursor, true, c.Near); err != nil {
					return nil, nil, err
				}
				continue
			}
			return nil, nil, refusal(errs.NoChange, f.path, ci, nil, "%s changes nothing: its old and new lines are identical. Send only %ss that change something.", hunk, f.unit)
		}
		old, nw := c.Old, c.New
		at, err := f.findLines(hunk, ci, old, cursor, c.EndOfFile, c.Near)
		if err != nil && errs.KindOf(err) == errs.TextNotFound && len(old) > 1 && old[len(old)-1] == "" && len(nw) > 0 && nw[len(nw)-1] == "" {
			// As Codex does: a trailing empty context line may stand for the end of the file.
			old, nw = old[:len(old)-1], nw[:len(nw)-1]
			if a2, err2 := f.findLines(hunk, ci, old, cursor, c.EndOfFile, c.Near); err2 == nil {
				at, err = a2, nil
			}
		}
		gutter := false
		if err != nil && errs.KindOf(err) == errs.TextNotFound {
			if gOld, gNew, ok := stripChunkGutter(old, nw); ok {
				a2, err2 := f.findLines(hunk, ci, gOld, cursor, c.EndOfFile, c.Near)
				switch {
				case err2 == nil && equalLines(gOld, gNew):
					return nil, nil, refusal(errs.NoChange, f.path, ci, nil, "%s changes nothing once the read_file line numbers pasted into its lines are taken out. Send only %ss that change something.", hunk, f.unit)
				case err2 == nil:
					at, err, old, nw, gutter = a2, nil, gOld, gNew, true
				case errs.KindOf(err2) == errs.TextNotFound:
					err = errs.Suffixed(err2, " Its lines carried read_file line numbers (\"   113\\t\"), which were taken out before looking; they are not part of the file.")
				}
			}
		}
		if err != nil {
			return nil, nil, err
		}
		sp, rep, err := f.render(hunk, ci, at, old, nw)
		if err != nil {
			return nil, nil, err
		}
		rep.Gutter = rep.Gutter || gutter
		for i := range sp {
			sp[i].Edit = ci
			sp[i] = narrow(f.work, sp[i])
		}
		if f.picked.among > 1 {
			rep.Among, rep.Near, rep.Offset = f.picked.among, f.picked.near, c.Near-chunks[ci].Near
		}
		reports[ci] = rep
		out = append(out, sp...)
		cursor = at + len(old)
		if f.unified && chunks[ci].Near > 0 {
			offset = at + 1 - chunks[ci].Near
		}
	}
	sp, err := f.finish(out, func(i int) string { return fmt.Sprintf("%s %d", f.unit, i+1) })
	return sp, reports, err
}

// stripChunkGutter takes a read_file gutter pasted into a chunk's lines out: from
// every context and removed line (numbered one after another, as the file's lines
// are), and from each added line that carries read_file's own form of it (spaces,
// digits, a tab) or is one of the context lines.
func stripChunkGutter(old, nw []string) ([]string, []string, bool) {
	gOld, _, ok := matcher.StripGutter(old)
	if !ok {
		return nil, nil, false
	}
	context := map[string]string{}
	for i, l := range old {
		context[l] = gOld[i]
	}
	gNew := make([]string, len(nw))
	for i, l := range nw {
		gNew[i] = l
		if s, ok := context[l]; ok {
			gNew[i] = s
		} else if _, rest, ok := matcher.CutGutter(l); ok && readGutter(l) {
			gNew[i] = rest
		}
	}
	return gOld, gNew, true
}

// readGutter reports whether l starts as read_file numbers a line: spaces, digits, a
// tab.
func readGutter(l string) bool {
	t := strings.TrimLeft(l, " ")
	d := 0
	for d < len(t) && t[d] >= '0' && t[d] <= '9' {
		d++
	}
	return d > 0 && d < len(t) && t[d] == '\t'
}

// narrow drops from a splice the whole lines it writes back unchanged at its start
// and end (a chunk's context), so that it names only the lines it changes: the reply
// says "line 2", not "lines 1-3", and an undo conflicts only with changes to those.
// work is the file with every line ended by a line break.
func narrow(work []byte, s matcher.Splice) matcher.Splice {
	old := work[s.Start:s.End]
	for {
		i, j := bytes.IndexByte(old, '\n'), bytes.IndexByte(s.Text, '\n')
		if i < 0 || i != j || !bytes.Equal(old[:i+1], s.Text[:j+1]) {
			break
		}
		old, s.Text = old[i+1:], s.Text[i+1:]
		s.Start += i + 1
		s.FirstLine++
	}
	for len(old) > 0 && len(s.Text) > 0 && old[len(old)-1] == '\n' && s.Text[len(s.Text)-1] == '\n' {
		i := bytes.LastIndexByte(old[:len(old)-1], '\n') + 1
		j := bytes.LastIndexByte(s.Text[:len(s.Text)-1], '\n') + 1
		if !bytes.Equal(old[i:], s.Text[j:]) {
			break
		}
		s.End -= len(old) - i
		old, s.Text = old[:i], s.Text[:j]
		s.LastLine--
	}
	return s
}

// refusal is a refusal of chunk (or block) i, with the structure failure analytics
// read: the hunk at fault and the file lines the message names.
func refusal(kind errs.Kind, path string, i int, lines []int, format string, args ...any) *errs.Error {
	e := errs.New(kind, path, format, args...)
	e.Where = &errs.Where{Edit: i, Lines: lines}
	return e
}

// file is a file's content prepared for locating: a final line break is supplied
// (work) so that whole lines always end in one, and the line starts are indexed.
type file struct {
	path    string
	name    string
	orig    []byte
	work    []byte // orig, plus "\n" when orig has content and no final line break
	bom     int
	starts  []int // start offset of each line in work; starts[nlines] == len(work)
	nlines  int
	eol     string // the file's most common line ending
	addedNL bool

	lines   map[uint64][]int32 // the lines (0-based) of each line's content, by its hash; built on first use
	seed    maphash.Seed
	fuzzy   int // bytes the matcher searched beyond the exact tier
	checked int // places the exact tier compared with a chunk

	unit      string // what a refusal calls a chunk: "chunk" (V4A), "hunk" (a unified diff)
	unified   bool   // placed by a unified diff's rules (PlanHunks)
	finalEOL  int    // a unified diff adds (1) or takes away (-1) the final line break; 0: kept
	finalEdit int    // the hunk that does

	// picked says how the last findLines chose: among how many places, by which line
	// (1-based). among is 0 when the lines fit one place.
	picked struct{ among, near int }
}

// source is what a refusal calls the text the chunks came from.
func (f *file) source() string {
	if f.unified {
		return "diff"
	}
	return "patch"
}

func newFile(path string, content []byte) (*file, error) {
	name := path
	if name == "" {
		name = "the file"
	}
	if bytes.IndexByte(content, 0) >= 0 {
		return nil, errs.New(errs.BinaryFile, path, "%s", matcher.BinaryMessage(path, content))
	}
	f := &file{path: path, name: name, orig: content, work: content}
	if bytes.HasPrefix(content, []byte("\ufeff")) {
		f.bom = 3
	}
	// The supplied line break is the file's own, so that what the matcher writes
	// at the end of the last line is in the file's line ending.
	f.eol = lineEnding(content[f.bom:])
	if n := len(content); n > f.bom && content[n-1] != '\n' && content[n-1] != '\r' {
		f.work = append(append([]byte(nil), content...), f.eol...)
		f.addedNL = true
	}
	for i := f.bom; i < len(f.work); {
		f.starts = append(f.starts, i)
		j := i
		for j < len(f.work) && f.work[j] != '\n' && f.work[j] != '\r' {
			j++
		}
		if j+1 < len(f.work) && f.work[j] == '\r' && f.work[j+1] == '\n' {
			j++
		}
		i = j + 1
	}
	f.nlines = len(f.starts)
	f.starts = append(f.starts, len(f.work))
	return f, nil
}

// lineEnding is the most common line ending of b: "\n" when it has none.
func lineEnding(b []byte) string {
	var lf, crlf, cr int
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '\n':
			lf++
		case b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n':
			crlf++
			i++
		case b[i] == '\r':
			cr++
		}
	}
	switch {
	case crlf >= lf && crlf >= cr && crlf > 0:
		return "\r\n"
	case cr > lf && cr > crlf:
		return "\r"
	}
	return "\n"
}

// text is the content of line i without its line ending.
func (f *file) text(i int) string {
	return strings.TrimRight(string(f.work[f.starts[i]:f.starts[i+1]]), "\r\n")
}

// linesLF is lines [a, b) of the file, each ended by "\n".
func (f *file) linesLF(a, b int) string {
	var s strings.Builder
	for i := a; i < b; i++ {
		s.WriteString(f.text(i))
		s.WriteByte('\n')
	}
	return s.String()
}

// findAnchor is the first line at or after from that is the anchor, whole, through
// the matcher's folds; -1 if none.
func (f *file) findAnchor(anchor string, from int) int {
	pat := []string{anchor}
	if found := f.anchored(pat, from); len(found) > 0 {
		return found[0]
	}
	for s, iter := from, 0; s < f.nlines && iter < 32; iter++ {
		first, ok := f.firstOccurrence(pat, s)
		if !ok {
			return -1
		}
		if sameLines(f.linesLF(first, first+1), pat) {
			return first
		}
		s = first + 1
	}
	return -1
}

// firstOccurrence runs the matcher on the file from line s and returns the first
// line of the first occurrence of pieces (as whole lines, "\n"-ended) there.
func (f *file) firstOccurrence(pieces []string, s int) (int, bool) {
	first, _, ok := f.occurrence(pieces, s)
	return first, ok
}

func (f *file) occurrence(pieces []string, s int) (int, matcher.Tier, bool) {
	if len(f.work) > matcher.MaxFoldBytes {
		// The matcher would search it at the exact tier only: whole lines, by the index.
		if at := f.exact(pieces, s); len(at) > 0 {
			return at[0], matcher.TierExact, true
		}
		return 0, 0, false
	}
	if f.spend(len(f.work) - f.starts[s]) {
		return 0, 0, false
	}
	from := f.starts[s]
	if s == 0 {
		from = 0 // keep the BOM, so that the matcher sees the file as it is
	}
	res, err := matcher.Apply(f.work[from:], []matcher.Edit{{OldText: joinLines(pieces), ReplaceAll: true}}, matcher.Options{Name: f.name, Probe: true})
	if err != nil || len(res.Edits) == 0 || len(res.Edits[0].Lines) == 0 {
		return 0, 0, false
	}
	return s + res.Edits[0].Lines[0][0] - 1, res.Edits[0].Tier, true
}

// sameLines: the file's lines (region, "\n"-ended) and the model's pieces are equal
// through the matcher's folds, whole lines and not a part of one. The matcher finds
// text inside lines, so containment is checked both ways: each inside the other
// means they fold to the same text.
func sameLines(region string, pieces []string) bool {
	res, err := matcher.Apply([]byte(joinLines(pieces)), []matcher.Edit{{OldText: region, ReplaceAll: true}}, matcher.Options{Probe: true})
	return err == nil && len(res.Splices) > 0
}

// findLines finds the one place, at or after line from, where old matches whole
// lines of the file (at the file's end when eof), and returns its first line.
//
// near, a unified diff hunk's header line (1-based; 0: none), chooses among several
// places the one nearest to it.
func (f *file) findLines(hunk string, ci int, old []string, from int, eof bool, near int) (int, error) {
	n := len(old)
	f.picked.among, f.picked.near = 0, 0
	var found []int
	if eof {
		if s := f.nlines - n; s >= from && s >= 0 {
			if first, _, ok := f.occurrence(old, s); ok && first == s && sameLines(f.linesLF(s, s+n), old) {
				found = append(found, s)
			}
		}
	} else if found = f.anchored(old, from); len(found) == 0 {
		// Only the indentation tier can match: find occurrences one by one and keep
		// those that are whole lines. Bounded: a file full of partial matches is not
		// searched to its end.
		var tier matcher.Tier
		for s, iter := from, 0; s < f.nlines && len(found) < 2 && iter < 32; iter++ {
			first, t, ok := f.occurrence(old, s)
			if !ok {
				break
			}
			if iter == 0 {
				tier = t
			} else if t != tier {
				break // only a looser tier finds more: the first tier's match stands
			}
			if first+n <= f.nlines && sameLines(f.linesLF(first, first+n), old) {
				found = append(found, first)
			}
			s = first + 1
		}
	}
	tie := false
	if len(found) > 1 && near > 0 {
		if all, ok := f.everyPlace(old, from); ok && len(all) > 1 {
			at, ok := nearest(all, near-1)
			if ok {
				f.picked.among, f.picked.near = len(all), near
				return at, nil
			}
			found, tie = all, true
		}
	}
	if len(found) > 1 {
		lines := make([]string, len(found))
		for i, l := range found {
			lines[i] = fmt.Sprint(l + 1)
		}
		count := fmt.Sprint(len(found))
		if len(found) >= 10 {
			count = "10 or more"
		}
		at := make([]int, len(found))
		for i, l := range found {
			at[i] = l + 1
		}
		if f.unified {
			if tie {
				return 0, refusal(errs.MultipleMatches, f.path, ci, at, "%s: its context and removed lines match %s places (lines %s), and the two nearest to its @@ line %d are equally near. Add context lines so that one place matches.", hunk, count, strings.Join(lines, ", "), near)
			}
			return 0, refusal(errs.MultipleMatches, f.path, ci, at, "%s: its context and removed lines match %s places (lines %s). Add context lines so that one place matches, or give the place's line in the @@ header (`@@ -LINE,COUNT +LINE,COUNT @@`).", hunk, count, strings.Join(lines, ", "))
		}
		return 0, refusal(errs.MultipleMatches, f.path, ci, at, "%s: its context and removed lines match %s places after its anchors (lines %s). Add an @@ line naming the class or function line above the change, or more context lines, so that one place matches.", hunk, count, strings.Join(lines, ", "))
	}
	if len(found) == 1 {
		return found[0], nil
	}
	return 0, f.notFound(hunk, ci, old, from, eof)
}

// anchored finds the places at or after line from where pieces match whole lines
// at the exact or typography tier: a line break is put before the file and before
// the pattern, so that a match starts at a line's start. It returns their first
// lines (0-based), at most 10.
func (f *file) anchored(pieces []string, from int) []int {
	var out []int
	var tier matcher.Tier
	for s := from; s < f.nlines && len(out) < 10; {
		found, t := f.exact(pieces, s), matcher.TierExact
		if len(found) == 0 && len(out) > 0 && tier == matcher.TierExact {
			break // what a looser tier finds after an exact match does not count
		}
		if len(found) == 0 {
			// The fuzzy tiers: the matcher searches the rest of the file, if it folds
			// a file of that size at all.
			if len(f.work) > matcher.MaxFoldBytes || f.spend(len(f.work)-f.starts[s]) {
				break
			}
			slice := append([]byte{'\n'}, f.work[max(f.starts[s], f.bom):]...)
			res, err := matcher.Apply(slice, []matcher.Edit{{OldText: "\n" + joinLines(pieces), NewText: "\n", ReplaceAll: true}}, matcher.Options{Name: f.name, Probe: true})
			if err != nil || len(res.Edits[0].Lines) == 0 {
				break
			}
			t = res.Edits[0].Tier
			for _, l := range res.Edits[0].Lines {
				found = append(found, s+l[0]-1) // slice line 1 is the line break put before the file
			}
		}
		if len(out) == 0 {
			tier = t
		} else if t != tier {
			break
		}
		out = append(out, found...)
		if len(out) > 1 {
			break
		}
		// One match: overlapping ones (the matcher lists only disjoint ones) start later.
		s = out[0] + 1
	}
	if len(out) > 10 {
		out = out[:10]
	}
	return out
}

// spend counts n bytes searched by the matcher's fuzzy tiers, and reports whether
// that took the file past MaxFuzzyBytes: then the search stops.
func (f *file) spend(n int) bool {
	f.fuzzy += n
	return f.fuzzy > fuzzyBudget
}

// fuzzyBudget is MaxFuzzyBytes; a test makes it small.
var fuzzyBudget = MaxFuzzyBytes

// exact is what the matcher's exact tier finds of pieces as whole lines at or after
// line s: the first lines of the places that do not overlap, at most 10. It looks
// them up in an index of the file's lines, by the piece the file holds least often,
// so that a patch of many chunks costs what its lines cost and not, per chunk, the
// rest of the file.
func (f *file) exact(pieces []string, s int) []int {
	return f.exactPlaces(pieces, s, 10, false)
}

// exactPlaces is exact with a bound on the places returned, and, when overlap is
// set, every place, overlapping ones included.
func (f *file) exactPlaces(pieces []string, s, limit int, overlap bool) []int {
	if f.lines == nil {
		// Keyed by a hash: lines are compared whole below, so a collision costs a
		// comparison and nothing else.
		f.seed = maphash.MakeSeed()
		f.lines = make(map[uint64][]int32, f.nlines)
		for i := range f.nlines {
			k := maphash.Bytes(f.seed, f.line(i))
			f.lines[k] = append(f.lines[k], int32(i))
		}
	}
	key := func(p string) uint64 { return maphash.String(f.seed, p) }
	r := 0 // the rarest piece
	for j := range pieces {
		if len(f.lines[key(pieces[j])]) < len(f.lines[key(pieces[r])]) {
			r = j
		}
	}
	at := f.lines[key(pieces[r])]
	var out []int
	end := s // the next line a match may start at: they must not overlap
	first, _ := slices.BinarySearch(at, int32(s+r))
	for k := first; k < len(at) && len(out) < limit; k++ {
		i := int(at[k]) - r
		if i < end || i+len(pieces) > f.nlines {
			continue
		}
		if f.checked++; f.checked > MaxLineChecks {
			f.fuzzy = fuzzyBudget + 1 // the same refusal: the search is over its bound
			return nil
		}
		same := true
		for j := 0; j < len(pieces) && same; j++ {
			same = string(f.line(i+j)) == pieces[j]
		}
		if same {
			out = append(out, i)
			if !overlap {
				end = i + len(pieces)
			}
		}
	}
	return out
}

// line is the content of line i without its line ending, as f.text, unallocated.
func (f *file) line(i int) []byte {
	return bytes.TrimRight(f.work[f.starts[i]:f.starts[i+1]], "\r\n")
}

// notFound explains a chunk that matches nowhere after its anchors: where the file
// holds its lines after all (before the anchor, or only as part of a line), else the
// closest region the matcher names and the first of its lines that differs there.
func (f *file) notFound(hunk string, ci int, old []string, from int, eof bool) error {
	where := ""
	if from > 0 {
		where = fmt.Sprintf(" after line %d", from)
	}
	switch {
	case eof && f.unified:
		where += " at the end of the file (where `\\ No newline at end of file` puts them)"
	case eof:
		where += " at the end of the file (`*** End of File`)"
	}
	msg := fmt.Sprintf("%s: its context and removed lines were not found%s", hunk, where)
	var lines []int
	closeness := 0.0
	if first, _, ok := f.occurrence(old, 0); ok {
		lines = []int{first + 1}
		if first+len(old) <= f.nlines && sameLines(f.linesLF(first, first+len(old)), old) {
			msg += fmt.Sprintf("; they are at line %d", first+1)
			if first < from {
				msg += ", before the anchor or the previous chunk (chunks go in file order)"
			}
		} else {
			msg += fmt.Sprintf("; they appear at line %d only as part of a line (a %s's lines are whole lines)", first+1, f.unit)
		}
		msg += "."
	} else {
		msg += "."
		_, err := matcher.Apply(f.work, []matcher.Edit{{OldText: joinLines(old)}}, matcher.Options{Name: f.name})
		var r *errs.Error
		if errors.As(err, &r) && r.Kind == errs.TextNotFound && r.Where != nil && len(r.Where.Lines) == 2 {
			a, b := r.Where.Lines[0], r.Where.Lines[1]
			lines, closeness = []int{a, b}, r.Where.Closeness
			msg += " " + f.closest(a-1, b, old, "the "+f.unit)
		}
	}
	e := refusal(errs.TextNotFound, f.path, ci, lines, "%s Re-read the file and copy the %s's ' ' and '-' lines exactly from it.", msg, f.unit)
	e.Where.Closeness = closeness
	return e
}

// closest describes the region [a, b) of the file (0-based lines) that the matcher
// found closest to the chunk's old lines: where it is, and the first line, paired in
// order, that differs, as the file has it and as the chunk has it.
func (f *file) closest(a, b int, old []string, who string) string {
	region := fmt.Sprintf("line %d", a+1)
	if b > a+1 {
		region = fmt.Sprintf("lines %d-%d", a+1, b)
	}
	s := "The closest region is " + region
	// First the line that differs beyond what is forgiven (indentation, typography,
	// trailing spaces): a line that differs only so is not what kept the lines from
	// being found. Only where none does, the first that differs at all.
	for _, same := range []func(got, o string) bool{matcher.SameLoosely, func(got, o string) bool { return got == o }} {
		for k, o := range old {
			l := a + k
			if l >= b || l >= f.nlines {
				return s + fmt.Sprintf("; %s has %s there as its line %d, which the file does not have.", who, quoteLine(o), k+1)
			}
			if got := f.text(l); !same(got, o) {
				return s + fmt.Sprintf("; it first differs at line %d, where the file has %s and %s has %s.", l+1, quoteLine(got), who, quoteLine(o))
			}
		}
	}
	return s + "."
}

func quoteLine(s string) string {
	if r := []rune(s); len(r) > 120 {
		s = string(r[:117]) + "..."
	}
	return fmt.Sprintf("%q", s)
}

// render plans the change of lines [at, at+len(old)) with the matcher, run on those
// lines alone, so that context is written from the file and new lines take its
// line endings and indentation. It returns how the lines matched.
func (f *file) render(hunk string, ci, at int, old, nw []string) ([]matcher.Splice, matcher.EditReport, error) {
	base := f.starts[at]
	region := f.work[base:f.starts[at+len(old)]]
	newText := ""
	if len(nw) > 0 {
		newText = joinLines(nw)
	}
	res, err := matcher.Apply(region, []matcher.Edit{{OldText: joinLines(old), NewText: newText}}, matcher.Options{Name: f.name})
	if err != nil {
		return nil, matcher.EditReport{}, f.regionRefusal(hunk, ci, at, len(old), err)
	}
	sp := res.Splices
	for i := range sp {
		sp[i].Start += base
		sp[i].End += base
		sp[i].FirstLine += at
		sp[i].LastLine += at
	}
	// The matcher counted the region's lines; the journal keeps the file's.
	rep := res.Edits[0]
	rep.Lines = append([][2]int(nil), rep.Lines...)
	for i := range rep.Lines {
		rep.Lines[i][0] += at
		rep.Lines[i][1] += at
	}
	if rep.GutterLine > 0 {
		rep.GutterLine += at
	}
	return sp, rep, nil
}

// regionRefusal explains, from its structure, the matcher's refusal of a chunk's lines
// once they were located at [at, at+n): its kind, and the lines it names (of the
// region, so shifted by at), with the file's lines shown as they are.
func (f *file) regionRefusal(hunk string, ci, at, n int, err error) error {
	var r *errs.Error
	if !errors.As(err, &r) {
		return errs.Wrap(errs.KindOf(err), f.path, err, "%s (lines %d-%d) could not be planned: %v", hunk, at+1, at+n, err)
	}
	var lines []int
	if r.Where != nil {
		for _, l := range r.Where.Lines {
			lines = append(lines, l+at)
		}
	}
	var msg string
	switch r.Kind {
	case errs.NoChange:
		msg = fmt.Sprintf("%s (lines %d-%d) changes nothing: read as the file has those lines, its '-' and '+' lines are the same. Send only %ss that change something.", hunk, at+1, at+n, f.unit)
	case errs.TextNotFound:
		// The lines matched only with indentation ignored, and their indentation
		// contradicts the file's: where new lines go would be a guess.
		var b strings.Builder
		for l := at; l < at+n && l < at+12; l++ {
			fmt.Fprintf(&b, "\n%6d\t%s", l+1, f.text(l))
		}
		msg = fmt.Sprintf("%s matches lines %d-%d only when indentation is ignored, and its indentation contradicts the file's%s: where its '+' lines belong would be a guess. The file's lines, with their real indentation:%s\nCopy the %s's ' ' and '-' lines with this indentation.", hunk, at+1, at+n, linesNote(lines), b.String(), f.unit)
	default:
		msg = fmt.Sprintf("%s (lines %d-%d) was refused as %s%s. Re-read those lines and send the %s again.", hunk, at+1, at+n, r.Kind, linesNote(lines), f.unit)
	}
	e := refusal(r.Kind, f.path, ci, lines, "%s", msg)
	e.Err = err
	if r.Where != nil {
		e.Where.Tiers, e.Where.Closeness = r.Where.Tiers, r.Where.Closeness
	}
	return e
}

// linesNote is " (lines 3 and 5)" for the lines a refusal names, or "".
func linesNote(lines []int) string {
	switch len(lines) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf(" (line %d)", lines[0])
	case 2:
		return fmt.Sprintf(" (lines %d and %d)", lines[0], lines[1])
	}
	parts := make([]string, len(lines))
	for i, l := range lines {
		parts[i] = fmt.Sprint(l)
	}
	return " (lines " + strings.Join(parts, ", ") + ")"
}

// insertBefore inserts lines before line i (0-based, i < nlines).
func (f *file) insertBefore(i int, lines []string) matcher.Splice {
	text := strings.Join(lines, f.eol) + f.eol
	return matcher.Splice{Start: f.starts[i], End: f.starts[i], Text: []byte(text), FirstLine: i + 1, LastLine: i}
}

// appendLines adds lines at the end of the file, keeping whether it ends in a line
// break (an empty file gets them each with a line break).
func (f *file) appendLines(lines []string) matcher.Splice {
	text := strings.Join(lines, f.eol)
	switch {
	case f.nlines == 0:
		text += f.eol
	case f.addedNL:
		text = f.eol + text
	default:
		text += f.eol
	}
	end := len(f.orig)
	return matcher.Splice{Start: end, End: end, Text: []byte(text), FirstLine: f.nlines + 1, LastLine: f.nlines}
}

// finish sorts the splices, refuses overlaps and no-ops, and maps splices of the
// supplied final line break back onto the original.
func (f *file) finish(sp []matcher.Splice, name func(int) string) ([]matcher.Splice, error) {
	sort.SliceStable(sp, func(a, b int) bool {
		if sp[a].Start != sp[b].Start {
			return sp[a].Start < sp[b].Start
		}
		return sp[a].End-sp[a].Start < sp[b].End-sp[b].Start // an insertion before a replacement
	})
	for i := 1; i < len(sp); i++ {
		a, b := sp[i-1], sp[i]
		insA, insB := a.Start == a.End, b.Start == b.End
		if b.Start < a.End || (insA && insB && a.Start == b.Start) || (!insA && insB && b.Start < a.End) {
			x, y := a.Edit, b.Edit
			if x > y {
				x, y = y, x
			}
			return nil, errs.New(errs.OverlappingEdits, f.path, "%s: %s and %s change the same lines (%d-%d). Merge them into one.",
				f.name, name(x), name(y), max(b.FirstLine, 1), max(a.LastLine, b.FirstLine))
		}
	}
	if f.addedNL {
		sp = f.endAsBefore(sp)
	}
	if f.finalEOL != 0 {
		sp = f.setFinalEOL(sp)
	}
	for _, s := range sp {
		if !bytes.Equal(s.Text, f.orig[s.Start:s.End]) {
			return sp, nil
		}
	}
	return nil, errs.New(errs.NoChange, f.path, "%s: the change leaves the file as it is. Send only changes that change something.", f.name)
}

// endAsBefore maps the splices that reach into the supplied final line break, or past
// it, back onto the original, which has none: they become one splice that ends where
// the original does, and whose text, like the file, ends without a line break. Where
// the file's last lines are deleted, the line break before them goes too.
func (f *file) endAsBefore(sp []matcher.Splice) []matcher.Splice {
	n := len(f.orig)
	k := len(sp)
	for k > 0 && sp[k-1].End > n {
		k--
	}
	if k == len(sp) {
		return sp
	}
	base := min(sp[k].Start, n)
	tail := append([]byte(nil), f.work[base:sp[k].Start]...)
	at := sp[k].Start
	last := sp[k].LastLine
	for _, s := range sp[k:] {
		tail = append(tail, f.work[at:s.Start]...)
		tail = append(tail, s.Text...)
		at = s.End
		last = max(last, s.LastLine)
	}
	tail = append(tail, f.work[at:]...)
	switch {
	case bytes.HasSuffix(tail, []byte("\r\n")):
		tail = tail[:len(tail)-2]
	case bytes.HasSuffix(tail, []byte("\n")), bytes.HasSuffix(tail, []byte("\r")):
		tail = tail[:len(tail)-1]
	case len(tail) == 0 && base > f.bom:
		if k > 0 && sp[k-1].End == base {
			p := &sp[k-1]
			p.Text = bytes.TrimSuffix(bytes.TrimSuffix(p.Text, []byte("\n")), []byte("\r"))
		} else {
			base--
			if base > f.bom && f.orig[base] == '\n' && f.orig[base-1] == '\r' {
				base--
			}
		}
	}
	merged := sp[k]
	merged.Start, merged.End, merged.Text, merged.LastLine = base, n, tail, last
	return append(sp[:k], merged)
}

func joinLines(lines []string) string {
	return strings.Join(lines, "\n") + "\n"
}

func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// maxPlaces bounds the places of one hunk that its header's line chooses among.
const maxPlaces = 1000

// everyPlace lists every place at or after line from where old matches whole lines,
// overlapping ones included, at the first tier that finds any: for a header's line to
// choose among them, none may be missing. ok is false when they could not all be
// listed within the bounds.
func (f *file) everyPlace(old []string, from int) ([]int, bool) {
	if ex := f.exactPlaces(old, from, maxPlaces, true); len(ex) > 0 {
		return ex, len(ex) < maxPlaces && f.checked <= MaxLineChecks
	}
	// The fuzzy tiers: one occurrence at a time, each from the line after the last.
	var out []int
	var tier matcher.Tier
	for s, iter := from, 0; s < f.nlines; iter++ {
		if iter >= 64 {
			return nil, false
		}
		first, t, ok := f.occurrence(old, s)
		if !ok {
			break
		}
		if iter == 0 {
			tier = t
		} else if t != tier {
			break
		}
		if first+len(old) <= f.nlines && sameLines(f.linesLF(first, first+len(old)), old) {
			out = append(out, first)
		}
		s = first + 1
	}
	return out, f.fuzzy <= fuzzyBudget
}

// nearest is the place nearest to line near (both 0-based); ok is false when two are
// equally near.
func nearest(places []int, near int) (int, bool) {
	best, dist, tie := -1, -1, false
	for _, p := range places {
		d := p - near
		if d < 0 {
			d = -d
		}
		switch {
		case best < 0 || d < dist:
			best, dist, tie = p, d, false
		case d == dist:
			tie = true
		}
	}
	return best, !tie
}

// setFinalEOL makes the result of the splices end with a line break (f.finalEOL 1)
// or without one (-1), as a unified diff's `\ No newline at end of file` says: it
// extends the splice that ends the file, or adds one there.
func (f *file) setFinalEOL(sp []matcher.Splice) []matcher.Splice {
	n := len(f.orig)
	out := applyTo(f.orig, sp)
	// Whether the result ends in a line break is the file's (endAsBefore keeps its
	// absence): its own bytes cannot say it, as a last line that is empty looks like
	// a line break alone.
	if (f.finalEOL > 0) != f.addedNL || len(out) <= f.bom {
		return sp
	}
	has := eolLen(out)
	var last *matcher.Splice
	if k := len(sp); k > 0 && sp[k-1].End == n {
		last = &sp[k-1]
	}
	if f.finalEOL > 0 {
		if last != nil {
			last.Text = append(append([]byte(nil), last.Text...), f.eol...)
			return sp
		}
		return append(sp, matcher.Splice{Start: n, End: n, Text: []byte(f.eol), Edit: f.finalEdit})
	}
	switch {
	case last != nil && len(last.Text) >= has:
		last.Text = last.Text[:len(last.Text)-has]
	case last != nil && len(last.Text) == 0:
		// The line break is the file's, before the deleted lines.
		prevEnd := 0
		if k := len(sp); k > 1 {
			prevEnd = sp[k-2].End
		}
		if last.Start-has >= max(prevEnd, f.bom) {
			last.Start -= has
		}
	case last == nil:
		prevEnd := 0
		if k := len(sp); k > 0 {
			prevEnd = sp[k-1].End
		}
		if n-has >= max(prevEnd, f.bom) {
			sp = append(sp, matcher.Splice{Start: n - has, End: n, Edit: f.finalEdit})
		}
	}
	return sp
}

// applyTo writes sorted, disjoint splices onto b.
func applyTo(b []byte, sp []matcher.Splice) []byte {
	var out []byte
	at := 0
	for _, s := range sp {
		out = append(append(out, b[at:s.Start]...), s.Text...)
		at = s.End
	}
	return append(out, b[at:]...)
}

// eolLen is the length of the line break that ends b: 0, 1 or 2 (CRLF).
func eolLen(b []byte) int {
	switch {
	case bytes.HasSuffix(b, []byte("\r\n")):
		return 2
	case bytes.HasSuffix(b, []byte("\n")), bytes.HasSuffix(b, []byte("\r")):
		return 1
	}
	return 0
}

package dialect

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/lazy"
	"github.com/vfsctl/vfsctl/matcher"
)

// Block is one SEARCH/REPLACE block.
type Block struct {
	// Search and Replace are whole lines, each ended by "\n"; "" when the section
	// is empty.
	Search, Replace string
	// StartLine is Roo Code's `:start_line:N` hint (1-based), or 0.
	StartLine int
	Line      int // 1-based line of the block's SEARCH marker in the diff
}

// The markers as Cline's parser tolerates them: three or more of the marker
// character, one space, the word, an optional '>'. Trailing whitespace is ignored.
var (
	searchMarker  = lazy.Regexp(`^(?:-{3,}|<{3,}) SEARCH>?$`)
	dividerMarker = lazy.Regexp(`^={3,}$`)
	replaceMarker = lazy.Regexp(`^(?:\+{3,}|>{3,}) REPLACE>?$`)
	dashLine      = lazy.Regexp(`^-{3,}$`)
	startLineHint = lazy.Regexp(`^:start_line:\s*(\d+)$`)
	endLineHint   = lazy.Regexp(`^:end_line:\s*(\d+)$`)
)

// StartLineWindow is how far from a `:start_line:` hint a match may start and still
// be picked by it.
const StartLineWindow = 20

// ParseSearchReplace reads the diff of replace_in_file (Cline) or apply_diff (Roo
// Code): one or more blocks
//
//	------- SEARCH          (or <<<<<<< SEARCH)
//	lines to find
//	=======
//	lines to put instead
//	+++++++ REPLACE         (or >>>>>>> REPLACE)
//
// Accepted: marker runs of 3 or more characters and a trailing '>' (as Cline's
// parser), trailing whitespace on markers, CRLF, blank lines and code fences
// (```) between blocks, Aider's line naming the file before a block (or its fence)
// when it names path, and Roo's `:start_line:N` (and `:end_line:N`, ignored) at the
// start of SEARCH, optionally followed by a `-------` line. Anything else outside a
// block is refused; a line naming another file says that one call edits one file.
func ParseSearchReplace(diff, path string) ([]Block, error) {
	p := &srParser{path: path, lines: splitPatch(diff)}
	for i, raw := range p.lines {
		var err error
		switch p.state {
		case srOutside:
			err = p.outside(i, raw)
		case srSearch:
			err = p.search(i, raw)
		case srReplace:
			err = p.replace(i, raw)
		}
		if err != nil {
			return nil, err
		}
	}
	return p.end()
}

// The states of a SEARCH/REPLACE parse: between blocks, in a SEARCH section, in a
// REPLACE section.
const (
	srOutside = iota
	srSearch
	srReplace
)

// srParser reads SEARCH/REPLACE blocks one line at a time.
type srParser struct {
	path      string
	lines     []string
	state     int
	blocks    []Block
	cur       Block    // the block being read
	body      []string // the lines of its current section
	hintsDone bool     // Roo's :start_line: hints are behind
}

// outside reads line i between blocks: a SEARCH marker, a blank line or a fence, or
// Aider's line naming the file.
func (p *srParser) outside(i int, raw string) error {
	line, t := strings.TrimRight(raw, " \t"), strings.TrimSpace(raw)
	switch {
	case searchMarker().MatchString(line):
		p.cur, p.body, p.hintsDone = Block{Line: i + 1}, nil, false
		p.state = srSearch
	case t == "" || strings.HasPrefix(t, "```"):
	case namesFile(t) && blockFollows(p.lines[i+1:]):
		if !samePath(t, p.path) {
			return errs.New(errs.InvalidInput, "", "replace_in_file diff line %d names %s, but this call edits %s: replace_in_file edits one file a call. Send the blocks of %s in a call of their own, with its path.", i+1, t, p.path, t)
		}
	default:
		return srFail(i, raw, "a '------- SEARCH' (or '<<<<<<< SEARCH') line to start a block")
	}
	return nil
}

// search reads line i of a SEARCH section: Roo's hints first, then lines up to the
// divider.
func (p *srParser) search(i int, raw string) error {
	line := strings.TrimRight(raw, " \t")
	if !p.hintsDone && len(p.body) == 0 {
		if hint, err := p.hint(i, raw, line); hint || err != nil {
			return err
		}
	}
	switch {
	case dividerMarker().MatchString(line):
		p.cur.Search = joinBody(p.body)
		p.body = nil
		p.state = srReplace
	case searchMarker().MatchString(line) || replaceMarker().MatchString(line):
		return srFail(i, raw, fmt.Sprintf("'=======' to end the SEARCH section of the block at line %d", p.cur.Line))
	default:
		p.body = append(p.body, raw)
	}
	return nil
}

// hint reads Roo's :start_line:N, :end_line:N and the '-------' line after them at
// the start of a SEARCH section; it reports whether line i was one.
func (p *srParser) hint(i int, raw, line string) (bool, error) {
	t := strings.TrimSpace(raw)
	if m := startLineHint().FindStringSubmatch(t); m != nil {
		n, err := strconv.Atoi(m[1])
		if err != nil || n < 1 {
			return true, srFail(i, raw, "a line number of 1 or more after :start_line:")
		}
		p.cur.StartLine = n
		return true, nil
	}
	if endLineHint().MatchString(t) {
		return true, nil
	}
	p.hintsDone = true
	return p.cur.StartLine > 0 && dashLine().MatchString(line), nil
}

// replace reads line i of a REPLACE section, up to the REPLACE marker.
func (p *srParser) replace(i int, raw string) error {
	line := strings.TrimRight(raw, " \t")
	switch {
	case replaceMarker().MatchString(line):
		p.cur.Replace = joinBody(p.body)
		p.blocks = append(p.blocks, p.cur)
		p.state = srOutside
	case searchMarker().MatchString(line):
		return srFail(i, raw, fmt.Sprintf("'+++++++ REPLACE' (or '>>>>>>> REPLACE') to end the block at line %d", p.cur.Line))
	default:
		p.body = append(p.body, raw)
	}
	return nil
}

// end refuses a diff that stops inside a block or holds none.
func (p *srParser) end() ([]Block, error) {
	switch p.state {
	case srSearch:
		return nil, srFail(len(p.lines), "", fmt.Sprintf("'=======' to end the SEARCH section of the block at line %d", p.cur.Line))
	case srReplace:
		return nil, srFail(len(p.lines), "", fmt.Sprintf("'+++++++ REPLACE' (or '>>>>>>> REPLACE') to end the block at line %d", p.cur.Line))
	}
	if len(p.blocks) == 0 {
		return nil, errs.New(errs.InvalidInput, "", "replace_in_file: the diff holds no SEARCH/REPLACE block. Send '------- SEARCH', the lines to find, '=======', the new lines, '+++++++ REPLACE'.")
	}
	return p.blocks, nil
}

// namesFile reports whether t could be Aider's line naming a file: one word, with a
// dot or a slash in it.
func namesFile(t string) bool {
	return !strings.ContainsAny(t, " \t") && strings.ContainsAny(t, "./") && !strings.HasPrefix(t, "```")
}

// blockFollows reports whether the next line that is not blank starts a block or its
// fence.
func blockFollows(rest []string) bool {
	for _, raw := range rest {
		t := strings.TrimSpace(raw)
		if t == "" {
			continue
		}
		return strings.HasPrefix(t, "```") || searchMarker().MatchString(strings.TrimRight(raw, " \t"))
	}
	return false
}

// samePath reports whether name, as a model wrote it before a block, is path: the
// same, or one of them a trailing part of the other ("clone.go" for "strings/clone.go").
func samePath(name, path string) bool {
	name, path = strings.TrimPrefix(name, "./"), strings.TrimPrefix(path, "./")
	return name == path || strings.HasSuffix(path, "/"+name) || strings.HasSuffix(name, "/"+path)
}

func joinBody(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

func srFail(i int, raw, expected string) error {
	got := "the end of the diff"
	if raw != "" || i < 0 {
		got = fmt.Sprintf("%q", raw)
	}
	return errs.New(errs.InvalidInput, "", "replace_in_file diff line %d: expected %s, got %s.", i+1, expected, got)
}

// LocateBlocks places every block in content, each against the ORIGINAL (not after
// the blocks before it), all or nothing, through the matcher's tiers, and returns
// the splices, sorted by Start; Splice.Edit is the block's index.
//
// A block that matches several places is refused unless its `:start_line:` picks
// one: the match starting at that line, else the one starting nearest to it within
// StartLineWindow lines; two equally near, or none within the window, is still
// refused. An empty SEARCH fills the file only when it is empty.
func LocateBlocks(path string, content []byte, blocks []Block) ([]matcher.Splice, error) {
	f, err := newFile(path, content)
	if err != nil {
		return nil, err
	}
	if len(blocks) == 0 {
		return nil, errs.New(errs.InvalidInput, path, "replace_in_file: no blocks were sent for %s.", f.name)
	}
	var out []matcher.Splice
	for bi, b := range blocks {
		hunk := fmt.Sprintf("%s block %d", f.name, bi+1)
		if b.Search == "" {
			if len(blocks) > 1 || len(content) > f.bom {
				return nil, errs.New(errs.InvalidInput, path, "%s has an empty SEARCH section, which would replace all of %s. Copy the lines to change into SEARCH; to replace the whole file, use write_file.", hunk, f.name)
			}
			if b.Replace == "" {
				return nil, errs.New(errs.NoChange, path, "%s changes nothing: SEARCH and REPLACE are both empty.", hunk)
			}
			out = append(out, matcher.Splice{Edit: bi, Start: f.bom, End: f.bom, Text: []byte(b.Replace), FirstLine: 1})
			continue
		}
		if b.Search == b.Replace {
			return nil, errs.New(errs.NoChange, path, "%s changes nothing: its SEARCH and REPLACE sections are identical. Send only blocks that change something.", hunk)
		}
		edit := matcher.Edit{OldText: b.Search, NewText: b.Replace}
		res, err := matcher.Apply(f.work, []matcher.Edit{edit}, matcher.Options{Name: f.name})
		if err != nil && errs.KindOf(err) == errs.MultipleMatches {
			res, err = f.pickByHint(hunk, bi, b, edit)
		} else if err != nil {
			err = f.chained(hunk, bi, out, b.Search, err)
		}
		if err != nil {
			return nil, err
		}
		for _, s := range res.Splices {
			s.Edit = bi
			out = append(out, s)
		}
	}
	return f.finish(out, func(i int) string { return fmt.Sprintf("block %d", i+1) })
}

// chained explains block bi's refusal err: when its SEARCH section is missing only
// because the earlier blocks (placed as out) are not applied first, as Cline applies
// them, it says so; otherwise blockRefusal explains it.
func (f *file) chained(hunk string, bi int, out []matcher.Splice, search string, err error) error {
	if errs.KindOf(err) != errs.TextNotFound {
		return f.blockRefusal(hunk, bi, 0, search, err)
	}
	blocks, lines := matcher.Chained(f.work, out, search)
	if blocks == nil {
		return f.blockRefusal(hunk, bi, 0, search, err)
	}
	by := make([]string, len(blocks))
	for k, b := range blocks {
		by[k] = fmt.Sprintf("block %d", b+1)
	}
	e := refusal(errs.TextNotFound, f.path, bi, lines, "%s: its SEARCH section was not found in %s: %s", hunk, f.name,
		matcher.ChainedAdvice(fmt.Sprintf("block %d", bi+1), "SEARCH", "block", by))
	e.Err = err
	var r *errs.Error
	if errors.As(err, &r) && r.Where != nil {
		e.Where.Tiers = r.Where.Tiers
	}
	return e
}

// pickByHint resolves a block that matches several places with its :start_line:.
func (f *file) pickByHint(hunk string, bi int, b Block, edit matcher.Edit) (*matcher.Result, error) {
	all := edit
	all.ReplaceAll = true
	res, err := matcher.Apply(f.work, []matcher.Edit{all}, matcher.Options{Name: f.name})
	if err != nil {
		return nil, f.blockRefusal(hunk, bi, 0, b.Search, err)
	}
	occ := res.Edits[0].Lines
	starts := make([]string, len(occ))
	for i, o := range occ {
		starts[i] = strconv.Itoa(o[0])
	}
	list := strings.Join(starts, ", ")
	if b.StartLine == 0 {
		return nil, errs.New(errs.MultipleMatches, f.path, "%s: its SEARCH section matches %d places in %s (lines %s). Add surrounding lines to SEARCH so that it matches one place, or give :start_line:N.", hunk, len(occ), f.name, list)
	}
	best, bestDist, tie := -1, StartLineWindow+1, false
	for i, o := range occ {
		d := o[0] - b.StartLine
		if d < 0 {
			d = -d
		}
		if d < bestDist {
			best, bestDist, tie = i, d, false
		} else if d == bestDist {
			tie = true
		}
	}
	if best < 0 || tie {
		why := fmt.Sprintf("none starts within %d lines of it", StartLineWindow)
		if tie {
			why = "two start equally near it"
		}
		return nil, errs.New(errs.MultipleMatches, f.path, "%s: its SEARCH section matches %d places in %s (lines %s) and its :start_line:%d does not pick one: %s. Add surrounding lines to SEARCH, or give the line where the match starts.", hunk, len(occ), f.name, list, b.StartLine, why)
	}
	o := occ[best]
	base := f.starts[o[0]-1]
	region := f.work[base:f.starts[o[1]]]
	r, err := matcher.Apply(region, []matcher.Edit{edit}, matcher.Options{Name: f.name})
	if err != nil {
		return nil, f.blockRefusal(hunk, bi, o[0]-1, b.Search, err)
	}
	for i := range r.Splices {
		r.Splices[i].Start += base
		r.Splices[i].End += base
		r.Splices[i].FirstLine += o[0] - 1
		r.Splices[i].LastLine += o[0] - 1
	}
	return r, nil
}

// blockRefusal explains, from its structure, the matcher's refusal of a block's SEARCH
// section run from line base (0-based): its kind and the lines it names.
func (f *file) blockRefusal(hunk string, bi, base int, search string, err error) error {
	var r *errs.Error
	if !errors.As(err, &r) {
		return errs.Wrap(errs.KindOf(err), f.path, err, "%s could not be planned: %v", hunk, err)
	}
	var lines []int
	if r.Where != nil {
		for _, l := range r.Where.Lines {
			lines = append(lines, l+base)
		}
	}
	var msg string
	switch r.Kind {
	case errs.TextNotFound:
		msg = fmt.Sprintf("%s: its SEARCH section was not found in %s.", hunk, f.name)
		if len(lines) == 2 {
			old := strings.Split(strings.TrimSuffix(strings.ReplaceAll(search, "\r\n", "\n"), "\n"), "\n")
			msg += " " + f.closest(lines[0]-1, lines[1], old, "SEARCH")
		}
		msg += " Re-read the file and copy SEARCH exactly from it."
	case errs.NoChange:
		msg = fmt.Sprintf("%s changes nothing: read as the file has those lines, SEARCH and REPLACE are the same. Send only blocks that change something.", hunk)
	default:
		msg = fmt.Sprintf("%s was refused as %s%s. Re-read those lines and send the block again.", hunk, r.Kind, linesNote(lines))
	}
	e := refusal(r.Kind, f.path, bi, lines, "%s", msg)
	e.Err = err
	if r.Where != nil {
		e.Where.Tiers, e.Where.Closeness = r.Where.Tiers, r.Where.Closeness
	}
	return e
}

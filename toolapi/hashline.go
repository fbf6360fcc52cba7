package toolapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"slices"
	"strconv"
	"strings"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/lazy"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/txn"
)

// Anchored line edits (tool set "hashline"). read_file with anchors shows each line
// as "N:hh|text", hh two lowercase hex digits of the line's hash (lineHash), and
// edit_lines names lines by those anchors. The anchors of a call name lines of one
// version the session was shown: the journal keeps that version (txn.Call.ShowedAnchors),
// so when the file changed since (the session's own edits, another session's, an
// outside write) each anchored line is found where it is now by a line diff of that
// version against the current content. A line that the diff says changed is a
// conflict; nothing is ever placed by line number alone.

// EditLines is the tool name of anchored line edits.
const EditLines = "edit_lines"

const setHashline = "hashline"

// Operations of edit_lines.
const (
	opReplace      = "replace"
	opInsertBefore = "insert_before"
	opInsertAfter  = "insert_after"
	opDelete       = "delete"
)

// lineHash is a line's anchor hash: the low byte of the CRC-32 (IEEE) of the line's
// bytes as the file has them, without its line ending (trailing whitespace included,
// a BOM not), as two lowercase hex digits. It only has to catch a line number that
// points at another line than the model thinks; the journal, not the hash, says
// whether a line changed.
func lineHash(line []byte) string {
	return fmt.Sprintf("%02x", crc32.ChecksumIEEE(line)&0xff)
}

// anchorOf is line n's anchor: "12:a3".
func anchorOf(n int, line []byte) string { return fmt.Sprintf("%d:%s", n, lineHash(line)) }

var hashlineReadFileDef = &toolDef{
	name: ReadFile,
	desc: "Read a text file of the workspace. Each line comes back as N:hh|text: N the line number, hh two hex digits of a hash of the line (the low byte of CRC-32 of its bytes, without the line ending), then | and the line. " +
		"N:hh is the line's anchor: edit_lines names lines by it. Reads up to 2000 lines from offset (1-based; a negative offset reads the last lines, -20 the last 20); the reply says how to read on. write_file may replace a file only after its whole current content was read.",
	args: objectDef{fields: []argDef{
		pathArg("File path, relative to the workspace root (an absolute path inside the root also works)."),
		{name: "offset", typ: tInteger, signed: true, def: 1, desc: "First line to read, 1-based (0 reads from the first line too); negative counts from the end, as tail does: -20 reads the last 20 lines."},
		{name: "limit", typ: tInteger, min: 1, def: DefaultReadLimit, desc: "Most lines to read."},
		anchorsArg(true),
	}},
	shape: `{"path": "src/app.ts"}`,
	op:    journal.OpRead,
	sets:  []string{setHashline},
	run:   (*dispatcher).read,
}

// anchorsArg is read_file's anchors flag: on by default in the hashline set.
func anchorsArg(def bool) argDef {
	return argDef{name: "anchors", typ: tBoolean, def: def,
		desc: "Show each line as N:hh|text, its anchor for edit_lines (hh: two hex digits of the CRC-32 of the line)."}
}

// lineEditItem is one edit of edit_lines.
var lineEditItem = &objectDef{
	fields: []argDef{
		{name: "op", typ: tString, required: true, enum: []string{opReplace, opInsertBefore, opInsertAfter, opDelete}, missing: "replace, insert_before, insert_after or delete",
			desc: "replace: lines start..end become lines; insert_before / insert_after: lines go before / after start; delete: lines start..end are removed."},
		{name: "start", typ: tString, required: true, min: 1, missing: `the anchor of the first line, e.g. "12:a3"`,
			desc: "Anchor N:hh of the first line, as read_file showed it."},
		{name: "end", typ: tString, desc: "Anchor of the last line of a replace or delete (inclusive); left out: start alone."},
		{name: "lines", typ: tArray, elem: tString, maxItems: maxLinesPerEdit,
			empty: `To remove lines, send {"op": "delete", "start": ..., "end": ...} without lines; to replace or insert, send at least one line.`, desc: "The new lines, without line endings or anchors (written in the file's line ending)."},
	},
	build: func(v values) any {
		return lineEdit{op: v.str("op"), start: v.str("start"), end: v.str("end"), lines: v.strs("lines"), sentLines: v.sent("lines")}
	},
}

// maxLinesPerEdit bounds the lines one edit of edit_lines adds.
const maxLinesPerEdit = 100000

var editLinesDef = &toolDef{
	name: EditLines,
	desc: "Edit a text file by line anchors. Each edit names lines by the anchors N:hh that read_file showed (\"12:a3\"): replace lines start..end with lines, insert lines before or after start, or delete lines start..end. " +
		"All edits of a call name lines of the file as one read showed it and must not overlap; they are applied together or not at all. " +
		"If the file changed since that read (your own edits, someone else's), each anchored line is found where it is now; a line that changed since is refused as a conflict naming its current anchor. " +
		"New lines are written in the file's line ending; the reply shows the edited region with fresh anchors for the next call.",
	args: objectDef{fields: []argDef{
		pathArg("File path, relative to the workspace root."),
		{name: "edits", typ: tArray, required: true, min: 1, items: lineEditItem, loose: true, maxItems: maxEdits,
			desc: "The edits, each naming lines of the same read."},
	}, lone: "edits"},
	shape: `{"path": "src/app.ts", "edits": [{"op": "replace", "start": "12:a3", "end": "14:0f", "lines": ["new line"]}]}`,
	op:    journal.OpEdit,
	needs: needs{write: true},
	sets:  []string{setHashline},
	run:   (*dispatcher).editLines,
}

// lineEdit is one decoded edit of edit_lines.
type lineEdit struct {
	op, start, end string
	lines          []string
	sentLines      bool
}

// anchor is a parsed N:hh; line is 1-based.
type anchor struct {
	line int
	hash string
	text string // as sent, for messages
}

// anchorRe is N:hh, optionally followed by the |text a model copied with it.
var anchorRe = lazy.Regexp(`^\s*(\d+)\s*:\s*([0-9A-Fa-f]{2})\s*(?:\|.*)?$`)

func parseAnchor(s, where string) (anchor, error) {
	m := anchorRe().FindStringSubmatch(s)
	if m == nil {
		return anchor{}, errs.New(errs.InvalidInput, "", "%s %q is not an anchor. Send the line's anchor as read_file (anchors) shows it before the |: N:hh, e.g. \"12:a3\".", where, s)
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n < 1 {
		return anchor{}, errs.New(errs.InvalidInput, "", "%s %q names line %s; lines are numbered from 1.", where, s, m[1])
	}
	return anchor{line: n, hash: strings.ToLower(m[2]), text: m[1] + ":" + strings.ToLower(m[2])}, nil
}

// lineOp is one edit in lines of the version read: [from, to] (1-based, inclusive)
// for replace and delete, the anchor line for the inserts.
type lineOp struct {
	op       string
	from, to anchor
	lines    []string
	breaks   int  // entries of lines whose own line break was dropped
	anchors  bool // pasted anchors were stripped from lines
}

// parseLineEdits checks each edit's shape and parses its anchors.
func parseLineEdits(edits []lineEdit) ([]lineOp, error) {
	ops := make([]lineOp, len(edits))
	for i, e := range edits {
		where := fmt.Sprintf("edits[%d]", i)
		from, err := parseAnchor(e.start, where+".start")
		if err != nil {
			return nil, err
		}
		to := from
		insert := e.op == opInsertBefore || e.op == opInsertAfter
		if e.end != "" {
			if insert {
				return nil, errs.New(errs.InvalidInput, "", "%s is %s, which takes start alone: leave out end (%s), or use replace for a range.", where, e.op, e.end)
			}
			if to, err = parseAnchor(e.end, where+".end"); err != nil {
				return nil, err
			}
			if to.line < from.line {
				return nil, errs.New(errs.InvalidInput, "", "%s.end %s is before its start %s: send the first line as start and the last as end.", where, to.text, from.text)
			}
		}
		switch {
		case e.op == opDelete && e.sentLines:
			return nil, errs.New(errs.InvalidInput, "", "%s is delete, which takes no lines: leave out lines, or use replace to put lines in their place.", where)
		case e.op != opDelete && !e.sentLines:
			return nil, errs.New(errs.InvalidInput, "", "%s is %s and needs lines: the new lines as an array of strings, e.g. [\"x := 1\"]. To remove lines, use delete.", where, e.op)
		}
		lines, breaks, anchors, err := sentLines(where+".lines", e.lines)
		if err != nil {
			return nil, err
		}
		ops[i] = lineOp{op: e.op, from: from, to: to, lines: lines, breaks: breaks, anchors: anchors}
	}
	return ops, nil
}

// sentLines turns an edit's lines as sent into the lines to write. Models send lines
// as readlines() gives them, with their break, and copy read_file's anchors with them;
// neither is text they meant:
//   - one line break (LF, CRLF or CR) that ends an entry is the entry's own end and is
//     dropped: "x\n" is the line x, "\n" alone one empty line. A break inside an entry
//     splits it (a block sent as one string);
//   - anchors "N:hh|" before the lines are stripped when every line carries one, the
//     numbers count up by one and each hash is that of the text behind it, as edit_file
//     strips a pasted read_file gutter. The hash keeps a line that really begins with
//     such text as written. Where only some lines carry a fitting anchor, the others
//     none or one that does not fit, which text is meant cannot be told: refused.
//
// breaks counts the entries whose ending was dropped; anchors says whether anchors
// were stripped.
func sentLines(where string, sent []string) (lines []string, breaks int, anchors bool, err error) {
	var entry []int // the entry of lines each line came from
	for i, l := range sent {
		if t := cutBreak(l); t != l {
			l, breaks = t, breaks+1
		}
		l = strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(l)
		for _, x := range strings.Split(l, "\n") {
			lines = append(lines, x)
			entry = append(entry, i)
		}
	}
	fits := -1 // a line whose anchor fits its text
	for k, l := range lines {
		if _, _, shaped, fit := pastedAnchor(l); shaped && fit {
			fits = k
			break
		}
	}
	if fits < 0 {
		return lines, breaks, false, nil
	}
	refuse := func(why string, a ...any) error {
		var plain []string
		for _, l := range lines {
			_, rest, shaped, _ := pastedAnchor(l)
			if !shaped {
				rest = l
			}
			plain = append(plain, rest)
		}
		send := "the lines without the N:hh| before them"
		var j bytes.Buffer
		enc := json.NewEncoder(&j)
		enc.SetEscapeHTML(false) // code has < and &; show them as they are
		if enc.Encode(plain) == nil && j.Len() <= 300 {
			send = strings.TrimSpace(j.String())
		}
		return errs.New(errs.InvalidInput, "", "%s. Lines pasted from read_file lose their anchors only when every line has one, numbered one after another, each the anchor of the text after it; here which text is meant cannot be told. Send the lines as text alone, without anchors: %s.",
			fmt.Sprintf(why, a...), send)
	}
	name := func(k int) string { return fmt.Sprintf("%s[%d]", where, entry[k]) }
	out := make([]string, len(lines))
	prev := 0
	for k, l := range lines {
		n, rest, shaped, fit := pastedAnchor(l)
		switch {
		case !shaped:
			return nil, 0, false, refuse("%s %s has no anchor, while %s has one", name(k), quoteShort(l), name(fits))
		case !fit:
			m := l[:strings.IndexByte(l, '|')]
			return nil, 0, false, refuse("%s %s begins with %s, which is not the anchor of the text after it (that would be %s), while %s carries the anchor of its text",
				name(k), quoteShort(l), m, anchorOf(n, []byte(rest)), name(fits))
		case k > 0 && n != prev+1:
			return nil, 0, false, refuse("%s is numbered %d after %d: pasted anchors count up by one", name(k), n, prev)
		}
		prev, out[k] = n, rest
	}
	return out, breaks, true, nil
}

// cutBreak drops the one line break (CRLF, LF or CR) that ends s.
func cutBreak(s string) string {
	if t, ok := strings.CutSuffix(s, "\r\n"); ok {
		return t
	}
	if n := len(s); n > 0 && (s[n-1] == '\n' || s[n-1] == '\r') {
		return s[:n-1]
	}
	return s
}

// pastedAnchorRe is an anchor as read_file shows it before a line: "12:a3|".
var pastedAnchorRe = lazy.Regexp(`^([0-9]{1,9}):([0-9a-f]{2})\|`)

// pastedAnchor reads the anchor s begins with: its number, the text after it, whether
// s has that shape, and whether the hash is the text's.
func pastedAnchor(s string) (n int, rest string, shaped, fit bool) {
	m := pastedAnchorRe().FindStringSubmatch(s)
	if m == nil {
		return 0, "", false, false
	}
	n, _ = strconv.Atoi(m[1])
	rest = s[len(m[0]):]
	return n, rest, true, lineHash([]byte(rest)) == m[2]
}

// overlapping refuses edits that touch the same line, or insert at the same place:
// each edit is placed against the version read, so their order cannot decide.
func overlapping(ops []lineOp) error {
	// In half-lines: line n is 2n, the gap before it 2n-1, after it 2n+1.
	span := func(o lineOp) (int, int) {
		switch o.op {
		case opInsertBefore:
			return 2*o.from.line - 1, 2*o.from.line - 1
		case opInsertAfter:
			return 2*o.from.line + 1, 2*o.from.line + 1
		}
		return 2 * o.from.line, 2 * o.to.line
	}
	for i := range ops {
		a1, a2 := span(ops[i])
		for k := range i {
			b1, b2 := span(ops[k])
			if a1 <= b2 && b1 <= a2 {
				return errs.New(errs.OverlappingEdits, "", "edits[%d] and edits[%d] touch the same lines (%s and %s). Each edit is placed against the file as read, so they must not overlap: merge them into one edit.",
					k, i, describeOp(ops[k]), describeOp(ops[i]))
			}
		}
	}
	return nil
}

func describeOp(o lineOp) string {
	switch {
	case o.op == opInsertBefore || o.op == opInsertAfter:
		return strings.ReplaceAll(o.op, "_", " ") + " " + o.from.text
	case o.from.line == o.to.line:
		return o.op + " " + o.from.text
	}
	return o.op + " " + o.from.text + ".." + o.to.text
}

// fileLines are the lines of a content: text, line ending ("" for a last line without
// one), start offset. A BOM is not part of the first line.
type fileLines struct {
	text   []string
	ends   []string
	starts []int
	size   int
}

func splitFile(content []byte) fileLines {
	starts, ends := lineBounds(content)
	f := fileLines{starts: starts, ends: ends, size: len(content)}
	for _, s := range starts {
		f.text = append(f.text, string(content[s:s+lineLen(content[s:])]))
	}
	return f
}

// startOf is the offset of line k (0-based); the end of the content past the last.
func (f fileLines) startOf(k int) int {
	if k < len(f.starts) {
		return f.starts[k]
	}
	return f.size
}

// eolNear is the line ending new lines at line k (0-based) take: k's own, else the
// line before's, else the line after's, else LF.
func (f fileLines) eolNear(k int) string {
	for _, j := range []int{k, k - 1, k + 1, len(f.ends) - 2} {
		if j >= 0 && j < len(f.ends) && f.ends[j] != "" {
			return f.ends[j]
		}
	}
	return "\n"
}

// anchorIn reports whether an anchor names a line the session was shown in version v,
// and whether its hash matches that line.
func anchorIn(a anchor, v txn.AnchoredVersion, lines fileLines) (seen, match bool) {
	for _, s := range v.Spans {
		if a.line >= s[0] && a.line <= s[1] && a.line <= len(lines.text) {
			return true, lineHash([]byte(lines.text[a.line-1])) == a.hash
		}
	}
	return false, false
}

// fittingVersions finds the versions the session was shown in which every anchor
// names a line it saw, by its hash, newest first; none refuses naming the first anchor
// at fault.
func fittingVersions(p string, ops []lineOp, versions []txn.AnchoredVersion) ([]int, error) {
	if len(versions) == 0 {
		return nil, errs.New(errs.NotRead, p, "%s has not been read with anchors in this session. Call read_file on it (with anchors: true outside the hashline set) and send the anchors it shows.", p)
	}
	split := make([]fileLines, len(versions))
	for i, v := range versions {
		split[i] = splitFile(v.Data)
	}
	type named struct {
		a     anchor
		where string
	}
	var all []named
	for i, o := range ops {
		all = append(all, named{o.from, fmt.Sprintf("edits[%d].start", i)})
		if o.to.text != o.from.text {
			all = append(all, named{o.to, fmt.Sprintf("edits[%d].end", i)})
		}
	}
	// A range names every line between its anchors: they must all have been seen.
	rangesSeen := func(v int) bool {
		for _, o := range ops {
			if !rangeIn(o.from.line, o.to.line, versions[v].Spans, len(split[v].text)) {
				return false
			}
		}
		return true
	}
	var fit []int
	for v := range versions {
		ok := rangesSeen(v)
		for _, x := range all {
			_, match := anchorIn(x.a, versions[v], split[v])
			ok = ok && match
		}
		if ok {
			fit = append(fit, v)
		}
	}
	if len(fit) > 0 {
		return fit, nil
	}
	for _, x := range all {
		fits, sawLine := false, -1
		for v := range versions {
			seen, match := anchorIn(x.a, versions[v], split[v])
			fits = fits || match
			if seen && sawLine < 0 {
				sawLine = v
			}
		}
		switch {
		case sawLine < 0:
			return nil, errs.New(errs.NotRead, p, "%s %s names line %d of %s, which this session has not been shown with anchors (it saw %s of the version it read last). Read that line first (read_file with offset), then send its anchor.",
				x.where, x.a.text, x.a.line, p, spansText(versions[0].Spans, len(split[0].text)))
		case !fits:
			real := split[sawLine].text[x.a.line-1]
			return nil, errs.New(errs.InvalidInput, p, "%s %s does not match line %d of %s as this session read it: that line's anchor is %s (%s). Send %s if you meant that line; else read the file again for the anchors of the lines you mean.",
				x.where, x.a.text, x.a.line, p, anchorOf(x.a.line, []byte(real)), quoteShort(real), anchorOf(x.a.line, []byte(real)))
		}
	}
	for _, o := range ops {
		found := false
		for v := range versions {
			found = found || rangeIn(o.from.line, o.to.line, versions[v].Spans, len(split[v].text))
		}
		if !found {
			return nil, errs.New(errs.NotRead, p, "the range %s..%s of %s includes lines this session has not been shown with anchors (it saw %s of the version it read last). Read them first (read_file with offset), then send the edit.", o.from.text, o.to.text, p, spansText(versions[0].Spans, len(split[0].text)))
		}
	}
	return nil, errs.New(errs.InvalidInput, p, "the anchors of this call come from different reads of %s (the file changed between them). Send anchors of one read: read_file %s again and use the anchors it shows.", p, p)
}

// rangeIn reports whether lines from..to (1-based) of a version of total lines were
// all shown; spans are merged, so one of them holds the whole range.
func rangeIn(from, to int, spans [][2]int, total int) bool {
	if to > total {
		return false
	}
	for _, s := range spans {
		if from >= s[0] && to <= s[1] {
			return true
		}
	}
	return false
}

func spansText(spans [][2]int, total int) string {
	var s []string
	for _, sp := range spans {
		s = append(s, lineRange(sp[0], sp[1]))
	}
	return fmt.Sprintf("%s of %d", strings.Join(s, ", "), total)
}

// cutLine shortens a line quoted in a message to MaxLineChars characters.
func cutLine(s string) string {
	if r := []rune(s); len(r) > MaxLineChars {
		return string(r[:MaxLineChars]) + "..."
	}
	return s
}

func quoteShort(s string) string {
	if r := []rune(s); len(r) > 80 {
		s = string(r[:77]) + "..."
	}
	return strconv.Quote(s)
}

// lineMap maps the lines of the version read to the current content: to[i] is the
// current index (0-based) of line i of the version read, or -1 when it changed or is
// gone; took[i] is the current index of the line that took its place, or -1.
type lineMap struct {
	to, took []int
}

func mapLines(read, now []string) lineMap {
	m := lineMap{to: make([]int, len(read)), took: make([]int, len(read))}
	if slices.Equal(read, now) {
		for i := range read {
			m.to[i], m.took[i] = i, i
		}
		return m
	}
	i, j := 0, 0
	keep := func(i2 int) {
		for ; i < i2; i, j = i+1, j+1 {
			m.to[i], m.took[i] = j, j
		}
	}
	for _, c := range matcher.ChangedLines(read, now) {
		keep(c.A1)
		for k := c.A1; k < c.A2; k++ {
			m.to[k], m.took[k] = -1, -1
			if c.B1+(k-c.A1) < c.B2 {
				m.took[k] = c.B1 + (k - c.A1)
			}
		}
		i, j = c.A2, c.B2
	}
	keep(len(read))
	return m
}

// placeThrough places the edits from each version their anchors fit, newest first.
// Two reads of a file may both fit (a line unchanged between them, or two lines whose
// hashes agree by chance): they must place every edit alike, else the call is refused
// rather than edit a line the model may not mean.
func placeThrough(p string, ops []lineOp, versions []txn.AnchoredVersion, fit []int, now fileLines) ([]placed, error) {
	var first []placed
	var firstErr error
	for k, v := range fit {
		eds, err := placeOps(p, ops, splitFile(versions[v].Data), now)
		if k == 0 {
			first, firstErr = eds, err
			continue
		}
		if (err == nil) != (firstErr == nil) || err == nil && !slices.EqualFunc(eds, first, func(x, y placed) bool { return x.from == y.from && x.to == y.to }) {
			return nil, errs.New(errs.InvalidInput, p, "the anchors of this call fit two reads of %s that place them on different lines now. Read %s again (read_file) and send the anchors it shows.", p, p)
		}
	}
	return first, firstErr
}

// placed is an edit placed on the current content: lines [from, to] (0-based,
// inclusive) replaced or deleted, or the line an insertion goes before or after
// (from == to).
type placed struct {
	edit     int
	op       string
	from, to int
	lines    []string
}

// placeOps maps each edit's lines through the changes since the version read; a line
// that changed, or a range that something was inserted into, is a conflict.
func placeOps(p string, ops []lineOp, read, now fileLines) ([]placed, error) {
	m := mapLines(read.text, now.text)
	conflict := func(i int, line int) error {
		old := read.text[line-1]
		if t := m.took[line-1]; t >= 0 {
			return errs.New(errs.Conflict, p, "edits[%d]: line %d of %s as this session read it (%s) has changed since: it is now %s|%s. Nothing was written; send the edit again with the current anchors (read_file shows them).",
				i, line, p, quoteShort(old), anchorOf(t+1, []byte(now.text[t])), cutLine(now.text[t]))
		}
		return errs.New(errs.Conflict, p, "edits[%d]: line %d of %s as this session read it (%s) was removed since. Nothing was written; read %s again and send the edit with its current anchors.",
			i, line, p, quoteShort(old), p)
	}
	out := make([]placed, len(ops))
	for i, o := range ops {
		for n := o.from.line; n <= o.to.line; n++ {
			if m.to[n-1] < 0 {
				return nil, conflict(i, n)
			}
			if n > o.from.line && m.to[n-1] != m.to[n-2]+1 {
				return nil, errs.New(errs.Conflict, p, "edits[%d]: lines were added between lines %d and %d of %s (as this session read it) since: %s now lies between them. Nothing was written; send the edit again with the current anchors (read_file shows them).",
					i, n-1, n, p, lineRange(m.to[n-2]+2, m.to[n-1]))
			}
		}
		out[i] = placed{edit: i, op: o.op, from: m.to[o.from.line-1], to: m.to[o.to.line-1], lines: o.lines}
	}
	return out, nil
}

// item is a line of the new content: its text, its ending, and the current line it
// keeps unchanged (-1 for a new or changed line).
type item struct {
	text, end string
	orig      int
	edit      int
}

// planLines applies the placed edits to the current content and returns the result
// as splices over whole lines, and the new lines (0-based) the edits wrote or next
// to which they removed lines.
func planLines(content []byte, now fileLines, eds []placed, retype func(i int, old, lines []string) []string) (*matcher.Result, []int, error) {
	n := len(now.text)
	before := map[int][]placed{}
	after := map[int][]placed{}
	rangeAt := map[int]placed{}
	removed := make([]int, n)
	for i := range removed {
		removed[i] = -1
	}
	for _, e := range eds {
		switch e.op {
		case opInsertBefore:
			before[e.from] = append(before[e.from], e)
		case opInsertAfter:
			after[e.from] = append(after[e.from], e)
		default:
			rangeAt[e.from] = e
			for k := e.from; k <= e.to; k++ {
				removed[k] = e.edit
			}
		}
	}
	var items []item
	add := func(e placed, lines []string, k int) {
		eol := now.eolNear(k)
		for _, l := range lines {
			items = append(items, item{text: l, end: eol, orig: -1, edit: e.edit})
		}
	}
	for k := 0; k < n; k++ {
		for _, e := range before[k] {
			add(e, e.lines, k)
		}
		if e, ok := rangeAt[k]; ok && e.op == opReplace {
			add(e, retype(e.edit, now.text[e.from:e.to+1], e.lines), k)
		}
		if removed[k] < 0 {
			items = append(items, item{text: now.text[k], end: now.ends[k], orig: k, edit: -1})
		}
		for _, e := range after[k] {
			add(e, e.lines, k)
		}
	}
	// A file without a final line break keeps it so: its last line has no ending, and
	// a line that was last and no longer is gets one.
	if n > 0 && now.ends[n-1] == "" {
		for i := range items {
			want := now.eolNear(n - 1)
			if i == len(items)-1 {
				want = ""
			}
			if (items[i].end == "") != (want == "") {
				items[i].end, items[i].orig = want, -1
			}
		}
	}
	// Splices: the runs between lines kept unchanged.
	var splices []matcher.Splice
	var touched []int
	prev, edit := -1, -1
	var pending []byte
	flush := func(next int, at int) {
		for k := prev + 1; k < next; k++ {
			if edit < 0 || removed[k] >= 0 && removed[k] < edit {
				edit = removed[k]
			}
		}
		if next == prev+1 && pending == nil {
			return
		}
		if next > prev+1 {
			touched = append(touched, at) // lines were removed next to new line at
		}
		splices = append(splices, matcher.Splice{Edit: max(edit, 0), Start: now.startOf(prev + 1), End: now.startOf(next), Text: pending})
		pending, edit = nil, -1
	}
	for i, it := range items {
		if it.orig >= 0 {
			flush(it.orig, i)
			prev = it.orig
			continue
		}
		pending = append(append(pending, it.text...), it.end...)
		if pending == nil {
			pending = []byte{}
		}
		touched = append(touched, i)
		if edit < 0 || it.edit >= 0 && it.edit < edit {
			edit = it.edit
		}
	}
	flush(n, len(items))
	if len(splices) == 0 {
		return nil, nil, errs.New(errs.NoChange, "", "the edits leave the file exactly as it is. Send the lines that should change.")
	}
	reports := make([]matcher.EditReport, len(eds))
	for i, e := range eds {
		reports[i].Lines = [][2]int{{e.from + 1, e.to + 1}}
	}
	res, err := matcher.FromSplices(content, splices, reports)
	if err != nil {
		return nil, nil, errs.New(errs.IOError, "", "internal error placing line edits: %v. Nothing was written.", err)
	}
	if bytes.Equal(res.Output, content) {
		return nil, nil, errs.New(errs.NoChange, "", "the edits leave the file exactly as it is. Send the lines that should change.")
	}
	return res, touched, nil
}

// retyped writes the model's new lines of a replace with the file's typography where
// the model drifted: a new line that is a copy of a replaced line with typographic
// characters in place of the file's plain ones (“ for ", an en dash for -) was
// retyped, not changed. The matcher decides how, with its own rules: those copies are
// sent as oldText, the model's lines as newText, against the replaced lines alone, so
// the copies are written as the file has them and other added characters of the
// classes the model drifted in are written as the file spells them. Lines with no
// such copy are written as sent.
func retyped(old, lines []string) ([]string, []string) {
	model := slices.Clone(old)
	paired, k := false, 0
	for i, o := range old {
		for j := k; j < len(lines); j++ {
			if isPlain(o) && !isPlain(lines[j]) && leadOf(o) == leadOf(lines[j]) && matcher.SameLoosely(o, lines[j]) {
				model[i], k, paired = lines[j], j+1, true
				break
			}
		}
	}
	if !paired {
		return lines, nil
	}
	region := strings.Join(old, "\n") + "\n"
	res, err := matcher.Apply([]byte(region), []matcher.Edit{{OldText: strings.Join(model, "\n") + "\n", NewText: strings.Join(lines, "\n") + "\n"}}, matcher.Options{Probe: true})
	if err != nil {
		return lines, nil
	}
	out := strings.Split(strings.TrimSuffix(string(res.Output), "\n"), "\n")
	if len(lines) == 0 || len(res.Output) == 0 {
		out = nil
	}
	return out, res.Edits[0].Translated
}

func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func leadOf(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

// editLines runs edit_lines.
func (a *dispatcher) editLines(c *txn.Call, session string, in *input) (string, error) {
	p := in.str("path")
	var edits []lineEdit
	for _, x := range in.m["edits"].([]any) {
		edits = append(edits, x.(lineEdit))
	}
	ops, err := parseLineEdits(edits)
	if err != nil {
		return "", err
	}
	if err := overlapping(ops); err != nil {
		return "", err
	}
	r, err := a.eng.FS().Resolve(p)
	if err != nil {
		return "", err
	}
	if !r.Exists {
		return "", errs.New(errs.FileNotFound, p, "%s does not exist. edit_lines changes lines of a file read with anchors; use create_file for a new file.", p)
	}
	if r.Info != nil && r.Info.Mode().IsRegular() && r.Info.Size() == 0 {
		// No line, so no anchor: a read of it showed none, and allows write_file.
		return "", errs.New(errs.InvalidInput, p, "%s is empty, so it has no line for an anchor to name. Fill it with write_file (after read_file, which sees all of an empty file).", p)
	}
	versions, err := a.eng.AnchoredVersions(session, r.Path)
	if err != nil {
		return "", err
	}
	c.AnchoredFrom(versions)
	fit, err := fittingVersions(p, ops, versions)
	if err != nil {
		return "", err
	}
	var touched []int
	var translated []string
	var where []placed
	moved := false
	spec := txn.Spec{Path: p, Op: journal.OpEdit, Locate: func(content []byte) (*matcher.Result, error) {
		if bytes.IndexByte(content, 0) >= 0 {
			return nil, errs.New(errs.BinaryFile, p, "%s", matcher.BinaryMessage(p, content))
		}
		now := splitFile(content)
		eds, err := placeThrough(p, ops, versions, fit, now)
		if err != nil {
			return nil, err
		}
		where = eds
		moved = false
		for i, e := range eds {
			moved = moved || e.from != ops[i].from.line-1
		}
		translated = nil
		res, t, err := planLines(content, now, eds, func(_ int, old, lines []string) []string {
			out, tr := retyped(old, lines)
			translated = append(translated, tr...)
			return out
		})
		touched = t
		if res != nil {
			for i, o := range ops {
				res.Edits[i].Gutter = o.anchors // kept in the journal as edit_file's pasted gutter is
			}
		}
		return res, err
	}}
	for _, o := range ops {
		for _, l := range o.lines {
			spec.Adds += len(l) + 1
		}
	}
	chs, err := a.eng.Apply(c, []txn.Spec{spec}, false)
	if err != nil {
		return "", err
	}
	ch := chs[0]
	text, spans := anchoredRegion(ch.After, touched)
	c.ShowedAnchors(r.Path, ch.After, spans)
	var b strings.Builder
	fmt.Fprintf(&b, "Edited %s with %s (%s).\n", p, plural(len(ops), "edit"), placedLines(where))
	if moved {
		fmt.Fprintf(&b, "The file changed since the read these anchors came from; every anchored line was unchanged and was edited where it is now.\n")
	}
	if len(translated) > 0 {
		fmt.Fprintf(&b, "Written as the file spells them: %s.\n", strings.Join(translated, "; "))
	}
	breaks, stripped := 0, []string(nil)
	for i, o := range ops {
		breaks += o.breaks
		if o.anchors {
			stripped = append(stripped, fmt.Sprintf("edits[%d]", i))
		}
	}
	if breaks > 0 {
		entries := "entries"
		if breaks == 1 {
			entries = "entry"
		}
		fmt.Fprintf(&b, "Dropped the line break that ended %d %s of lines: each entry is one line, and the file's line ending is written after it.\n", breaks, entries)
	}
	if len(stripped) > 0 {
		fmt.Fprintf(&b, "Removed the anchors N:hh| pasted before the lines of %s: send lines as text alone.\n", strings.Join(stripped, ", "))
	}
	b.WriteString("The edited region now, with fresh anchors:\n")
	b.WriteString(text)
	return withWarnings(strings.TrimRight(b.String(), "\n"), ch), nil
}

// placedLines says what each edit did, in the file's lines before the call: "line 2
// deleted", "lines added after line 4". Said from the edits rather than the splices,
// whose bytes can start a line early (removing the last line removes the line break
// before it).
func placedLines(eds []placed) string {
	parts := make([]string, 0, len(eds))
	for _, e := range eds {
		switch e.op {
		case opInsertBefore:
			parts = append(parts, fmt.Sprintf("%s added before line %d", plural(len(e.lines), "line"), e.from+1))
		case opInsertAfter:
			parts = append(parts, fmt.Sprintf("%s added after line %d", plural(len(e.lines), "line"), e.from+1))
		case opDelete:
			parts = append(parts, lineRange(e.from+1, e.to+1)+" deleted")
		default:
			parts = append(parts, lineRange(e.from+1, e.to+1)+" replaced")
		}
	}
	if len(parts) > 6 {
		parts = append(parts[:6], "and "+plural(len(parts)-6, "more edit"))
	}
	return strings.Join(parts, ", ")
}

// regionContext is how many unchanged lines the reply shows around each edited one.
const regionContext = 2

// anchoredRegion shows the lines of content around the given lines (0-based) with
// anchors, "..." between windows, and returns the spans shown (1-based).
func anchoredRegion(content []byte, lines []int) (string, [][2]int) {
	f := splitFile(content)
	var spans [][2]int
	for _, l := range lines {
		a, b := max(l-regionContext, 0)+1, min(l+regionContext+1, len(f.text))
		if a > b {
			continue
		}
		if n := len(spans); n > 0 && a <= spans[n-1][1]+1 {
			spans[n-1][1] = max(spans[n-1][1], b)
			continue
		}
		spans = append(spans, [2]int{a, b})
	}
	if len(f.text) == 0 {
		return "(the file is now empty)\n", nil
	}
	var b strings.Builder
	var shown [][2]int
	for i, s := range spans {
		if i > 0 {
			b.WriteString("...\n")
		}
		for n := s[0]; n <= s[1]; n++ {
			line := f.text[n-1]
			if b.Len() >= MaxReplyBytes || len(line) > MaxLineChars {
				fmt.Fprintf(&b, "(line %d and on not shown whole: read_file shows them)\n", n)
				if n > s[0] {
					shown = append(shown, [2]int{s[0], n - 1})
				}
				return b.String(), shown
			}
			fmt.Fprintf(&b, "%s|%s\n", anchorOf(n, []byte(line)), validText([]byte(line)))
		}
		shown = append(shown, s)
	}
	return b.String(), shown
}

func lineRange(a, b int) string {
	if a == b {
		return fmt.Sprintf("line %d", a)
	}
	return fmt.Sprintf("lines %d-%d", a, b)
}

// withHashline is a tool's sets with the hashline set added: the tools that list,
// search, create, replace and undo are in it as they are, read_file and edit_lines
// are its own.
func withHashline(sets []string) []string { return append(slices.Clone(sets), setHashline) }

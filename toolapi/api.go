package toolapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"unicode/utf8"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/txn"
)

// DefaultReadLimit is how many lines read_file returns when no limit is sent.
const DefaultReadLimit = 2000

// Result is the outcome of one call, as `vfsctl call` prints it and MCP returns it.
type Result struct {
	// ID echoes the "id" a call carried, so that a runtime can pair replies with calls.
	ID   json.RawMessage `json:"id,omitempty"`
	OK   bool            `json:"ok"`
	Tool string          `json:"tool"`
	Kind *string         `json:"kind"`
	Text string          `json:"text"`
	Txn  *int64          `json:"txn"`
}

// API dispatches tool calls to an engine.
type API struct {
	eng    *txn.Engine
	origin string // who makes the calls (journal.Record.Origin); "" is a model
}

// New returns an API over eng.
func New(eng *txn.Engine) *API { return &API{eng: eng} }

// Call runs one tool call for session and journals it, whatever its outcome. It never
// panics: an internal fault becomes an io_error result, so one bad call cannot take
// down a server.
func (a *API) Call(session, tool string, args json.RawMessage) (res Result) {
	return a.CallContext(context.Background(), session, tool, args)
}

// CallContext is Call with a context: a call cancelled before it commits changes
// nothing; one cancelled later finishes (a commit is never left halfway).
func (a *API) CallContext(ctx context.Context, session, tool string, args json.RawMessage) (res Result) {
	c, err := a.eng.BeginContext(ctx, session, tool, args)
	if err != nil {
		return fail(tool, err) // busy: the journal could not be had, so nothing ran
	}
	c.SetOrigin(a.origin)
	var text string
	defer func() {
		if p := recover(); p != nil {
			what := "Nothing was written."
			if c.Committed() {
				what = fmt.Sprintf("The change was committed as transaction %d; only this reply failed.", c.Seq())
			}
			err = errs.New(errs.IOError, "", "internal error in %s: %v. %s %s", tool, p, what, firstFrame(debug.Stack()))
		}
		if err != nil {
			c.Named(opOf(tool), pathsIn(args)...) // a refusal is found by every path it named
		}
		ferr := c.Finish(err)
		if err != nil {
			res = fail(tool, err)
		} else {
			res = Result{OK: true, Tool: tool, Text: text}
			if ferr != nil {
				res.Text += fmt.Sprintf("\n(note: the journal could not record this call: %v)", ferr)
			}
		}
		if seq := int64(c.Seq()); seq > 0 {
			res.Txn = &seq
		}
	}()
	switch tool {
	case ReadFile:
		text, err = a.read(c, args)
	case EditFile:
		text, err = a.edit(c, args)
	case CreateFile, WriteFile:
		text, err = a.write(c, tool, args)
	case ApplyChanges:
		text, err = a.apply(c, args)
	case UndoEdit:
		text, err = a.undoEdit(c, session, args)
	case ListFiles:
		text, err = a.listFiles(c, args)
	case SearchFiles:
		text, err = a.searchFiles(c, args)
	default:
		var names []string
		for _, t := range Tools() {
			names = append(names, t.Name)
		}
		err = errs.New(errs.UnknownTool, "", "There is no tool named %q. The tools are %s.", tool, strings.Join(names, ", "))
	}
	return res
}

func firstFrame(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	for i, l := range lines {
		if strings.Contains(l, "panic(") && i+3 < len(lines) {
			return strings.TrimSpace(lines[i+3])
		}
	}
	return ""
}

func fail(tool string, err error) Result {
	k := string(errs.KindOf(err))
	return Result{OK: false, Tool: tool, Kind: &k, Text: err.Error()}
}

func (a *API) read(c *txn.Call, raw json.RawMessage) (string, error) {
	args, err := decodeRead(raw)
	if err != nil {
		return "", err
	}
	r, err := a.eng.Read(c, args.path)
	if err != nil {
		return "", err
	}
	text, spans := renderRead(args, r)
	c.Shown(spans, r.TotalLines)
	return text, nil
}

// Bounds on what one reply carries; the journal keeps everything.
const (
	// MaxReplyBytes bounds a read_file reply and the diff of an edit reply.
	MaxReplyBytes = 256 << 10
	// MaxLineChars bounds one line as read_file shows it.
	MaxLineChars = 2000
)

// renderRead numbers lines with a gutter ("     1\t"); line endings are not shown. LF,
// CRLF and lone CR end lines, as in matching. A line longer than MaxLineChars is cut,
// unless it is read alone (limit 1): then it is shown whole up to MaxReplyBytes. The
// reply stops at MaxReplyBytes; each cut comes with a note saying how to see the rest.
// Invalid UTF-8 bytes are shown as U+FFFD, one each, which edits match again. spans are
// the lines shown whole, for what the session has seen.
func renderRead(args *readArgs, r *txn.ReadResult) (string, [][2]int) {
	if r.TotalLines == 0 {
		return fmt.Sprintf("(%s is empty)", args.path), nil
	}
	first := max(args.offset, 1)
	limit := args.limit
	if limit == 0 {
		limit = DefaultReadLimit
	}
	if first > r.TotalLines {
		return fmt.Sprintf("(%s has %s; offset %d is past its end)", args.path, plural(r.TotalLines, "line"), first), [][2]int{}
	}
	var spans [][2]int
	seeLine := func(ln int) {
		if n := len(spans); n > 0 && spans[n-1][1] == ln-1 {
			spans[n-1][1] = ln
			return
		}
		spans = append(spans, [2]int{ln, ln})
	}
	var b strings.Builder
	last := 0
	var cut []int
	full := false
	whole := 0 // the characters of a long line shown whole
	matcher.EachLine(r.Data, func(ln int, line []byte) bool {
		if ln < first {
			return true
		}
		if ln >= first+limit || b.Len() >= MaxReplyBytes {
			full = ln < first+limit
			return false
		}
		shown := validText(line)
		if n := utf8.RuneCountInString(shown); n > MaxLineChars {
			if limit == 1 && len(shown) <= MaxReplyBytes {
				// A line read alone is shown whole, so that every line of a file
				// can be seen (and the file licensed for write_file).
				whole = n
				seeLine(ln)
			} else {
				shown = string([]rune(shown)[:MaxLineChars])
				cut = append(cut, ln)
			}
		} else {
			seeLine(ln)
		}
		fmt.Fprintf(&b, "%6d\t%s\n", ln, shown)
		last = ln
		return true
	})
	switch {
	case whole > 0:
		fmt.Fprintf(&b, "(line %d shown whole: %s.)\n", first, plural(whole, "character"))
	case len(cut) > 0 && limit == 1:
		fmt.Fprintf(&b, "(line %d is over %d KiB, too long to show whole: cut at %d characters. Edit inside it with oldText copied from the part shown.)\n",
			cut[0], MaxReplyBytes>>10, MaxLineChars)
	case len(cut) > 0:
		fmt.Fprintf(&b, "(%s longer than %d characters cut: %s. To see such a line whole, read it alone (offset %d, limit 1); or edit inside it with oldText copied from the part shown.)\n",
			pluralWord(len(cut), "line"), MaxLineChars, listInts(cut), cut[0])
	}
	if first > 1 || last < r.TotalLines {
		if first == last {
			fmt.Fprintf(&b, "(line %d of %d", first, r.TotalLines)
		} else {
			fmt.Fprintf(&b, "(lines %d-%d of %d", first, last, r.TotalLines)
		}
		if full {
			fmt.Fprintf(&b, "; the reply stopped at %d KiB", MaxReplyBytes>>10)
		}
		if last < r.TotalLines {
			fmt.Fprintf(&b, "; read on with offset %d", last+1)
		}
		b.WriteString(")\n")
	}
	return b.String(), spans
}

// validText shows invalid UTF-8 bytes as U+FFFD, one per byte, as matching reads them.
func validText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var s strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		s.WriteRune(r) // RuneError for an invalid byte, with n == 1
		b = b[n:]
	}
	return s.String()
}

func plural(n int, what string) string { return fmt.Sprintf("%d %s", n, pluralWord(n, what)) }

func pluralWord(n int, what string) string {
	if n == 1 {
		return what
	}
	return what + "s"
}

func listInts(l []int) string {
	var parts []string
	for k, n := range l {
		if k == 10 {
			parts = append(parts, fmt.Sprintf("and %d more", len(l)-10))
			break
		}
		parts = append(parts, fmt.Sprint(n))
	}
	return strings.Join(parts, ", ")
}

func (a *API) edit(c *txn.Call, raw json.RawMessage) (string, error) {
	args, err := decodeEdit(raw)
	if err != nil {
		return "", err
	}
	ch, err := a.eng.Edit(c, args.path, args.edits, args.dryRun)
	if err != nil {
		return "", err
	}
	return renderEdit(args.path, len(args.edits), args.dryRun, ch), nil
}

func renderEdit(path string, n int, dryRun bool, c *txn.Change) string {
	var b strings.Builder
	verb := "Edited"
	if dryRun {
		verb = "Dry run, nothing written:"
	}
	plural := "s"
	if n == 1 {
		plural = ""
	}
	fmt.Fprintf(&b, "%s %s with %d edit%s (%s).\n", verb, path, n, plural, changedLines(c.Plan))
	for i, r := range c.Plan.Edits {
		if note := tierNote(i, r); note != "" {
			b.WriteString(note + "\n")
		}
	}
	b.WriteString(boundedDiff(c.Diff(), c.Seq))
	return withWarnings(strings.TrimRight(b.String(), "\n"), c)
}

// withWarnings adds what a guard repaired, and what it warns of in warn mode.
func withWarnings(text string, c *txn.Change) string {
	for _, n := range append(append([]string{}, c.Notes...), c.Warnings...) {
		text += "\n" + strings.TrimRight(n, "\n")
	}
	return text
}

// boundedDiff cuts a diff for a reply: each line to MaxLineChars characters, the whole
// to MaxReplyBytes, saying what was cut. The journal keeps the change whole.
func boundedDiff(d string, seq uint64) string {
	if len(d) <= MaxLineChars && len(d) < MaxReplyBytes {
		return d
	}
	var b strings.Builder
	lines := strings.SplitAfter(d, "\n")
	for i, l := range lines {
		if b.Len() >= MaxReplyBytes {
			fmt.Fprintf(&b, "(diff cut at %d KiB: %s more not shown", MaxReplyBytes>>10, plural(len(lines)-i, "line"))
			if seq > 0 {
				fmt.Fprintf(&b, "; vfsctl show %d has it whole", seq)
			}
			b.WriteString(")\n")
			return b.String()
		}
		body := strings.TrimSuffix(l, "\n")
		if n := utf8.RuneCountInString(body); n > MaxLineChars {
			body = string([]rune(body)[:MaxLineChars]) + fmt.Sprintf(" [... %d more characters]", n-MaxLineChars)
		}
		b.WriteString(body)
		if strings.HasSuffix(l, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func changedLines(p *matcher.Result) string {
	var parts []string
	for _, s := range p.Splices {
		if s.FirstLine == s.LastLine {
			parts = append(parts, fmt.Sprintf("line %d", s.FirstLine))
		} else {
			parts = append(parts, fmt.Sprintf("lines %d-%d", s.FirstLine, s.LastLine))
		}
	}
	if len(parts) > 6 {
		parts = append(parts[:6], "and "+plural(len(parts)-6, "more place"))
	}
	return strings.Join(parts, ", ")
}

// tierNote says how an edit matched and what was written in the file's own terms. Each
// claim follows from the report: lines and characters equal after folding are written
// from the file (the matcher's rule), and Translated lists what was rewritten.
func tierNote(i int, r matcher.EditReport) string {
	var notes []string
	if r.Gutter {
		notes = append(notes, "the read_file line numbers pasted into oldText were ignored")
	}
	if r.GutterLine > 0 {
		notes = append(notes, fmt.Sprintf("oldText occurs more than once; applied at line %d, where its pasted line numbers start", r.GutterLine))
	}
	switch r.Tier {
	case matcher.TierTypography:
		notes = append(notes, "matched after folding "+foldedList(r.Folded)+"; what you did not change was kept as the file has it")
	case matcher.TierIndentation:
		what := "indentation"
		if len(r.Folded) > 0 {
			what += " and folding " + foldedList(r.Folded)
		}
		notes = append(notes, "matched ignoring "+what+"; new lines follow the file's indentation")
	}
	notes = append(notes, r.Translated...)
	if len(r.Lines) > 1 {
		notes = append(notes, fmt.Sprintf("replaced %d occurrences", len(r.Lines)))
	}
	if len(notes) == 0 {
		return ""
	}
	return fmt.Sprintf("edits[%d]: %s.", i, strings.Join(notes, "; "))
}

func foldedList(f []string) string {
	if len(f) == 0 {
		return "Unicode and whitespace"
	}
	return strings.Join(f, ", ")
}

func (a *API) write(c *txn.Call, tool string, raw json.RawMessage) (string, error) {
	args, err := decodeContent(tool, raw)
	if err != nil {
		return "", err
	}
	var ch *txn.Change
	if tool == CreateFile {
		ch, err = a.eng.Create(c, args.path, []byte(args.content))
	} else {
		ch, err = a.eng.Write(c, args.path, []byte(args.content))
	}
	if err != nil {
		return "", err
	}
	return renderWrite(args.path, ch), nil
}

func renderWrite(path string, c *txn.Change) string {
	lines := txn.CountLines(c.After)
	if c.Created {
		return withWarnings(fmt.Sprintf("Created %s (%s, %s).", path, plural(lines, "line"), plural(len(c.After), "byte")), c)
	}
	return withWarnings(fmt.Sprintf("Replaced %s whole: now %s, %s (was %s).", path, plural(lines, "line"), plural(len(c.After), "byte"), plural(len(c.Before), "byte")), c)
}

func (a *API) apply(c *txn.Call, raw json.RawMessage) (string, error) {
	specs, err := decodeApply(raw)
	if err != nil {
		return "", err
	}
	changes, err := a.eng.Apply(c, specs, false)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Applied %s as one transaction:\n", plural(len(changes), "change"))
	for i, ch := range changes {
		switch ch.Op {
		case journal.OpEdit:
			b.WriteString(renderEdit(specs[i].Path, len(specs[i].Edits), false, ch))
		default:
			b.WriteString(renderWrite(specs[i].Path, ch))
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

func (a *API) undoEdit(c *txn.Call, session string, raw json.RawMessage) (string, error) {
	ar, err := parseArgs(UndoEdit, raw)
	if err != nil {
		return "", err
	}
	path, err := ar.path()
	if err != nil {
		return "", err
	}
	if err := ar.rest(UndoEdit, ar.m, "path"); err != nil {
		return "", err
	}
	r, err := a.eng.FS().Resolve(path)
	if err != nil {
		return "", err
	}
	res, err := a.eng.Undo(c, txn.UndoOptions{Session: session, Path: r.Path})
	b := errs.Blocked(err)
	switch {
	case errors.Is(err, txn.ErrNothingToUndo):
		return "", errs.Wrap(errs.NoChange, path, err, "You have no change to %s that is not undone yet, so undo_edit has nothing to revert and nothing was written.", path)
	case b != nil:
		// The blocking call is another session's or an operator's: the model cannot
		// undo it, but it can still put its lines back by hand.
		return "", errs.Wrap(errs.Conflict, path, err, "%s To revert your change anyway, read_file %s and edit the lines back with edit_file.", b.Fact, path)
	case err != nil:
		return "", err
	}
	return RenderUndo(res, false), nil
}

// RenderUndo describes an undo or redo and its diffs.
func RenderUndo(res *txn.UndoResult, redo bool) string {
	var b strings.Builder
	what := "Reverted"
	if redo {
		what = "Re-applied"
	}
	var paths []string
	for _, ch := range res.Changes {
		paths = append(paths, ch.Name)
	}
	fmt.Fprintf(&b, "%s call %d (%s)", what, res.Target, strings.Join(paths, ", "))
	if seq := res.Changes[0].Seq; seq > 0 {
		fmt.Fprintf(&b, " as call %d", seq)
	}
	b.WriteString(".\n")
	for _, ch := range res.Changes {
		switch {
		case ch.Deleted:
			fmt.Fprintf(&b, "%s removed (the call had created it).\n", ch.Name)
		case ch.Created:
			fmt.Fprintf(&b, "%s put back (%s).\n", ch.Name, plural(len(ch.After), "byte"))
		default:
			b.WriteString(boundedDiff(ch.Diff(), ch.Seq))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// undoCall reverts call seq as a journaled call of session.
func (a *API) undoCall(ctx context.Context, session string, seq uint64) (res Result) {
	args, _ := json.Marshal(map[string]uint64{"seq": seq})
	c, err := a.eng.BeginContext(ctx, session, "undo", args)
	if err != nil {
		return fail("undo", err)
	}
	c.SetOrigin(journal.OriginOperator)
	var u *txn.UndoResult
	defer func() {
		if p := recover(); p != nil {
			err = errs.New(errs.IOError, "", "internal error in undo: %v. %s", p, firstFrame(debug.Stack()))
		}
		c.Finish(err)
		if err != nil {
			res = fail("undo", err)
		} else {
			res = Result{OK: true, Tool: "undo", Text: RenderUndo(u, false)}
		}
		if s := int64(c.Seq()); s > 0 {
			res.Txn = &s
		}
	}()
	u, err = a.eng.Undo(c, txn.UndoOptions{Seq: seq})
	return res
}

// opOf is the journal op a tool's files get when it is refused before it planned.
func opOf(tool string) journal.Op {
	switch tool {
	case ReadFile, ListFiles, SearchFiles:
		return journal.OpRead
	case CreateFile:
		return journal.OpCreate
	case WriteFile:
		return journal.OpWrite
	}
	return journal.OpEdit
}

// pathsIn finds the paths a call's arguments name, however malformed the rest is.
func pathsIn(raw json.RawMessage) []string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	var out []string
	for _, k := range []string{"path", "file_path", "filePath"} {
		var p string
		if json.Unmarshal(m[k], &p) == nil && p != "" {
			out = append(out, p)
		}
	}
	var changes []map[string]json.RawMessage
	if json.Unmarshal(m["changes"], &changes) == nil {
		for _, ch := range changes {
			var p string
			if json.Unmarshal(ch["path"], &p) == nil && p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// maxUnparsed bounds what the journal keeps of a line that is not a call.
const maxUnparsed = 64 << 10

// RecordUnparsed journals a line that could not be read as a call at all (tool
// "unknown", kind invalid_input), byte for byte up to 64 KiB, so that failure
// analytics see it too. It returns the result for the line.
func (a *API) RecordUnparsed(session string, line []byte, err error) Result {
	if len(line) > maxUnparsed {
		line = line[:maxUnparsed]
	}
	c, berr := a.eng.Begin(session, "unknown", line)
	if berr != nil {
		return fail("", err)
	}
	c.SetOrigin(a.origin)
	c.Finish(err)
	res := fail("", err)
	if seq := int64(c.Seq()); seq > 0 {
		res.Txn = &seq
	}
	return res
}

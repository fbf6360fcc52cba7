package toolapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"runtime/debug"
	"slices"
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

	paths   []string      // the paths the call named, for its trace
	command *commandTrace // what a command did (run_command), for its trace
}

// commandTrace is what a span says of a command: what ran, how it ended, how many
// files it changed (never its output, which may quote any file).
type commandTrace struct {
	argv  []string
	code  int
	exit  string
	files int
}

// dispatcher dispatches tool calls to a transaction engine: the tool layer under the
// Engine, which is the one entry point.
type dispatcher struct {
	eng    *txn.Engine
	origin string     // who makes the calls (journal.Record.Origin); "" is a model
	tools  []*toolDef // the tools a model may call; nil is the native set
	set    string     // the tool set they were chosen by (Options.Tools), as recorded
	// maxChars bounds what one view of the text editor shows; 0 is DefaultMaxCharacters.
	maxChars int
}

// newDispatcher returns a dispatcher over eng.
func newDispatcher(eng *txn.Engine) *dispatcher { return &dispatcher{eng: eng} }

// Call runs one tool call for session and journals it, whatever its outcome. It never
// panics: an internal fault becomes an io_error result, so one bad call cannot take
// down a server.
func (a *dispatcher) Call(session, tool string, args json.RawMessage) (res Result) {
	return a.CallContext(context.Background(), session, tool, args)
}

// CallContext is Call with a context: a call cancelled before it commits changes
// nothing; one cancelled later finishes (a commit is never left halfway).
//
// A call flows one way: its raw arguments are decoded once, by its tool's
// definition, into typed arguments and the paths they name; then the call is
// journaled and its handler runs on what was decoded.
func (a *dispatcher) CallContext(ctx context.Context, session, tool string, args json.RawMessage) (res Result) {
	def, in, derr := a.decode(tool, args)
	defer func() { res.paths, res.command = in.paths, in.command }()
	begin := a.eng.BeginContext
	switch {
	case derr != nil || def == nil:
	case !def.needs.write || def.needs.command:
		// A read, a listing or a search holds the journal only for its record; a
		// command's, not while the command runs.
		begin = a.eng.BeginRead
	case def.needs.planFirst:
		// A change holds it from when it is planned (txn.Engine.Apply) to its record.
		begin = a.eng.BeginWrite
	}
	c, err := begin(ctx, session, tool, args)
	if err != nil {
		return fail(tool, err) // busy: the journal could not be had, so nothing ran
	}
	c.SetOrigin(a.origin)
	c.SetTools(a.set)
	c.SetTurn(TurnOf(ctx))
	var text string
	defer func() { res = a.finish(c, tool, def, in, recover(), text, err) }()
	if err = derr; err == nil {
		a.fromRoot(def, in)
		text, err = def.run(a, c, session, in)
	}
	return res
}

// fromRoot rewrites the absolute paths inside the root that a call's path arguments
// name as paths from the root, so that replies and diff headers name files as the
// journal does ("src/a.go", not "/repo/src/a.go", whose diff header `--- a//repo/...`
// git reads as absolute). Anything else is left as sent, for resolution to judge.
func (a *dispatcher) fromRoot(def *toolDef, in *input) {
	for _, f := range def.args.fields {
		if !f.path {
			continue
		}
		switch v := in.m[f.name].(type) {
		case string:
			in.m[f.name] = a.relPath(v)
		case []string:
			for i := range v {
				v[i] = a.relPath(v[i])
			}
		}
	}
	for _, f := range def.args.fields {
		if l, ok := in.m[f.name].([]any); ok && f.items != nil && f.items.hasPaths() {
			for i, x := range l {
				if s, ok := x.(txn.Spec); ok { // apply_changes' changes
					s.Path = a.relPath(s.Path)
					l[i] = s
				}
			}
		}
	}
}

// relPath is p from the root when p is an absolute path inside it, else p.
func (a *dispatcher) relPath(p string) string {
	if !filepath.IsAbs(p) && !path.IsAbs(filepath.ToSlash(p)) {
		return p
	}
	if q, err := a.eng.FS().Clean(p); err == nil && q != "." {
		return q
	}
	return p
}

// decode decodes a call by the dispatcher's tools. It never panics: a fault in decoding is
// a refusal like any other.
func (a *dispatcher) decode(tool string, args json.RawMessage) (def *toolDef, in *input, err error) {
	defer func() {
		if p := recover(); p != nil {
			def, in = nil, &input{}
			err = errs.New(errs.IOError, "", "internal error in %s: %v. Nothing was written. %s", tool, p, panicSite(p))
		}
	}()
	tools := a.tools
	if tools == nil {
		tools = nativeTools()
	}
	return decodeCall(tools, tool, args)
}

// finish journals a call's outcome and returns its result. p is what the handler
// panicked with, if it did.
func (a *dispatcher) finish(c *txn.Call, tool string, def *toolDef, in *input, p any, text string, err error) Result {
	if p != nil {
		what := "Nothing was written."
		if c.Committed() {
			what = fmt.Sprintf("The change was committed as transaction %d; only this reply failed.", c.Seq())
		}
		err = errs.New(errs.IOError, "", "internal error in %s: %v. %s %s", tool, p, what, panicSite(p))
	}
	if err != nil {
		c.Named(opOf(def), in.paths...) // a refusal is found by every path it named
	}
	ferr := c.Finish(err)
	var res Result
	if err != nil {
		res = fail(tool, err)
	} else {
		res = Result{OK: true, Tool: tool, Text: text}
		if ferr != nil {
			res.Text += fmt.Sprintf("\n(note: the journal could not record this call: %v)", ferr)
		}
	}
	// A command that removed the journal took the call's record with it: no txn to show.
	if seq := int64(c.Seq()); seq > 0 && !errors.Is(err, txn.ErrNotRecorded) {
		res.Txn = &seq
	}
	return res
}

// panicSite names the line that panicked with p, also when p was raised again on
// another goroutine (errs.Panic). It is called while the panic is recovered.
func panicSite(p any) string {
	if c, ok := p.(*errs.Panic); ok {
		return firstFrame(c.Stack)
	}
	return firstFrame(debug.Stack())
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

// readArgs are what renderRead needs of a read_file call.
type readArgs struct {
	path          string
	offset, limit int
	zeroBased     bool // the reply names offsets 0-based (Gemini's read_file)
	anchors       bool // lines shown as N:hh|text (hashline.go)
}

func (a *dispatcher) read(c *txn.Call, _ string, in *input) (string, error) {
	args := &readArgs{path: in.str("path"), offset: in.num("offset"), limit: in.num("limit"), anchors: in.flag("anchors")}
	r, err := a.eng.Read(c, args.path)
	if err != nil {
		return "", err
	}
	text, spans := renderRead(args, r)
	c.Shown(spans, r.TotalLines)
	if args.anchors {
		c.ShowedAnchors(r.Path, r.Data, spans)
	}
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
	if args.offset < 0 {
		first = max(r.TotalLines+args.offset+1, 1) // the last -offset lines, as tail -n
	}
	limit := args.limit
	if limit == 0 {
		limit = DefaultReadLimit
	}
	if first > r.TotalLines {
		return fmt.Sprintf("(%s has %s; offset %d is past its end)", args.path, plural(r.TotalLines, "line"), first), [][2]int{}
	}
	v := &readView{first: first, limit: limit, zeroBased: args.zeroBased, anchors: args.anchors}
	matcher.EachLine(r.Data, v.line)
	v.cutNote()
	v.rangeNote(r.TotalLines)
	return v.b.String(), v.spans
}

// readView is a read_file reply as it is written, line by line.
type readView struct {
	first, limit int
	b            strings.Builder
	last         int      // the last line shown
	spans        [][2]int // the lines shown whole
	cut          []int    // the lines cut at MaxLineChars that a read of it alone shows whole
	huge         []int    // the lines cut that no read shows whole
	hugeChars    int      // the characters of the first of those
	full         bool     // the reply stopped at MaxReplyBytes
	whole        int      // the characters of a long line shown whole
	zeroBased    bool     // offsets in notes are 0-based
	anchors      bool     // each line as N:hh|text
}

// line shows line ln if it is in the range read; false once past it.
func (v *readView) line(ln int, line []byte) bool {
	if ln < v.first {
		return true
	}
	if ln >= v.first+v.limit || v.b.Len() >= MaxReplyBytes {
		v.full = ln < v.first+v.limit
		return false
	}
	shown := validText(line)
	if n := utf8.RuneCountInString(shown); n > MaxLineChars {
		if v.limit == 1 && len(shown) <= MaxReplyBytes {
			// A line read alone is shown whole, so that every line of a file
			// can be seen (and the file licensed for write_file).
			v.whole = n
			v.see(ln)
		} else {
			if len(shown) > MaxReplyBytes {
				if len(v.huge) == 0 {
					v.hugeChars = n
				}
				v.huge = append(v.huge, ln)
			} else {
				v.cut = append(v.cut, ln)
			}
			shown = string([]rune(shown)[:MaxLineChars])
		}
	} else {
		v.see(ln)
	}
	if v.anchors {
		fmt.Fprintf(&v.b, "%s|%s\n", anchorOf(ln, line), shown)
	} else {
		fmt.Fprintf(&v.b, "%6d\t%s\n", ln, shown)
	}
	v.last = ln
	return true
}

// see adds line ln to the spans shown whole.
func (v *readView) see(ln int) {
	if n := len(v.spans); n > 0 && v.spans[n-1][1] == ln-1 {
		v.spans[n-1][1] = ln
		return
	}
	v.spans = append(v.spans, [2]int{ln, ln})
}

// cutNote says which long lines were cut, or that one was shown whole. A line over
// MaxReplyBytes is shown whole by no read, so it is not sent to be read alone.
func (v *readView) cutNote() {
	if v.whole > 0 {
		fmt.Fprintf(&v.b, "(line %d shown whole: %s.)\n", v.first, plural(v.whole, "character"))
	}
	if len(v.cut) > 0 {
		fmt.Fprintf(&v.b, "(%s longer than %d characters cut: %s. To see such a line whole, read it alone (offset %d, limit 1); or edit inside it with oldText copied from the part shown.)\n",
			pluralWord(len(v.cut), "line"), MaxLineChars, listInts(v.cut), v.offsetOf(v.cut[0]))
	}
	switch {
	case len(v.huge) == 1:
		fmt.Fprintf(&v.b, "(line %d is %s, over %d KiB: too long to show whole in any read, so only its first %d characters are shown. Edit inside it with oldText copied from the part shown.)\n",
			v.huge[0], plural(v.hugeChars, "character"), MaxReplyBytes>>10, MaxLineChars)
	case len(v.huge) > 1:
		fmt.Fprintf(&v.b, "(lines %s are each over %d KiB: too long to show whole in any read, so only the first %d characters of each are shown. Edit inside them with oldText copied from the part shown.)\n",
			listInts(v.huge), MaxReplyBytes>>10, MaxLineChars)
	}
}

// offsetOf is the offset that reads from line ln, as the reply names offsets.
func (v *readView) offsetOf(ln int) int {
	if v.zeroBased {
		return ln - 1
	}
	return ln
}

// rangeNote says which lines of total were shown and how to read on.
func (v *readView) rangeNote(total int) {
	if v.first == 1 && v.last >= total {
		return
	}
	if v.first == v.last {
		fmt.Fprintf(&v.b, "(line %d of %d", v.first, total)
	} else {
		fmt.Fprintf(&v.b, "(lines %d-%d of %d", v.first, v.last, total)
	}
	if v.full {
		fmt.Fprintf(&v.b, "; the reply stopped at %d KiB", MaxReplyBytes>>10)
	}
	if v.last < total {
		next := v.last + 1
		if v.zeroBased {
			next = v.last
		}
		fmt.Fprintf(&v.b, "; read on with offset %d", next)
	}
	v.b.WriteString(")\n")
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

func (a *dispatcher) edit(c *txn.Call, _ string, in *input) (string, error) {
	path, edits, dryRun := in.str("path"), in.edits("edits"), in.flag("dryRun")
	ch, err := a.eng.Edit(c, path, edits, dryRun)
	if err != nil {
		return "", err
	}
	return renderEdit(path, len(edits), dryRun, ch), nil
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
		if s.LastLine < s.FirstLine {
			// Lines added between two of the file's: they have no line of the original.
			if s.LastLine < 1 {
				parts = append(parts, "lines added at the top")
			} else {
				parts = append(parts, fmt.Sprintf("lines added after line %d", s.LastLine))
			}
		} else if s.FirstLine == s.LastLine {
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
	notes := matchNotes(r)
	if len(notes) == 0 {
		return ""
	}
	return fmt.Sprintf("edits[%d]: %s.", i, strings.Join(notes, "; "))
}

// matchNotes are tierNote's claims, for a reply that names the edit its own way.
func matchNotes(r matcher.EditReport) []string {
	var notes []string
	if r.Gutter {
		notes = append(notes, "the read_file line numbers pasted into oldText were ignored")
	}
	if r.GutterLine > 0 {
		notes = append(notes, fmt.Sprintf("oldText occurs more than once; applied at line %d, where its pasted line numbers start", r.GutterLine))
	}
	if r.Among > 1 {
		by := fmt.Sprintf("its @@ line %d", r.Near)
		if r.Offset != 0 {
			by = fmt.Sprintf("line %d (its @@ line %d moved by %+d, where the hunks before it were found)", r.Near, r.Near-r.Offset, r.Offset)
		}
		notes = append(notes, fmt.Sprintf("its lines fit %d places; the one nearest to %s was taken", r.Among, by))
	}
	switch r.Tier {
	case matcher.TierTypography:
		kept := "what you did not change was kept as the file has it"
		if len(r.Unkept) > 0 {
			kept += ", but for " + linesUpTo(r.Unkept, 10) + ": there which characters you kept could not be told, and the changed part is written as you sent it"
		}
		notes = append(notes, "matched after folding "+foldedList(r.Folded)+"; "+kept)
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
	if len(r.AlsoFolded) > 0 {
		notes = append(notes, fmt.Sprintf("oldText matched exactly here, but it also matches %s once quotes, dashes and spaces are folded, left unchanged: if you meant that place, edit it with oldText as the file has it there", linesWord(r.AlsoFolded)))
	}
	return notes
}

// linesWord names lines for a message: "line 6", "lines 1, 2". The places a refusal
// or note tells the model to look at are all named.
func linesWord(l []int) string { return linesUpTo(l, len(l)) }

// linesUpTo is linesWord naming at most the first most lines and how many more: the
// lines of a large rewrite whose characters could not be kept must not fill the
// model's reply with numbers.
func linesUpTo(l []int, most int) string {
	s := make([]string, 0, min(len(l), most))
	for _, n := range l[:min(len(l), most)] {
		s = append(s, fmt.Sprint(n))
	}
	if len(l) == 1 {
		return "line " + s[0]
	}
	if len(l) > most {
		return fmt.Sprintf("lines %s and %d more", strings.Join(s, ", "), len(l)-most)
	}
	return "lines " + strings.Join(s, ", ")
}

func foldedList(f []string) string {
	if len(f) == 0 {
		return "Unicode and whitespace"
	}
	return strings.Join(f, ", ")
}

func (a *dispatcher) create(c *txn.Call, _ string, in *input) (string, error) {
	if err := a.nearDuplicate(c, in.str("path")); err != nil {
		return "", err
	}
	ch, err := a.eng.Create(c, in.str("path"), []byte(in.str("content")))
	if err != nil {
		return "", err
	}
	return renderWrite(in.str("path"), ch), nil
}

func (a *dispatcher) write(c *txn.Call, _ string, in *input) (string, error) {
	ch, err := a.eng.Write(c, in.str("path"), []byte(in.str("content")))
	if err != nil {
		return "", err
	}
	return renderWrite(in.str("path"), ch), nil
}

// nearDuplicate refuses a new file at path when files whose path differs from it only
// in case or typography exist (app’s.py, APP'S.PY beside app's.py), for each tool
// that makes a new file (write_file makes none: it refuses a missing path): a model whose
// quotes or case drifted means the file there, and a second one would split its work.
// A name differing in case can be meant (Makefile beside makefile), so the refusal
// gives way to the same call sent again unchanged as the session's next call, as the
// syntax guard's does. Nothing is looked up for a path that exists: create_file and
// write_file have their own rules there.
func (a *dispatcher) nearDuplicate(c *txn.Call, p string) error {
	fsys := a.eng.FS()
	r, err := fsys.Resolve(p)
	if err != nil || r.Exists || fsys.CheckNewName(r) != nil {
		return nil // the call's own planning says what is wrong
	}
	same := fsys.Lookalikes(r.Path)
	if len(same) == 0 {
		return nil
	}
	if err := c.Hold(); err != nil { // the journal says whether the call is sent again
		return err
	}
	// Sent again after this refusal, the call may be refused next by the syntax guard,
	// which gives way to it sent once more: this check let that one through already.
	if _, ok := a.eng.SentAgain(c, errs.FileExists); ok {
		return nil
	}
	if _, ok := a.eng.SentAgain(c, errs.SyntaxError); ok {
		return nil
	}
	list := andList(same[:min(len(same), 5)])
	if len(same) > 5 {
		list += fmt.Sprintf(" and %d more", len(same)-5)
	}
	return errs.New(errs.FileExists, p, "%s does not exist, but %s does, differing only in case, quotes, dashes or spaces; nothing was written. To change that file, send its path as it is. If you do mean a new file beside it, send this same call again, unchanged, as your next call: it is then created.", p, list)
}

func renderWrite(path string, c *txn.Change) string {
	lines := txn.CountLines(c.After)
	if c.Created {
		return withWarnings(fmt.Sprintf("Created %s (%s, %s).", path, plural(lines, "line"), plural(len(c.After), "byte")), c)
	}
	return withWarnings(fmt.Sprintf("Replaced %s whole: now %s, %s (was %s).", path, plural(lines, "line"), plural(len(c.After), "byte"), plural(len(c.Before), "byte")), c)
}

func (a *dispatcher) apply(c *txn.Call, _ string, in *input) (string, error) {
	specs := in.specs("changes")
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
		case journal.OpDelete:
			fmt.Fprintf(&b, "Removed %s (was %s).", specs[i].Path, plural(len(ch.Before), "byte"))
		default:
			b.WriteString(renderWrite(specs[i].Path, ch))
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

func (a *dispatcher) undoEdit(c *txn.Call, session string, in *input) (string, error) {
	path, _ := trimFolder(in.str("path")) // a folder's change too: create_directory, delete_file, move_file
	whole := in.flag("wholeCall")
	return a.undoLast(c, session, path, fmt.Sprintf("read_file %s and edit the lines back with edit_file", path), &whole)
}

// undoLast reverts session's latest change to path that is not undone yet. A conflict
// with a later call gets byHand, how the model can put its lines back itself: the
// blocking call is another session's or an operator's, which the model cannot undo.
//
// whole is the tool's wholeCall argument (nil where the tool has none): a command's
// change that changed other files too is then taken back whole.
func (a *dispatcher) undoLast(c *txn.Call, session, path, byHand string, whole *bool) (string, error) {
	r, err := a.eng.FS().Resolve(path)
	if err != nil {
		return "", err
	}
	res, err := a.eng.Undo(c, txn.UndoOptions{Session: session, Path: r.Path, Whole: whole != nil && *whole})
	b := errs.Blocked(err)
	part := txn.PartOf(err)
	switch {
	case part != nil:
		how := `send undo_edit again with "wholeCall": true`
		if whole == nil {
			how = "put each file back by hand"
		}
		return "", errs.Wrap(errs.InvalidInput, path, err, "Your latest change to %s is part of call %d (%s), which also changed %s; undo_edit takes a call back whole, so nothing was written. To take back the whole command, %s; to put %s back alone, %s.",
			path, part.Origin, part.Tool, txn.OthersText(part.Others), how, path, byHand)
	case errors.Is(err, txn.ErrNothingToUndo):
		msg := fmt.Sprintf("You have no change to %s that is not undone yet, so undo_edit has nothing to revert and nothing was written.", path)
		if e := (*errs.Error)(nil); errors.As(err, &e) && e.Fact != "" {
			msg += " " + e.Fact // the calls passed over, their folders standing again
		}
		return "", errs.Wrap(errs.NoChange, path, err, "%s", msg)
	case b != nil:
		return "", errs.Wrap(errs.Conflict, path, err, "%s To revert your change anyway, %s.", b.Fact, byHand)
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
	for _, en := range res.Entries {
		if en.Before == journal.KindDir || en.After == journal.KindDir {
			paths = append(paths, en.Path+"/")
		} else if !slices.Contains(paths, en.Path) { // a file that was, or becomes, a symlink
			paths = append(paths, en.Path)
		}
	}
	if res.DryRun {
		// Every line of a dry run says "would": a reader skimming a line must not
		// take it for done.
		what = "Dry run, nothing written: would revert"
		if redo {
			what = "Dry run, nothing written: would re-apply"
		}
	}
	fmt.Fprintf(&b, "%s call %d (%s)", what, res.Target, strings.Join(paths, ", "))
	switch {
	case res.DryRun: // no call is written
	case res.Seq > 0:
		fmt.Fprintf(&b, " as call %d", res.Seq)
	case len(res.Changes) > 0 && res.Changes[0].Seq > 0:
		fmt.Fprintf(&b, " as call %d", res.Changes[0].Seq)
	}
	b.WriteString(".\n")
	be := tense(res.DryRun)
	for _, ch := range res.Changes {
		switch {
		case ch.Deleted:
			fmt.Fprintf(&b, "%s %sremoved (the call had created it).\n", ch.Name, be)
		case ch.Created:
			fmt.Fprintf(&b, "%s %sput back (%s)%s.\n", ch.Name, be, plural(len(ch.After), "byte"), unlinkedNote(ch))
			if dirs := ch.MadeFolders(); len(dirs) > 0 {
				fmt.Fprintf(&b, "%s/ %smade again for it, with the default bits.\n", strings.Join(dirs, "/, "), be)
			}
		default:
			writeChanged(&b, ch, res.DryRun)
		}
	}
	writeEntries(&b, res.Entries, res.Changes, res.DryRun)
	for _, d := range res.Folders {
		if res.DryRun {
			fmt.Fprintf(&b, "%s/ would go too, if nothing else is in it then (the call had made it).\n", d)
		} else {
			fmt.Fprintf(&b, "%s/ removed (empty; the call had made it).\n", d)
		}
	}
	for _, k := range res.Kept {
		b.WriteString(k + ".\n")
	}
	for _, n := range res.Notes {
		b.WriteString(n + ".\n")
	}
	for _, p := range res.Passed {
		b.WriteString(p + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// writeEntries says, a line each, what an undo or rewind did (or with dryRun would
// do) to folders and symlinks.
func writeEntries(b *strings.Builder, entries []journal.Entry, changes []*txn.Change, dryRun bool) {
	for _, text := range entryTexts(entries, changes, dryRun) {
		fmt.Fprintf(b, "%s.\n", text)
	}
}

// unlinkedNote says that a file put back had hard links when it was deleted: it comes
// back as a copy, and its other names stay a file apart.
func unlinkedNote(ch *txn.Change) string {
	if ch.HardLinks < 2 {
		return ""
	}
	return fmt.Sprintf(" as a file of its own: it had %d hard links when it was deleted, and its other names are not linked to it again", ch.HardLinks)
}

// tense is what goes before a past participle: "would be " in a dry run.
func tense(dryRun bool) string {
	if dryRun {
		return "would be "
	}
	return ""
}

// entryTexts say what an undo or rewind does to each folder or symlink, naming a
// file that one of its changes leaves or finds at the same path.
func entryTexts(entries []journal.Entry, changes []*txn.Change, dryRun bool) []string {
	var out []string
	for _, en := range entries {
		before, after := false, false
		for _, ch := range changes {
			if ch.Path == en.Path {
				before, after = !ch.Created, !ch.Deleted
			}
		}
		out = append(out, entryText(en, before, after, dryRun))
	}
	return out
}

// writeChanged writes a changed file's diff, and its change of bits where it has one
// (then without the diff if the content stays).
func writeChanged(b *strings.Builder, ch *txn.Change, dryRun bool) {
	if from, to, ok := ch.ModeChange(); ok {
		if dryRun {
			fmt.Fprintf(b, "%s: mode would go %v → %v.\n", ch.Name, from, to)
		} else {
			fmt.Fprintf(b, "%s: mode %v → %v.\n", ch.Name, from, to)
		}
		if bytes.Equal(ch.Before, ch.After) {
			return
		}
	}
	b.WriteString(boundedDiff(ch.Diff(), ch.Seq))
}

// opOf is the journal op a tool's files get when it is refused before it planned.
func opOf(def *toolDef) journal.Op {
	if def == nil {
		return journal.OpEdit
	}
	return def.op
}

// RecordCut journals a call of tool refused with err before it was read, for its
// size: size bytes of arguments sent, of which args is what the journal keeps (cut
// by an ArgsCutter; at most txn.MaxCutArgs bytes of it are kept), as a call refused
// for arguments over the file size limit keeps them, and found by the paths they name
// (those whose members were kept whole). It returns the result.
func (a *dispatcher) RecordCut(ctx context.Context, session, tool string, args []byte, size int, err error) Result {
	args = args[:min(len(args), txn.MaxCutArgs)]
	c, berr := a.eng.Begin(session, tool, args)
	if berr != nil {
		return fail(tool, err)
	}
	tools := a.tools
	if tools == nil {
		tools = nativeTools()
	}
	if def := lookupTool(tools, tool); def != nil {
		var paths []string
		for _, p := range pathsOf(def, prefixFields(args)) {
			if !txn.WasCut(p) {
				paths = append(paths, p)
			}
		}
		if len(paths) > 0 {
			c.Named(opOf(def), paths...)
		}
	}
	c.SetOrigin(a.origin)
	c.SetTools(a.set)
	c.SetTurn(TurnOf(ctx))
	c.SetArgsSize(size)
	c.Finish(err)
	res := fail(tool, err)
	if seq := int64(c.Seq()); seq > 0 {
		res.Txn = &seq
	}
	return res
}

// maxUnparsed bounds what the journal keeps of a line that is not a call.
const maxUnparsed = 64 << 10

// RecordUnparsed journals a line that could not be read as a call at all (tool
// "unknown", kind invalid_input), byte for byte up to 64 KiB, so that failure
// analytics see it too. It returns the result for the line.
func (a *dispatcher) RecordUnparsed(session string, line []byte, err error) Result {
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

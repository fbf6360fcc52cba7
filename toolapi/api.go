package toolapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/txn"
)

// DefaultReadLimit is how many lines read_file returns when no limit is sent.
const DefaultReadLimit = 2000

// Result is the outcome of one call, as `vfsctl call` prints it and MCP returns it.
type Result struct {
	OK   bool    `json:"ok"`
	Tool string  `json:"tool"`
	Kind *string `json:"kind"`
	Text string  `json:"text"`
	Txn  *int64  `json:"txn"`
}

// API dispatches tool calls to an engine.
type API struct{ eng *txn.Engine }

// New returns an API over eng.
func New(eng *txn.Engine) *API { return &API{eng: eng} }

// Call runs one tool call for session and journals it, whatever its outcome. It never
// panics: an internal fault becomes an io_error result, so one bad call cannot take
// down a server.
func (a *API) Call(session, tool string, args json.RawMessage) (res Result) {
	c, err := a.eng.Begin(session, tool, args)
	if err != nil {
		return fail(tool, err) // busy: the journal could not be had, so nothing ran
	}
	var text string
	defer func() {
		if p := recover(); p != nil {
			err = errs.New(errs.IOError, "", "internal error in %s: %v. Nothing was written. %s", tool, p, firstFrame(debug.Stack()))
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
	return renderRead(args, r), nil
}

// renderRead numbers lines with a gutter ("     1\t"); line endings are not shown.
func renderRead(args *readArgs, r *txn.ReadResult) string {
	if r.TotalLines == 0 {
		return fmt.Sprintf("(%s is empty)", args.path)
	}
	first := max(args.offset, 1)
	limit := args.limit
	if limit == 0 {
		limit = DefaultReadLimit
	}
	if first > r.TotalLines {
		return fmt.Sprintf("(%s has %d lines; offset %d is past its end)", args.path, r.TotalLines, first)
	}
	var b strings.Builder
	n, last := 0, 0
	data := r.Data
	for ln := 1; len(data) > 0 && ln < first+limit; ln++ {
		i := bytes.IndexByte(data, '\n')
		line := data
		if i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if ln < first {
			continue
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if ln == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff"))
		}
		fmt.Fprintf(&b, "%6d\t%s\n", ln, line)
		n++
		last = ln
	}
	if first > 1 || last < r.TotalLines {
		fmt.Fprintf(&b, "(lines %d-%d of %d", first, last, r.TotalLines)
		if last < r.TotalLines {
			fmt.Fprintf(&b, "; read on with offset %d", last+1)
		}
		b.WriteString(")\n")
	}
	return b.String()
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
	b.WriteString(c.Diff())
	return strings.TrimRight(b.String(), "\n")
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
		parts = append(parts[:6], fmt.Sprintf("and %d more places", len(parts)-6))
	}
	return strings.Join(parts, ", ")
}

func tierNote(i int, r matcher.EditReport) string {
	var notes []string
	if r.Gutter {
		notes = append(notes, "the read_file line numbers pasted into oldText were ignored")
	}
	switch r.Tier {
	case matcher.TierTypography:
		notes = append(notes, "matched after folding "+foldedList(r.Folded)+"; the file's own characters were kept")
	case matcher.TierIndentation:
		what := "indentation"
		if len(r.Folded) > 0 {
			what += " and folding " + foldedList(r.Folded)
		}
		notes = append(notes, "matched ignoring "+what+"; new lines follow the file's indentation")
	}
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
		return fmt.Sprintf("Created %s (%d lines, %d bytes).", path, lines, len(c.After))
	}
	return fmt.Sprintf("Replaced %s whole: now %d lines, %d bytes (was %d bytes).", path, lines, len(c.After), len(c.Before))
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
	fmt.Fprintf(&b, "Applied %d changes as one transaction:\n", len(changes))
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

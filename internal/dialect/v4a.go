package dialect

import (
	"fmt"
	"strings"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/lazy"
)

// OpKind says what a FileOp does to its file.
type OpKind int

const (
	OpAdd    OpKind = iota // create the file with Content
	OpDelete               // delete the file
	OpUpdate               // apply Chunks, then move to MoveTo if set
)

func (k OpKind) String() string {
	switch k {
	case OpAdd:
		return "add"
	case OpDelete:
		return "delete"
	}
	return "update"
}

// FileOp is one file section of a patch.
type FileOp struct {
	Kind    OpKind
	Path    string
	MoveTo  string  // Update only: the new path, or ""
	Content string  // Add only: the file's content, each line ending in "\n"
	Chunks  []Chunk // Update only; empty for a pure move
	Line    int     // 1-based line of the section's header in the patch
	// Unified: read from a unified diff (ParseUnifiedDiff), whose hunks PlanHunks
	// places, and whose refusals speak of hunks.
	Unified bool
}

// Chunk is one `@@` section of an Update: where it goes and what it changes.
type Chunk struct {
	// Anchors are the `@@ text` lines that head the chunk, outermost first
	// (`@@ class A` then `@@ def f`): each is a whole line of the file, found in
	// order, after the previous one.
	Anchors []string
	// Old are the context and removed lines, New the context and added lines, in
	// order and without their one-character prefixes.
	Old, New []string
	// EndOfFile pins the chunk to the end of the file (`*** End of File`).
	EndOfFile bool
	Line      int // 1-based line in the patch where the chunk starts, for messages
	// Near is a unified diff hunk's old start line (1-based; 0: none). It chooses
	// among several places the hunk's lines fit, the one nearest to it; it never
	// places a hunk alone.
	Near int
	// OldNoEOL and NewNoEOL: a unified diff's `\ No newline at end of file` follows
	// the hunk's last old or new line. They pin the hunk to the end of the file.
	OldNoEOL, NewNoEOL bool
}

const (
	beginPatch = "*** Begin Patch"
	endPatch   = "*** End Patch"
	addFile    = "*** Add File:"
	deleteFile = "*** Delete File:"
	updateFile = "*** Update File:"
	moveTo     = "*** Move to:"
	endOfFile  = "*** End of File"
)

// heredocOpen is the first line of a shell heredoc around a patch, as models send it:
// `apply_patch <<'EOF'`, `<<EOF`, `<<"EOF"` (Codex accepts the bare forms).
var heredocOpen = lazy.Regexp(`^(?:(?:apply_patch|applypatch)\s*)?<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)(['"]?)$`)

// unifiedRange is a unified diff hunk header a model sent instead of `@@ anchor`:
// `@@ -12,7 +12,8 @@ func f() {`. Its numbers are dropped; the text after it anchors.
var unifiedRange = lazy.Regexp(`^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@ ?(.*)$`)

// ParsePatch reads a V4A patch as the Codex CLI's apply_patch accepts it.
//
// Lenient forms accepted (the Codex parser's, unless noted): markers padded with
// spaces or tabs (`  *** Update File: a`, `*** End Patch `); blank lines around the
// patch and between sections and chunks; a heredoc wrapper (`<<'EOF'`, `<<EOF`,
// `<<"EOF"`, and, beyond Codex, `apply_patch <<'EOF'` with any delimiter word);
// an empty line inside a chunk read as an empty context line (the model dropped its
// space); the first chunk of an Update without an `@@` line; CRLF line breaks.
// Beyond Codex: stacked anchors (`@@ class A` directly followed by `@@ def f`), a
// unified diff header `@@ -1,3 +1,4 @@ text` read as `@@ text`, empty lines that
// end a chunk before the next marker dropped (a blank line before `*** End Patch`),
// an empty line between `+` lines of an Add read as an empty line, and an Update
// with `*** Move to:` and no chunks (a pure rename).
func ParsePatch(text string) ([]FileOp, error) {
	lines := splitPatch(text)
	first, last := 0, len(lines)
	for first < last && strings.TrimSpace(lines[first]) == "" {
		first++
	}
	for last > first && strings.TrimSpace(lines[last-1]) == "" {
		last--
	}
	if first == last {
		return nil, invalid("the patch is empty. Send `*** Begin Patch`, file sections, then `*** End Patch`.")
	}
	// A Markdown fence around the patch (```diff ... ```), as models wrap code: the
	// fence lines sit outside the envelope, so dropping them loses nothing.
	if isFence(lines[first]) {
		first++
		if last > first && isFence(lines[last-1]) {
			last--
		}
		for first < last && strings.TrimSpace(lines[first]) == "" {
			first++
		}
		for last > first && strings.TrimSpace(lines[last-1]) == "" {
			last--
		}
		if first == last {
			return nil, invalid("the patch is empty: its fence holds nothing. Send `*** Begin Patch`, file sections, then `*** End Patch`.")
		}
	}
	if m := heredocOpen().FindStringSubmatch(strings.TrimSpace(lines[first])); m != nil && m[1] == m[3] {
		if strings.TrimSpace(lines[last-1]) != m[2] {
			return nil, invalid("apply_patch line %d: the heredoc opened on line %d is not closed: expected a last line %q, got %q.", last, first+1, m[2], strings.TrimSpace(lines[last-1]))
		}
		first++
		last--
		for first < last && strings.TrimSpace(lines[first]) == "" {
			first++
		}
		for last > first && strings.TrimSpace(lines[last-1]) == "" {
			last--
		}
	}
	if first == last || strings.TrimSpace(lines[first]) != beginPatch {
		got := ""
		if first < last {
			got = lines[first]
		}
		return nil, invalid("apply_patch line %d: expected %q, got %q. A patch starts with `*** Begin Patch` and ends with `*** End Patch`.", first+1, beginPatch, got)
	}
	if last-first < 2 || strings.TrimSpace(lines[last-1]) != endPatch {
		return nil, invalid("apply_patch line %d: expected %q as the patch's last line, got %q. End the patch with `*** End Patch`.", last, endPatch, lines[last-1])
	}
	p := &patchParser{lines: lines[:last-1], i: first + 1}
	ops, err := p.ops()
	if err != nil {
		return nil, err
	}
	if len(ops) == 0 {
		return nil, invalid("apply_patch: the patch holds no file sections. Add `*** Add File: path`, `*** Delete File: path` or `*** Update File: path` sections between `*** Begin Patch` and `*** End Patch`.")
	}
	return ops, nil
}

// Operation is one operation of the Responses API's apply_patch tool.
type Operation struct {
	Type string `json:"type"` // create_file, update_file or delete_file
	Path string `json:"path"`
	Diff string `json:"diff,omitempty"`
}

// ParseOperation reads one Responses API apply_patch operation. create_file's diff
// is the new file's lines, each prefixed `+` (as in an Add File section);
// update_file's diff is the chunks of an Update File section without the patch
// envelope (its first chunk may omit `@@`); delete_file carries no diff.
func ParseOperation(op Operation) (FileOp, error) {
	if strings.TrimSpace(op.Path) == "" {
		return FileOp{}, invalid("apply_patch: the %s operation has no path. Send {type, path, diff}.", op.Type)
	}
	lines := splitPatch(op.Diff)
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	p := &patchParser{lines: lines, path: op.Path}
	switch op.Type {
	case "create_file":
		content, n, err := p.addLines(0)
		if err != nil {
			return FileOp{}, err
		}
		if n < len(lines) {
			return FileOp{}, p.fail(n, "a line starting with '+' (each line of a new file is sent as '+' and the line)")
		}
		return FileOp{Kind: OpAdd, Path: op.Path, Content: content, Line: 1}, nil
	case "delete_file":
		return FileOp{Kind: OpDelete, Path: op.Path, Line: 1}, nil
	case "update_file":
		p.i = 0
		chunks, err := p.chunks()
		if err != nil {
			return FileOp{}, err
		}
		if p.i < len(lines) {
			return FileOp{}, p.fail(p.i, "a chunk line (' ', '-', '+', '@@' or '*** End of File'); an update_file diff holds only chunks")
		}
		if len(chunks) == 0 {
			return FileOp{}, invalid("apply_patch: the update_file operation for %s has no chunks. Send `@@` sections with ' ' context, '-' removed and '+' added lines.", op.Path)
		}
		return FileOp{Kind: OpUpdate, Path: op.Path, Chunks: chunks, Line: 1}, nil
	}
	return FileOp{}, invalid("apply_patch: unknown operation type %q. Use create_file, update_file or delete_file.", op.Type)
}

type patchParser struct {
	lines []string
	i     int    // next line, 0-based
	path  string // the file being parsed, for messages
}

func (p *patchParser) fail(i int, expected string) error {
	got := "the end of the patch"
	if i < len(p.lines) {
		got = fmt.Sprintf("%q", p.lines[i])
	}
	return errs.New(errs.InvalidInput, p.path, "apply_patch line %d: expected %s, got %s.", i+1, expected, got)
}

func (p *patchParser) ops() ([]FileOp, error) {
	var ops []FileOp
	for p.i < len(p.lines) {
		raw := p.lines[p.i]
		line := strings.TrimSpace(raw)
		if line == "" {
			p.i++
			continue
		}
		header := p.i
		switch {
		case strings.HasPrefix(line, addFile):
			p.path = strings.TrimSpace(line[len(addFile):])
			if p.path == "" {
				return nil, p.fail(header, "a path after `*** Add File:`")
			}
			content, n, err := p.addLines(p.i + 1)
			if err != nil {
				return nil, err
			}
			p.i = n
			ops = append(ops, FileOp{Kind: OpAdd, Path: p.path, Content: content, Line: header + 1})
		case strings.HasPrefix(line, deleteFile):
			p.path = strings.TrimSpace(line[len(deleteFile):])
			if p.path == "" {
				return nil, p.fail(header, "a path after `*** Delete File:`")
			}
			p.i++
			ops = append(ops, FileOp{Kind: OpDelete, Path: p.path, Line: header + 1})
		case strings.HasPrefix(line, updateFile):
			p.path = strings.TrimSpace(line[len(updateFile):])
			if p.path == "" {
				return nil, p.fail(header, "a path after `*** Update File:`")
			}
			op := FileOp{Kind: OpUpdate, Path: p.path, Line: header + 1}
			p.i++
			if p.i < len(p.lines) {
				if l := strings.TrimSpace(p.lines[p.i]); strings.HasPrefix(l, moveTo) {
					op.MoveTo = strings.TrimSpace(l[len(moveTo):])
					if op.MoveTo == "" {
						return nil, p.fail(p.i, "a path after `*** Move to:`")
					}
					p.i++
				}
			}
			chunks, err := p.chunks()
			if err != nil {
				return nil, err
			}
			if len(chunks) == 0 && op.MoveTo == "" {
				return nil, p.fail(p.i, fmt.Sprintf("a chunk for %s (`@@` then ' ' context, '-' removed and '+' added lines); an Update File section must change something", p.path))
			}
			op.Chunks = chunks
			ops = append(ops, op)
		case line == beginPatch || line == endPatch:
			return nil, p.secondEnvelope(header)
		default:
			return nil, p.fail(header, "a file header (`*** Add File: path`, `*** Delete File: path` or `*** Update File: path`)")
		}
	}
	return ops, nil
}

// secondEnvelope explains an `*** End Patch` or `*** Begin Patch` met between file
// sections: the input holds two patches, or text after the end of one. It names the
// second `*** Begin Patch` when there is one, since that is what the model must fix.
func (p *patchParser) secondEnvelope(i int) error {
	if strings.TrimSpace(p.lines[i]) == endPatch {
		j := i + 1
		for j < len(p.lines) && strings.TrimSpace(p.lines[j]) == "" {
			j++
		}
		if j >= len(p.lines) {
			// Only blank lines up to the patch's last line, itself `*** End Patch`.
			return errs.New(errs.InvalidInput, "", "apply_patch line %d: `*** End Patch` twice (lines %d and %d). Send it once, as the patch's last line.", i+1, i+1, j+1)
		}
		if strings.TrimSpace(p.lines[j]) != beginPatch {
			return errs.New(errs.InvalidInput, "", "apply_patch line %d: the patch ends here with `*** End Patch`, but line %d goes on with %q. Send one patch, with every file section between its `*** Begin Patch` and its last line `*** End Patch`.", i+1, j+1, p.lines[j])
		}
		i = j
	}
	return errs.New(errs.InvalidInput, "", "apply_patch line %d: a second `*** Begin Patch`; the input holds more than one patch. Send one patch per call, or put all the file sections in one envelope (one `*** Begin Patch` first, one `*** End Patch` last).", i+1)
}

// isFence reports whether line is a Markdown code fence (```, ```diff, ~~~).
func isFence(line string) bool {
	l := strings.TrimSpace(line)
	return strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~")
}

// addLines reads the `+` lines of an Add from line i; it returns the content and
// the index of the first line after them.
func (p *patchParser) addLines(i int) (string, int, error) {
	var b strings.Builder
	for i < len(p.lines) {
		l := p.lines[i]
		if strings.HasPrefix(l, "+") {
			b.WriteString(l[1:])
			b.WriteByte('\n')
			i++
			continue
		}
		// An empty line between '+' lines: the model dropped the '+' of an empty line.
		if strings.TrimSpace(l) == "" {
			j := i
			for j < len(p.lines) && strings.TrimSpace(p.lines[j]) == "" {
				j++
			}
			if j < len(p.lines) && strings.HasPrefix(p.lines[j], "+") && b.Len() > 0 {
				for ; i < j; i++ {
					b.WriteByte('\n')
				}
				continue
			}
		}
		break
	}
	return b.String(), i, nil
}

// chunks reads the chunks of an Update from p.i up to the next file header or the end.
func (p *patchParser) chunks() ([]Chunk, error) {
	r := &chunkReader{p: p}
	for p.i < len(p.lines) {
		raw := p.lines[p.i]
		trimmed := strings.TrimSpace(raw)
		switch {
		case trimmed == endOfFile:
			if r.cur == nil || r.lines == 0 {
				return nil, p.fail(p.i, "chunk lines (' ', '-' or '+') before `*** End of File`")
			}
			r.cur.EndOfFile = true
			p.i++
			r.close()
		case isHeader(trimmed):
			if r.cur != nil && r.lines == 0 {
				return nil, p.fail(p.i, "chunk lines (' ' context, '-' removed or '+' added) after the `@@` line")
			}
			r.close()
			return r.out, nil
		case strings.HasPrefix(raw, "@@"):
			r.anchor(raw)
		case raw == "" || trimmed == "" && r.cur == nil:
			r.blank()
		default:
			if err := r.body(raw); err != nil {
				return nil, err
			}
		}
	}
	if r.cur != nil && r.lines == 0 {
		return nil, p.fail(p.i, "chunk lines (' ' context, '-' removed or '+' added) after the `@@` line")
	}
	r.close()
	return r.out, nil
}

// chunkReader gathers an Update's chunks line by line: out holds the finished chunks,
// cur the one being read (nil between chunks), lines how many diff lines cur has.
type chunkReader struct {
	p     *patchParser
	out   []Chunk
	cur   *chunkBuilder
	lines int
}

// close finishes the current chunk, if any; empty lines at its end are separators (a
// blank line before the next marker), not context, and are dropped while the chunk
// keeps other lines.
func (r *chunkReader) close() {
	cur := r.cur
	if cur == nil {
		return
	}
	for len(cur.Old) > 0 && len(cur.New) > 0 && cur.Old[len(cur.Old)-1] == "" && cur.New[len(cur.New)-1] == "" &&
		(len(cur.Old) > 1 || len(cur.New) > 1) && cur.trailingBlank > 0 {
		cur.Old, cur.New = cur.Old[:len(cur.Old)-1], cur.New[:len(cur.New)-1]
		cur.trailingBlank--
	}
	r.out = append(r.out, cur.Chunk)
	r.cur, r.lines = nil, 0
}

// anchor reads an `@@` line: it starts a chunk, or adds a stacked anchor to one that
// has no diff lines yet.
func (r *chunkReader) anchor(raw string) {
	if r.cur != nil && r.lines > 0 {
		r.close()
	}
	if r.cur == nil {
		r.cur = &chunkBuilder{Chunk: Chunk{Line: r.p.i + 1}}
	}
	anchor := strings.TrimSpace(raw[2:])
	if m := unifiedRange().FindStringSubmatch(strings.TrimRight(raw, " \t")); m != nil {
		anchor = strings.TrimSpace(m[1])
	}
	if anchor != "" {
		r.cur.Anchors = append(r.cur.Anchors, anchor)
	}
	r.p.i++
}

// blank reads an empty line: between chunks it is skipped, inside one it is an empty
// context line (a model drops the space of an empty context line).
func (r *chunkReader) blank() {
	if r.cur != nil {
		r.cur.Old, r.cur.New = append(r.cur.Old, ""), append(r.cur.New, "")
		r.cur.trailingBlank++
		r.lines++
	}
	r.p.i++
}

// body reads a ' ', '-' or '+' line into the current chunk (the first chunk may omit
// its `@@`), or refuses any other line.
func (r *chunkReader) body(raw string) error {
	if r.cur == nil {
		if len(r.out) > 0 {
			return r.p.fail(r.p.i, "`@@` to start the next chunk")
		}
		r.cur = &chunkBuilder{Chunk: Chunk{Line: r.p.i + 1}}
	}
	switch raw[0] {
	case ' ':
		r.cur.Old, r.cur.New = append(r.cur.Old, raw[1:]), append(r.cur.New, raw[1:])
	case '-':
		r.cur.Old = append(r.cur.Old, raw[1:])
	case '+':
		r.cur.New = append(r.cur.New, raw[1:])
	default:
		return r.p.fail(r.p.i, "a chunk line starting with ' ' (context), '-' (removed) or '+' (added), an `@@` line, `*** End of File` or a file header")
	}
	r.cur.trailingBlank = 0
	r.lines++
	r.p.i++
	return nil
}

// isHeader: a line that ends an Update's chunks. A context line whose text starts
// with "***" is still context unless it names a section.
func isHeader(trimmed string) bool {
	for _, h := range []string{addFile, deleteFile, updateFile, moveTo, endPatch, beginPatch} {
		if strings.HasPrefix(trimmed, h) {
			return true
		}
	}
	return false
}

type chunkBuilder struct {
	Chunk
	trailingBlank int // empty patch lines at the end of the chunk so far
}

// splitPatch splits a patch into lines; CRLF and lone CR count as line breaks.
func splitPatch(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func invalid(format string, args ...any) error {
	return errs.New(errs.InvalidInput, "", format, args...)
}

package dialect

import (
	"strconv"
	"strings"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/lazy"
)

// A unified diff, as `git diff`, `diff -u` and Aider's udiff format write it. Each
// file's hunks become the chunks of a FileOp (Unified set), placed by PlanHunks:
// by their context and removed lines through the matcher's tiers, anywhere in the
// file, the header's line numbers only choosing among several places.

// hunkHeader is `@@ -12,7 +12,8 @@ text`; the counts may be left out (`-12 +12`).
var hunkHeader = lazy.Regexp(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$`)

// devNull is the path a unified diff gives the missing side of a created or deleted file.
const devNull = "/dev/null"

// MaxDiffLines bounds the lines of one diff; a longer one is refused as too_large.
const MaxDiffLines = 1_000_000

// ParseUnifiedDiff reads a unified diff of one or several files: the output of
// `git diff` (extended headers included: new and deleted files, renames, mode lines,
// which are ignored), of `diff -u`, or Aider's udiff (`@@ ... @@` hunks without line
// numbers). `--- /dev/null` creates a file, `+++ /dev/null` deletes one, `rename
// from`/`rename to` moves one (its hunks, if any, change it on the way).
//
// Lenient forms accepted: text around the diff (a commit message, a ``` fence);
// CRLF line breaks; an empty line inside a hunk read as an empty context line (the
// model dropped its space); hunk counts that disagree with the hunk's lines (the
// hunk then ends at the next header or at a line that is not a hunk line); several
// sections for one file (their hunks are joined). Refused: binary patches, combined
// diffs (`diff --cc`), a hunk before any file header.
func ParseUnifiedDiff(text string) ([]FileOp, error) {
	lines := splitDiff(text)
	if len(lines) > MaxDiffLines {
		return nil, errs.New(errs.TooLarge, "", "apply_diff: the diff has %d lines; at most %d are read in one call. Send it in several calls.", len(lines), MaxDiffLines)
	}
	p := &diffParser{lines: lines}
	if err := p.parse(); err != nil {
		return nil, err
	}
	if len(p.ops) == 0 {
		for _, l := range lines {
			if strings.HasPrefix(l, "new mode ") || strings.HasPrefix(l, "old mode ") {
				return nil, invalid("apply_diff: the diff only changes a file's mode (old mode/new mode lines, no hunk), and apply_diff does not change modes; nothing was changed. To change the content, send hunks headed `@@ -12,7 +12,8 @@`; a mode is changed outside the file tools (chmod).")
			}
		}
		return nil, invalid("apply_diff: the diff names no file. Send a unified diff: `--- a/path` and `+++ b/path` lines, then hunks headed `@@ -12,7 +12,8 @@` with ' ' context, '-' removed and '+' added lines.")
	}
	return p.ops, nil
}

type diffParser struct {
	lines []string
	i     int
	ops   []FileOp
	index map[string]int // ops by path, for sections that name a file again
	cur   []Chunk        // the hunks of the section being read
}

func (p *diffParser) fail(i int, path, format string, args ...any) error {
	return errs.New(errs.InvalidInput, path, "apply_diff line %d: "+format, append([]any{i + 1}, args...)...)
}

// section is one file's headers, as read so far.
type section struct {
	line             int // 0-based line of its first header
	git              bool
	gitOld, gitNew   string // from `diff --git a/x b/y`, when it can be split
	oldPath, newPath string // from `---` and `+++`
	renameFrom       string
	renameTo         string
	newFile, deleted bool // `new file mode`, `deleted file mode`
	headers          bool // `---`/`+++` were read
}

func (p *diffParser) parse() error {
	var s *section
	for p.i < len(p.lines) {
		l := p.lines[p.i]
		switch {
		case strings.HasPrefix(l, "diff --git "):
			if err := p.close(s); err != nil {
				return err
			}
			s = &section{line: p.i, git: true}
			s.gitOld, s.gitNew = splitGitPaths(l[len("diff --git "):])
			p.i++
		case strings.HasPrefix(l, "diff --cc ") || strings.HasPrefix(l, "diff --combined "):
			return p.fail(p.i, "", "a combined diff (of a merge) cannot be applied. Send a diff against one parent: `git diff A B`.")
		case strings.HasPrefix(l, "GIT binary patch") || strings.HasPrefix(l, "Binary files "):
			path := ""
			if s != nil {
				path = s.gitNew
			}
			return p.fail(p.i, path, "a binary patch cannot be applied: %s. Only text files can be changed with a diff.", strings.TrimSpace(l))
		case strings.HasPrefix(l, "--- ") && p.i+1 < len(p.lines) && strings.HasPrefix(p.lines[p.i+1], "+++ "):
			if s == nil || s.headers {
				if err := p.close(s); err != nil {
					return err
				}
				s = &section{line: p.i}
			}
			s.oldPath, s.newPath, s.headers = headerPath(l[4:]), headerPath(p.lines[p.i+1][4:]), true
			p.i += 2
		case s != nil && !s.headers && strings.HasPrefix(l, "rename from "):
			s.renameFrom = unquotePath(l[len("rename from "):])
			p.i++
		case s != nil && !s.headers && strings.HasPrefix(l, "rename to "):
			s.renameTo = unquotePath(l[len("rename to "):])
			p.i++
		case s != nil && !s.headers && strings.HasPrefix(l, "new file mode"):
			s.newFile = true
			p.i++
		case s != nil && !s.headers && strings.HasPrefix(l, "deleted file mode"):
			s.deleted = true
			p.i++
		case strings.HasPrefix(l, "@@"):
			if s == nil || (!s.headers && s.renameTo == "") {
				return p.fail(p.i, "", "a hunk comes before any file header. Put `--- a/path` and `+++ b/path` before the hunks of each file.")
			}
			if err := p.hunk(s); err != nil {
				return err
			}
		default:
			// Anything else between sections is not part of the diff: a commit
			// message, `index` and mode lines, a fence around the diff.
			p.i++
		}
	}
	return p.close(s)
}

// close turns a section's headers and hunks into a FileOp.
func (p *diffParser) close(s *section) error {
	if s == nil {
		return nil
	}
	chunks := p.take()
	oldPath, newPath := s.oldPath, s.newPath
	if !s.headers {
		oldPath, newPath = s.gitOld, s.gitNew
		if s.newFile {
			oldPath = devNull
		}
		if s.deleted {
			newPath = devNull
		}
	} else {
		oldPath, newPath = stripPrefixes(oldPath, newPath, s)
	}
	if s.renameFrom != "" || s.renameTo != "" {
		if s.renameFrom == "" || s.renameTo == "" {
			return p.fail(s.line, "", "a rename needs both `rename from PATH` and `rename to PATH`.")
		}
		oldPath, newPath = s.renameFrom, s.renameTo
	}
	switch {
	case oldPath == "" || newPath == "":
		if len(chunks) == 0 {
			return nil // a mode change, or a section that names no content change
		}
		return p.fail(s.line, "", "the file's path could not be read from its header. Send `--- a/path` and `+++ b/path`.")
	case oldPath == devNull && newPath == devNull:
		return p.fail(s.line, "", "both sides of the file header are /dev/null. Name the file on one side at least.")
	case oldPath == devNull:
		var b strings.Builder
		noEOL := false
		for k, c := range chunks {
			if len(c.Old) > 0 {
				return p.fail(c.Line-1, newPath, "%s is created (`--- /dev/null`), but hunk %d has ' ' or '-' lines. A new file's hunk holds only '+' lines.", newPath, k+1)
			}
			for _, l := range c.New {
				b.WriteString(l)
				b.WriteByte('\n')
			}
			noEOL = c.NewNoEOL
		}
		content := b.String()
		if noEOL {
			content = strings.TrimSuffix(content, "\n")
		}
		return p.add(FileOp{Kind: OpAdd, Path: newPath, Content: content, Line: s.line + 1, Unified: true})
	case newPath == devNull:
		return p.add(FileOp{Kind: OpDelete, Path: oldPath, Chunks: chunks, Line: s.line + 1, Unified: true})
	}
	op := FileOp{Kind: OpUpdate, Path: newPath, Chunks: chunks, Line: s.line + 1, Unified: true}
	if oldPath != newPath && (s.renameFrom != "" || s.git) {
		op.Path, op.MoveTo = oldPath, newPath
	}
	if len(op.Chunks) == 0 && op.MoveTo == "" {
		return nil // headers alone (a mode change): nothing to apply
	}
	return p.add(op)
}

// add appends op, or joins its hunks to an earlier update of the same file: models
// send a file's hunks in several sections.
func (p *diffParser) add(op FileOp) error {
	if p.index == nil {
		p.index = map[string]int{}
	}
	if k, ok := p.index[op.Path]; ok && op.Kind == OpUpdate && op.MoveTo == "" && p.ops[k].Kind == OpUpdate && p.ops[k].MoveTo == "" {
		p.ops[k].Chunks = append(p.ops[k].Chunks, op.Chunks...)
		return nil
	}
	p.index[op.Path] = len(p.ops)
	p.ops = append(p.ops, op)
	return nil
}

// take returns the hunks of the section being read, and starts the next one's.
func (p *diffParser) take() []Chunk {
	c := p.cur
	p.cur = nil
	return c
}

// hunk reads one hunk at p.i (an `@@` line) into the open section.
func (p *diffParser) hunk(s *section) error {
	head := p.i
	h := strings.TrimRight(p.lines[head], " \t")
	c := Chunk{Line: head + 1}
	oldN, newN, counted := 0, 0, false
	if m := hunkHeader().FindStringSubmatch(h); m != nil {
		c.Near, _ = strconv.Atoi(m[1])
		oldN, newN, counted = 1, 1, true
		if m[2] != "" {
			oldN, _ = strconv.Atoi(m[2])
		}
		if m[4] != "" {
			newN, _ = strconv.Atoi(m[4])
		}
		if oldN == 0 {
			c.Near = 0 // `-0,0` and `-5,0`: no old lines to place
		}
	} else if h != "@@" && !strings.HasPrefix(h, "@@ ") {
		// Aider's `@@ ... @@` and a bare `@@` carry no numbers; anything else
		// glued to the `@@` is not a header.
		return p.fail(head, "", "expected a hunk header `@@ -12,7 +12,8 @@` (or `@@ ... @@`), got %q.", h)
	}
	start := head + 1
	end := -1
	if counted {
		end = p.counted(start, oldN, newN)
	}
	if end < 0 {
		end = p.uncounted(start)
	}
	for j := start; j < end; j++ {
		l := p.lines[j]
		if l == "" {
			c.Old, c.New = append(c.Old, ""), append(c.New, "")
			continue
		}
		switch l[0] {
		case ' ':
			c.Old, c.New = append(c.Old, l[1:]), append(c.New, l[1:])
		case '-':
			c.Old = append(c.Old, l[1:])
		case '+':
			c.New = append(c.New, l[1:])
		case '\\':
			// `\ No newline at end of file` ends the side(s) of the line before it.
			if j > start {
				switch prev := p.lines[j-1]; {
				case prev == "" || prev[0] == ' ':
					c.OldNoEOL, c.NewNoEOL = true, true
				case prev[0] == '-':
					c.OldNoEOL = true
				case prev[0] == '+':
					c.NewNoEOL = true
				}
			}
		}
	}
	if len(c.Old) == 0 && len(c.New) == 0 {
		return p.fail(head, "", "the hunk has no lines. Follow `@@` with ' ' context, '-' removed and '+' added lines.")
	}
	// The missing final line break is at the end of the file: so is the hunk.
	c.EndOfFile = c.OldNoEOL || c.NewNoEOL
	p.cur = append(p.cur, c)
	p.i = end
	return nil
}

// counted returns the end of a hunk at start with the header's counts, or -1 when its
// lines disagree with them: they run out, hold a line that is no hunk line, or are
// followed by more hunk lines.
func (p *diffParser) counted(start, oldN, newN int) int {
	j := start
	for oldN > 0 || newN > 0 {
		if j >= len(p.lines) {
			return -1
		}
		l := p.lines[j]
		switch {
		case l == "" || l[0] == ' ':
			oldN--
			newN--
		case l[0] == '-':
			oldN--
		case l[0] == '+':
			newN--
		case l[0] == '\\':
		default:
			return -1
		}
		if oldN < 0 || newN < 0 {
			return -1
		}
		j++
	}
	for j < len(p.lines) && strings.HasPrefix(p.lines[j], "\\") {
		j++
	}
	if j < len(p.lines) {
		l := p.lines[j]
		if l == "-- " {
			return j // the signature separator of `git format-patch`
		}
		if l != "" && (l[0] == ' ' || l[0] == '+' || l[0] == '-') && !p.fileHeader(j) {
			return -1
		}
	}
	return j
}

// uncounted returns the end of a hunk at start read without counts: the next hunk or
// file header, or a line that is no hunk line. Empty lines at its end separate it
// from what follows.
func (p *diffParser) uncounted(start int) int {
	j := start
	for j < len(p.lines) {
		l := p.lines[j]
		if l != "" && !strings.ContainsRune(" +-\\", rune(l[0])) || strings.HasPrefix(l, "@@") || p.fileHeader(j) {
			break
		}
		j++
	}
	for j > start && p.lines[j-1] == "" {
		j--
	}
	return j
}

// fileHeader: line j starts a file's headers (`--- a` over `+++ b`).
func (p *diffParser) fileHeader(j int) bool {
	return strings.HasPrefix(p.lines[j], "--- ") && j+1 < len(p.lines) && strings.HasPrefix(p.lines[j+1], "+++ ")
}

// headerPath is the path of a `---` or `+++` line: a timestamp after a tab is cut
// (`diff -u`), a quoted path unquoted.
func headerPath(s string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimRight(s, " ")
	return unquotePath(s)
}

// unquotePath reads a path git quoted (`"a/caf\303\251"`), or returns it as it is.
func unquotePath(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

// splitGitPaths splits `a/x b/x` of a `diff --git` line, when it can be split
// without doubt: quoted paths, or two halves that name the same file.
func splitGitPaths(s string) (string, string) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, `"`) {
		for i := 1; i < len(s); i++ {
			if s[i] == '"' && s[i-1] != '\\' {
				a, b := unquotePath(s[:i+1]), unquotePath(s[i+1:])
				return cutPrefix(a, "a/"), cutPrefix(b, "b/")
			}
		}
		return "", ""
	}
	if n := len(s); n%2 == 1 && s[n/2] == ' ' {
		a, b := s[:n/2], s[n/2+1:]
		if strings.HasPrefix(a, "a/") && strings.HasPrefix(b, "b/") && a[2:] == b[2:] {
			return a[2:], b[2:]
		}
		if a == b {
			return a, b
		}
	}
	return "", ""
}

func cutPrefix(s, prefix string) string {
	if s == devNull {
		return s
	}
	return strings.TrimPrefix(s, prefix)
}

// stripPrefixes takes git's a/ and b/ off the `---` and `+++` paths: when both
// carry them, or when the section is git's (`diff --git`) or the other side is
// /dev/null and this one carries its side's prefix.
func stripPrefixes(oldPath, newPath string, s *section) (string, string) {
	hasA, hasB := strings.HasPrefix(oldPath, "a/"), strings.HasPrefix(newPath, "b/")
	switch {
	case hasA && hasB, s.git:
		return cutPrefix(oldPath, "a/"), cutPrefix(newPath, "b/")
	case oldPath == devNull && hasB:
		return oldPath, newPath[2:]
	case newPath == devNull && hasA:
		return oldPath[2:], newPath
	}
	return oldPath, newPath
}

// splitDiff splits a diff into lines; a CRLF line break counts as one, and a fence
// line (```) is kept, to be skipped between sections.
func splitDiff(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// CheckRemoved checks the hunks of a diff that deletes a file (`+++ /dev/null`): their
// '-' lines must be the file's lines, all of them, through the matcher's tiers, so
// that a diff written against another version of the file does not delete this one.
func CheckRemoved(path string, content []byte, hunks []Chunk) error {
	f, err := newFile(path, content)
	if err != nil {
		return err
	}
	f.unit, f.unified = "hunk", true
	var old []string
	for _, h := range hunks {
		old = append(old, h.Old...)
	}
	if len(old) != f.nlines {
		return refusal(errs.TextNotFound, path, 0, nil, "%s is deleted by the diff, which shows %d lines of it ('-' lines); the file has %d. Re-read the file: a deletion's hunk removes every line as the file has it now.", f.name, len(old), f.nlines)
	}
	if len(old) == 0 {
		return nil
	}
	if _, err := f.findLines(f.name+" hunk 1", 0, old, 0, true, 0); err != nil {
		return refusal(errs.TextNotFound, path, 0, []int{1, f.nlines}, "%s is deleted by the diff, but its '-' lines are not the file's lines. %s Re-read the file: a deletion's hunk removes every line as the file has it now.", f.name, f.closest(0, f.nlines, old, "the hunk"))
	}
	return nil
}

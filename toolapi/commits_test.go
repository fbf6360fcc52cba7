package toolapi

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/guard"
	"github.com/vfsctl/vfsctl/txn"
	"github.com/vfsctl/vfsctl/vfs"
)

// The changes of real commits, sent through edit_file as a careful model sends them
// (oldText and newText copied exactly) and then with one kind of sloppiness in the text
// the model quotes from the file (its oldText, and the context lines of its newText;
// the lines it adds are as committed). The oracle is the commit: the file before it
// with the hunk's lines replaced by the commit's. Every clean change must come out
// exactly as committed, and no sloppy one written otherwise (refused is acceptable).
//
// The history read is this repository's own (a fresh clone has it), or the git
// directories listed in VFSCTL_COMMIT_REPOS. By default a sample of
// commitSampleChanges changes per repository is sent; VFSCTL_COMMIT_CHANGES sets
// another number (0 for every change).
const commitSampleChanges = 25

// commitChange is one hunk of one commit: the file before it, the hunk's old and new
// lines (each with its line break, if it has one), which of them are context, and the
// file as the commit left it around that hunk.
type commitChange struct {
	repo, commit, path, lang string
	pre, want                string
	old, new                 []string
	oldCtx, newCtx           []bool
}

// sloppiness is one way a model retypes the text it quotes; makes holds the
// characters it types. Where the lines a change adds hold one of them, the model's
// typing could not be told from the commit's, and the kind is not sent.
type sloppiness struct {
	name  string
	f     func(line string) string
	makes string
}

func curly(s string) string {
	var b strings.Builder
	dq, sq := false, false
	for _, r := range s {
		switch r {
		case '"':
			if dq {
				b.WriteRune('”')
			} else {
				b.WriteRune('“')
			}
			dq = !dq
		case '\'':
			if sq {
				b.WriteRune('’')
			} else {
				b.WriteRune('‘')
			}
			sq = !sq
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func dashes(s string) string { return strings.ReplaceAll(s, "-", "–") }

func nbsp(s string) string {
	lead := len(s) - len(strings.TrimLeft(s, " \t"))
	return s[:lead] + strings.ReplaceAll(s[lead:], " ", "\u00a0")
}

func dropTrailing(s string) string { return strings.TrimRight(s, " \t") }

func tabsToSpaces(s string) string {
	lead := len(s) - len(strings.TrimLeft(s, "\t"))
	return strings.Repeat("    ", lead) + s[lead:]
}

func chain(fs ...func(string) string) func(string) string {
	return func(s string) string {
		for _, f := range fs {
			s = f(s)
		}
		return s
	}
}

var sloppinesses = []sloppiness{
	{"quotes", curly, "“”‘’"},
	{"dashes", dashes, "–"},
	{"nbsp", nbsp, "\u00a0"},
	{"trailing", dropTrailing, ""},
	{"tabs", tabsToSpaces, ""},
	{"quotes+dashes", chain(curly, dashes), "“”‘’–"},
	{"quotes+nbsp+trailing", chain(curly, nbsp, dropTrailing), "“”‘’\u00a0"},
	{"tabs+trailing", chain(tabsToSpaces, dropTrailing), ""},
	{"tabs+quotes", chain(tabsToSpaces, curly), "“”‘’"},
}

var commitLangs = map[string]string{".go": "Go", ".py": "Python", ".js": "JavaScript", ".mjs": "JavaScript",
	".cjs": "JavaScript", ".ts": "JavaScript", ".rs": "Rust"}

// sendForm joins lines into oldText and newText as a careful model sends them: without
// the final line break both share, and with it where the new side is empty (a deletion
// of whole lines).
func sendForm(old, new []string) (string, string) {
	o, n := strings.Join(old, ""), strings.Join(new, "")
	if strings.HasSuffix(o, "\n") && strings.HasSuffix(n, "\n") {
		o, n = o[:len(o)-1], n[:len(n)-1]
	}
	return o, n
}

func TestRealCommitFidelity(t *testing.T) {
	limit := commitSampleChanges
	if s := os.Getenv("VFSCTL_COMMIT_CHANGES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("VFSCTL_COMMIT_CHANGES=%q: %v", s, err)
		}
		limit = n
	}
	var repos []string
	if s := os.Getenv("VFSCTL_COMMIT_REPOS"); s != "" {
		repos = filepath.SplitList(s)
	} else {
		out, err := exec.Command("git", "rev-parse", "--absolute-git-dir").Output()
		if err != nil {
			t.Skipf("no git history here: %v", err)
		}
		repos = []string{strings.TrimSpace(string(out))}
	}
	var changes []commitChange
	for _, r := range repos {
		cs, err := commitChanges(r, limit)
		if err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		changes = append(changes, cs...)
	}
	if len(changes) == 0 {
		t.Skip("the history has no change of a Go, Python, JavaScript or Rust file")
	}
	a, dir := newCommitAPI(t)
	type tally struct{ n, exact, refused, wrong int }
	counts := map[string]*tally{}
	count := func(lang, kind, outcome string) {
		for _, k := range []string{lang + " " + kind, "all " + kind} {
			c := counts[k]
			if c == nil {
				c = &tally{}
				counts[k] = c
			}
			c.n++
			switch outcome {
			case "exact":
				c.exact++
			case "refused":
				c.refused++
			default:
				c.wrong++
			}
		}
	}
	shown := 0
	for i, c := range changes {
		name := fmt.Sprintf("f%d%s", i, filepath.Ext(c.path))
		send := func(kind string, old, new string) {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, []byte(c.pre), 0o644); err != nil {
				t.Fatal(err)
			}
			r := call(a, EditFile, editCall(name, old, new))
			outcome := "refused"
			if r.OK {
				got, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				outcome = "exact"
				if string(got) != c.want {
					outcome = "wrong"
					if shown < 20 {
						shown++
						t.Errorf("%s %s %s: %s written otherwise than committed\noldText %q\nnewText %q\n%s",
							c.repo, c.commit[:10], c.path, kind, old, new, firstDifference(c.want, string(got)))
					}
				}
			} else if kind == "clean" && shown < 20 {
				shown++
				t.Errorf("%s %s %s: the clean change was refused: %s", c.repo, c.commit[:10], c.path, r.Text)
			}
			count(c.lang, kind, outcome)
		}
		old, new := sendForm(c.old, c.new)
		send("clean", old, new)
		var added strings.Builder
		for i, s := range c.new {
			if !c.newCtx[i] {
				added.WriteString(s)
			}
		}
		for _, s := range sloppinesses {
			if s.makes != "" && strings.ContainsAny(added.String(), s.makes) {
				continue
			}
			so, sn := slop(c.old, nil, s.f), slop(c.new, c.newCtx, s.f)
			o, n := sendForm(so, sn)
			if o == old || o == n {
				continue // this kind of sloppiness changes nothing here
			}
			send(s.name, o, n)
		}
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "%d changes of %d repositories:\n", len(changes), len(repos))
	for _, k := range keys {
		c := counts[k]
		fmt.Fprintf(&b, "  %-36s %5d: exact %5d (%.1f%%), refused %4d, wrong %d\n", k, c.n, c.exact, 100*float64(c.exact)/float64(c.n), c.refused, c.wrong)
	}
	t.Log(b.String())
	for _, k := range keys {
		c := counts[k]
		switch {
		case k == "all clean" && c.exact != c.n:
			t.Errorf("%d of %d clean changes did not come out as committed", c.n-c.exact, c.n)
		case strings.HasPrefix(k, "all ") && c.wrong > 0:
			t.Errorf("%d of %d changes sent with %s written otherwise than committed", c.wrong, c.n, k[len("all "):])
		}
	}
}

// slop retypes the quoted lines (all of oldText, the context of newText) with f,
// keeping each line's break.
func slop(lines []string, ctx []bool, f func(string) string) []string {
	out := make([]string, len(lines))
	for i, s := range lines {
		if ctx != nil && !ctx[i] {
			out[i] = s
			continue
		}
		body := strings.TrimSuffix(s, "\n")
		out[i] = f(body) + s[len(body):]
	}
	return out
}

// commonPrefix is how many bytes a and b share at their start.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func firstDifference(want, got string) string {
	n := commonPrefix(want, got)
	from := max(0, strings.LastIndexByte(want[:n], '\n'))
	cut := func(s string) string { return s[from:min(len(s), n+120)] }
	return fmt.Sprintf("committed: %q\nwritten:   %q", cut(want), cut(got))
}

func newCommitAPI(t *testing.T) (*dispatcher, string) {
	dir := filepath.Join(t.TempDir(), "ws")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	fs, err := vfs.Open(dir, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() }) // a folder held open cannot be removed on Windows
	// No syntax guard: one hunk of a commit sent alone may leave a file that does not
	// parse until the commit's other hunks are in; the guard has checks of its own.
	eng, err := txn.Open(fs, txn.Options{NoSync: true, Guard: guard.Off})
	if err != nil {
		t.Fatal(err)
	}
	return newDispatcher(eng), dir
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// commitChanges reads up to limit hunks (0: all) of modified Go, Python, JavaScript and
// Rust files from the history of git directory gitDir, newest first.
func commitChanges(gitDir string, limit int) ([]commitChange, error) {
	repo := filepath.Base(gitDir)
	if repo == ".git" || repo == "repo" {
		repo = filepath.Base(filepath.Dir(gitDir))
	}
	blobs, err := newBlobReader(gitDir)
	if err != nil {
		return nil, err
	}
	defer blobs.close()
	cmd := exec.Command("git", "--git-dir", gitDir, "log", "--no-merges", "--no-renames", "--no-color", "-p", "-U3",
		"--format=commit %H", "--diff-filter=M", "--", "*.go", "*.py", "*.js", "*.mjs", "*.cjs", "*.ts", "*.rs")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	var changes []commitChange
	var commit, path string
	var pre, post []string
	var hunk *commitChange // the hunk being read
	var preStart, oldLeft, newLeft int
	skipFile := true
	finish := func() {
		if hunk == nil {
			return
		}
		h := hunk
		hunk = nil
		if c, ok := completeChange(h, pre, preStart); ok {
			changes = append(changes, c)
		}
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		if limit > 0 && len(changes) >= limit {
			break
		}
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "commit ") && oldLeft == 0 && newLeft == 0:
			finish()
			commit = strings.TrimPrefix(line, "commit ")
			skipFile = true
			continue
		case strings.HasPrefix(line, "diff --git ") && oldLeft == 0 && newLeft == 0:
			finish()
			path = ""
			skipFile = true
			continue
		case strings.HasPrefix(line, "+++ b/") && oldLeft == 0 && newLeft == 0 && hunk == nil:
			path = strings.TrimPrefix(line, "+++ b/")
			lang := commitLangs[filepath.Ext(path)]
			skipFile = lang == ""
			if !skipFile {
				a, errA := blobs.read(commit + "^:" + path)
				b, errB := blobs.read(commit + ":" + path)
				skipFile = errA != nil || errB != nil || len(a) > 256<<10 || strings.ContainsAny(a+b, "\r\x00")
				pre, post = splitKeep(a), splitKeep(b)
			}
			continue
		}
		if skipFile {
			continue
		}
		if m := hunkHeader.FindStringSubmatch(line); m != nil && oldLeft == 0 && newLeft == 0 {
			finish()
			num := func(s string, def int) int {
				if s == "" {
					return def
				}
				n, _ := strconv.Atoi(s)
				return n
			}
			a, b, c, d := num(m[1], 0), num(m[2], 1), num(m[3], 0), num(m[4], 1)
			postStart := c - 1
			preStart = a - 1
			if b == 0 {
				preStart = a
			}
			if d == 0 {
				postStart = c
			}
			if preStart+b > len(pre) || postStart+d > len(post) {
				skipFile = true
				continue
			}
			hunk = &commitChange{repo: repo, commit: commit, path: path, lang: commitLangs[filepath.Ext(path)],
				old: pre[preStart : preStart+b], new: post[postStart : postStart+d]}
			oldLeft, newLeft = b, d
			continue
		}
		if hunk == nil {
			continue
		}
		switch {
		case strings.HasPrefix(line, " "):
			hunk.oldCtx = append(hunk.oldCtx, true)
			hunk.newCtx = append(hunk.newCtx, true)
			oldLeft--
			newLeft--
		case strings.HasPrefix(line, "-"):
			hunk.oldCtx = append(hunk.oldCtx, false)
			oldLeft--
		case strings.HasPrefix(line, "+"):
			hunk.newCtx = append(hunk.newCtx, false)
			newLeft--
		}
	}
	finish()
	return changes, nil
}

// completeChange widens a hunk with the file's lines around it until its oldText
// occurs once in the file, and computes the file the commit left.
func completeChange(h *commitChange, pre []string, start int) (commitChange, bool) {
	if len(h.oldCtx) != len(h.old) || len(h.newCtx) != len(h.new) || len(h.old) == 0 {
		return commitChange{}, false
	}
	c := *h
	c.pre = strings.Join(pre, "")
	end := start + len(c.old)
	var b strings.Builder
	b.WriteString(strings.Join(pre[:start], ""))
	b.WriteString(strings.Join(c.new, ""))
	b.WriteString(strings.Join(pre[end:], ""))
	c.want = b.String()
	for range 20 {
		o, _ := sendForm(c.old, c.new)
		if strings.TrimSpace(o) != "" && strings.Count(c.pre, o) == 1 {
			return c, true
		}
		if start == 0 && end == len(pre) {
			break
		}
		if start > 0 {
			start--
			c.old = append([]string{pre[start]}, c.old...)
			c.new = append([]string{pre[start]}, c.new...)
			c.oldCtx = append([]bool{true}, c.oldCtx...)
			c.newCtx = append([]bool{true}, c.newCtx...)
		}
		if end < len(pre) {
			c.old = append(c.old[:len(c.old):len(c.old)], pre[end])
			c.new = append(c.new[:len(c.new):len(c.new)], pre[end])
			c.oldCtx = append(c.oldCtx[:len(c.oldCtx):len(c.oldCtx)], true)
			c.newCtx = append(c.newCtx[:len(c.newCtx):len(c.newCtx)], true)
			end++
		}
	}
	return commitChange{}, false
}

// splitKeep splits text into lines that keep their line break.
func splitKeep(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// blobReader reads objects through one git cat-file --batch process.
type blobReader struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func newBlobReader(gitDir string) (*blobReader, error) {
	cmd := exec.Command("git", "--git-dir", gitDir, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &blobReader{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16)}, nil
}

func (b *blobReader) read(spec string) (string, error) {
	if _, err := fmt.Fprintln(b.in, spec); err != nil {
		return "", err
	}
	head, err := b.out.ReadString('\n')
	if err != nil {
		return "", err
	}
	f := strings.Fields(head)
	if len(f) != 3 {
		return "", fmt.Errorf("%s: %s", spec, strings.TrimSpace(head))
	}
	n, err := strconv.Atoi(f[2])
	if err != nil {
		return "", err
	}
	buf := make([]byte, n+1)
	if _, err := io.ReadFull(b.out, buf); err != nil {
		return "", err
	}
	if f[1] != "blob" {
		return "", fmt.Errorf("%s is a %s", spec, f[1])
	}
	return string(buf[:n]), nil
}

func (b *blobReader) close() {
	b.in.Close()
	b.cmd.Wait()
}

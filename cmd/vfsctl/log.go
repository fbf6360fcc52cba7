package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vfsctl/vfsctl/toolapi"
)

type logCmd struct {
	common
	path, session, kind string
	turn                string
	failed              bool
	limit               int
}

func (c *logCmd) Name() string    { return "log" }
func (c *logCmd) Summary() string { return "list journaled calls, newest first" }

const logUsage = `Usage: vfsctl log [--path P] [--session S] [--turn T] [--kind K] [--failed] [--since T] [--until T] [--limit N] [--json]

Lists the calls recorded in the workspace journal, newest first: successes, refusals
and reads alike. Filters combine. --since and --until take a time (2026-11-30T10:00:00Z,
2026-11-30) or a duration back from now (90m, 24h, 30d, 2w).

With --json, one object per line: seq, time, session, turn (when the call carried
one), tool, state (committed, failed, rolled_back, pending, unknown), kind (null unless
failed), paths, duration_ms, message (a refusal's reason; left out when there is none).

A record the journal cannot read (damaged) is left out, and said so on stderr after
the others; the exit status is then 1 (vfsctl fsck checks the whole journal).

Example:
  vfsctl log --failed --kind text_not_found --limit 20
`

func (c *logCmd) ParseFlags(args []string) error {
	fs := newFlagSet("log", logUsage)
	c.declare(fs, flagRoot, flagWait, flagJSON, flagSince, flagUntil)
	fs.StringVar(&c.path, "path", "", "only calls that touched this file (from the current folder, as git takes paths)")
	fs.StringVar(&c.session, "session", "", "only calls of this session")
	fs.StringVar(&c.turn, "turn", "", "only calls carrying this turn label (with --session: of that session)")
	fs.StringVar(&c.kind, "kind", "", "only calls refused with this error kind (e.g. multiple_matches)")
	fs.BoolVar(&c.failed, "failed", false, "only refused and failed calls")
	fs.IntVar(&c.limit, "limit", 50, "at most this many calls; 0 for all")
	if err := fs.parse(args); err != nil {
		return err
	}
	if c.kind != "" && !knownKind(c.kind) {
		return fmt.Errorf("--kind %q is not an error kind; the kinds are %s", c.kind, kindList())
	}
	if c.limit < 0 {
		return fmt.Errorf("--limit must be 0 or more")
	}
	return nil
}

func knownKind(k string) bool {
	for _, x := range toolapi.Kinds() {
		if string(x) == k {
			return true
		}
	}
	return false
}

func kindList() string {
	var s []string
	for _, k := range toolapi.Kinds() {
		s = append(s, string(k))
	}
	return strings.Join(s, ", ")
}

// parseWhen reads a time or a duration back from now.
func parseWhen(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := parseAgo(s); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("%q is a negative duration; give how long ago, e.g. 30d or 24h", s)
		}
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05",
		"2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is neither a time (2026-11-30T10:00:00Z, 2026-11-30 10:00, 2026-11-30) nor a duration ago (90m, 24h, 30d, 2w)", s)
}

// parseAgo is time.ParseDuration with weeks (w) and days (d, 24h each) in front:
// 30d, 2w, 1w2d, 1d12h.
func parseAgo(s string) (time.Duration, error) {
	rest, neg := strings.CutPrefix(s, "-")
	if rest == "" {
		return 0, fmt.Errorf("%q is not a duration", s)
	}
	var d time.Duration
	for _, u := range []struct {
		suffix string
		unit   time.Duration
	}{{"w", 7 * 24 * time.Hour}, {"d", 24 * time.Hour}} {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		// At most four digits: 9999w is far from overflowing a Duration.
		if i == 0 || i > 4 || !strings.HasPrefix(rest[i:], u.suffix) {
			continue
		}
		n, _ := strconv.Atoi(rest[:i])
		d += time.Duration(n) * u.unit
		rest = rest[i+len(u.suffix):]
	}
	if rest != "" {
		more, err := time.ParseDuration(rest)
		if err != nil || more < 0 || more > math.MaxInt64-d {
			return 0, fmt.Errorf("%q is not a duration", s)
		}
		d += more
	}
	if neg {
		d = -d
	}
	return d, nil
}

// logLine is the JSON form of a record in listings.
type logLine struct {
	Seq        uint64          `json:"seq"`
	Time       string          `json:"time"`
	Session    string          `json:"session"`
	Turn       string          `json:"turn,omitempty"`
	Tool       string          `json:"tool"`
	State      string          `json:"state"`
	Kind       *string         `json:"kind"`
	Paths      []string        `json:"paths"`
	DurationMS toolapi.Decimal `json:"duration_ms"`
	Message    string          `json:"message,omitempty"`
	DryRun     bool            `json:"dry_run,omitempty"` // nothing was meant to be written
	// A command's (tool exec): its argv and how it ended.
	Argv []string `json:"argv,omitempty"`
	Exit string   `json:"exit,omitempty"`
}

func toLogLine(r *toolapi.Record) logLine {
	l := logLine{Seq: r.Seq, Time: toolapi.TimeJSON(r.Time), Session: r.Session, Turn: r.Turn, Tool: r.Tool,
		State: string(r.State), Paths: r.Paths(), DurationMS: toolapi.Millis(r.Duration), Message: r.Message,
		DryRun: r.DryRun()}
	if r.Kind != "" {
		k := r.Kind
		l.Kind = &k
	}
	if l.Paths == nil {
		l.Paths = []string{}
	}
	l.Argv, l.Exit = toolapi.CommandArgv(r), r.Exit
	return l
}

func (c *logCmd) Run(_ io.Reader, stdout, stderr io.Writer) int {
	q := toolapi.Query{Session: c.session, Turn: c.turn, Kind: c.kind, Failed: c.failed, Limit: c.limit, SkipDamaged: true}
	if err := c.window(&q); err != nil {
		fmt.Fprintf(stderr, "vfsctl log: %v\n", err)
		return exitUsage
	}
	eng, err := c.open("vfsctl log")
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl log: %v\n", err)
		return exitUsage
	}
	defer eng.Close()
	if !eng.HasJournal() {
		// As show: a log run in the wrong folder fails, whether --json or not.
		text := fmt.Sprintf("there is no journal in %s yet (the first tool call creates it)", eng.Root())
		return refused(stdout, stderr, c.json, "vfsctl log", toolapi.Kind("file_not_found"), text)
	}
	if c.path != "" {
		if q.Path, err = canonical(eng, c.path); err != nil {
			fmt.Fprintf(stderr, "vfsctl log: --path: %v\n", err)
			return exitUsage
		}
	}
	recs, err := eng.Calls(q)
	damaged := errors.Is(err, toolapi.ErrSkippedDamaged)
	if err != nil && !damaged {
		fmt.Fprintf(stderr, "vfsctl log: %v%s\n", err, waitHint(err))
		return exitRefused
	}
	if c.json {
		writeLogJSON(stdout, recs)
	} else {
		writeLogTable(stdout, recs)
	}
	if damaged {
		// Every readable call is listed; the exit status says the list is not whole.
		fmt.Fprintf(stderr, "vfsctl log: %v\n", err)
		return exitRefused
	}
	return exitOK
}

// writeLogJSON writes one object a record.
func writeLogJSON(w io.Writer, recs []*toolapi.Record) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range recs {
		enc.Encode(toLogLine(r))
	}
}

// writeLogTable writes the records as a table, one line a record.
func writeLogTable(w io.Writer, recs []*toolapi.Record) {
	if len(recs) == 0 {
		fmt.Fprintln(w, "no calls match")
		return
	}
	// Sessions and tools are shown whole up to a width, so that two sessions never look
	// the same; a longer name loses its middle, keeping the end that tells it apart.
	// The TURN column is shown when a call listed carries a turn.
	sw, tw, uw := len("SESSION"), len("TOOL"), 0
	for _, r := range recs {
		sw, tw = max(sw, min(len(oneLine(r.Session)), maxNameWidth)), max(tw, min(len(r.Tool), maxNameWidth))
		if r.Turn != "" {
			uw = max(uw, len("TURN"), min(len(oneLine(r.Turn)), maxNameWidth))
		}
	}
	turn := func(s string) string {
		if uw == 0 {
			return ""
		}
		return fmt.Sprintf("%-*s  ", uw, clipMiddle(oneLine(s), maxNameWidth))
	}
	fmt.Fprintf(w, "%6s  %-19s  %-*s  %s%-*s  %-11s  %-17s  %s\n", "SEQ", "TIME", sw, "SESSION", turn("TURN"), tw, "TOOL", "STATE", "KIND", "PATHS")
	for _, r := range recs {
		state := string(r.State)
		if r.DryRun() {
			state = "dry run"
		}
		fmt.Fprintf(w, "%6d  %-19s  %-*s  %s%-*s  %-11s  %-17s  %s\n", r.Seq, r.Time.Local().Format("2006-01-02 15:04:05"),
			sw, clipMiddle(oneLine(r.Session), maxNameWidth), turn(r.Turn), tw, clipMiddle(r.Tool, maxNameWidth), state, r.Kind, whatOf(r))
	}
}

// maxNameWidth is the widest a session or tool name is shown in a listing.
const maxNameWidth = 40

// clipMiddle cuts s to n bytes by dropping its middle: session names often share a long
// prefix and differ at the end.
func clipMiddle(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head := (n - 1) / 2
	tail := n - 1 - head
	return strings.ToValidUTF8(s[:head], "") + "…" + strings.ToValidUTF8(s[len(s)-tail:], "")
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n-1] + "…"
	}
	return s
}

// oneLine is s as a row shows it: quoted, with its escapes, when it holds a character
// that does not print as itself (a newline in a file name would split the row, an
// escape would reach the terminal, U+202E would show "gnp.exe" as "exe.png") or a byte
// that is not UTF-8; as it is otherwise.
func oneLine(s string) string {
	if utf8.ValidString(s) && strings.IndexFunc(s, func(r rune) bool { return !strconv.IsPrint(r) }) < 0 {
		return s
	}
	return strconv.Quote(s)
}

// escaped is s with each character that does not print as itself written as its
// escape (\u001b, \u202e; \xff for a byte that is not UTF-8), in place: for text
// shown whole, such as a call's arguments, where quoting all of it would not help.
func escaped(s string) string {
	if oneLine(s) == s {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, "\\x%02x", s[0])
		case !strconv.IsPrint(r) && r < 0x10000:
			fmt.Fprintf(&b, "\\u%04x", r)
		case !strconv.IsPrint(r):
			fmt.Fprintf(&b, "\\U%08x", r)
		default:
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	return b.String()
}

// whatOf is what a listing shows of a record after its kind: its paths, and for a
// command how it ran and ended first ("$ gofmt -w . (exit 0): a.go b.go").
func whatOf(r *toolapi.Record) string {
	var shownPaths []string
	all := append(r.Paths(), toolapi.EntryPaths(r)...)
	for _, p := range all[:min(len(all), maxRowPaths)] {
		shownPaths = append(shownPaths, oneLine(p))
	}
	if more := len(all) - maxRowPaths; more > 0 {
		// A command that made thousands of files would make a row of megabytes.
		shownPaths = append(shownPaths, fmt.Sprintf("(+%d more; vfsctl show %d has them all)", more, r.Seq))
	}
	paths := strings.Join(shownPaths, " ")
	line := oneLine(toolapi.CommandLine(r))
	if line == "" {
		return paths
	}
	cmd := "$ " + clipMiddle(line, 60)
	if r.Exit != "" {
		cmd += " (" + r.Exit + ")"
	}
	if paths == "" {
		return cmd // a command that changed no file
	}
	return cmd + ": " + paths
}

// maxRowPaths is how many paths a row of log shows.
const maxRowPaths = 10

// quoteNames is text (a reply of several lines, with diffs) with each of names that
// oneLine would quote quoted so, longest first; a diff header's "a/NAME" is quoted
// whole, as git quotes it. Names come from the records the text is about.
func quoteNames(text string, names []string) string {
	var odd []string
	for _, n := range names {
		if n != "" && oneLine(n) != n && !slices.Contains(odd, n) {
			odd = append(odd, n)
		}
	}
	sort.Slice(odd, func(i, j int) bool { return len(odd[i]) > len(odd[j]) })
	for _, n := range odd {
		text = strings.ReplaceAll(text, "--- a/"+n+"\n", "--- "+oneLine("a/"+n)+"\n")
		text = strings.ReplaceAll(text, "+++ b/"+n+"\n", "+++ "+oneLine("b/"+n)+"\n")
		text = strings.ReplaceAll(text, n, oneLine(n))
	}
	return text
}

// recordNames are the names a record's text can hold: its files, folders, symlinks
// and their targets.
func recordNames(r *toolapi.Record) []string {
	if r == nil {
		return nil
	}
	names := r.Paths()
	for _, en := range r.Entries {
		names = append(names, en.Path, en.BeforeTarget, en.AfterTarget)
	}
	return names
}

// namesOf are the names of the journal's records seqs (those it has).
func namesOf(eng *toolapi.Engine, seqs ...uint64) []string {
	var names []string
	for _, s := range seqs {
		if s == 0 {
			continue
		}
		if r, _, err := eng.Show(s); err == nil {
			names = append(names, recordNames(r)...)
		}
	}
	return names
}

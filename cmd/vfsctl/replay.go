package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"text/tabwriter"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"

	"github.com/vfsctl/vfsctl/toolapi"
)

type replayCmd struct {
	common
	seq           uint64
	failed        bool
	kind, session string
	progress      io.Writer // a terminal, for the progress bar; nil when piped
}

func (c *replayCmd) Name() string { return "replay" }
func (c *replayCmd) Summary() string {
	return "run recorded calls again through today's engine, in memory"
}

const replayUsage = `Usage: vfsctl replay N [--json]
       vfsctl replay --failed [--since T] [--kind K] [--session S] [--json]

Rebuilds the files as they were before call N from the journal, in memory (nothing on
disk changes), runs the recorded call again through today's engine, and says whether
the outcome matches the record (the same kind, the same resulting content) or how it
differs, with both diffs.

With --failed, replays every refused call of a model (narrowed by --since, --kind,
--session; an operator's undo, redo and rewind are left out, as stats leaves them) and
counts, by error kind, how many would now succeed, fail differently, or fail the same:
how a change to the matcher is judged against the mistakes real models made. A call
that cannot be rebuilt is counted as not replayable, with the reason, and the report
goes on: a model's undo_edit (it depends on the journal's history), and refusals
about what the record does not keep (a FIFO, permissions, content never stored).
Refusals about what stood at a path (file_exists, not_a_file) are replayed with an
empty file or a folder standing there, as the record says.

Exit status: 0 when every replayed call came out as recorded or is not replayable, 1
when any differs, 2 on a usage error.

Examples:
  vfsctl replay 42
  vfsctl replay --failed --since 24h --kind text_not_found
`

func (c *replayCmd) ParseFlags(args []string) error {
	fs := newFlagSet("replay", replayUsage)
	c.declare(fs, flagRoot, flagWait, flagJSON, flagSince)
	fs.BoolVar(&c.failed, "failed", false, "replay every refused call")
	fs.StringVar(&c.kind, "kind", "", "with --failed: calls refused with this kind")
	fs.StringVar(&c.session, "session", "", "with --failed: calls of this session")
	rest, err := fs.positional(args)
	if err != nil {
		return err
	}
	switch {
	case c.failed && len(rest) > 0:
		return fmt.Errorf("give a call number or --failed, not both")
	case !c.failed && len(rest) != 1:
		return fmt.Errorf("give one call number, or --failed (see --help)")
	case !c.failed:
		n, err := strconv.ParseUint(rest[0], 10, 64)
		if err != nil || n == 0 {
			return fmt.Errorf("%q is not a call number", rest[0])
		}
		c.seq = n
	}
	if !c.failed && (c.since != "" || c.kind != "" || c.session != "") {
		return fmt.Errorf("--since, --kind and --session go with --failed")
	}
	return nil
}

func (c *replayCmd) Run(_ io.Reader, stdout, stderr io.Writer) int {
	var q toolapi.Query
	if err := c.window(&q); err != nil {
		fmt.Fprintf(stderr, "vfsctl replay: %v\n", err)
		return exitUsage
	}
	eng, err := c.open("vfsctl replay")
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl replay: %v\n", err)
		return exitUsage
	}
	defer eng.Close()
	if !eng.HasJournal() {
		return refused(stdout, stderr, c.json, "vfsctl replay", toolapi.Kind("file_not_found"), fmt.Sprintf("there is no journal in %s yet (the first tool call creates it)", eng.Root()))
	}
	recs, err := c.selectCalls(eng, q)
	if err != nil {
		return refused(stdout, stderr, c.json, "vfsctl replay", toolapi.KindOf(err), err.Error())
	}
	results, ok := c.replayAll(eng, recs, stdout, stderr)
	if !ok {
		return exitRefused
	}
	if c.failed {
		c.summary(stdout, results)
	} else {
		c.one(stdout, results[0])
	}
	for _, r := range results {
		if r.Replayable && !r.Same {
			return exitRefused
		}
	}
	return exitOK
}

// selectCalls returns the calls to replay, oldest first so that a chain of versions is
// rebuilt once: call N alone, or with --failed every refused call the filters select.
func (c *replayCmd) selectCalls(eng *toolapi.Engine, q toolapi.Query) ([]*toolapi.Record, error) {
	if !c.failed {
		return []*toolapi.Record{{Seq: c.seq}}, nil
	}
	q.Failed, q.Kind, q.Session = true, c.kind, c.session
	all, err := eng.Calls(q)
	// The models' mistakes only, as stats counts them: an operator's refused undo,
	// redo or rewind depends on the journal's history and is nobody's to fix.
	var recs []*toolapi.Record
	for _, r := range all {
		if r.OriginOf() != toolapi.OriginOperator {
			recs = append(recs, r)
		}
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Seq < recs[j].Seq })
	return recs, err
}

// replayAll replays each call, with a progress bar on a terminal; ok is false when the
// command must stop (its reason is on stderr). With --failed, a call that cannot be
// read back is reported as not replayable and the report goes on.
func (c *replayCmd) replayAll(eng *toolapi.Engine, recs []*toolapi.Record, stdout, stderr io.Writer) (results []*toolapi.ReplayResult, ok bool) {
	rp, err := eng.Replayer()
	if err != nil {
		refused(stdout, stderr, c.json, "vfsctl replay", toolapi.KindOf(err), err.Error())
		return nil, false
	}
	defer rp.Close()
	bar := c.progressBar(stderr, len(recs))
	for _, rec := range recs {
		res, err := rp.Replay(rec.Seq)
		if err != nil && c.failed {
			res = &toolapi.ReplayResult{Seq: rec.Seq, Tool: rec.Tool, Session: rec.Session, RecordedKind: rec.Kind,
				Why: fmt.Sprintf("it could not be read back from the journal: %v", err)}
		} else if err != nil {
			refused(stdout, stderr, c.json, "vfsctl replay", toolapi.KindOf(err), fmt.Sprintf("call %d: %v", rec.Seq, err))
			return nil, false
		}
		if res == nil {
			refused(stdout, stderr, c.json, "vfsctl replay", toolapi.InvalidInput, fmt.Sprintf("there is no call %d", rec.Seq))
			return nil, false
		}
		results = append(results, res)
		if bar != nil {
			bar.Add(1)
		}
	}
	if bar != nil {
		bar.Finish()
	}
	return results, true
}

// progressBar is a bar for n replays of --failed when stderr is a terminal, else nil:
// a pipe or a file gets no bar.
func (c *replayCmd) progressBar(stderr io.Writer, n int) *progressbar.ProgressBar {
	if c.failed && c.progress == nil {
		if f, ok := stderr.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
			c.progress = f
		}
	}
	if c.progress == nil || n <= 1 {
		return nil
	}
	return progressbar.NewOptions(n, progressbar.OptionSetWriter(c.progress), progressbar.OptionSetDescription("replaying"),
		progressbar.OptionClearOnFinish())
}

func outcome(ok bool, kind string) string {
	if ok {
		return "ok"
	}
	return "refused " + kind
}

func (c *replayCmd) one(w io.Writer, r *toolapi.ReplayResult) {
	if c.json {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.Encode(r)
		return
	}
	fmt.Fprintf(w, "call %d (%s, session %s)\n", r.Seq, r.Tool, oneLine(r.Session))
	if !r.Replayable {
		fmt.Fprintf(w, "not replayable: %s\n", r.Why)
		return
	}
	fmt.Fprintf(w, "recorded: %s\ntoday:    %s\n", outcome(r.RecordedOK, r.RecordedKind), outcome(r.NowOK, r.NowKind))
	if r.Same {
		fmt.Fprintln(w, "same outcome as recorded")
		return
	}
	fmt.Fprintln(w, "differs from the record")
	if r.RecordedText != "" {
		fmt.Fprintf(w, "\nrecorded message:\n%s\n", indent(r.RecordedText, "  "))
	}
	if r.RecordedDiff != "" {
		fmt.Fprintf(w, "\nrecorded diff:\n%s", indent(r.RecordedDiff, "  "))
	}
	fmt.Fprintf(w, "\ntoday's reply:\n%s\n", indent(r.NowText, "  "))
}

// kindTally counts replays of one recorded kind.
type kindTally struct {
	Kind          string `json:"kind"`
	Replayed      int    `json:"replayed"`
	NowSucceed    int    `json:"now_succeed"`
	FailDiffently int    `json:"fail_differently"`
	Same          int    `json:"same"`
	NotReplayable int    `json:"not_replayable"`
}

// summary writes the replays of --failed counted by recorded kind, then each call that
// differs or could not be replayed.
func (c *replayCmd) summary(w io.Writer, results []*toolapi.ReplayResult) {
	total, byKind := tally(results)
	if c.json {
		writeSummaryJSON(w, total, byKind, results)
		return
	}
	if len(results) == 0 {
		fmt.Fprintln(w, "no refused calls match")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "KIND\tREPLAYED\tNOW SUCCEED\tFAIL DIFFERENTLY\tSAME\tNOT REPLAYABLE\t")
	for _, t := range append(byKind, total) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t\n", t.Kind, t.Replayed, t.NowSucceed, t.FailDiffently, t.Same, t.NotReplayable)
	}
	tw.Flush()
	for _, r := range results {
		switch {
		case !r.Replayable:
			fmt.Fprintf(w, "call %d (%s): not replayable: %s\n", r.Seq, r.Tool, r.Why)
		case !r.Same:
			fmt.Fprintf(w, "call %d (%s): recorded %s, today %s\n", r.Seq, r.Tool, outcome(r.RecordedOK, r.RecordedKind), outcome(r.NowOK, r.NowKind))
		}
	}
}

// tally counts the results in total and by recorded kind, the kinds in name order;
// each result counts once in its kind and once in the total.
func tally(results []*toolapi.ReplayResult) (total *kindTally, byKind []*kindTally) {
	by := map[string]*kindTally{}
	total = &kindTally{Kind: "all"}
	for _, r := range results {
		t := by[r.RecordedKind]
		if t == nil {
			t = &kindTally{Kind: r.RecordedKind}
			by[r.RecordedKind] = t
			byKind = append(byKind, t)
		}
		for _, x := range []*kindTally{t, total} {
			switch {
			case !r.Replayable:
				x.NotReplayable++
			case r.Same:
				x.Replayed++
				x.Same++
			case r.NowOK:
				x.Replayed++
				x.NowSucceed++
			default:
				x.Replayed++
				x.FailDiffently++
			}
		}
	}
	sort.Slice(byKind, func(i, j int) bool { return byKind[i].Kind < byKind[j].Kind })
	return total, byKind
}

// writeSummaryJSON writes the summary as one JSON object, every list present.
func writeSummaryJSON(w io.Writer, total *kindTally, byKind []*kindTally, results []*toolapi.ReplayResult) {
	out := struct {
		Total         *kindTally              `json:"total"`
		ByKind        []*kindTally            `json:"by_kind"`
		Differs       []*toolapi.ReplayResult `json:"differs"`
		NotReplayable []*toolapi.ReplayResult `json:"not_replayable_calls"`
	}{Total: total, ByKind: append([]*kindTally{}, byKind...), Differs: []*toolapi.ReplayResult{}, NotReplayable: []*toolapi.ReplayResult{}}
	for _, r := range results {
		switch {
		case !r.Replayable:
			out.NotReplayable = append(out.NotReplayable, r)
		case !r.Same:
			out.Differs = append(out.Differs, r)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(out)
}

package toolapi

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/txn"
)

type turnKey struct{}

// WithTurn returns a context carrying the runtime's label of the conversation turn a
// call belongs to: Call journals it with the call, and Rewind takes a session back to
// before it. Over MCP a client sends it as params._meta "vfsctl/turn"; `vfsctl call`
// as a line's "turn". Labels are compared, never ordered by name: a session's turns
// are ordered by the calls that carry them.
func WithTurn(ctx context.Context, turn string) context.Context {
	return context.WithValue(ctx, turnKey{}, turn)
}

// TurnOf is the turn label ctx carries, "" when none.
func TurnOf(ctx context.Context) string {
	t, _ := ctx.Value(turnKey{}).(string)
	return t
}

// MaxTurnLen bounds a turn label.
const MaxTurnLen = 200

// TurnLabel reads a turn label as a runtime sends it, decoded from JSON: a string,
// or a whole number (a turn counter), which becomes its decimal text; null (what
// JSON encoders write for "no turn") is no turn, "". It returns false
// for anything else, a label over MaxTurnLen bytes, and one with a control character
// (an escape would reach the terminal of whoever lists the calls) or a bidirectional
// control: a label that is dropped would leave the runtime unable to rewind to it, so
// it is refused instead.
func TurnLabel(v any) (string, bool) {
	var t string
	switch v := v.(type) {
	case nil:
		return "", true
	case string:
		t = v
	case float64:
		if v != math.Trunc(v) || math.Abs(v) >= 1<<53 {
			return "", false
		}
		t = strconv.FormatInt(int64(v), 10)
	default:
		return "", false
	}
	return t, len(t) <= MaxTurnLen && strings.IndexFunc(t, func(r rune) bool {
		return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)
	}) < 0
}

// TurnRule says, in a refusal, what a turn label may be.
var TurnRule = fmt.Sprintf("a string of at most %d bytes without control characters, or a whole number, e.g. \"t3\" or 3 (null: no turn)", MaxTurnLen)

// RewindRequest says which session to take back to before which of its turns.
type RewindRequest struct {
	Session string
	Turn    string
	// DryRun plans the rewind and reports its diff without writing.
	DryRun bool
	// FirstAdvice, as for UndoRequest, says what to do when a call of another session
	// changed the same lines since; it is given that call's number.
	FirstAdvice func(first uint64) string
	// SkipUnrestorable and SkipAdvice are UndoRequest's: the files a command changed
	// over the snapshot's size limit are left as they are, and the rest rewound.
	SkipUnrestorable bool
	SkipAdvice       string
}

// RewindReport is the outcome of RewindTurns, as vfsctl rewind --json prints it.
type RewindReport struct {
	OK      bool       `json:"ok"`
	Kind    string     `json:"kind,omitempty"`
	Text    string     `json:"text"`
	Txn     uint64     `json:"txn,omitempty"` // the rewind's own call; 0 for a dry run
	Reverts []uint64   `json:"reverts,omitempty"`
	DryRun  bool       `json:"dry_run,omitempty"`
	Files   []UndoFile `json:"files,omitempty"`
	Folders []string   `json:"folders,omitempty"` // folders the turns made, removed being empty; with DryRun, those there now
	Kept    []string   `json:"kept,omitempty"`    // folders the turns made that stay, each with why
	Skipped []string   `json:"skipped,omitempty"` // with SkipUnrestorable, the files left as they are, a sentence each
}

// Rewind puts session's files back as they were before its turn: every change the
// session made in that turn and in every later one is reverted, newest first, as one
// transaction (recorded in the session, by an operator). Changes of other sessions,
// and made outside vfsctl, on other lines are kept; where they touched the same lines
// the rewind is refused as a conflict and nothing is written. The Result is like a
// tool call's; its Txn can be undone (Undo) to bring the turns back.
func (e *Engine) Rewind(ctx context.Context, session, turn string) Result {
	u, seq, err := e.rewind(ctx, RewindRequest{Session: session, Turn: turn})
	var res Result
	if err != nil {
		res = fail("rewind", err)
	} else {
		res = Result{OK: true, Tool: "rewind", Text: renderRewind(u, RewindRequest{Session: session, Turn: turn}, seq)}
	}
	if seq > 0 {
		s := int64(seq)
		res.Txn = &s
	}
	return res
}

// RewindTurns is Rewind with the choices vfsctl rewind offers, reported in full.
func (e *Engine) RewindTurns(ctx context.Context, req RewindRequest) *RewindReport {
	u, seq, err := e.rewind(ctx, req)
	rep := &RewindReport{OK: err == nil, DryRun: req.DryRun}
	if err != nil {
		rep.Kind, rep.Text = string(errs.KindOf(err)), err.Error()
		return rep
	}
	rep.Text, rep.Reverts, rep.Folders, rep.Kept, rep.Skipped = renderRewind(u, req, seq), u.Reverts, u.Folders, u.Kept, u.Skipped
	if !req.DryRun {
		rep.Txn = seq
	}
	for _, ch := range u.Changes {
		rep.Files = append(rep.Files, UndoFile{Path: ch.Path, Op: string(ch.Op), Diff: ch.Diff()})
	}
	return rep
}

// rewindArgs are the arguments a rewind is journaled with.
type rewindArgs struct {
	Session          string `json:"session"`
	Turn             string `json:"turn"`
	DryRun           bool   `json:"dry_run,omitempty"`
	SkipUnrestorable bool   `json:"skip_unrestorable,omitempty"`
}

// rewind journals the rewind as an operator's call in the session, plans and commits
// it through txn, and settles the record, also when it panics; seq is its record.
func (e *Engine) rewind(ctx context.Context, req RewindRequest) (u *txn.RewindResult, seq uint64, err error) {
	if req.Session == "" || req.Turn == "" {
		return nil, 0, errs.New(errs.InvalidInput, "", "A rewind needs the session and the turn to go back to before.")
	}
	args, _ := json.Marshal(rewindArgs{Session: req.Session, Turn: req.Turn, DryRun: req.DryRun, SkipUnrestorable: req.SkipUnrestorable})
	c, err := e.api.eng.BeginContext(ctx, req.Session, "rewind", args)
	if err != nil {
		return nil, 0, err
	}
	c.SetOrigin(journal.OriginOperator)
	defer func() {
		if p := recover(); p != nil {
			u, err = nil, errs.New(errs.IOError, "", "internal error in rewind: %v. %s", p, panicSite(p))
		}
		c.Finish(err)
		seq = c.Seq()
	}()
	u, err = e.api.eng.Rewind(c, txn.RewindOptions{Session: req.Session, Turn: req.Turn, DryRun: req.DryRun, SkipUnrestorable: req.SkipUnrestorable})
	how := req.SkipAdvice
	if how == "" {
		how = "rewind again through RewindTurns with RewindRequest.SkipUnrestorable set"
	}
	return u, 0, skipAdvice(withAdvice(err, req.FirstAdvice), how)
}

// renderRewind says what a rewind did as call seq, or with DryRun would do: the calls
// reverted, then per file its diff, removal or return, and the folders and symlinks
// put back. A turn may have changed only folders: there is no file change then.
func renderRewind(u *txn.RewindResult, req RewindRequest, seq uint64) string {
	var b strings.Builder
	calls := make([]string, len(u.Reverts))
	for i, s := range u.Reverts {
		calls[i] = fmt.Sprint(s)
	}
	if req.DryRun {
		// Every line of a dry run says "would": a reader skimming a line must not
		// take it for done.
		fmt.Fprintf(&b, "Dry run, nothing written: rewinding session %s to before turn %q would revert %s %s.\n",
			req.Session, req.Turn, pluralWord(len(calls), "call"), strings.Join(calls, ", "))
	} else {
		fmt.Fprintf(&b, "Rewound session %s to before turn %q", req.Session, req.Turn)
		if seq > 0 {
			fmt.Fprintf(&b, " as call %d", seq)
		}
		fmt.Fprintf(&b, ", reverting %s %s.\n", pluralWord(len(calls), "call"), strings.Join(calls, ", "))
	}
	be := tense(req.DryRun)
	for _, ch := range u.Changes {
		switch {
		case ch.Deleted:
			fmt.Fprintf(&b, "%s %sremoved.\n", ch.Name, be)
		case ch.Created:
			fmt.Fprintf(&b, "%s %sput back (%s)%s.\n", ch.Name, be, plural(len(ch.After), "byte"), unlinkedNote(ch))
		default:
			writeChanged(&b, ch, req.DryRun)
		}
	}
	writeEntries(&b, u.Entries, u.Changes, req.DryRun)
	for _, d := range u.Folders {
		if req.DryRun {
			fmt.Fprintf(&b, "%s/ would go too, if nothing else is in it then (the turns made it).\n", d)
		} else {
			fmt.Fprintf(&b, "%s/ removed (empty).\n", d)
		}
	}
	for _, k := range u.Kept {
		fmt.Fprintf(&b, "%s.\n", k)
	}
	for _, k := range u.Skipped {
		fmt.Fprintf(&b, "%s.\n", k)
	}
	return strings.TrimRight(b.String(), "\n")
}

package toolapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/txn"
)

// UndoRequest says which change to revert or, with Redo, which undo to re-apply.
type UndoRequest struct {
	// Seq is the call to revert (with Redo: the undo to re-apply); 0 picks the newest
	// change not yet undone (the latest undo not yet redone), as an editor's undo does.
	Seq  uint64
	Redo bool
	// Session, with Seq 0, picks among this session's calls only. The undo is recorded
	// in it too; "" records it in session "operator".
	Session string
	// Path, with Seq 0, picks among the calls that changed this file, named as
	// ResolvePath names it.
	Path string
	// DryRun plans the undo and reports it without writing.
	DryRun bool
	// FirstAdvice, when set, says what to do when a later call changed the same lines
	// and must be undone first; it is given that call's number, and its sentence
	// replaces the engine's own ("Undo call 43 first.").
	FirstAdvice func(first uint64) string
	// SkipUnrestorable leaves as they are the files the call changed over the
	// snapshot's size limit (recorded by hash only, so not restorable), and reverts
	// the rest, saying so (UndoReport.Skipped); without it such a file refuses the
	// undo (kind too_large).
	SkipUnrestorable bool
	// SkipAdvice, when set, is how that refusal tells the caller to do so ("run this
	// again with --skip-unrestorable"); unset, it names Revert and SkipUnrestorable.
	SkipAdvice string
}

// UndoReport is the outcome of Revert, as vfsctl undo --json prints it.
type UndoReport struct {
	OK     bool       `json:"ok"`
	Kind   string     `json:"kind,omitempty"`
	Text   string     `json:"text"`
	Txn    uint64     `json:"txn,omitempty"`    // the undo's own call; 0 for a dry run
	Target uint64     `json:"target,omitempty"` // the call reverted (for redo: the undo re-applied)
	Origin uint64     `json:"origin,omitempty"` // the tool call the change came from
	DryRun bool       `json:"dry_run,omitempty"`
	Files  []UndoFile `json:"files,omitempty"`
	// Folders are the folders the reverted creates had made that were removed, being
	// empty then; with DryRun, those there now, which would go if empty then.
	Folders []string `json:"folders,omitempty"`
	// Entries say what was done to folders and symlinks the call made, removed or
	// changed ("build/ removed (was 0755)"), as EntryText says it.
	Entries []string `json:"entries,omitempty"`
	// Passed are the calls a bare undo passed over, a sentence each: their undo would
	// change nothing, the folders they removed standing again.
	Passed []string `json:"passed,omitempty"`
	// Kept are the folders the call made that stay, each with why ("a/b/ stays
	// (mode 0755): something the call did not make is in it").
	Kept []string `json:"kept,omitempty"`
	// Skipped are, with SkipUnrestorable, the files left as they are, a sentence
	// each ("big.bin stays as it is, not put back to before call 1: ...").
	Skipped []string `json:"skipped,omitempty"`
}

// UndoFile is one file an undo changed, or with DryRun would change.
type UndoFile struct {
	Path string `json:"path"`
	Op   string `json:"op"`
	Diff string `json:"diff,omitempty"`
}

// Undo reverts journaled call seq as a new transaction (for an operator or a runtime's
// own undo button; a model uses the undo_edit tool). The Result is like a tool call's.
func (e *Engine) Undo(ctx context.Context, seq uint64) Result {
	return e.revertResult(ctx, UndoRequest{Seq: seq})
}

// Redo re-applies what undo call seq reverted, as a new transaction.
func (e *Engine) Redo(ctx context.Context, seq uint64) Result {
	return e.revertResult(ctx, UndoRequest{Seq: seq, Redo: true})
}

// Revert undoes or redoes what req picks, as an operator: the path behind Undo and
// Redo, with the choices vfsctl undo and vfsctl redo offer, reported in full.
func (e *Engine) Revert(ctx context.Context, req UndoRequest) *UndoReport {
	u, _, err := e.revert(ctx, req)
	rep := &UndoReport{OK: err == nil, DryRun: req.DryRun}
	if err != nil {
		rep.Kind, rep.Text = string(errs.KindOf(err)), err.Error()
		return rep
	}
	rep.Text = RenderUndo(u, req.Redo)
	rep.Txn, rep.Target, rep.Origin, rep.Folders = u.Seq, u.Target, u.Origin, u.Folders
	if rep.Txn == 0 && len(u.Changes) > 0 {
		rep.Txn = u.Changes[0].Seq
	}
	rep.Entries, rep.Passed, rep.Kept, rep.Skipped = entryTexts(u.Entries, u.Changes, req.DryRun), u.Passed, u.Kept, u.Skipped
	for _, ch := range u.Changes {
		rep.Files = append(rep.Files, UndoFile{Path: ch.Path, Op: string(ch.Op), Diff: ch.Diff()})
	}
	return rep
}

// revertResult is Revert's outcome as a tool call's Result, numbered by the undo's
// own record whether it succeeded or not.
func (e *Engine) revertResult(ctx context.Context, req UndoRequest) Result {
	u, seq, err := e.revert(ctx, req)
	var res Result
	if err != nil {
		res = fail(undoTool(req), err)
	} else {
		res = Result{OK: true, Tool: undoTool(req), Text: RenderUndo(u, req.Redo)}
	}
	if seq > 0 {
		s := int64(seq)
		res.Txn = &s
	}
	return res
}

// undoArgs are the arguments an undo is journaled with.
type undoArgs struct {
	Seq              uint64 `json:"seq"`
	Session          string `json:"session,omitempty"`
	Path             string `json:"path,omitempty"`
	DryRun           bool   `json:"dry_run,omitempty"`
	SkipUnrestorable bool   `json:"skip_unrestorable,omitempty"`
}

func undoTool(req UndoRequest) string {
	if req.Redo {
		return "redo"
	}
	return "undo"
}

// revert is the one undo path: it journals the undo as an operator's call, plans and
// commits it through txn, and settles the record, also when the undo panics; seq is
// the undo's own record (0 if none was begun).
func (e *Engine) revert(ctx context.Context, req UndoRequest) (u *txn.UndoResult, seq uint64, err error) {
	session := req.Session
	if session == "" {
		session = "operator"
	}
	args, _ := json.Marshal(undoArgs{Seq: req.Seq, Session: req.Session, Path: req.Path, DryRun: req.DryRun, SkipUnrestorable: req.SkipUnrestorable})
	c, err := e.api.eng.BeginContext(ctx, session, undoTool(req), args)
	if err != nil {
		return nil, 0, err
	}
	c.SetOrigin(journal.OriginOperator)
	defer func() {
		if p := recover(); p != nil {
			u, err = nil, errs.New(errs.IOError, "", "internal error in %s: %v. %s", undoTool(req), p, panicSite(p))
		}
		c.Finish(err)
		seq = c.Seq()
	}()
	u, err = e.api.eng.Undo(c, txn.UndoOptions{Seq: req.Seq, Redo: req.Redo, Session: req.Session, Path: req.Path, DryRun: req.DryRun, SkipUnrestorable: req.SkipUnrestorable})
	how := req.SkipAdvice
	if how == "" {
		how = fmt.Sprintf("%s again through Revert with UndoRequest.SkipUnrestorable set", undoTool(req))
	}
	return u, 0, skipAdvice(withAdvice(linkAdvice(partAdvice(err, req), req), req.FirstAdvice), how)
}

// skipAdvice tells, in a refusal to put back a file recorded by hash only, how to
// take back the rest and leave that file as it is.
func skipAdvice(err error, how string) error {
	h := txn.HashOnlyOf(err)
	if h == nil {
		return err
	}
	return errs.Suffixed(err, fmt.Sprintf(" To take back everything else and leave %s as it is, %s.", h.Path, how))
}

// linkAdvice words a refusal to replace a file that has other hard links for the one
// who undoes: the planner's words ("changes[0] (a.txt): ... or edit another file")
// are a model's, and say nothing of how to take the change back.
func linkAdvice(err error, req UndoRequest) error {
	var e *errs.Error
	if !errors.As(err, &e) || e.Found != errs.FoundHardLinks || e.Path == "" {
		return err
	}
	q := shellQuote(e.Path)
	tmp := shellQuote(e.Path + ".tmp")
	return &errs.Error{Kind: e.Kind, Path: e.Path, Err: err, Found: e.Found, Message: fmt.Sprintf(
		"%s has other hard links (other names of the same file): the %s would replace it and detach it from them, so nothing was changed. "+
			"To take the change back, give %s a file of its own first (from the workspace root: cp -p %s %s && mv %s %s; its other names keep their content), then %s again.",
		e.Path, undoTool(req), e.Path, q, tmp, tmp, q, undoTool(req))}
}

// partAdvice says how to take back a whole command whose one file was named.
func partAdvice(err error, req UndoRequest) error {
	p := txn.PartOf(err)
	if p == nil {
		return err
	}
	how := fmt.Sprintf("%s call %d by its number", undoTool(req), p.Seq)
	if req.FirstAdvice != nil { // an operator
		how = fmt.Sprintf("run `vfsctl %s %d`", undoTool(req), p.Seq)
	}
	return errs.Wrap(errs.InvalidInput, p.Path, err, "%s To take the whole call back, %s.", p.Text(), how)
}

// withAdvice gives a conflict with a later call the caller's advice, when it has any.
func withAdvice(err error, advice func(first uint64) string) error {
	b := errs.Blocked(err)
	if advice == nil || b == nil {
		return err
	}
	return &errs.Error{Kind: errs.Conflict, Path: b.Path, Message: b.Fact + " " + advice(b.Blocker), Err: b, Blocker: b.Blocker, Fact: b.Fact}
}

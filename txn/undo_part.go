package txn

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
)

// PartOfCall refuses an undo or redo picked by a path (UndoOptions.Path) whose record
// is a command's or an outside change that changed other files too. An undo takes a
// record back whole; taking back one file of a command would leave its origin marked
// reverted in the history while the rest of its change stays, so bare undo, --path
// undo of the other files and redo could no longer reach them. The caller says how to
// take the whole record back (its number) or the one file by hand.
type PartOfCall struct {
	Seq    uint64   // the record picked (for redo: the undo)
	Origin uint64   // the command's or outside record
	Tool   string   // the origin's tool
	Path   string   // the path named
	Others []string // the other files, folders and symlinks the record changed
	Redo   bool
}

// Text says what was refused and why.
func (p *PartOfCall) Text() string {
	which := fmt.Sprintf("Call %d (%s)", p.Seq, p.Tool)
	if p.Seq != p.Origin {
		which = fmt.Sprintf("Call %d (the latest record of call %d's change, %s)", p.Seq, p.Origin, p.Tool)
	}
	article := "an"
	if p.Redo {
		article = "a"
	}
	return fmt.Sprintf("%s changed %s together with %s, as one change; %s %s takes a call back whole, so naming one of its files does not take that file alone. Nothing was written.",
		which, p.Path, OthersText(p.Others), article, verb(UndoOptions{Redo: p.Redo}))
}

// OthersText names the other paths of a record, the first few and how many more.
func OthersText(others []string) string {
	const show = 5
	if len(others) <= show {
		return strings.Join(others, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(others[:show], ", "), len(others)-show)
}

// partOfCall is the refusal of an undo or redo picked by path whose record is a
// command's or an outside change that changed other paths too; nil otherwise.
func partOfCall(t *journal.Tx, hist *history, target uint64, o UndoOptions) error {
	if o.Path == "" || o.Seq != 0 || o.Whole {
		return nil
	}
	rec, origin := hist.recs[target], hist.origin[target]
	if rec == nil {
		return nil
	}
	orec, err := t.Get(origin)
	if err != nil || orec == nil || !(journal.IsCommand(orec.Tool) || orec.Tool == ToolOutside) {
		return nil
	}
	var others []string
	for _, f := range rec.Files {
		if f.Op.Changes() && f.Path != o.Path && !slices.Contains(others, f.Path) {
			others = append(others, f.Path)
		}
	}
	for _, en := range rec.Entries {
		name := en.Path
		if en.Before == journal.KindDir || en.After == journal.KindDir {
			name += "/"
		}
		if en.Path != o.Path && !slices.Contains(others, name) {
			others = append(others, name)
		}
	}
	if len(others) == 0 {
		return nil
	}
	p := &PartOfCall{Seq: target, Origin: origin, Tool: orec.Tool, Path: o.Path, Others: others, Redo: o.Redo}
	return &errs.Error{Kind: errs.InvalidInput, Path: o.Path, Message: p.Text(), Detail: p}
}

// PartOf is the PartOfCall that refused err, or nil.
func PartOf(err error) *PartOfCall {
	for ; err != nil; err = errors.Unwrap(err) {
		if e, ok := err.(*errs.Error); ok {
			if p, ok := e.Detail.(*PartOfCall); ok {
				return p
			}
		}
	}
	return nil
}

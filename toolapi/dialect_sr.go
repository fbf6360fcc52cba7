package toolapi

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vfsctl/vfsctl/internal/dialect"
	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/txn"
)

// replace_in_file: SEARCH/REPLACE blocks as Cline, Roo Code and Aider's models write
// them. Where Cline applies the blocks one after another, each against the result of
// the one before, and keeps those that applied when a later one fails, here every
// block is located in the original and the call is all or nothing.

// ReplaceInFile is the name of the SEARCH/REPLACE tool.
const ReplaceInFile = "replace_in_file"

var replaceInFileDef = &toolDef{
	name: ReplaceInFile,
	desc: "Change a text file with SEARCH/REPLACE blocks. Each block is\n" +
		"------- SEARCH\n[exact lines to find]\n=======\n[lines to put instead]\n+++++++ REPLACE\n" +
		"(<<<<<<< SEARCH and >>>>>>> REPLACE work too). Send all the changes of a file as several blocks in one call, in file order. " +
		"Each SEARCH must match whole lines in exactly one place: include enough lines to make it unique (a `:start_line:N` line first in SEARCH picks among several matches). " +
		"Every block is matched against the file as it is before this call, and blocks must not overlap. " +
		"Small differences in quotes, dashes, spaces and indentation are forgiven. The whole call is applied or nothing is.",
	args: objectDef{fields: []argDef{
		pathArg("File path, relative to the workspace root (an absolute path inside the root also works)."),
		{name: "diff", typ: tString, required: true, min: 1, missing: "one or more SEARCH/REPLACE blocks",
			desc: "One or more SEARCH/REPLACE blocks."},
	}},
	shape: `{"path": "src/app.ts", "diff": "------- SEARCH\nold line\n=======\nnew line\n+++++++ REPLACE\n"}`,
	op:    journal.OpEdit,
	needs: needs{write: true, planFirst: true},
	sets:  []string{setSearchReplace},
	run:   (*dispatcher).replaceInFile,
}

func (a *dispatcher) replaceInFile(c *txn.Call, _ string, in *input) (string, error) {
	path := in.str("path")
	blocks, err := dialect.ParseSearchReplace(in.str("diff"), path)
	if err != nil {
		return "", err
	}
	spec := txn.Spec{Path: path, Op: journal.OpEdit, Locate: func(content []byte) (*matcher.Result, error) {
		sp, err := dialect.LocateBlocks(path, content, blocks)
		if err != nil {
			return nil, err
		}
		res, err := matcher.FromSplices(content, sp, blockReports(content, blocks))
		if err != nil {
			return nil, errs.Wrap(errs.IOError, path, err, "replace_in_file: the blocks for %s were placed wrongly (%v); nothing was written.", path, err)
		}
		return res, nil
	}}
	for _, b := range blocks {
		spec.Adds += len(b.Replace)
	}
	chs, err := a.eng.Apply(c, []txn.Spec{spec}, false)
	if err != nil {
		return "", allOrNothing(inWords(err, blockWords), len(blocks))
	}
	ch := chs[0]
	var b strings.Builder
	fmt.Fprintf(&b, "Edited %s with %s (%s).\n", path, plural(len(blocks), "block"), changedLines(ch.Plan))
	for i, r := range ch.Plan.Edits {
		if note := tierNote(i, r); note != "" {
			b.WriteString(blockWords.Replace(strings.Replace(note, fmt.Sprintf("edits[%d]", i), fmt.Sprintf("block %d", i+1), 1)) + "\n")
		}
	}
	b.WriteString(boundedDiff(ch.Diff(), ch.Seq))
	return withWarnings(strings.TrimRight(b.String(), "\n"), ch), nil
}

// allOrNothing says, in the refusal of a call of several blocks, that none was
// applied: a model used to Cline's tool expects the blocks before the failing one
// to have landed.
func allOrNothing(err error, blocks int) error {
	var e *errs.Error
	if blocks < 2 || !errors.As(err, &e) {
		return err
	}
	e2 := *e
	e2.Message = strings.TrimRight(e.Error(), " ") + fmt.Sprintf(" None of the %d blocks was applied", blocks)
	if strings.Contains(e.Message, "as it was before the call") {
		// A block chained on an earlier one (matcher.ChainedAdvice): its own advice
		// says how to send them.
		e2.Message += "."
	} else {
		e2.Message += ": send them again, all in one call, with this one fixed."
	}
	return &e2
}

// blockReports says how each block matched, for the reply and the journal (stats
// count what the folds rescued): a block is matched alone against the original, as
// LocateBlocks matched it; one that only its :start_line: placed, or an empty
// SEARCH, is reported as exact.
func blockReports(content []byte, blocks []dialect.Block) []matcher.EditReport {
	out := make([]matcher.EditReport, len(blocks))
	for i, b := range blocks {
		if b.Search == "" {
			continue
		}
		if r, err := matcher.Apply(content, []matcher.Edit{{OldText: b.Search, NewText: b.Replace}}, matcher.Options{}); err == nil {
			out[i] = r.Edits[0]
		}
	}
	return out
}

// blockWords are the matcher's words in a note, in the blocks' terms.
var blockWords = strings.NewReplacer("oldText", "SEARCH", "newText", "REPLACE")

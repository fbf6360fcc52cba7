package toolapi

import (
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
	needs: needs{write: true},
	sets:  []string{setSearchReplace},
	run:   (*API).replaceInFile,
}

func (a *API) replaceInFile(c *txn.Call, _ string, in *input) (string, error) {
	path := in.str("path")
	blocks, err := dialect.ParseSearchReplace(in.str("diff"))
	if err != nil {
		return "", err
	}
	spec := txn.Spec{Path: path, Op: journal.OpEdit, Locate: func(content []byte) (*matcher.Result, error) {
		sp, err := dialect.LocateBlocks(path, content, blocks)
		if err != nil {
			return nil, err
		}
		res, err := matcher.FromSplices(content, sp, nil)
		if err != nil {
			return nil, errs.Wrap(errs.IOError, path, err, "replace_in_file: the blocks for %s were placed wrongly (%v); nothing was written.", path, err)
		}
		return res, nil
	}}
	chs, err := a.eng.Apply(c, []txn.Spec{spec}, false)
	if err != nil {
		return "", err
	}
	ch := chs[0]
	var b strings.Builder
	fmt.Fprintf(&b, "Edited %s with %s (%s).\n", path, plural(len(blocks), "block"), changedLines(ch.Plan))
	b.WriteString(boundedDiff(ch.Diff(), ch.Seq))
	return withWarnings(strings.TrimRight(b.String(), "\n"), ch), nil
}

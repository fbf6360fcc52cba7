package main

import (
	"context"
	"fmt"
	"io"

	"github.com/vfsctl/vfsctl/toolapi"
)

// rewindCmd is `vfsctl rewind`.
type rewindCmd struct {
	common
	session, turn string
	dryRun        bool
	skip          bool
}

func (c *rewindCmd) Name() string { return "rewind" }
func (c *rewindCmd) Summary() string {
	return "put a session's files back as they were before one of its turns"
}

const rewindUsage = `Usage: vfsctl rewind --session S --turn T [--dry-run] [--skip-unrestorable] [--json]

Reverts every change session S made in turn T and in every later turn of S, newest
first, as one new, journaled transaction: edits lose their lines, written files get
their prior content, created files are removed (with the folders made for them, once
empty), deleted files return. Turns are the labels a runtime sends with its calls
("turn" in a vfsctl call line, _meta "vfsctl/turn" over MCP); they are ordered by the
calls that carry them, not by name. Undos the session made inside the turns count:
a change already undone is not reverted twice.

Changes by other sessions, or outside vfsctl, on other lines are kept. Where they
touched the same lines (or the lines next to them), the rewind is refused as a
conflict naming the call, the lines and the command to run first; nothing is
written. The rewind is one call in the journal: vfsctl undo N brings the turns back.

A file a command changed while it was over the snapshot's size limit (16 MiB) is
recorded by hash only and cannot be put back: it refuses every rewind that reaches
that command's turn. --skip-unrestorable rewinds everything else and leaves such
files as they are, naming each.

Exit status: 0 done, 1 refused, 2 usage error.

Examples:
  vfsctl log --session agent-1 --turn t3     # what turn t3 did
  vfsctl rewind --session agent-1 --turn t3 --dry-run
  vfsctl rewind --session agent-1 --turn t3
`

func (c *rewindCmd) ParseFlags(args []string) error {
	fs := newFlagSet("rewind", rewindUsage)
	c.declare(fs, flagRoot, flagWait, flagJSON)
	fs.StringVar(&c.session, "session", "", "the session whose turns to revert (required)")
	fs.StringVar(&c.turn, "turn", "", "the first turn to revert; every later turn of the session goes too (required)")
	fs.BoolVar(&c.dryRun, "dry-run", false, "show the diff without writing")
	fs.BoolVar(&c.skip, "skip-unrestorable", false, "leave as they are the files recorded by hash only (over the snapshot's size limit), and rewind the rest")
	if err := fs.parse(args); err != nil {
		return err
	}
	if c.session == "" || c.turn == "" {
		return fmt.Errorf("--session and --turn are both required (see --help)")
	}
	return nil
}

func (c *rewindCmd) Run(_ io.Reader, stdout, stderr io.Writer) int {
	eng, err := c.open("vfsctl rewind")
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl rewind: %v\n", err)
		return exitUsage
	}
	defer eng.Close()
	if !eng.HasJournal() {
		text := fmt.Sprintf("There is no journal in %s yet (the first tool call creates it), so there is no turn to rewind.", eng.Root())
		return printOutcome(stdout, stderr, "vfsctl rewind", c.json, toolapi.RewindReport{Kind: "no_change", Text: text}, false, text, "no_change")
	}
	rep := eng.RewindTurns(context.Background(), toolapi.RewindRequest{Session: c.session, Turn: c.turn, DryRun: c.dryRun, FirstAdvice: forRewind,
		SkipUnrestorable: c.skip, SkipAdvice: "run this rewind again with --skip-unrestorable"})
	if !c.json { // names quoted as log quotes them; --json has them exact
		names := append(namesOf(eng, append(rep.Reverts, rep.Txn)...), append(rep.Folders, c.session)...)
		for _, f := range rep.Files {
			names = append(names, f.Path)
		}
		rep.Text = quoteNames(rep.Text, names)
	}
	return printOutcome(stdout, stderr, "vfsctl rewind", c.json, rep, rep.OK, rep.Text, rep.Kind)
}

// forRewind tells an operator which command clears a conflict with another's call.
func forRewind(first uint64) string {
	return fmt.Sprintf("Run `vfsctl undo %d` first, then this rewind again.", first)
}

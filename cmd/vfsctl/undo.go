package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/vfsctl/vfsctl/toolapi"
)

// undoCmd is `vfsctl undo` and, with redo set, `vfsctl redo`.
type undoCmd struct {
	common
	redo          bool
	session, path string
	seq           uint64
	dryRun        bool
	skip          bool
}

func (c *undoCmd) Name() string {
	if c.redo {
		return "redo"
	}
	return "undo"
}

func (c *undoCmd) Summary() string {
	if c.redo {
		return "re-apply what an undo reverted, as a new transaction"
	}
	return "revert a journaled change as a new transaction"
}

const undoUsage = `Usage: vfsctl undo [N] [--session S] [--path P] [--dry-run] [--skip-unrestorable] [--json]

Reverts call N as a new, journaled transaction: the reverse splices of an edit, the
prior content of a write, the removal of a created file (and of the folders its
create made, those empty then); every file of an apply_changes call or none.
Without N, the newest change not yet undone (narrowed by --session and --path), so
that repeating vfsctl undo walks back like an editor's undo. --path goes without N
only: call N is undone whole.

--path picks the call; the whole call is undone. When it is a command's (exec,
run_command) or an outside change that changed other files too, the undo is refused
naming them, and nothing is written: vfsctl undo N takes the whole command back.

Changes made after N elsewhere in a file are kept. When a later call, or a change made
outside vfsctl, touched the same lines, the undo is refused as a conflict naming it
and the command to run first (vfsctl undo 43); nothing is written.

A file a command changed while it was over the snapshot's size limit (16 MiB) is
recorded by hash only and cannot be put back: it refuses the undo of that command.
--skip-unrestorable takes back everything else and leaves such files as they are,
naming each.

Exit status: 0 done, 1 refused, 2 usage error.

Examples:
  vfsctl undo                 # the newest change
  vfsctl undo 42 --dry-run    # what undoing call 42 would write
  vfsctl undo --session agent-1 --path src/app.ts
`

const redoUsage = `Usage: vfsctl redo [N] [--session S] [--path P] [--dry-run] [--skip-unrestorable] [--json]

Re-applies what undo call N reverted, as a new, journaled transaction. Without N, the
most recent undo not yet redone (narrowed by --session and --path). The conflict rules
are those of vfsctl undo, and so is --path: it picks the undo, re-applied whole (for
a command that changed other files too, refused: vfsctl redo N).

Exit status: 0 done, 1 refused, 2 usage error.

Examples:
  vfsctl redo                 # the latest undo
  vfsctl redo 57 --json
`

func (c *undoCmd) ParseFlags(args []string) error {
	usage := undoUsage
	if c.redo {
		usage = redoUsage
	}
	fs := newFlagSet(c.Name(), usage)
	c.declare(fs, flagRoot, flagWait, flagJSON)
	fs.StringVar(&c.session, "session", "", "without N: only calls of this session")
	pathHelp := "without N: the latest call that changed this file, undone whole; a command's that changed other files too is refused (from the current folder, as git takes paths); refused with N"
	if c.redo {
		pathHelp = "without N: the latest undo of a change to this file, re-applied whole; one whose call changed other files too is refused (from the current folder, as git takes paths); refused with N"
	}
	fs.StringVar(&c.path, "path", "", pathHelp)
	fs.BoolVar(&c.dryRun, "dry-run", false, "show the diff without writing")
	fs.BoolVar(&c.skip, "skip-unrestorable", false, "leave as they are the files recorded by hash only (over the snapshot's size limit), and take back the rest")
	rest, err := fs.positional(args)
	if err != nil {
		return err
	}
	switch len(rest) {
	case 0:
	case 1:
		n, err := strconv.ParseUint(rest[0], 10, 64)
		if err != nil || n == 0 {
			return fmt.Errorf("%q is not a call number", rest[0])
		}
		c.seq = n
	default:
		return fmt.Errorf("give at most one call number (see --help)")
	}
	if c.seq != 0 && c.path != "" {
		// Call N's change is taken back whole (all its files or none): a --path that
		// narrowed nothing would be ignored silently.
		return fmt.Errorf("--path picks the newest change of a file when no call number is given; call %d is %s whole, all its files or none. Give %d alone, or --path alone", c.seq, map[bool]string{false: "undone", true: "redone"}[c.redo], c.seq)
	}
	return nil
}

func (c *undoCmd) Run(_ io.Reader, stdout, stderr io.Writer) int {
	name := "vfsctl " + c.Name()
	eng, err := c.open(name)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return exitUsage
	}
	defer eng.Close()
	if !eng.HasJournal() {
		// Nothing was ever journaled here: refused without making a journal, as an
		// operator may run this in any folder.
		text := fmt.Sprintf("There is no journal in %s yet (the first tool call creates it), so there is nothing to %s.", eng.Root(), c.Name())
		return printOutcome(stdout, stderr, name, c.json, toolapi.UndoReport{Kind: "no_change", Text: text}, false, text, "no_change")
	}
	req := toolapi.UndoRequest{Seq: c.seq, Redo: c.redo, Session: c.session, DryRun: c.dryRun, FirstAdvice: forOperator,
		SkipUnrestorable: c.skip, SkipAdvice: fmt.Sprintf("run this %s again with --skip-unrestorable", c.Name())}
	if c.path != "" {
		p, err := pathFromHere(eng.Root(), c.path)
		if err == nil {
			p, err = eng.ResolvePath(p)
		}
		if err != nil {
			fmt.Fprintf(stderr, "%s: --path: %v\n", name, err)
			return exitUsage
		}
		req.Path = p
	}
	rep := eng.Revert(context.Background(), req)
	if !rep.OK && rep.Kind == "no_change" && !c.redo && req.Path != "" && c.session == "" {
		// Nothing to undo on the file because its change was undone already: as
		// `undo N` of an undone call does, name the undo and the redo that reverses it.
		if u, m := undoneBy(eng, req.Path); u != 0 {
			rep.Text += fmt.Sprintf(" Its latest change, call %d, was undone by call %d; `vfsctl redo %d` re-applies it.", m, u, u)
		}
	}
	running := strings.Contains(rep.Text, " is still running (") // an exec of the workspace: naming another call would not help
	if !rep.OK && c.seq == 0 && c.path == "" && !running && (rep.Kind == "conflict" || rep.Kind == "file_exists" || rep.Kind == "file_not_found" || rep.Kind == "not_a_file") {
		// A bare undo tries the latest change again and again, refused by what became
		// of its files: say how to reach past it.
		what := "change"
		if c.redo {
			what = "undo"
		}
		rep.Text += fmt.Sprintf(" (A bare %s takes the latest %s; to reach an older one, name it: %s N, with N from vfsctl log, or pick a file with --path.)", c.Name(), what, name)
	}
	if !c.json { // names quoted as log quotes them; --json has them exact
		names := append(namesOf(eng, rep.Target, rep.Txn), rep.Folders...)
		for _, f := range rep.Files {
			names = append(names, f.Path)
		}
		rep.Text = quoteNames(rep.Text, names)
		if !rep.OK {
			// A refusal names paths of other records (a command's other files, a
			// blocking call's) that the list above does not hold: no control
			// character of theirs reaches the terminal.
			lines := strings.Split(rep.Text, "\n")
			for i, l := range lines {
				lines[i] = escaped(l)
			}
			rep.Text = strings.Join(lines, "\n")
		}
	}
	return printOutcome(stdout, stderr, name, c.json, rep, rep.OK, rep.Text, rep.Kind)
}

// undoneBy returns, when the newest call that changed file p is an undo, that undo
// and the call it took back; else 0, 0.
func undoneBy(eng *toolapi.Engine, p string) (undo, call uint64) {
	recs, _ := eng.Calls(toolapi.Query{Path: p, SkipDamaged: true}) // newest first
	for _, r := range recs {
		if r.State != "committed" || r.DryRun() {
			continue
		}
		for _, f := range r.Files {
			if f.Path == p && f.Op != "read" {
				if r.Undo != 0 {
					return r.Seq, r.Undo
				}
				return 0, 0
			}
		}
	}
	return 0, 0
}

// printOutcome prints an operator command's report: whole as JSON with asJSON, else its
// text, on stderr when it was refused; the exit code says which.
func printOutcome(stdout, stderr io.Writer, name string, asJSON bool, rep any, ok bool, text, kind string) int {
	switch {
	case asJSON:
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.Encode(rep)
	case !ok:
		// The text says what happened; its kind is for scripts, in --json. As a code
		// on a person's terminal it reads as an internal error (and "invalid_input"
		// for an undo already undone is wrong in plain words).
		fmt.Fprintf(stderr, "%s: %s%s\n", name, text, busyHint(kind))
	default:
		fmt.Fprintln(stdout, text)
	}
	if !ok {
		return exitRefused
	}
	return exitOK
}

// forOperator tells an operator which command clears a conflict with a later call.
func forOperator(first uint64) string {
	return fmt.Sprintf("Run `vfsctl undo %d` first, then this command again.", first)
}

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/toolapi"
	"github.com/vfsctl/vfsctl/txn"
	"github.com/vfsctl/vfsctl/vfs"
)

// undoCmd is `vfsctl undo` and, with redo set, `vfsctl redo`.
type undoCmd struct {
	redo          bool
	root, session string
	path          string
	seq           uint64
	dryRun, json  bool
	wait          time.Duration
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

const undoUsage = `Usage: vfsctl undo [N] [--session S] [--path P] [--dry-run] [--json]

Reverts call N as a new, journaled transaction: the reverse splices of an edit, the
prior content of a write, the removal of a created file; every file of an
apply_changes call or none. Without N, the newest change not yet undone (narrowed by
--session and --path), so that repeating vfsctl undo walks back like an editor's undo.

Changes made after N elsewhere in a file are kept. When a later call, or a change made
outside vfsctl, touched the same lines, the undo is refused as a conflict naming it
and the command to run first (vfsctl undo 43); nothing is written.

Exit status: 0 done, 1 refused, 2 usage error.

Examples:
  vfsctl undo                 # the newest change
  vfsctl undo 42 --dry-run    # what undoing call 42 would write
  vfsctl undo --session agent-1 --path src/app.ts
`

const redoUsage = `Usage: vfsctl redo [N] [--session S] [--path P] [--dry-run] [--json]

Re-applies what undo call N reverted, as a new, journaled transaction. Without N, the
most recent undo not yet redone (narrowed by --session and --path). The conflict rules
are those of vfsctl undo.

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
	fs.StringVar(&c.root, "root", "", "workspace root (default: the nearest enclosing folder holding .vfsctl/, else the current one)")
	fs.StringVar(&c.session, "session", "", "without N: only calls of this session")
	fs.StringVar(&c.path, "path", "", "without N: only calls that changed this file (from the current folder, as git takes paths)")
	fs.BoolVar(&c.dryRun, "dry-run", false, "show the diff without writing")
	fs.BoolVar(&c.json, "json", false, "print the result as JSON")
	fs.DurationVar(&c.wait, "wait", journal.DefaultWait, "how long to wait while another process uses the journal")
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
	return nil
}

// undoJSON is what --json prints.
type undoJSON struct {
	OK     bool       `json:"ok"`
	Kind   string     `json:"kind,omitempty"`
	Text   string     `json:"text"`
	Txn    uint64     `json:"txn,omitempty"`
	Target uint64     `json:"target,omitempty"`
	Origin uint64     `json:"origin,omitempty"`
	DryRun bool       `json:"dry_run,omitempty"`
	Files  []undoFile `json:"files,omitempty"`
}

type undoFile struct {
	Path string `json:"path"`
	Op   string `json:"op"`
	Diff string `json:"diff,omitempty"`
}

func (c *undoCmd) Run(_ io.Reader, stdout, stderr io.Writer) int {
	name := "vfsctl " + c.Name()
	eng, err := openEngine(c.root, c.wait, name)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return exitUsage
	}
	opts := txn.UndoOptions{Seq: c.seq, Redo: c.redo, Session: c.session, DryRun: c.dryRun}
	if c.path != "" {
		p, err := pathFromHere(eng.FS().Dir(), c.path)
		var r *vfs.Resolved
		if err == nil {
			r, err = eng.FS().Resolve(p)
		}
		if err != nil {
			fmt.Fprintf(stderr, "%s: --path: %v\n", name, err)
			return exitUsage
		}
		opts.Path = r.Path
	}
	session := c.session
	if session == "" {
		session = "operator"
	}
	args, _ := json.Marshal(map[string]any{"seq": c.seq, "session": c.session, "path": c.path, "dry_run": c.dryRun})
	call, err := eng.Begin(session, c.Name(), args)
	var res *txn.UndoResult
	if err == nil {
		call.SetOrigin(journal.OriginOperator)
		res, err = eng.Undo(call, opts)
		err = forOperator(err)
		call.Finish(err)
	}
	out := undoJSON{OK: err == nil, DryRun: c.dryRun}
	if err != nil {
		out.Kind, out.Text = string(errs.KindOf(err)), err.Error()
	} else {
		out.Text = toolapi.RenderUndo(res, c.redo)
		if c.dryRun {
			out.Text = "Dry run, nothing written: " + out.Text
		}
		out.Txn, out.Target, out.Origin = res.Changes[0].Seq, res.Target, res.Origin
		for _, ch := range res.Changes {
			op := string(ch.Op)
			out.Files = append(out.Files, undoFile{Path: ch.Path, Op: op, Diff: ch.Diff()})
		}
	}
	if c.json {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.Encode(out)
	} else if err != nil {
		fmt.Fprintf(stderr, "%s: %s%s\n", name, out.Text, waitHint(err))
	} else {
		fmt.Fprintln(stdout, out.Text)
	}
	if err != nil {
		return exitRefused
	}
	return exitOK
}

// forOperator gives a conflict the command that clears it.
func forOperator(err error) error {
	b := errs.Blocked(err)
	if b == nil {
		return err
	}
	return errs.Wrap(errs.Conflict, b.Path, err, "%s Run `vfsctl undo %d` first, then this command again.", b.Fact, b.Blocker)
}

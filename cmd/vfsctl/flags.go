package main

import (
	"fmt"
	"io"
	"time"

	"github.com/vfsctl/vfsctl/toolapi"
)

// common holds the flags that many commands share. Each is declared once, in declare,
// so that --root, --wait, --json, --since and --until mean the same in every command.
type common struct {
	root         string
	wait         time.Duration
	json         bool
	since, until string
	stderr       io.Writer // where open reports what recovery settled
}

// The common flags, named as a command asks for them.
const (
	flagRoot  = "root"
	flagWait  = "wait"
	flagJSON  = "json"
	flagSince = "since"
	flagUntil = "until"
)

// declare adds the named common flags to fs.
func (c *common) declare(fs *flagSet, names ...string) {
	for _, name := range names {
		switch name {
		case flagRoot:
			fs.StringVar(&c.root, flagRoot, "", "workspace root (default: the nearest enclosing folder holding .vfsctl/, else the current one)")
		case flagWait:
			c.wait = toolapi.DefaultWait
			fs.Var(waitFlag{&c.wait}, flagWait, "how long (a `duration`; 0 does not wait) to wait while another process uses the workspace journal, then fail with busy")
		case flagJSON:
			fs.BoolVar(&c.json, flagJSON, false, "print JSON instead of text")
		case flagSince:
			fs.StringVar(&c.since, flagSince, "", "calls at or after T (2026-12-01, 2026-12-01 05:42, or how long ago: 90m, 24h, 30d, 2w)")
		case flagUntil:
			fs.StringVar(&c.until, flagUntil, "", "calls before T (as --since takes it)")
		default:
			panic("no common flag " + name)
		}
	}
}

// open opens the engine of an operator's command on --root (found as findRoot finds
// it when not given), as holder in the busy errors of other processes.
func (c *common) open(holder string) (*toolapi.Engine, error) {
	return c.openWith(toolapi.Options{Holder: holder})
}

// openWith is open with more options than the common flags set (call and serve add
// the guard and tracing); --wait and the root come from the flags.
func (c *common) openWith(opts toolapi.Options) (*toolapi.Engine, error) {
	root := c.root
	if root == "" {
		var err error
		if root, err = findRoot(); err != nil {
			return nil, err
		}
	}
	opts.Wait = c.wait
	if c.wait == 0 {
		opts.Wait = -1 // 0 does not wait; the engine's 0 is its default wait
	}
	if opts.OnSettle == nil && c.stderr != nil {
		stderr := c.stderr
		opts.OnSettle = func(s toolapi.Settled) { fmt.Fprintln(stderr, settledLine(s)) }
	}
	return toolapi.Open(root, opts)
}

// window reads --since and --until into q; the error names the flag.
func (c *common) window(q *toolapi.Query) error {
	// Both from one now: "--since 1d --until 1d" is an empty window, not one of the
	// microseconds between two readings of the clock.
	now := time.Now()
	var err error
	if q.Since, err = parseWhen(c.since, now); err != nil {
		return fmt.Errorf("--since: %w", err)
	}
	if q.Until, err = parseWhen(c.until, now); err != nil {
		return fmt.Errorf("--until: %w", err)
	}
	// An empty window would list nothing and look like a quiet journal.
	if !q.Since.IsZero() && !q.Until.IsZero() && !q.Until.After(q.Since) {
		const at = "2006-01-02 15:04:05"
		return fmt.Errorf("--until %s (%s) is not after --since %s (%s): no call can fall between them. --since is the older time: --since 2d --until 1d are the calls of 2 to 1 days ago",
			c.until, q.Until.Format(at), c.since, q.Since.Format(at))
	}
	return nil
}

// settledLine says, for an operator, what recovery did with a call a crash or a kill
// left pending, as the first command to open the journal settled it.
func settledLine(s toolapi.Settled) string {
	line := fmt.Sprintf("vfsctl: recovery settled call %d (%s), left pending by a crash or a kill: now %s", s.Seq, s.Tool, s.State)
	if s.Note != "" {
		line += " (" + s.Note + ")"
	}
	return line
}

// setStderr gives the command's stderr to open, which reports there what recovery
// settled.
func (c *common) setStderr(w io.Writer) { c.stderr = w }

// waitFlag is --wait: a duration of 0 or more (0 does not wait), as --since refuses
// what is in the future.
type waitFlag struct{ d *time.Duration }

func (w waitFlag) String() string {
	if w.d == nil {
		return "0s"
	}
	return w.d.String()
}

func (w waitFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("not a duration such as 10s or 2m")
	}
	if d < 0 {
		return fmt.Errorf("%s is negative; send 0 or more (0 does not wait)", s)
	}
	*w.d = d
	return nil
}

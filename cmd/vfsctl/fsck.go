package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/txn"
)

type fsckCmd struct {
	root       string
	diff, json bool
	wait       time.Duration
}

func (c *fsckCmd) Name() string    { return "fsck" }
func (c *fsckCmd) Summary() string { return "check the journal against the disk and itself" }

const fsckUsage = `Usage: vfsctl fsck [--diff] [--json]

Checks the workspace journal against the disk: each file's last content the journal
knows against the file on disk (reporting files changed outside vfsctl, or missing;
with --diff, how), every blob present and intact, no call left pending, and bbolt's
own consistency check. Like every command, it first lets recovery settle what a crash
left pending.

Exit status: 0 when all is well, 1 when anything was found, 2 on a usage error.

Example:
  vfsctl fsck --diff
`

func (c *fsckCmd) ParseFlags(args []string) error {
	fs := newFlagSet("fsck", fsckUsage)
	fs.StringVar(&c.root, "root", "", "workspace root (default: the nearest enclosing folder holding .vfsctl/, else the current one)")
	fs.BoolVar(&c.diff, "diff", false, "show how each changed file differs from what the journal knows")
	fs.BoolVar(&c.json, "json", false, "print the report as JSON")
	fs.DurationVar(&c.wait, "wait", journal.DefaultWait, "how long to wait while another process uses the journal")
	return fs.parse(args)
}

func (c *fsckCmd) Run(_ io.Reader, stdout, stderr io.Writer) int {
	eng, err := openEngine(c.root, c.wait, "vfsctl fsck")
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl fsck: %v\n", err)
		return exitUsage
	}
	if !eng.HasJournal() {
		fmt.Fprintf(stderr, "vfsctl fsck: there is no journal in %s yet (the first tool call creates it)\n", eng.FS().Dir())
		return exitRefused
	}
	rep, err := eng.Fsck(c.diff)
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl fsck: %v%s\n", err, waitHint(err))
		return exitRefused
	}
	if c.json {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.Encode(struct {
			OK bool `json:"ok"`
			*txn.FsckReport
		}{rep.OK(), rep})
	} else {
		fmt.Fprintf(stdout, "journal: %d records, %d blobs checked\n", rep.Records, rep.Blobs)
		fmt.Fprintf(stdout, "files: %d known to the journal, %d differ on disk\n", rep.Files, len(rep.Changed))
		for _, ch := range rep.Changed {
			what := "changed outside vfsctl"
			if ch.State == "missing" {
				what = "missing"
			}
			fmt.Fprintf(stdout, "  %-8s %s (%s)\n", ch.State, ch.Path, what)
			if ch.Diff != "" {
				fmt.Fprint(stdout, indent(ch.Diff, "    "))
			}
		}
		if len(rep.Problems) == 0 {
			fmt.Fprintln(stdout, "problems: none (blobs intact, nothing pending, bbolt check passed)")
		} else {
			fmt.Fprintf(stdout, "problems: %d\n", len(rep.Problems))
			for _, p := range rep.Problems {
				fmt.Fprintf(stdout, "  %-9s %s\n", p.What, p.Text)
			}
		}
	}
	if !rep.OK() {
		return exitRefused
	}
	return exitOK
}

// indent puts prefix before every line of s.
func indent(s, prefix string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			b.WriteString(prefix + l)
		}
	}
	return b.String()
}

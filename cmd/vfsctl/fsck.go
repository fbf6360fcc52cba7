package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/vfsctl/vfsctl/toolapi"
)

type fsckCmd struct {
	common
	opts toolapi.FsckOptions
}

func (c *fsckCmd) Name() string    { return "fsck" }
func (c *fsckCmd) Summary() string { return "check the journal against the disk and itself" }

const fsckUsage = `Usage: vfsctl fsck [--diff] [--compact] [--json]

Checks the workspace journal against the disk: each file's last content the journal
knows against the file on disk (reporting files changed outside vfsctl, or missing;
with --diff, how), every blob present and intact, no call left pending, and bbolt's
own consistency check. Like every command, it first lets recovery settle what a crash
left pending; the report begins with each call it settled then, and what became of it
("settled" in --json, an empty list when there was none).

Files that differ from what the journal last knew are listed and counted, but are not
problems: people edit files, and every call plans from the disk. A journal that cannot
be read (damaged on disk) is a problem.

With --compact, a journal without problems is then rewritten to its live size (bbolt
keeps the pages it freed, and appends leave pages part empty); the sizes before and
after are shown. Other processes' calls wait for it, as for any call.

Exit status: 0 when there are no problems, 1 when there is any, 2 on a usage error.

Example:
  vfsctl fsck --diff
  vfsctl fsck --compact
`

func (c *fsckCmd) ParseFlags(args []string) error {
	fs := newFlagSet("fsck", fsckUsage)
	c.declare(fs, flagRoot, flagWait, flagJSON)
	fs.BoolVar(&c.opts.Diff, "diff", false, "show how each changed file differs from what the journal knows")
	fs.BoolVar(&c.opts.Compact, "compact", false, "rewrite a sound journal to its live size")
	return fs.parse(args)
}

func (c *fsckCmd) Run(_ io.Reader, stdout, stderr io.Writer) int {
	// What recovery settled as this command opened the journal is part of fsck's
	// report (not a line on stderr, as other commands say it).
	var settled []toolapi.Settled
	eng, err := c.openWith(toolapi.Options{Holder: "vfsctl fsck", OnSettle: func(s toolapi.Settled) { settled = append(settled, s) }})
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl fsck: %v\n", err)
		return exitUsage
	}
	defer eng.Close()
	if !eng.HasJournal() {
		return refused(stdout, stderr, c.json, "vfsctl fsck", toolapi.Kind("file_not_found"), fmt.Sprintf("there is no journal in %s yet (the first tool call creates it)", eng.Root()))
	}
	rep, err := eng.Fsck(c.opts)
	if toolapi.KindOf(err) == toolapi.Busy {
		fmt.Fprintf(stderr, "vfsctl fsck: %v%s\n", err, waitHint(err))
		return exitRefused
	}
	if err != nil {
		// A journal that cannot be read is what fsck is for: its finding, not a crash.
		rep = &toolapi.FsckReport{Problems: []toolapi.Problem{{What: "journal", Text: err.Error()}}}
	}
	if c.json {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		if settled == nil {
			settled = []toolapi.Settled{}
		}
		enc.Encode(struct {
			OK bool `json:"ok"`
			*toolapi.FsckReport
			Settled []toolapi.Settled `json:"settled"`
		}{rep.OK(), rep, settled})
	} else {
		for _, s := range settled {
			fmt.Fprintln(stdout, strings.TrimPrefix(settledLine(s), "vfsctl: "))
		}
		c.text(stdout, rep, err == nil)
	}
	if !rep.OK() {
		return exitRefused
	}
	return exitOK
}

// fileStates says, for each state of a file the journal knows, what it means.
var fileStates = []struct{ state, what string }{
	{"changed", "changed outside vfsctl"},
	{"missing", "missing"},
	{"not_a_file", "no longer a regular file"},
	{"unreadable", "cannot be read"},
}

func (c *fsckCmd) text(w io.Writer, rep *toolapi.FsckReport, read bool) {
	if read {
		fmt.Fprintf(w, "journal: %s, %s checked\n", plural(rep.Records, "record"), plural(rep.Blobs, "blob"))
		fmt.Fprintf(w, "files: %d known to the journal, %d differ on disk\n", rep.Files, len(rep.Changed))
	}
	count := map[string]int{}
	for _, ch := range rep.Changed {
		count[ch.State]++
		what := ch.State
		for _, s := range fileStates {
			if s.state == ch.State {
				what = s.what
			}
		}
		fmt.Fprintf(w, "  %-8s %s (%s)\n", ch.State, ch.Path, what)
		if ch.Diff != "" {
			fmt.Fprint(w, indent(ch.Diff, "    "))
		}
	}
	if len(rep.Problems) == 0 {
		fmt.Fprintln(w, "problems: none (blobs intact, nothing pending, bbolt check passed)")
	} else {
		fmt.Fprintf(w, "problems: %d\n", len(rep.Problems))
		for _, p := range rep.Problems {
			fmt.Fprintf(w, "  %-9s %s\n", p.What, p.Text)
		}
	}
	if cp := rep.Compacted; cp != nil {
		fmt.Fprintf(w, "compacted: %s -> %s\n", byteSize(cp.Before), byteSize(cp.After))
	} else if c.opts.Compact && read && len(rep.Problems) > 0 {
		fmt.Fprintln(w, "not compacted: the journal has problems; it is left as it is")
	}
	// Files that differ are counted, and said not to be problems: the journal is
	// sound, and every call plans from the disk.
	var differ []string
	for _, s := range fileStates {
		if n := count[s.state]; n > 0 {
			differ = append(differ, fmt.Sprintf("%d %s", n, s.what))
		}
	}
	if len(differ) > 0 {
		fmt.Fprintf(w, "not problems: %s (files differ from the journal's last version; the next call reads them from the disk)\n", strings.Join(differ, ", "))
	}
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

// byteSize is n bytes for people: 1536 is "1.5 KiB".
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, u := float64(n), 0
	for v >= unit && u < 3 {
		v /= unit
		u++
	}
	return fmt.Sprintf("%.1f %s", v, []string{"B", "KiB", "MiB", "GiB"}[u])
}

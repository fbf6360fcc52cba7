package main

import (
	"fmt"
	"io"
)

type adoptCmd struct{ common }

func (c *adoptCmd) Name() string { return "adopt" }
func (c *adoptCmd) Summary() string {
	return "make a journal that was copied or checked in this workspace's own"
}

const adoptUsage = `Usage: vfsctl adopt [--root DIR]

A workspace uses only the journal it made: one that arrived with the files (.vfsctl/
committed to a repository, copied with cp -a, restored from a backup), that another
user owns, or that an older vfsctl made, is refused by every command until it is
adopted, and nothing in it is acted on. Adopt it only if you trust what it records:
from the next command on, its calls are listed, undone and replayed here. Calls it
left pending are marked unknown, not settled, and the calls it lists as written
without fsync (the journal-durable mode) are taken off that list: adopting never
writes a working file, and no later command rebuilds one from a call recorded before
the adoption (a crafted record could name content to "put back" or "roll forward");
check them with vfsctl fsck. The side files it came with (marks, temps, wal) are
dropped, and its side files get a new key.
Adopting copies the journal into a new file of your own that records this folder.
A damaged journal is not adopted. The workspace's own journal is left as it is
(adopting it again would mark a running command's pending call unknown). Not to adopt it, move .vfsctl aside instead: a new
journal starts with the next call.

Example:
  vfsctl adopt && vfsctl log
`

func (c *adoptCmd) ParseFlags(args []string) error {
	fs := newFlagSet("adopt", adoptUsage)
	c.declare(fs, flagRoot, flagWait)
	return fs.parse(args)
}

func (c *adoptCmd) Run(_ io.Reader, stdout, stderr io.Writer) int {
	eng, err := c.open("vfsctl adopt")
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl adopt: %v\n", err)
		return exitUsage
	}
	defer eng.Close()
	a, err := eng.Adopt()
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl adopt: %v%s\n", err, waitHint(err))
		return exitRefused
	}
	calls := fmt.Sprintf("%d calls", a.Records)
	if a.Records == 1 {
		calls = "1 call"
	}
	if a.Own {
		fmt.Fprintf(stdout, "Nothing to adopt: .vfsctl/journal.db is already this workspace's own (%s recorded). It was left as it is.\n", calls)
		return exitOK
	}
	unsynced := ""
	if a.Unsynced > 0 {
		unsynced = fmt.Sprintf("; %d written without fsync elsewhere (never rolled forward here)", a.Unsynced)
	}
	fmt.Fprintf(stdout, "adopted .vfsctl/journal.db: %s recorded, %d pending (marked unknown, not settled: no file was written for them)%s\n", calls, a.Pending, unsynced)
	return exitOK
}

package vfs

import (
	"path"
	"strings"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// MaxNewDepth is how many folders deep a name a call makes may be.
const MaxNewDepth = 256

// CheckNewName refuses a backslash in a name that creating r would make: the last
// name and every folder above it that is not there yet. Outside Windows a backslash is
// an ordinary character of a name, but a model that sends one means a folder (a
// Windows path): `sub\x.txt` would make one file of that name at the root, where no
// Windows checkout can hold it. Names already on disk stay reachable; on Windows the
// backslash is a separator already (Clean), so nothing is refused there.
//
// It also refuses a new name more than MaxNewDepth folders deep: each folder a call
// makes is reached, and synced, through every folder above it, so that a path of
// 2,000 folders took a call half a minute with the workspace held, and its undo
// minutes. Names already on disk at any depth stay reachable.
func (f *FS) CheckNewName(r *Resolved) error {
	if r.Exists || r.Link {
		return nil
	}
	if d := strings.Count(r.Path, "/"); d > MaxNewDepth {
		return errs.New(errs.TooLarge, r.Name, "%s is %d folders deep; a call makes new names at most %d folders deep. Send a shorter path.",
			r.Name, d, MaxNewDepth)
	}
	if err := f.checkShellPath(r); err != nil {
		return err
	}
	missing := f.MissingFolders(r.Path)
	if err := f.checkLookalike(r, missing); err != nil {
		return err
	}
	if !strings.Contains(r.Path, `\`) {
		return nil
	}
	for _, n := range append(missing, r.Path) {
		if name := path.Base(n); strings.Contains(name, `\`) {
			return errs.New(errs.InvalidInput, r.Name, "%s would make a name with a backslash in it (%s), which outside Windows is no folder separator. Use / between folders: %s.",
				r.Name, name, strings.ReplaceAll(r.Name, `\`, "/"))
		}
	}
	return nil
}

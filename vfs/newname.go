package vfs

import (
	"fmt"
	"path"
	"strings"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// MaxNewDepth is how many folders deep a name a call makes may be, but for a file
// made in a folder that is there already: such a file makes the tree no deeper.
const MaxNewDepth = 256

// CheckNewName refuses a backslash in a name that creating r would make: the last
// name and every folder above it that is not there yet. Outside Windows a backslash is
// an ordinary character of a name, but a model that sends one means a folder (a
// Windows path): `sub\x.txt` would make one file of that name at the root, where no
// Windows checkout can hold it. Names already on disk stay reachable; on Windows the
// backslash is a separator already (Clean), so nothing is refused there.
//
// It also refuses, past MaxNewDepth folders deep, a name whose folder is not there:
// each folder a call makes is reached, and synced, through every folder above it, so
// that a path of 2,000 folders took a call half a minute with the workspace held, and
// its undo minutes. Names already on disk at any depth stay reachable, and a file can
// be made in any folder there is.
func (f *FS) CheckNewName(r *Resolved) error {
	return f.checkNew(r, false)
}

// CheckNewFolder is CheckNewName of a folder to make at r (create_directory): past
// MaxNewDepth folders deep it is refused though the folder above it is there.
func (f *FS) CheckNewFolder(r *Resolved) error {
	return f.checkNew(r, true)
}

// CheckNewDepth is CheckNewName's bound on depth alone, for a file moved under its own
// name: its name is not the model's to check, but the folders made for it are.
func (f *FS) CheckNewDepth(r *Resolved) error {
	if r.Exists || r.Link {
		return nil
	}
	return f.checkDepth(r, false)
}

func (f *FS) checkNew(r *Resolved, folder bool) error {
	if r.Exists || r.Link {
		return nil
	}
	if err := f.checkDepth(r, folder); err != nil {
		return err
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

// checkDepth refuses r, a name to make (a folder, with folder), past MaxNewDepth folders
// deep unless it is a file whose folder is there.
func (f *FS) checkDepth(r *Resolved, folder bool) error {
	d := strings.Count(r.Path, "/")
	if d <= MaxNewDepth {
		return nil
	}
	dir := path.Dir(r.Path)
	dirs := strings.Split(dir, "/")
	lo := f.foldersThere(dirs) // dirs[:lo] is there
	if !folder && lo == len(dirs) {
		return nil
	}
	there := "no folder of it is there"
	if lo > 0 {
		there = "the folders that are there end at " + strings.Join(dirs[:lo], "/")
	}
	n := len(dirs) - lo
	if folder {
		n++ // r itself
	}
	what := fmt.Sprintf("would make %d new folders down to it (%s)", n, there)
	if folder && lo == len(dirs) {
		what = fmt.Sprintf("would be a new folder in %s", dir)
	}
	return errs.New(errs.TooLarge, r.Name, "%s is %d folders deep and %s; a call makes names at most %d folders deep, but for a file in a folder that is there already. Nothing was made. Send a path at most %d folders deep, or a file's path in a folder that is there.",
		r.Name, d, what, MaxNewDepth, MaxNewDepth)
}

// foldersThere is how many of dirs, from the root down, are folders there (not
// symlinks): one walk down, each folder opened in the one above.
func (f *FS) foldersThere(dirs []string) int {
	at, err := f.cursor("")
	if err != nil {
		return 0
	}
	defer func() { at.close() }()
	for i, d := range dirs {
		next, err := at.enter(d)
		if err != nil {
			return i
		}
		at.close()
		at = next
	}
	return len(dirs)
}

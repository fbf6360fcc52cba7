package vfs

import (
	"path"
	"strings"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// CheckNewName refuses a backslash in a name that creating r would make: the last
// name and every folder above it that is not there yet. Outside Windows a backslash is
// an ordinary character of a name, but a model that sends one means a folder (a
// Windows path): `sub\x.txt` would make one file of that name at the root, where no
// Windows checkout can hold it. Names already on disk stay reachable; on Windows the
// backslash is a separator already (Clean), so nothing is refused there.
func (f *FS) CheckNewName(r *Resolved) error {
	if r.Exists || r.Link || !strings.Contains(r.Path, `\`) {
		return nil
	}
	for _, n := range append(f.MissingFolders(r.Path), r.Path) {
		if name := path.Base(n); strings.Contains(name, `\`) {
			return errs.New(errs.InvalidInput, r.Name, "%s would make a name with a backslash in it (%s), which outside Windows is no folder separator. Use / between folders: %s.",
				r.Name, name, strings.ReplaceAll(r.Name, `\`, "/"))
		}
	}
	return nil
}

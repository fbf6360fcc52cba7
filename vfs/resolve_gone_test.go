package vfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/internal/winetest"
)

// A symlink whose target enters a folder that does not exist and climbs back out of it
// with ".." leads nowhere: the system refuses the ".." (the stat below is the oracle).
// Resolve says so, naming the missing folder, or refuses the path as leading outside
// or into .git when it would once the folder existed; never a race, since none ran.
func TestResolveThroughMissingFolder(t *testing.T) {
	winetest.NeedSymlinks(t)
	f, ws, parent := setup(t)
	links := map[string]string{
		"absout":     parent,
		"gitl":       ".git",
		"t_out":      "missing/../absout/secret.txt",
		"t_git":      "missing/../gitl/config.x",
		"t_real":     "missing/../src/a.go",
		"t_deep":     "src/missing/x/../../a.go",
		"t_root":     "missing/..",
		"t_dir":      "missing/../src",
		"t_new":      "missing/new.go",
		"t_existing": "src/../src/a.go",
	}
	for link, target := range links {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		path string
		kind errs.Kind
		gone string // the folder the message names
	}{
		{"t_out", errs.PathOutsideRoot, ""},
		{"t_git", errs.PathReserved, ""},
		{"t_real", errs.FileNotFound, "missing"},
		{"t_deep", errs.FileNotFound, "src/missing"},
		{"t_root", errs.FileNotFound, "missing"},
		{"t_dir/a.go", errs.FileNotFound, "missing"},
	} {
		if _, err := os.Stat(filepath.Join(ws, c.path)); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s: the system finds %v, not that it does not exist", c.path, err)
		}
		_, err := f.Resolve(c.path)
		testutil.WantKind(t, err, c.kind)
		if err == nil {
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, "while this call ran") || strings.Contains(msg, "replaced") {
			t.Errorf("%s: %q claims a race", c.path, msg)
		}
		if c.gone != "" && !strings.Contains(msg, "leads into "+c.gone+", a folder that does not exist") {
			t.Errorf("%s: %q does not name %s", c.path, msg, c.gone)
		}
		if strings.Contains(msg, "secret") || strings.Contains(msg, parent) {
			t.Errorf("%s: %q names what is outside", c.path, msg)
		}
	}
	// Without a ".." out of it, a missing folder is where a new file would go.
	r, err := f.Resolve("t_new")
	if err != nil || r.Exists || r.Path != "missing/new.go" {
		t.Errorf("t_new: %+v, %v", r, err)
	}
	// A ".." out of a folder that exists is taken.
	r, err = f.Resolve("t_existing")
	if err != nil || !r.Exists || r.Path != "src/a.go" {
		t.Errorf("t_existing: %+v, %v", r, err)
	}
}

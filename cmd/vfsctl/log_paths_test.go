package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/winetest"
)

// A row of vfsctl log held every path of its record: the rewind of a command that
// made thousands of files was one line of tens of kilobytes. It shows the first few
// and how many more; show has them all.
func TestLogRowShowsAFewPathsOfMany(t *testing.T) {
	winetest.NeedPOSIXShell(t)
	dir := t.TempDir()
	if code, out, errb := cliIn(t, dir, "", "exec", "--root", dir, "--", "sh", "-c", "mkdir d; for i in $(seq 1 300); do echo $i > d/f$i; done"); code != 0 {
		t.Fatalf("exec: exit %d\n%s%s", code, out, errb)
	}
	made, _ := filepath.Glob(filepath.Join(dir, "d", "f*"))
	if len(made) != 300 {
		t.Fatalf("the command made %d files, want 300", len(made))
	}
	code, out, errb := cliIn(t, dir, "", "log", "--root", dir)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 {
		t.Fatalf("log: exit %d\n%s%s", code, out, errb)
	}
	row := lines[1]
	_, paths, _ := strings.Cut(row, "(exit 0): ")
	// 300 files and the folder d/: ten shown, 291 more.
	if shown := strings.Count(paths, "d/"); shown != 10 || !strings.HasSuffix(row, fmt.Sprintf("(+%d more; vfsctl show 1 has them all)", 301-10)) {
		t.Errorf("log's row (%d bytes) shows %d paths and ends %q; want %d and the count of the rest", len(row), shown, row[max(0, len(row)-60):], 10)
	}
	_, out, _ = cliIn(t, dir, "", "show", "--root", dir, "1")
	for _, f := range made {
		if rel, _ := filepath.Rel(dir, f); !strings.Contains(out, "+++ b/"+filepath.ToSlash(rel)+"\n") {
			t.Fatalf("show 1 does not name %s", rel)
		}
	}
}

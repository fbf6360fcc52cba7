package txn

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/winetest"
	"github.com/vfsctl/vfsctl/journal"
)

// A command that edits a file in a folder and then makes the folder unlistable
// (chmod 000), and makes another file unreadable after changing it: the record keeps
// the folder's files as they were last known (not deleted), says why, and records
// both changes of bits. The next look, once the folder is readable again, sees the
// edit. Root lists any folder, so as root it runs as nobody.
func TestExecPastAFolderMadeUnlistable(t *testing.T) {
	winetest.NeedPOSIXModes(t, "chmod 000 to make a folder unlistable")
	winetest.NeedPOSIXShell(t)
	want := "files: a.txt create; f.txt write 644->0\n" +
		"entries: d dir 755->0\n" +
		"notes: f.txt: mode 0644 -> 0000 | f.txt could not be read; it keeps its last known state | d could not be listed; what it holds keeps its last known state, and what changed in it is journaled by the first look that can list it again: as that exec's if the look ends an exec (or recovers one whose vfsctl stopped), else as outside\n" +
		"later: d/q edit\n" +
		"again: call 0, call 0"
	checkAsNobody(t, execUnlistedRun, want)
}

func execUnlistedRun(ws string) string {
	if err := os.Mkdir(filepath.Join(ws, "d"), 0o755); err != nil {
		return "err " + err.Error()
	}
	if err := os.WriteFile(filepath.Join(ws, "d", "q"), []byte("q\n"), 0o644); err != nil {
		return "err " + err.Error()
	}
	defer os.Chmod(filepath.Join(ws, "d"), 0o755) // for the cleanup
	e, look, failed := execScript(ws, "echo two > f.txt && chmod 000 f.txt && echo qq > d/q && chmod 000 d && echo a > a.txt")
	if failed != "" {
		return failed
	}
	defer e.Close()
	var files, entries []string
	for _, f := range look.Files {
		s := fmt.Sprintf("%s %s", f.Path, f.Op)
		if f.BeforeMode != f.AfterMode && f.Before != "" && f.After != "" {
			s += fmt.Sprintf(" %o->%o", f.BeforeMode&0o777, f.AfterMode&0o777)
		}
		files = append(files, s)
	}
	for _, en := range look.Entries {
		entries = append(entries, fmt.Sprintf("%s %s %o->%o", en.Path, en.After, en.BeforeMode&0o777, en.AfterMode&0o777))
	}
	slices.Sort(files)
	// Readable again: the command's edit is there to be seen.
	os.Chmod(filepath.Join(ws, "d"), 0o755)
	later, err := e.CheckpointOutside(LookOptions{})
	if err != nil {
		return "checkpoint after: " + err.Error()
	}
	var seen []string
	for _, f := range later.Files {
		seen = append(seen, fmt.Sprintf("%s %s", f.Path, f.Op))
	}
	// Unlistable again, and left so: looks record nothing for it, not a record of
	// its note each time.
	os.Chmod(filepath.Join(ws, "d"), 0o000)
	var again []string
	for range 2 {
		l, err := e.CheckpointOutside(LookOptions{})
		if err != nil {
			return "checkpoint again: " + err.Error()
		}
		again = append(again, fmt.Sprintf("call %d", l.Seq))
	}
	return fmt.Sprintf("files: %s\nentries: %s\nnotes: %s\nlater: %s\nagain: %s", strings.Join(files, "; "), strings.Join(entries, "; "), strings.Join(look.Notes, " | "), strings.Join(seen, "; "), strings.Join(again, ", "))
}

// A command that edits a file and then makes the workspace's root unlistable (chmod
// 311 .): its end said "The journal ... is gone", and the edit was journaled later as
// an unknown exec's. The exec ends, its note says the root could not be listed and
// what becomes of its changes, and the first look that can list it journals the
// edit as outside.
func TestExecPastTheRootMadeUnlistable(t *testing.T) {
	winetest.NeedPOSIXModes(t, "chmod 311 to make a folder unlistable")
	winetest.NeedPOSIXShell(t)
	want := "files: \n" +
		"notes: the workspace's root folder could not be listed; what it holds keeps its last known state, and what changed in it is journaled by the first look that can list it again: as that exec's if the look ends an exec (or recovers one whose vfsctl stopped), else as outside\n" +
		"later: outside f.txt edit"
	checkAsNobody(t, execUnlistedRootRun, want)
}

func execUnlistedRootRun(ws string) string {
	defer os.Chmod(ws, 0o755) // for the cleanup
	e, look, failed := execScript(ws, "echo two > f.txt && chmod 311 .")
	if failed != "" {
		return failed
	}
	defer e.Close()
	os.Chmod(ws, 0o755)
	later, err := e.CheckpointOutside(LookOptions{})
	if err != nil {
		return "checkpoint after: " + err.Error()
	}
	var seen []string
	for _, f := range later.Files {
		seen = append(seen, fmt.Sprintf("%s %s", f.Path, f.Op))
	}
	tool := ""
	e.View(func(t *journal.Tx) error {
		if r, err := t.Get(later.Seq); err == nil && r != nil {
			tool = r.Tool
		}
		return nil
	})
	return fmt.Sprintf("files: %s\nnotes: %s\nlater: %s %s", strings.Join(journalPaths(look.Files), "; "), strings.Join(look.Notes, " | "), tool, strings.Join(seen, "; "))
}

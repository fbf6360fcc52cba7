package txn

import (
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/winetest"
	"github.com/vfsctl/vfsctl/matcher"
)

// tree is the workspace as a test sees it: each regular file's content and bits, each
// folder's bits, each symlink's target.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() && (d.Name() == ".vfsctl" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		fi, _ := d.Info()
		switch {
		case d.Type().IsRegular():
			data, _ := os.ReadFile(p)
			out[rel] = fmt.Sprintf("%04o %q", fi.Mode().Perm(), data)
		case d.IsDir() && rel != ".":
			out[rel+"/"] = fmt.Sprintf("dir %04o", fi.Mode().Perm())
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "-> " + target
		case d.Type()&fs.ModeNamedPipe != 0:
			out[rel] = fmt.Sprintf("fifo %04o", fi.Mode().Perm())
		}
		return nil
	})
	return out
}

// withLine sets line i (0-based) of a file as tree shows it, when it has that line.
func withLine(shown string, i int, line string) string {
	var perm, data string
	if _, err := fmt.Sscanf(shown, "%s %q", &perm, &data); err != nil {
		return shown
	}
	lines := strings.SplitAfter(data, "\n")
	if i >= len(lines)-1 {
		return shown
	}
	lines[i] = line
	return fmt.Sprintf("%s %q", perm, strings.Join(lines, ""))
}

// Random turns of one session mix tool calls with shell commands (sed -i, create,
// delete, chmod, mv, mkdir, symlinks made and retargeted), while another session
// edits other lines (the last) of the same files and a file is written outside
// vfsctl between turns; the tree is read from the disk before each turn. Rewinding to
// each turn gives back that tree exactly, with the other session's last edit of each
// file since then kept (the test's own account of what it did) and the outside file
// as it is now; undoing the rewind gives back the tree before the rewind. The oracle
// is the disk as it was and what the test did, not what the journal says.
func TestRewindOfTurnsWithCommandsGivesBackEachTree(t *testing.T) {
	winetest.NeedPOSIXShell(t)
	seeds := 3
	if testing.Short() {
		seeds = 1
	}
	for seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(seed), 35))
			files := map[string]string{}
			for i := range 3 {
				files[fmt.Sprintf("f%d.txt", i)] = fmt.Sprintf("a%d\nb%d\nc%d\nd%d\ne%d\nf%d\n", i, i, i, i, i, i)
			}
			e, dir := diskEngineWith(t, files, Options{NoSync: true})
			defer e.Close()
			if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
				t.Fatal(err)
			}
			const turns = 5
			var before []map[string]string
			// otherLast[turn][path]: the other session's last edit of the file's
			// last line (line 6) made from that turn on.
			var otherLast []map[string]string
			n := 0
			for turn := range turns {
				before = append(before, tree(t, dir))
				otherLast = append(otherLast, map[string]string{})
				// Someone writes hand.txt between turns: no rewind takes that back.
				if err := os.WriteFile(filepath.Join(dir, "hand.txt"), []byte(fmt.Sprintf("hand %d\n", turn)), 0o644); err != nil {
					t.Fatal(err)
				}
				label := fmt.Sprintf("t%d", turn)
				for range 3 {
					n++
					target := fmt.Sprintf("f%d.txt", rng.IntN(3))
					data, err := os.ReadFile(filepath.Join(dir, target))
					lines := strings.SplitAfter(string(data), "\n")
					switch {
					case rng.IntN(3) == 0 && err == nil && len(lines) > 1:
						// A tool call edits one of the first three lines.
						old := lines[rng.IntN(min(3, len(lines)-1))]
						c, _ := e.Begin("agent", "edit_file", nil)
						c.SetTurn(label)
						_, err := e.Edit(c, target, []matcher.Edit{{OldText: old, NewText: fmt.Sprintf("edit %d\n", n)}}, false)
						c.Finish(err)
					default:
						scripts := []string{
							fmt.Sprintf("[ -f %s ] && sed -i '1s/.*/sed %d/' %s || true", target, n, target),
							fmt.Sprintf("mkdir -p d%d && echo new %d > d%d/n.txt", n, n, n),
							fmt.Sprintf("mkdir e%d", n),
							fmt.Sprintf("rm -f %s", target),
							fmt.Sprintf("[ -f %s ] && chmod %s %s || true", target, []string{"0755", "0600", "0644"}[rng.IntN(3)], target),
							fmt.Sprintf("[ -f %s ] || printf 'back %d\\n' > %s", target, n, target),
							fmt.Sprintf("[ -f %s ] && mv %s m%d.txt || true", target, target, n),
							fmt.Sprintf("ln -s %s l%d", target, n),
							fmt.Sprintf("for l in l*; do [ -L \"$l\" ] && ln -sfn %s \"$l\" && break; done; true", target),
						}
						script := scripts[rng.IntN(len(scripts))]
						x, err := e.BeginExec("agent", label, ExecArgs{Argv: []string{"sh", "-c", script}, Cwd: "."}, LookOptions{})
						if err != nil {
							t.Fatal(err)
						}
						cmd := exec.Command("sh", "-c", script)
						cmd.Dir = dir
						if out, err := cmd.CombinedOutput(); err != nil {
							t.Fatalf("%s: %s %v", script, out, err)
						}
						if _, err := x.End("exit 0"); err != nil {
							t.Fatal(err)
						}
					}
					// The other session edits line 6 of a file, where it has one.
					other := fmt.Sprintf("f%d.txt", rng.IntN(3))
					data, err = os.ReadFile(filepath.Join(dir, other))
					if lines := strings.SplitAfter(string(data), "\n"); err == nil && len(lines) == 7 {
						line := fmt.Sprintf("other %d\n", n)
						if edit(e, "other", other, lines[5], line) == nil {
							for t := range otherLast {
								otherLast[t][other] = line
							}
						}
					}
				}
			}
			for turn := turns - 1; turn >= 0; turn-- {
				now := tree(t, dir)
				var seq uint64
				err := do(e, "op", func(c *Call) error {
					_, err := e.Rewind(c, RewindOptions{Session: "agent", Turn: fmt.Sprintf("t%d", turn)})
					seq = c.Seq()
					return err
				})
				if err != nil {
					t.Fatalf("rewind to before t%d: %v", turn, err)
				}
				want := maps.Clone(before[turn])
				want["hand.txt"] = now["hand.txt"]
				for p, line := range otherLast[turn] {
					if shown, ok := want[p]; ok {
						want[p] = withLine(shown, 5, line)
					}
				}
				if got := tree(t, dir); !same(got, want) {
					t.Fatalf("after rewinding to before t%d:\n got  %v\n want %v", turn, got, want)
				}
				if err := do(e, "op", func(c *Call) error { _, err := e.Undo(c, UndoOptions{Seq: seq}); return err }); err != nil {
					t.Fatalf("undo of the rewind to t%d: %v", turn, err)
				}
				if got := tree(t, dir); !same(got, now) {
					t.Fatalf("after undoing the rewind to t%d:\n got  %v\n want %v", turn, got, now)
				}
			}
		})
	}
}

// same reports whether two trees (path -> content) are the same.
func same(a, b map[string]string) bool { return maps.Equal(a, b) }

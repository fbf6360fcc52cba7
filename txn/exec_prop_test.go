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

	"github.com/vfsctl/vfsctl/matcher"
)

// tree is the workspace as a test sees it: each regular file's content and bits.
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
		if d.Type().IsRegular() {
			data, _ := os.ReadFile(p)
			fi, _ := d.Info()
			out[rel] = fmt.Sprintf("%04o %q", fi.Mode().Perm(), data)
		} else if d.IsDir() && rel != "." {
			out[rel+"/"] = "dir"
		}
		return nil
	})
	return out
}

// Random turns of one session mix tool calls with shell commands (sed -i, create,
// delete, chmod, mkdir), with a file written outside vfsctl between turns; the tree
// is written down before each turn, read from the disk. Rewinding to each turn gives back that tree exactly (the outside file as it is now), and undoing the rewind
// gives back the tree before the rewind. The oracle is the disk as it was, not what
// the journal says.
func TestRewindOfTurnsWithCommandsGivesBackEachTree(t *testing.T) {
	seeds := 3
	if testing.Short() {
		seeds = 1
	}
	for seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(seed), 35))
			files := map[string]string{}
			for i := range 3 {
				files[fmt.Sprintf("f%d.txt", i)] = fmt.Sprintf("a%d\nb%d\nc%d\nd%d\n", i, i, i, i)
			}
			e, dir := diskEngineWith(t, files, Options{NoSync: true})
			defer e.Close()
			if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
				t.Fatal(err)
			}
			const turns = 5
			var before []map[string]string
			n := 0
			for turn := range turns {
				before = append(before, tree(t, dir))
				// Someone writes hand.txt between turns: no rewind takes that back.
				if err := os.WriteFile(filepath.Join(dir, "hand.txt"), []byte(fmt.Sprintf("hand %d\n", turn)), 0o644); err != nil {
					t.Fatal(err)
				}
				label := fmt.Sprintf("t%d", turn)
				for range 2 {
					n++
					target := fmt.Sprintf("f%d.txt", rng.IntN(3))
					data, err := os.ReadFile(filepath.Join(dir, target))
					lines := strings.SplitAfter(string(data), "\n")
					switch {
					case rng.IntN(2) == 0 && err == nil && len(lines) > 1:
						// A tool call edits one line.
						old := lines[rng.IntN(len(lines)-1)]
						c, _ := e.Begin("agent", "edit_file", nil)
						c.SetTurn(label)
						_, err := e.Edit(c, target, []matcher.Edit{{OldText: old, NewText: fmt.Sprintf("edit %d\n", n)}}, false)
						c.Finish(err)
					default:
						scripts := []string{
							fmt.Sprintf("[ -f %s ] && sed -i '1s/.*/sed %d/' %s || true", target, n, target),
							fmt.Sprintf("mkdir -p d%d && echo new %d > d%d/n.txt", n, n, n),
							fmt.Sprintf("rm -f %s", target),
							fmt.Sprintf("[ -f %s ] && chmod %s %s || true", target, []string{"0755", "0600", "0644"}[rng.IntN(3)], target),
							fmt.Sprintf("[ -f %s ] || printf 'back %d\\n' > %s", target, n, target),
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

func same(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

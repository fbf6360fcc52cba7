package txn

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/vfsctl/vfsctl/journal"
)

// Random turns of one session make and remove folders and files over a few paths
// that nest (a file becomes a folder's path and back), with the folders' bits
// changed by hand between turns; the tree is read from the disk before each turn.
// Rewinding to each turn gives back that tree exactly (bytes, kinds, bits), its dry
// run saying so first, and undoing the rewind gives back the tree before it. The
// oracle is the disk as it was, not the journal. VFSCTL_REWIND_SEEDS runs more seeds.
func TestRewindOfFolderTurnsGivesBackEachTree(t *testing.T) {
	seeds := 20
	if testing.Short() {
		seeds = 5
	}
	if n, err := strconv.Atoi(os.Getenv("VFSCTL_REWIND_SEEDS")); err == nil {
		seeds = n
	}
	paths := []string{"a", "b", "a/x", "a/y", "a/x/z", "b/x"}
	for seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(seed), 37))
			e, dir := diskEngineWith(t, map[string]string{"keep.txt": "k\n"}, Options{NoSync: true})
			defer e.Close()
			const turns = 4
			var before []map[string]string
			n := 0
			for turn := range turns {
				before = append(before, tree(t, dir))
				label := fmt.Sprintf("t%d", turn)
				for range 2 + rng.IntN(5) {
					n++
					p := paths[rng.IntN(len(paths))]
					// Any of these may be refused (a file above p, something at p):
					// a refused call changes nothing, and the oracle is the disk.
					var err error
					op := rng.IntN(6)
					switch op {
					case 0:
						err = turnMkdir(e, "s", label, p)
					case 1:
						err = turnCreate(e, "s", label, p, fmt.Sprintf("file %d\n", n))
					case 2:
						err = turnDelete(e, "s", label, p)
					case 3:
						err = turnCall(e, "s", label, func(c *Call) error {
							if _, err := e.Read(c, p); err != nil {
								return err
							}
							_, err := e.Write(c, p, []byte(fmt.Sprintf("written %d\n", n)))
							return err
						})
					case 4:
						err = turnCreate(e, "s", label, p+"/f.txt", fmt.Sprintf("inner %d\n", n))
					default: // leaves empty the folders a create made
						err = turnDelete(e, "s", label, p+"/f.txt")
					}
					t.Logf("%s: %s %s: %v", label, []string{"mkdir", "create", "delete", "write", "create inside", "delete inside"}[op], p, err)
				}
			}
			final := tree(t, dir)
			for turn := turns - 1; turn >= 0; turn-- {
				label := fmt.Sprintf("t%d", turn)
				dry := rewindTo(e, "s", label, true)
				if got := tree(t, dir); !same(got, final) {
					t.Fatalf("the dry run to before %s changed the tree:\n got  %v\n want %v", label, tree(t, dir), final)
				}
				err := rewindTo(e, "s", label, false)
				if (dry == nil) != (err == nil) {
					t.Fatalf("rewind to before %s: the dry run said %v, the rewind %v", label, dry, err)
				}
				if err != nil {
					// Nothing to rewind (the turn's calls were all refused) is the only
					// refusal expected: nothing here was changed by anyone else.
					if same(before[turn], final) {
						continue
					}
					t.Fatalf("rewind to before %s: %v", label, err)
				}
				if got := tree(t, dir); !same(got, before[turn]) {
					t.Fatalf("after rewinding to before %s:\n got  %v\n want %v", label, got, before[turn])
				}
				var seq uint64
				e.View(func(tx *journal.Tx) error { seq = tx.Last(); return nil })
				if err := do(e, "op", func(c *Call) error { _, err := e.Undo(c, UndoOptions{Seq: seq}); return err }); err != nil {
					t.Fatalf("undo of the rewind to before %s: %v", label, err)
				}
				// Every folder back, those a create made and the rewind removed,
				// empty, included, with its bits.
				if got := tree(t, dir); !same(got, final) {
					t.Fatalf("after the undo of the rewind to before %s:\n got  %v\n want %v", label, got, final)
				}
			}
		})
	}
}

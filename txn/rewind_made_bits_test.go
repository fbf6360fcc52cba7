//go:build !windows

package txn

import (
	"strings"
	"testing"
)

// A rewind removes the folders a create made for its file also when a later turn's
// command denied writing in one of them (chmod 500): they are the turns' own, and the
// tree ends as it was before the turns, as root or not. Before, a user who is not root
// kept p/, p/q (still 0500) and p/q/r, and the reply said nothing of them.
func TestRewindRemovesMadeFoldersChmoddedLater(t *testing.T) {
	madeFoldersChmoddedLater(t)
}

// The same, as nobody when the test runs as root.
func TestRewindRemovesMadeFoldersChmoddedLaterAsNobody(t *testing.T) {
	if rerunAsNobody(t) {
		return
	}
	madeFoldersChmoddedLater(t)
}

func madeFoldersChmoddedLater(t *testing.T) {
	// The second command makes a folder too: the rewind then has folder steps of
	// its own to take back with the made folders.
	for _, script := range []string{"chmod 500 p/q", "mkdir m && chmod 500 p/q"} {
		t.Run(script, func(t *testing.T) { madeFoldersChmoddedBy(t, script) })
	}
}

func madeFoldersChmoddedBy(t *testing.T, script string) {
	e, dir := diskEngineWith(t, map[string]string{"keep.txt": "k\n"}, Options{NoSync: true})
	writableAgain(t, dir)
	defer e.Close()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	must(t, turnCreate(e, "s", "t1", "p/q/r/g.txt", "g\n"))
	execTurn(t, e, dir, "t2", script)
	turns := tree(t, dir)
	var res *RewindResult
	var rc *Call
	must(t, do(e, "op", func(c *Call) (err error) {
		rc = c
		res, err = e.Rewind(c, RewindOptions{Session: "s", Turn: "t1"})
		return err
	}))
	if got := tree(t, dir); !same(got, before) {
		t.Fatalf("after the rewind:\n got  %v\n want %v", got, before)
	}
	if len(res.Kept) > 0 {
		t.Fatalf("the rewind says made folders stay: %v", res.Kept)
	}
	// Its undo brings the turns back, p/q with the bits t2 gave it.
	must(t, do(e, "op", func(c *Call) error {
		_, err := e.Undo(c, UndoOptions{Seq: rc.Seq()})
		return err
	}))
	if got := tree(t, dir); !same(got, turns) {
		t.Fatalf("after the undo of the rewind:\n got  %v\n want %v", got, turns)
	}
}

// A folder the turns made that holds another session's file stays, with the bits it
// has, and the rewind says so.
func TestRewindSaysMadeFoldersStay(t *testing.T) {
	if rerunAsNobody(t) {
		return
	}
	e, dir := diskEngineWith(t, map[string]string{"keep.txt": "k\n"}, Options{NoSync: true})
	writableAgain(t, dir)
	defer e.Close()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	must(t, turnCreate(e, "s", "t1", "p/q/r/g.txt", "g\n"))
	must(t, turnCreate(e, "other", "", "p/q/r/o.txt", "o\n"))
	execTurn(t, e, dir, "t2", "chmod 500 p/q")
	var res *RewindResult
	must(t, do(e, "op", func(c *Call) (err error) {
		res, err = e.Rewind(c, RewindOptions{Session: "s", Turn: "t1"})
		return err
	}))
	want := map[string]string{"keep.txt": "0644 \"k\\n\"", "p/": "dir 0755", "p/q/": "dir 0500", "p/q/r/": "dir 0755", "p/q/r/o.txt": "0644 \"o\\n\""}
	if got := tree(t, dir); !same(got, want) {
		t.Fatalf("after the rewind:\n got  %v\n want %v", got, want)
	}
	kept := strings.Join(res.Kept, "\n")
	for _, d := range []string{"p/q/r/ stays (mode 0755)", "p/q/ stays (mode 0500)", "p/ stays (mode 0755)"} {
		if !strings.Contains(kept, d) {
			t.Fatalf("the rewind's kept folders %q do not say %q", kept, d)
		}
	}
}

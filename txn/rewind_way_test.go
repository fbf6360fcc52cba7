package txn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/matcher"
)

// A rewind refused by a change made outside vfsctl next to a call's lines names
// what that change did there, and doing just that lets the rewind through. A line
// inserted next to the call's line was named as "put line 2 back as call 2 left
// it", which it already was: doing so changed nothing, or made a second L2.
func TestRewindOutsideWayWorksForEachShape(t *testing.T) {
	const start = "l1\nl2\nl3\n"
	for _, c := range []struct {
		name, outside, way, done string
	}{
		{"changed", "l1\nL2 (user)\nl3\n", "put line 2 of a.txt back as call 2 left it.", "l1\nL2\nl3\n"},
		{"inserted after", "l1\nL2\nX\nl3\n", "remove line 3 of a.txt (added since call 2).", "l1\nL2\nl3\n"},
		{"inserted before", "l1\nX\nL2\nl3\n", "remove line 2 of a.txt (added since call 2).", "l1\nL2\nl3\n"},
		{"two inserted after", "l1\nL2\nX\nY\nl3\n", "remove lines 3-4 of a.txt (added since call 2).", "l1\nL2\nl3\n"},
		{"removed", "l1\nl3\n", "put back, after line 1 of a.txt, line 2 as call 2 left it.", "l1\nL2\nl3\n"},
		{"both sides", "l1\nX\nL2\nY\nl3\n", "remove line 2 of a.txt (added since call 2), and remove line 4 of a.txt (added since call 2).", "l1\nL2\nl3\n"},
		{"next changed", "l1\nL2\nY\n", "put line 3 of a.txt back as call 2 left it.", "l1\nL2\nl3\n"},
		{"previous changed", "Z\nL2\nl3\n", "put line 1 of a.txt back as call 2 left it.", "l1\nL2\nl3\n"},
		{"next replaced by two", "l1\nL2\nY\nZ\n", "put lines 3-4 of a.txt back as call 2 left it (line 3 then).", "l1\nL2\nl3\n"},
		{"next removed", "l1\nL2\n", "put back, after line 2 of a.txt, line 3 as call 2 left it.", "l1\nL2\nl3\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, dir := diskEngineWith(t, map[string]string{"a.txt": start}, Options{NoSync: true})
			defer e.Close()
			_, err := e.CheckpointOutside(LookOptions{})
			must(t, err)
			must(t, read(e, "S", "a.txt"))
			must(t, turnCall(e, "S", "t1", func(cl *Call) error {
				_, err := e.Edit(cl, "a.txt", []matcher.Edit{{OldText: "l2", NewText: "L2"}}, false)
				return err
			}))
			a := filepath.Join(dir, "a.txt")
			must(t, os.WriteFile(a, []byte(c.outside), 0o644))
			_, _, err = rewindWith(e, "S", "t1", RewindOptions{})
			if err == nil || !strings.Contains(err.Error(), "To rewind all the same, "+c.way) {
				t.Fatalf("rewind: %v\nwant it to say %q", err, c.way)
			}
			if got := contentOf(t, dir, "a.txt"); got != c.outside {
				t.Fatalf("a refused rewind changed a.txt: %q", got)
			}
			// Done as told (the oracle: the file written out by hand).
			must(t, os.WriteFile(a, []byte(c.done), 0o644))
			if _, _, err := rewindWith(e, "S", "t1", RewindOptions{}); err != nil {
				t.Fatalf("rewind once done as told: %v", err)
			}
			if got := contentOf(t, dir, "a.txt"); got != start {
				t.Errorf("a.txt after the rewind: %q, want %q", got, start)
			}
		})
	}
}

// For one call, a rewind of its turn and its undo agree on an outside change: where
// the undo refuses (the call's own lines changed) the rewind does too, and where
// both go through they write the same file, which keeps that change. Next to the
// call's lines they differ, as documented: the undo puts back its splice, located
// as an edit is, the rewind refuses (TestRewindOutsideWayWorksForEachShape).
func TestUndoAndRewindAgreeOnOutsideChanges(t *testing.T) {
	const start = "l1\nl2\nl3\nl4\nl5\n"
	for _, c := range []struct {
		name, outside, want string // want "": both refuse
		undoOnly            bool   // next to the call's line: only the undo goes through
	}{
		{"same line", "l1\nL2 (user)\nl3\nl4\nl5\n", "", false},
		{"put back by hand", start, "", false},
		{"two lines away", "l1\nL2\nl3\nX\nl4\nl5\n", "l1\nl2\nl3\nX\nl4\nl5\n", false},
		{"its text again, further up", "L2\nl1\nL2\nl3\nl4\nl5\n", "L2\nl1\nl2\nl3\nl4\nl5\n", false},
		{"last line changed", "l1\nL2\nl3\nl4\nL5\n", "l1\nl2\nl3\nl4\nL5\n", false},
		{"inserted next to it", "l1\nL2\nX\nl3\nl4\nl5\n", "l1\nl2\nX\nl3\nl4\nl5\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := map[string]string{}
			for _, how := range []string{"undo", "rewind"} {
				e, dir := diskEngineWith(t, map[string]string{"a.txt": start}, Options{NoSync: true})
				_, err := e.CheckpointOutside(LookOptions{})
				must(t, err)
				must(t, read(e, "S", "a.txt"))
				var seq uint64
				must(t, turnCall(e, "S", "t1", func(cl *Call) error {
					_, err := e.Edit(cl, "a.txt", []matcher.Edit{{OldText: "l2", NewText: "L2"}}, false)
					seq = cl.Seq()
					return err
				}))
				if seq == 0 {
					t.Fatal("the edit has no call number")
				}
				must(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte(c.outside), 0o644))
				if how == "undo" {
					_, _, err = undoWith(e, UndoOptions{Seq: seq})
				} else {
					_, _, err = rewindWith(e, "S", "t1", RewindOptions{})
				}
				if err != nil {
					got[how] = "refused"
				} else {
					got[how] = contentOf(t, dir, "a.txt")
				}
				e.Close()
			}
			want := map[string]string{"undo": c.want, "rewind": c.want}
			if c.want == "" {
				want = map[string]string{"undo": "refused", "rewind": "refused"}
			}
			if c.undoOnly {
				want["rewind"] = "refused"
			}
			for _, how := range []string{"undo", "rewind"} {
				if got[how] != want[how] {
					t.Errorf("%s: %q, want %q", how, got[how], want[how])
				}
			}
		})
	}
}

package txn

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/journal"
)

// Calls of another process commit at each point of a look: after a checkpoint's walk,
// after the walk of an exec's start, after the walk of its end, each before the look
// holds the journal. Whatever the walk saw of them, they are the calls' changes: no
// record of tool outside holds a file, the command (which changed nothing) holds none,
// and a last checkpoint finds nothing changed (the snapshot is the disk). Before, the
// walk's view of a file a call changed again meanwhile was journaled as outside, or as
// the command's, and a change a call made just before a command began was credited to
// the command.
func TestLookBesideCallsOfAnotherProcess(t *testing.T) {
	calls := map[string]func(t *testing.T, e *Engine){
		"edit": func(t *testing.T, e *Engine) {
			must(t, edit(e, "other", "f.txt", "v1\n", "v2\n"))
		},
		"create": func(t *testing.T, e *Engine) {
			must(t, do(e, "other", func(c *Call) error { _, err := e.Create(c, "n/c.txt", []byte("c\n")); return err }))
		},
		"delete": func(t *testing.T, e *Engine) {
			must(t, do(e, "other", func(c *Call) error {
				_, err := e.Apply(c, []Spec{{Path: "g.txt", Op: journal.OpDelete}}, false)
				return err
			}))
		},
		"delete what a call made": func(t *testing.T, e *Engine) {
			must(t, do(e, "other", func(c *Call) error {
				_, err := e.Apply(c, []Spec{{Path: "m/d.txt", Op: journal.OpDelete}}, false)
				return err
			}))
		},
	}
	for _, point := range []string{"checkpoint", "exec start", "exec end"} {
		for what, call := range calls {
			t.Run(point+"/"+what, func(t *testing.T) {
				e, dir := diskEngineWith(t, map[string]string{"f.txt": "v0\n", "g.txt": "g\n"}, Options{NoSync: true})
				defer e.Close()
				other := diskEngineOn(t, dir, Options{NoSync: true})
				defer other.Close()
				if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
					t.Fatal(err)
				}
				// Calls that no look has seen yet: the walk reads their results.
				must(t, edit(other, "other", "f.txt", "v0\n", "v1\n"))
				must(t, do(other, "other", func(c *Call) error { _, err := other.Create(c, "m/d.txt", []byte("d\n")); return err }))
				arm := func() {
					testHookWalked = func() {
						testHookWalked = nil
						call(t, other)
					}
				}
				defer func() { testHookWalked = nil }()
				var x *Exec
				var err error
				switch point {
				case "checkpoint":
					arm()
					if _, err = e.CheckpointOutside(LookOptions{}); err != nil {
						t.Fatal(err)
					}
				case "exec start":
					arm()
					if x, err = e.BeginExec("s", "t1", ExecArgs{Argv: []string{"true"}}, LookOptions{}); err != nil {
						t.Fatal(err)
					}
				case "exec end":
					if x, err = e.BeginExec("s", "t1", ExecArgs{Argv: []string{"true"}}, LookOptions{}); err != nil {
						t.Fatal(err)
					}
					arm()
				}
				if x != nil {
					if _, err := x.End("exit 0"); err != nil {
						t.Fatal(err)
					}
				}
				if testHookWalked != nil {
					t.Fatal("the call was not made: no walk ran")
				}
				last, err := e.CheckpointOutside(LookOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if last.Seq != 0 {
					t.Errorf("a last checkpoint recorded %s as call %d: the snapshot was not the disk", filesOf(&journal.Record{Files: last.Files}), last.Seq)
				}
				for _, r := range records(t, e) {
					if (r.Tool == ToolOutside || r.Tool == ToolExec) && len(r.Files) > 0 {
						t.Errorf("call %d (%s) holds %s, which only calls changed", r.Seq, r.Tool, filesOf(r))
					}
				}
			})
		}
	}
}

// records are every record of e's journal, oldest first.
func records(t *testing.T, e *Engine) []*journal.Record {
	t.Helper()
	var out []*journal.Record
	must(t, e.View(func(tx *journal.Tx) error {
		for seq := uint64(1); seq <= tx.Last(); seq++ {
			if r, err := tx.Get(seq); err == nil && r != nil {
				out = append(out, r)
			}
		}
		return nil
	}))
	return out
}

// filesOf names a record's files and what befell each.
func filesOf(r *journal.Record) string {
	s := ""
	for _, f := range r.Files {
		s += fmt.Sprintf("[%s %s %.8s -> %.8s] ", f.Path, f.Op, f.Before, f.After)
	}
	return s
}

// A call of another process that comes between an exec's outside look and its
// record waits for the record: the snapshot the command starts from is the workspace
// as the record finds it, and the call, committed after the record, is left out of
// the command's changes. Before, the call committed between the two and the command
// (which changed nothing) was credited with it.
func TestCallBetweenAnExecsLookAndItsRecord(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"f.txt": "v0\n"}, Options{NoSync: true})
	defer e.Close()
	other := diskEngineOn(t, dir, Options{NoSync: true, Wait: time.Minute})
	defer other.Close()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	testHookExecOutside = func() {
		testHookExecOutside = nil
		go func() { done <- edit(other, "other", "f.txt", "v0\n", "v1\n") }()
		// Until the call is done, or waits for the journal (its ticket in the queue).
		for {
			select {
			case err := <-done:
				done <- err
				return
			default:
			}
			if ents, _ := os.ReadDir(filepath.Join(dir, ".vfsctl", "turns")); len(ents) > 0 {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}
	defer func() { testHookExecOutside = nil }()
	x, err := e.BeginExec("s", "t1", ExecArgs{Argv: []string{"true"}}, LookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	must(t, <-done)
	look, err := x.End("exit 0")
	if err != nil {
		t.Fatal(err)
	}
	if len(look.Files) > 0 {
		t.Errorf("the command, which changed nothing, recorded %s", filesOf(&journal.Record{Files: look.Files}))
	}
}

// A checkpoint (another process's, as a runtime's at the start of a turn) while an
// exec runs records nothing and says why: what changed since the command began is
// the command's, recorded at its end. Before, the checkpoint journaled the running
// command's changes as outside, and the exec ended with no file.
func TestCheckpointWhileAnExecRunsLeavesItsChanges(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"a.txt": "a\n"}, Options{NoSync: true})
	defer e.Close()
	other := diskEngineOn(t, dir, Options{NoSync: true})
	defer other.Close()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	x, err := e.BeginExec("s", "t1", ExecArgs{Argv: []string{"sh", "-c", "echo cmd > a.txt; echo n > n.txt"}}, LookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("cmd\n"), 0o644) // the command
	os.WriteFile(filepath.Join(dir, "n.txt"), []byte("n\n"), 0o644)
	cp, err := other.CheckpointOutside(LookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("exec %d of session s (sh -c echo cmd > a.txt; echo n > n.txt) is running", x.Seq())
	if cp.Seq != 0 || len(cp.Files) != 0 || !slices.Equal(cp.Running, []uint64{x.Seq()}) || len(cp.Notes) != 1 || !strings.HasPrefix(cp.Notes[0], want) {
		t.Fatalf("the checkpoint while the exec ran: call %d, files %s, running %v, notes %q; want nothing recorded, saying %q", cp.Seq, filesOf(&journal.Record{Files: cp.Files}), cp.Running, cp.Notes, want)
	}
	look, err := x.End("exit 0")
	if err != nil {
		t.Fatal(err)
	}
	if got := filePaths(look.Files); got != "a.txt n.txt" {
		t.Errorf("the exec recorded %q, want a.txt n.txt", got)
	}
	if after, err := other.CheckpointOutside(LookOptions{}); err != nil || after.Seq != 0 {
		t.Errorf("a checkpoint after the exec: %+v %v, want nothing changed", after, err)
	}
}

// callerChild is the process of calls beside TestLooksBesideACallProcess: rounds of
// an edit of each of four files, a create, and every other round a delete of what it
// created; "done" at the end.
func callerChild(dir, n string) {
	e, err := crashEngine(dir)
	if err != nil {
		fmt.Println("err", err)
		os.Exit(3)
	}
	rounds, _ := strconv.Atoi(n)
	for k := 1; k <= rounds; k++ {
		for i := range 4 {
			if err := edit(e, "calls", fmt.Sprintf("f%d.txt", i), fmt.Sprintf("v%d\n", k-1), fmt.Sprintf("v%d\n", k)); err != nil {
				fmt.Println("err", err)
				os.Exit(3)
			}
		}
		p := fmt.Sprintf("n/c%d.txt", k)
		err := do(e, "calls", func(c *Call) error { _, err := e.Create(c, p, []byte("x")); return err })
		if err == nil && k%2 == 1 {
			err = do(e, "calls", func(c *Call) error {
				_, err := e.Apply(c, []Spec{{Path: p, Op: journal.OpDelete}}, false)
				return err
			})
		}
		if err != nil {
			fmt.Println("err", err)
			os.Exit(3)
		}
	}
	e.Close()
	fmt.Println("done")
}

// A process makes calls while this one looks at the workspace again and again, at
// random: checkpoints, and execs whose command writes one file of its own. Every
// change is a call's or a command's: no outside record holds a file, each exec
// holds exactly its command's file, and a checkpoint after the end finds nothing.
// 20 rounds of calls; 400 with VFSCTL_FULL=1; 3 with -short (under Wine, where each
// call opens the journal slowly, 20 rounds took 70 to 90 s).
func TestLooksBesideACallProcess(t *testing.T) {
	rounds := 20
	if full() {
		rounds = 400
	} else if testing.Short() {
		rounds = 3
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 35))
	files := map[string]string{}
	for i := range 4 {
		files[fmt.Sprintf("f%d.txt", i)] = "v0\n"
	}
	e, dir := diskEngineWith(t, files, Options{NoSync: true, Wait: time.Minute})
	defer e.Close()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	cmds, outs := startChildren(t, 1, "VFSCTL_CHILD=caller", "VFSCTL_DIR="+dir, fmt.Sprintf("VFSCTL_N=%d", rounds))
	ended, exited := make(chan string, 1), make(chan struct{})
	go func() {
		var last string
		for outs[0].Scan() {
			last = outs[0].Text()
		}
		cmds[0].Wait()
		close(exited)
		ended <- last
	}()
	// A test that stops early ends the call process before the workspace is removed:
	// Windows removes no file a process holds open.
	t.Cleanup(func() { cmds[0].Process.Kill(); <-exited })
	own := map[uint64]string{} // exec -> the file its command wrote
	looks := 0
	for running := true; running; looks++ {
		select {
		case last := <-ended:
			if last != "done" {
				t.Fatalf("the call process: %s", last)
			}
			running = false
		default:
		}
		if rng.IntN(2) == 0 {
			if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		x, err := e.BeginExec("s", "", ExecArgs{Argv: []string{"write"}}, LookOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p := fmt.Sprintf("own/x%d.txt", looks)
		os.MkdirAll(filepath.Join(dir, "own"), 0o755)
		must(t, os.WriteFile(filepath.Join(dir, p), []byte(p), 0o644))
		if _, err := x.End("exit 0"); err != nil {
			t.Fatal(err)
		}
		own[x.Seq()] = p
	}
	t.Logf("%d looks, %d of them execs", looks, len(own))
	if last, err := e.CheckpointOutside(LookOptions{}); err != nil || last.Seq != 0 {
		t.Errorf("a checkpoint after the end recorded %+v (%v)", last, err)
	}
	for _, r := range records(t, e) {
		switch {
		case r.Tool == ToolOutside && len(r.Files) > 0:
			t.Errorf("call %d (outside) holds %s, which calls and commands changed", r.Seq, filesOf(r))
		case r.Tool == ToolExec && filePaths(r.Files) != own[r.Seq]:
			t.Errorf("exec %d holds %s, want its command's %s only", r.Seq, filesOf(r), own[r.Seq])
		}
	}
}

package txn

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/vfs"
)

const editsPerProc = 10

// editorChild makes its own edits of the shared file, one call each, printing "ack SEQ".
func editorChild(dir, id string) {
	e, err := crashEngine(dir)
	if err != nil {
		fmt.Println("err", err)
		os.Exit(3)
	}
	for k := range editsPerProc {
		err := do(e, "proc-"+id, func(c *Call) error {
			_, err := e.Edit(c, "shared.txt", []matcher.Edit{{
				OldText: fmt.Sprintf("p%s-%d = old", id, k), NewText: fmt.Sprintf("p%s-%d = new", id, k)}}, false)
			if err == nil {
				defer func() { fmt.Printf("ack %d\n", c.Seq()) }()
			}
			return err
		})
		if err != nil {
			fmt.Println("err", err)
			os.Exit(3)
		}
	}
}

// startChildren starts n copies of the test binary as children with env (and
// VFSCTL_ID set to each one's number), reading their standard output line by line.
func startChildren(t *testing.T, n int, env ...string) ([]*exec.Cmd, []*bufio.Scanner) {
	t.Helper()
	var cmds []*exec.Cmd
	outs := make([]*bufio.Scanner, n)
	for p := range n {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(append(os.Environ(), env...), "VFSCTL_ID="+strconv.Itoa(p))
		out, _ := cmd.StdoutPipe()
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		outs[p] = bufio.NewScanner(out)
	}
	return cmds, outs
}

// TestFourProcesses: four processes edit distinct lines of one file at once; every
// acknowledged edit is in the file and committed in the journal.
func TestFourProcesses(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for p := range 4 {
		for k := range editsPerProc {
			fmt.Fprintf(&b, "p%d-%d = old\n", p, k)
		}
	}
	os.WriteFile(filepath.Join(dir, "shared.txt"), []byte(b.String()), 0o644)
	cmds, outs := startChildren(t, 4, "VFSCTL_CHILD=editor", "VFSCTL_DIR="+dir)
	acked := map[uint64]bool{}
	for p, sc := range outs {
		for sc.Scan() {
			l := sc.Text()
			if s, ok := strings.CutPrefix(l, "ack "); ok {
				n, _ := strconv.ParseUint(s, 10, 64)
				acked[n] = true
			} else {
				t.Errorf("process %d: %s", p, l)
			}
		}
		if err := cmds[p].Wait(); err != nil {
			t.Errorf("process %d: %v", p, err)
		}
	}
	if len(acked) != 4*editsPerProc {
		t.Fatalf("%d acknowledged edits, want %d", len(acked), 4*editsPerProc)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "shared.txt"))
	if n := strings.Count(string(got), "= new"); n != 4*editsPerProc {
		t.Fatalf("%d edits in the file, want %d:\n%s", n, 4*editsPerProc, got)
	}
	e, err := crashEngine(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Closed, so that nothing holds the workspace open: Windows removes no folder
	// that holds an open file.
	defer e.fs.Close()
	defer e.Close()
	e.View(func(tx *journal.Tx) error {
		for seq := range acked {
			r, _ := tx.Get(seq)
			if r == nil || r.State != journal.Committed {
				t.Errorf("acknowledged call %d is not committed in the journal", seq)
			}
		}
		return nil
	})
}

// ownerChild edits its own file n times, one call each (the journal opened per call,
// as `vfsctl call` does between lines), printing "ack SEQ" or "busy".
func ownerChild(dir, id, n string) {
	count, _ := strconv.Atoi(n)
	fs, err := vfs.Open(dir, vfs.Options{})
	if err != nil {
		fmt.Println("err", err)
		os.Exit(3)
	}
	e, err := Open(fs, Options{Holder: "owner " + id}) // the default wait
	if err != nil {
		fmt.Println("err", err)
		os.Exit(3)
	}
	file := "own" + id + ".txt"
	for k := range count {
		old, nw := "value = even", "value = odd"
		if k%2 == 1 {
			old, nw = nw, old
		}
		err := do(e, "proc-"+id, func(c *Call) error {
			_, err := e.Edit(c, file, []matcher.Edit{{OldText: old, NewText: nw}}, false)
			if err == nil {
				defer func() { fmt.Printf("ack %d\n", c.Seq()) }()
			}
			return err
		})
		switch {
		case errs.KindOf(err) == errs.Busy:
			fmt.Println("busy")
		case err != nil:
			fmt.Println("err", err)
			os.Exit(3)
		}
	}
}

// TestEightProcessesTakeTurns: eight processes, each editing its own file in a steady
// stream of calls with the default wait, share the journal in turns: none is refused
// busy, and every acknowledged edit is committed.
func TestEightProcessesTakeTurns(t *testing.T) {
	const procs = 8
	per := 300
	if !full() {
		per = 30
	}
	dir := t.TempDir()
	for p := range procs {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("own%d.txt", p)), []byte("value = even\n"), 0o644)
	}
	start := time.Now()
	cmds, outs := startChildren(t, procs, "VFSCTL_CHILD=owner", "VFSCTL_DIR="+dir, "VFSCTL_N="+strconv.Itoa(per))
	acked := map[uint64]bool{}
	busy := 0
	for p, sc := range outs {
		for sc.Scan() {
			l := sc.Text()
			if s, ok := strings.CutPrefix(l, "ack "); ok {
				n, _ := strconv.ParseUint(s, 10, 64)
				acked[n] = true
			} else if l == "busy" {
				busy++
			} else {
				t.Errorf("process %d: %s", p, l)
			}
		}
		if err := cmds[p].Wait(); err != nil {
			t.Errorf("process %d: %v", p, err)
		}
	}
	took := time.Since(start)
	t.Logf("%d processes x %d edits: %d acknowledged, %d busy, in %v (%.0f calls/s)", procs, per, len(acked), busy, took.Round(time.Millisecond), float64(len(acked))/took.Seconds())
	if busy > 0 || len(acked) != procs*per {
		t.Fatalf("%d busy, %d acknowledged of %d", busy, len(acked), procs*per)
	}
	for p := range procs {
		want := "value = even\n"
		if per%2 == 1 {
			want = "value = odd\n"
		}
		if got, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("own%d.txt", p))); string(got) != want {
			t.Errorf("own%d.txt is %q after %d edits", p, got, per)
		}
	}
	e, err := crashEngine(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Closed, so that nothing holds the workspace open: Windows removes no folder
	// that holds an open file.
	defer e.fs.Close()
	defer e.Close()
	e.View(func(tx *journal.Tx) error {
		for seq := range acked {
			if r, _ := tx.Get(seq); r == nil || r.State != journal.Committed {
				t.Errorf("acknowledged call %d is not committed in the journal", seq)
			}
		}
		return nil
	})
}

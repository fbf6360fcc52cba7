package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/journal"
)

// TestExecKilled kills `vfsctl exec` (the CLI in a process of its own) with SIGKILL at
// random points of its commands: before its record, before the command starts, while
// it runs, while vfsctl records it. What the test sees on disk once the command has
// stopped too is the oracle: after the next open (vfsctl log), the exec's record, if
// one was written, is committed or unknown, never pending, and its files take the tree
// from what it was before the exec to what is on disk, contents and bits; the next
// exec (and a checkpoint after the last) finds nothing changed outside vfsctl, and
// fsck is clean. 7 rounds; 90 with VFSCTL_FULL=1.
func TestExecKilled(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("finds the orphaned command through /proc")
	}
	rounds := 7
	if os.Getenv("VFSCTL_FULL") == "1" && !testing.Short() {
		rounds = 90
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	dir := t.TempDir()
	marks := t.TempDir() // outside the root: where the command says how far it got
	for i := range 200 {
		p := filepath.Join(dir, fmt.Sprintf("d%d", i%5), fmt.Sprintf("f%03d.txt", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(fmt.Sprintf("file %d\nline two\nline three\n", i)), 0o644)
	}
	if code, _, errb := runBounded(t, "", "checkpoint", "--root", dir); code != exitOK {
		t.Fatalf("checkpoint: %s", errb)
	}
	before := treeOf(t, dir)
	var last uint64
	took := 200 * time.Millisecond // an exec's length, measured by the first round
	phases := map[string]int{}
	for round := range rounds {
		script := crashScript(rng, round, marks)
		os.Remove(filepath.Join(marks, "started"))
		os.Remove(filepath.Join(marks, "ended"))
		token := fmt.Sprintf("VFSCTL_CRASH_TOKEN=%d-%d", seed, round)
		cmd := exec.Command(os.Args[0], "exec", "--root", dir, "--session", "agent", "--turn", fmt.Sprint("t", round), "--", "sh", "-c", script)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "VFSCTL_TEST_RUN=1", token)
		var errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &errb, &errb
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		killed := round > 0
		if killed {
			// Kill at a random time, or soon after the command started, or soon after
			// it ended (vfsctl is then recording it).
			switch round % 3 {
			case 0:
				time.Sleep(time.Duration(rng.Int64N(int64(took) * 6 / 5)))
			case 1:
				waitFor(filepath.Join(marks, "started"), exited)
				time.Sleep(time.Duration(rng.Int64N(int64(20 * time.Millisecond))))
			case 2:
				waitFor(filepath.Join(marks, "ended"), exited)
				time.Sleep(time.Duration(rng.Int64N(int64(5 * time.Millisecond))))
			}
			cmd.Process.Kill()
		}
		// How far the command got when vfsctl died (it goes on until stopCommand).
		_, errStarted := os.Stat(filepath.Join(marks, "started"))
		_, errEnded := os.Stat(filepath.Join(marks, "ended"))
		<-exited
		if !killed {
			took = time.Since(start)
			if cmd.ProcessState.ExitCode() != 0 {
				t.Fatalf("round 0 (not killed): %s", errb.String())
			}
		}
		stopCommand(t, token)
		after := treeOf(t, dir)

		// The next open: recovery records what the killed exec left.
		if code, _, e := runBounded(t, "", "log", "--root", dir); code != exitOK {
			t.Fatalf("round %d: log: %s", round, e)
		}
		recs := recordsAfter(t, dir, last)
		var x *journal.Record
		for _, r := range recs {
			if r.Tool != "exec" {
				t.Fatalf("round %d: call %d is a %s (%s): %+v", round, r.Seq, r.Tool, r.State, r.Files)
			}
			if x != nil {
				t.Fatalf("round %d: two exec records", round)
			}
			x = r
			last = r.Seq
		}
		phase := ""
		switch {
		case x == nil:
			phase = "before its record"
			if d := diffTrees(before, after); d != "" {
				t.Fatalf("round %d: no exec record, yet the tree changed: %s", round, d)
			}
		case x.State != journal.Committed && x.State != journal.Unknown:
			t.Fatalf("round %d: exec %d is %s after the next open", round, x.Seq, x.State)
		case x.State == journal.Committed:
			phase = "after it recorded"
		case errStarted != nil:
			phase = "before the command started"
		case errEnded != nil:
			phase = "while the command ran"
		default:
			phase = "while vfsctl recorded"
		}
		phases[phase]++
		if x != nil {
			if d := diffTrees(applyRecord(before, x), after); d != "" {
				t.Fatalf("round %d (killed %s): exec %d (%s) does not take the tree to what is on disk: %s\nits files: %+v\nits notes: %q",
					round, phase, x.Seq, x.State, d, x.Files, x.Notes)
			}
		}
		before = after
	}
	// Each round's exec looked first for changes outside vfsctl, and found none (every
	// record after a round's start is its exec); after the last, a checkpoint looks.
	code, out, e := runBounded(t, "", "checkpoint", "--root", dir)
	if code != exitOK || !strings.Contains(out, "Nothing changed outside vfsctl") {
		t.Fatalf("checkpoint after the last round: %s%s", out, e)
	}
	if code, out, e := runBounded(t, "", "fsck", "--root", dir); code != exitOK {
		t.Fatalf("fsck: %s%s", out, e)
	}
	t.Logf("an exec takes %s; kills by phase: %v", took, phases)
}

// waitFor waits until the file at p exists or the process has exited.
func waitFor(p string, exited <-chan struct{}) {
	for {
		if _, err := os.Stat(p); err == nil {
			return
		}
		select {
		case <-exited:
			return
		case <-time.After(time.Millisecond):
		}
	}
}

// crashScript is a command that changes the workspace in several steps: edits by sed,
// a created folder and files, deletions, a chmod. It marks its start and its end in
// marks, outside the root.
func crashScript(rng *rand.Rand, round int, marks string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "echo > %s/started\n", marks)
	for range 3 {
		n := rng.IntN(200)
		fmt.Fprintf(&b, "sed -i 's/line two/line two, round %d/' d%d/f%03d.txt 2>/dev/null\n", round, n%5, n)
	}
	fmt.Fprintf(&b, "mkdir -p new%d && for i in 1 2 3 4 5 6 7 8; do echo $i > new%d/n$i.txt; done\n", round, round)
	fmt.Fprintf(&b, "sleep 0.02\n")
	n := rng.IntN(200)
	fmt.Fprintf(&b, "rm -f d%d/f%03d.txt\n", n%5, n)
	n = rng.IntN(200)
	fmt.Fprintf(&b, "chmod 0600 d%d/f%03d.txt 2>/dev/null\n", n%5, n)
	fmt.Fprintf(&b, "echo > %s/ended\n", marks)
	return b.String()
}

// stopCommand kills what is left of the killed vfsctl's command (its process group
// outlives it) and waits until it is gone: every process whose environment carries
// token.
func stopCommand(t *testing.T, token string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
	defer cancel()
	for ctx.Err() == nil {
		pids := processesWith(token)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			killNow(pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("the command of %s did not stop", token)
}

// processesWith lists the live processes whose environment holds token.
func processesWith(token string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, []byte(token)) {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && bytes.Contains(st, []byte(") Z ")) {
			continue // a zombie: gone, but for its parent's wait
		}
		pids = append(pids, pid)
	}
	return pids
}

// node is a regular file as the test sees it: its content's hash and its bits.
type node struct {
	hash string
	mode fs.FileMode
}

// treeOf reads every regular file of the workspace, .vfsctl left out.
func treeOf(t *testing.T, dir string) map[string]node {
	t.Helper()
	tree := map[string]node{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() && rel == ".vfsctl" {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		tree[filepath.ToSlash(rel)] = node{journal.Hash(data), info.Mode().Perm()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// applyRecord is tree with r's files' changes made.
func applyRecord(tree map[string]node, r *journal.Record) map[string]node {
	out := map[string]node{}
	for p, n := range tree {
		out[p] = n
	}
	for _, f := range r.Files {
		switch {
		case f.Op == journal.OpDelete:
			delete(out, f.Path)
		case f.Op.Changes():
			out[f.Path] = node{f.After, fs.FileMode(f.AfterMode).Perm()}
		}
	}
	return out
}

// diffTrees says how want and got differ, "" when they do not.
func diffTrees(want, got map[string]node) string {
	var d []string
	for p, w := range want {
		if g, ok := got[p]; !ok {
			d = append(d, p+" is missing")
		} else if g != w {
			d = append(d, fmt.Sprintf("%s is %v, want %v", p, g, w))
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			d = append(d, p+" is there")
		}
	}
	return strings.Join(d, "; ")
}

// recordsAfter reads, straight from the journal, the records after seq.
func recordsAfter(t *testing.T, dir string, seq uint64) []*journal.Record {
	t.Helper()
	j := journal.New(filepath.Join(dir, ".vfsctl", "journal.db"), journal.Options{})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	defer j.Release()
	var recs []*journal.Record
	err := j.View(func(tx *journal.Tx) error {
		return tx.Each(journal.Query{}, func(r *journal.Record) bool {
			if r.Seq > seq {
				recs = append(recs, r)
			}
			return true
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

package txn

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/vfs"
)

// The crash workload: four files, each "solo = N" (its own edits) and "pair = M" (f0
// and f1 change their pair together, in one apply_changes), padded so that writes take
// a while. Any state on disk must be a whole file with numbers, and f0 and f1 must
// agree on their pair.
const crashFiles = 4

func crashContent(solo, pair int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "solo = %d\npair = %d\n", solo, pair)
	for i := range 3000 {
		fmt.Fprintf(&b, "filler line %04d: the quick brown fox jumps over the lazy dog\n", i)
	}
	return b.String()
}

var crashRe = regexp.MustCompile(`^solo = (\d+)\npair = (\d+)\n`)

func crashState(data []byte) (solo, pair int, ok bool) {
	m := crashRe.FindSubmatch(data)
	if m == nil {
		return 0, 0, false
	}
	solo, _ = strconv.Atoi(string(m[1]))
	pair, _ = strconv.Atoi(string(m[2]))
	return solo, pair, string(data) == crashContent(solo, pair)
}

func crashEngine(dir string) (*Engine, error) {
	fs, err := vfs.Open(dir, vfs.Options{})
	if err != nil {
		return nil, err
	}
	return Open(fs, Options{Wait: 30 * time.Second, Holder: "crash test", Durability: Durability(os.Getenv("VFSCTL_DURABILITY"))})
}

// crashChild commits edits in a tight loop, every fifth call an undo of the newest
// change, and prints "ack SEQ" after each success.
func crashChild(dir string) {
	e, err := crashEngine(dir)
	if err != nil {
		fmt.Println("err", err)
		os.Exit(3)
	}
	for i := 0; ; i++ {
		f0, _ := os.ReadFile(filepath.Join(dir, "f0.txt"))
		_, pair, _ := crashState(f0)
		var specs []Spec
		if i%3 == 2 {
			for _, p := range []string{"f0.txt", "f1.txt"} {
				specs = append(specs, Spec{Path: p, Op: journal.OpEdit, Edits: []matcher.Edit{{
					OldText: fmt.Sprintf("pair = %d\n", pair), NewText: fmt.Sprintf("pair = %d\n", pair+1)}}})
			}
		} else {
			p := fmt.Sprintf("f%d.txt", i%crashFiles)
			data, _ := os.ReadFile(filepath.Join(dir, p))
			solo, _, _ := crashState(data)
			specs = []Spec{{Path: p, Op: journal.OpEdit, Edits: []matcher.Edit{{
				OldText: fmt.Sprintf("solo = %d\n", solo), NewText: fmt.Sprintf("solo = %d\n", solo+1)}}}}
		}
		tool := "apply_changes"
		if i%5 == 4 {
			tool = "undo" // every fifth call reverts the newest change
		}
		c, err := e.Begin("crash", tool, nil)
		if err != nil {
			fmt.Println("err", err)
			os.Exit(3)
		}
		if tool == "undo" {
			_, err = e.Undo(c, UndoOptions{Session: "crash"})
		} else {
			_, err = e.Apply(c, specs, false)
		}
		c.Finish(err)
		if err != nil {
			fmt.Println("err", err)
			os.Exit(3)
		}
		fmt.Printf("ack %d\n", c.Seq())
	}
}

// TestCrashLoop kills a committing child with SIGKILL at random moments, then reopens
// the workspace and checks that recovery left every file whole, multi-file calls
// atomic, every acknowledged call committed, the journal in agreement with the files,
// and bbolt consistent.
func TestCrashLoop(t *testing.T) {
	rounds := 200
	if !full() {
		rounds = 20
	}
	crashLoop(t, rounds)
}

func crashLoop(t *testing.T, rounds int) {
	if n, err := strconv.Atoi(os.Getenv("VFSCTL_CRASH_ROUNDS")); err == nil {
		rounds = n
	}
	dir := t.TempDir()
	for i := range crashFiles {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), []byte(crashContent(0, 0)), 0o644)
	}
	// Someone's file that only starts like vfsctl's temp files: recovery's cleanup of
	// temp files must leave it.
	const theirs = vfs.TempPrefix + "notes"
	os.WriteFile(filepath.Join(dir, theirs), []byte("mine\n"), 0o644)
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	acked := map[uint64]bool{}
	settled := map[uint64]string{} // calls recovery settled: "forward" or "back"
	restored := 0
	for round := range rounds {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "VFSCTL_CHILD=crash", "VFSCTL_DIR="+dir)
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1000)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		// Let it get going (two acks, which also time one call), then kill it at a
		// random moment within the next two calls.
		var ackAt [2]time.Time
		for k := range 2 {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("round %d: the child stopped", round)
				}
				record(t, l, acked)
				ackAt[k] = time.Now()
			case <-time.After(20 * time.Second):
				t.Fatalf("round %d: the child made no progress", round)
			}
		}
		call := ackAt[1].Sub(ackAt[0])
		time.Sleep(time.Duration(rng.Int63n(int64(2*call) + 1)))
		cmd.Process.Signal(syscall.SIGKILL)
		for l := range lines {
			record(t, l, acked)
		}
		cmd.Wait()

		e, err := crashEngine(dir)
		if err != nil {
			t.Fatal(err)
		}
		var all []*journal.Record
		err = e.View(func(tx *journal.Tx) error { // opening runs recovery
			all, err = tx.Find(journal.Query{})
			return err
		})
		if err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		state := map[uint64]journal.State{}
		touches, undos := map[string]int{}, map[string]int{}
		for _, r := range all {
			state[r.Seq] = r.State
			if r.State == journal.Pending {
				t.Fatalf("round %d: call %d still pending after recovery", round, r.Seq)
			}
			if _, seen := settled[r.Seq]; !seen && len(r.Notes) > 0 {
				settled[r.Seq] = "back"
				for _, n := range r.Notes {
					if strings.Contains(n, "rolled forward") {
						settled[r.Seq] = "forward"
					}
					if strings.Contains(n, "restored") {
						restored++
					}
				}
			}
			if r.State == journal.Committed {
				for _, f := range r.Files {
					touches[f.Path]++
					if r.Undo != 0 {
						undos[f.Path]++
					}
				}
			}
		}
		for seq := range acked {
			if state[seq] != journal.Committed {
				t.Fatalf("round %d: acknowledged call %d is %q in the journal", round, seq, state[seq])
			}
		}
		var pairs [crashFiles]int
		for i := range crashFiles {
			p := fmt.Sprintf("f%d.txt", i)
			data, err := os.ReadFile(filepath.Join(dir, p))
			if err != nil {
				t.Fatalf("round %d: %s: %v", round, p, err)
			}
			solo, pair, ok := crashState(data)
			if !ok {
				t.Fatalf("round %d: %s is torn (%d bytes)", round, p, len(data))
			}
			pairs[i] = pair
			// Each committed edit adds one to the file's counters, each committed undo
			// takes one away.
			if touches[p]-2*undos[p] != solo+pair {
				t.Fatalf("round %d: %s shows %d edits (solo %d + pair %d) but the journal commits %d changes, %d of them undos", round, p, solo+pair, solo, pair, touches[p], undos[p])
			}
		}
		if pairs[0] != pairs[1] || pairs[2] != 0 || pairs[3] != 0 {
			t.Fatalf("round %d: multi-file call not atomic: pairs %v", round, pairs)
		}
		if err := e.j.Acquire(); err != nil {
			t.Fatal(err)
		}
		cerr := e.j.Check()
		e.j.Release()
		if cerr != nil {
			t.Fatalf("round %d: bbolt check: %v", round, cerr)
		}
		if tmp, _ := filepath.Glob(filepath.Join(dir, vfs.TempPrefix+"*")); len(tmp) != 1 || filepath.Base(tmp[0]) != theirs {
			t.Fatalf("round %d: temp files left: %v (want only %s)", round, tmp, theirs)
		}
		if b, err := os.ReadFile(filepath.Join(dir, theirs)); err != nil || string(b) != "mine\n" {
			t.Fatalf("round %d: %s, someone else's file, is %q (%v) after recovery", round, theirs, b, err)
		}
		// Closed, so that nothing holds the workspace open: Windows removes no folder
		// that holds an open file.
		if err := e.Close(); err != nil {
			t.Fatalf("round %d: close: %v", round, err)
		}
		e.fs.Close()
	}
	forward := 0
	for _, how := range settled {
		if how == "forward" {
			forward++
		}
	}
	t.Logf("%d rounds, %d calls acknowledged; recovery settled %d calls: %d rolled forward, %d rolled back (%d files restored)",
		rounds, len(acked), len(settled), forward, len(settled)-forward, restored)
}

func record(t *testing.T, line string, acked map[uint64]bool) {
	t.Helper()
	if seq, ok := strings.CutPrefix(line, "ack "); ok {
		n, _ := strconv.ParseUint(seq, 10, 64)
		acked[n] = true
		return
	}
	if strings.HasPrefix(line, "err") {
		t.Fatalf("child: %s", line)
	}
}

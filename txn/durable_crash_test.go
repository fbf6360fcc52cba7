package txn

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/vfs"
)

// The journal-durable mode under power loss. An engine runs over a crash-recording
// filesystem (every write, sync, rename and folder sync of the working files is
// recorded) and makes a random sequence of acknowledged calls: edits, two-file edits,
// creates (some in new folders), writes, deletes and undos, with a checkpoint every few
// calls. The journal is a bbolt file outside that filesystem; its own durability is
// bbolt's, so the test copies it after each of its transactions the protocol depends
// on (a pending record, a checkpoint) and marks the point in the record.
//
// Then, at random crash points, every state CrashStates lists (unsynced data lost,
// files torn or empty, renames and creates undone) is written to a folder with the
// journal as it was at that point; an engine opened there recovers, and the files
// must be those of the calls acknowledged by then, or of those and the one call in
// flight (its record was durable, so it may roll forward), and nothing else. The
// oracle is the model the test keeps from the calls it made, not the journal.

type durableRun struct {
	rec    *testutil.Recorder
	jdir   string              // the journal's folder: a journal is used only in the folder that made it
	snaps  [][]journalFile     // the journal's files after each durable transaction
	models []map[string]string // models[k]: the workspace after k acknowledged calls
	calls  []string            // what call k did, for failure messages
	acks   map[int]int         // crash point just after call k's acknowledgement -> k
}

type journalFile struct {
	name string
	data []byte
}

func durableSeed() map[string]string {
	m := map[string]string{}
	for _, p := range []string{"a.txt", "b.txt", "sub/c.txt"} {
		m[p] = durableContent(p, 0)
	}
	m["keep.txt"] = "never touched\n"
	return m
}

func durableContent(p string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nv = %d\n", p, n)
	for i := range 40 {
		fmt.Fprintf(&b, "line %02d of %s\n", i, p)
	}
	return b.String()
}

// runDurable makes the calls and records everything the checks need.
func runDurable(t *testing.T, seed int64, calls, every int) *durableRun {
	rng := rand.New(rand.NewSource(seed))
	mem := afero.NewMemMapFs()
	model := durableSeed()
	for p, c := range model {
		afero.WriteFile(mem, p, []byte(c), 0o644)
	}
	cfs, err := testutil.NewCrashFs(mem)
	if err != nil {
		t.Fatal(err)
	}
	jdir := t.TempDir()
	run := &durableRun{rec: cfs.Rec, jdir: jdir, acks: map[int]int{}}
	run.models = append(run.models, maps.Clone(model))
	testHookJournaled = func(string) {
		run.snaps = append(run.snaps, run.takeJournal())
		cfs.Rec.Mark("journal " + strconv.Itoa(len(run.snaps)-1))
	}
	t.Cleanup(func() { testHookJournaled = nil })
	e, err := Open(vfs.New(cfs, vfs.Options{}), Options{JournalPath: filepath.Join(jdir, "journal.db"), NoSync: true,
		Durability: DurableJournal, CheckpointEvery: every, CheckpointInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	counter := map[string]int{}
	counters := []map[string]int{maps.Clone(counter)} // counters[k]: after k calls
	created, undone := 0, true
	for k := 0; k < calls; k++ {
		var paths []string
		for p := range model {
			if p != "keep.txt" {
				paths = append(paths, p)
			}
		}
		slices.Sort(paths)
		next := maps.Clone(model)
		var specs []Spec
		var what string
		editOf := func(p string) Spec {
			n := counter[p]
			counter[p] = n + 1
			next[p] = strings.Replace(model[p], fmt.Sprintf("v = %d\n", n), fmt.Sprintf("v = %d\n", n+1), 1)
			return Spec{Path: p, Op: journal.OpEdit, Edits: []matcher.Edit{{OldText: fmt.Sprintf("v = %d\n", n), NewText: fmt.Sprintf("v = %d\n", n+1)}}}
		}
		undo := false
		switch r := rng.Intn(12); {
		case r >= 10 && !undone:
			// Reverts the previous call (never an undo): the state before it.
			undo, what = true, "undo of "+run.calls[k-1]
			next = maps.Clone(run.models[k-1])
			counter = maps.Clone(counters[k-1])
		case r < 5 || len(paths) < 2:
			p := paths[rng.Intn(len(paths))]
			specs, what = []Spec{editOf(p)}, "edit "+p
		case r < 6:
			i := rng.Intn(len(paths) - 1)
			specs, what = []Spec{editOf(paths[i]), editOf(paths[i+1])}, "edit "+paths[i]+" and "+paths[i+1]
		case r < 8:
			created++
			p := fmt.Sprintf("new%d.txt", created)
			if rng.Intn(2) == 0 {
				p = fmt.Sprintf("d%d/e/new%d.txt", created, created)
			}
			counter[p] = 0
			next[p] = durableContent(p, 0)
			specs, what = []Spec{{Path: p, Op: journal.OpCreate, Content: []byte(next[p])}}, "create "+p
		case r < 9:
			p := paths[rng.Intn(len(paths))]
			if err := read(e, "s", p); err != nil {
				t.Fatal(err)
			}
			counter[p] += 10
			next[p] = durableContent(p, counter[p]) + "written whole\n"
			specs, what = []Spec{{Path: p, Op: journal.OpWrite, Content: []byte(next[p])}}, "write "+p
		default:
			p := paths[rng.Intn(len(paths))]
			delete(next, p)
			specs, what = []Spec{{Path: p, Op: journal.OpDelete}}, "delete "+p
		}
		err := do(e, "s", func(c *Call) error {
			if undo {
				_, err := e.Undo(c, UndoOptions{Session: "s"})
				return err
			}
			_, err := e.Apply(c, specs, false)
			return err
		})
		undone = undo
		if err != nil {
			t.Fatalf("call %d (%s): %v", k+1, what, err)
		}
		model = next
		counters = append(counters, maps.Clone(counter))
		run.models = append(run.models, maps.Clone(model))
		run.calls = append(run.calls, what)
		cfs.Rec.Mark("ack " + strconv.Itoa(k+1))
		run.acks[cfs.Rec.Len()] = k + 1
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return run
}

// at returns, for crash point p, the journal snapshot in force and how many calls
// were acknowledged.
func (run *durableRun) at(p int) (snap int, acked int) {
	snap = -1
	for i, st := range run.rec.Steps()[:p] {
		if st.Op != testutil.OpMark {
			continue
		}
		if n, ok := strings.CutPrefix(st.Label, "journal "); ok {
			snap, _ = strconv.Atoi(n)
		}
		if k, ok := run.acks[i+1]; ok {
			acked = k
		}
	}
	return snap, acked
}

// snap is journal snapshot i's files; none for -1 (no journal yet).
func (run *durableRun) snap(i int) []journalFile {
	if i < 0 {
		return nil
	}
	return run.snaps[i]
}

// putJournal makes the journal's folder hold files, and only those.
func (run *durableRun) putJournal(files []journalFile) {
	for _, name := range []string{"journal.db", "marks", "temps"} {
		os.Remove(filepath.Join(run.jdir, name))
	}
	for _, f := range files {
		os.WriteFile(filepath.Join(run.jdir, f.name), f.data, 0o644)
	}
}

// takeJournal copies the journal's files as they are.
func (run *durableRun) takeJournal() []journalFile {
	var files []journalFile
	for _, name := range []string{"journal.db", "marks", "temps"} {
		if data, err := os.ReadFile(filepath.Join(run.jdir, name)); err == nil {
			files = append(files, journalFile{name, data})
		}
	}
	return files
}

// checkState materialises one crash state with its journal (described by jname, for
// failures), recovers it after a restart, and compares the files with the models of
// acked and acked+1 calls.
func (run *durableRun) checkState(t *testing.T, point int, st testutil.State, jfiles []journalFile, jname string, acked int) (temps int) {
	ws := t.TempDir()
	jdir := run.jdir
	if err := st.Materialize(ws); err != nil {
		t.Fatal(err)
	}
	run.putJournal(jfiles)
	fsys, err := vfs.Open(ws, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() }) // a folder held open cannot be removed on Windows
	e, err := afterRestart(func() (*Engine, error) {
		return Open(fsys, Options{JournalPath: filepath.Join(jdir, "journal.db"), NoSync: true, Wait: 10 * time.Second})
	})
	if err != nil {
		t.Fatal(err)
	}
	var pending []uint64
	err = e.View(func(tx *journal.Tx) error { pending = tx.Pending(); return nil }) // opening recovers
	if err != nil {
		t.Fatalf("point %d (%s): recovery: %v", point, st.Why, err)
	}
	if len(pending) > 0 {
		t.Fatalf("point %d (%s): calls %v still pending after recovery", point, st.Why, pending)
	}
	got := map[string]string{}
	filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(ws, p)
		if strings.HasPrefix(d.Name(), vfs.TempPrefix) {
			temps++
			return nil
		}
		data, _ := os.ReadFile(p)
		got[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if maps.Equal(got, run.models[acked]) {
		return temps
	}
	if acked+1 < len(run.models) && maps.Equal(got, run.models[acked+1]) {
		return temps
	}
	want := run.models[acked]
	var diff []string
	for p := range got {
		if w, ok := want[p]; !ok {
			diff = append(diff, p+": there, not expected")
		} else if w != got[p] {
			diff = append(diff, fmt.Sprintf("%s: %d bytes %q..., want %d bytes", p, len(got[p]), head(got[p]), len(w)))
		}
	}
	for p := range want {
		if _, ok := got[p]; !ok {
			diff = append(diff, p+": missing")
		}
	}
	slices.Sort(diff)
	next := "none"
	if acked < len(run.calls) {
		next = run.calls[acked]
	}
	t.Fatalf("point %d, %d calls acknowledged (in flight: %s), %s, state %q:\n%s",
		point, acked, next, jname, st.Why, strings.Join(diff, "\n"))
	return temps
}

func head(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 30 {
		s = s[:30]
	}
	return s
}

// crashStates is rec.CrashStates(p), or false where a point has more states than it
// enumerates (it panics then).
func crashStates(rec *testutil.Recorder, p int) (states []testutil.State, ok bool) {
	defer func() {
		if recover() != nil {
			states, ok = nil, false
		}
	}()
	return rec.CrashStates(p), true
}

// maxStatesPerPoint bounds the states checked at one crash point.
const maxStatesPerPoint = 300

// TestDurableJournalCrash runs the journal-durable mode over the crash-recording
// filesystem and checks recovery from every state a power loss at random points
// could leave.
func TestDurableJournalCrash(t *testing.T) {
	seeds, points := 2, 20
	if !full() {
		seeds, points = 1, 10
	}
	if n, err := strconv.Atoi(os.Getenv("VFSCTL_DURABLE_SEEDS")); err == nil {
		seeds = n
	}
	base := time.Now().UnixNano()
	total, checked, temps, sampled, tooMany := 0, 0, 0, 0, 0
	for s := range seeds {
		seed := base + int64(s)
		run := runDurable(t, seed, 24, 3+s%3)
		rng := rand.New(rand.NewSource(seed))
		n := run.rec.Len()
		for drawn := 0; drawn < points; {
			p := rng.Intn(n + 1)
			snap, acked := run.at(p)
			states, ok := crashStates(run.rec, p)
			if !ok {
				tooMany++ // beyond what CrashStates enumerates; another point is drawn
				continue
			}
			if len(states) > maxStatesPerPoint {
				// A point with many unsynced changes: a random sample of its states,
				// so that a run stays within minutes (about 40 ms a state).
				rng.Shuffle(len(states), func(i, j int) { states[i], states[j] = states[j], states[i] })
				sampled += len(states) - maxStatesPerPoint
				states = states[:maxStatesPerPoint]
			}
			for _, st := range states {
				temps += run.checkState(t, p, st, run.snap(snap), fmt.Sprintf("journal snapshot %d", snap), acked)
			}
			checked += len(states)
			total++
			drawn++
		}
		kinds := map[string]int{}
		for _, c := range run.calls {
			kinds[strings.Fields(c)[0]]++
		}
		t.Logf("seed %d: calls %v, %d steps, %d journal snapshots", seed, kinds, n, len(run.snaps))
	}
	// Temp files a crash leaves between staging and the journal transaction that
	// notes them are not in the journal's copy; they are counted, not compared.
	t.Logf("%d crash points, %d crash states recovered and checked (%d more left out of points with over %d; %d points past MaxCrashStates redrawn); %d temp files of unjournaled staging left",
		total, checked, sampled, maxStatesPerPoint, tooMany, temps)
}

// TestDurableJournalKillThenPowerLoss: a journal-durable process killed at a random
// point of the same workload (nothing lost: the page cache keeps every write), the
// next process's recovery in the same boot, which takes the dead process's calls off
// the unsynced list, and then a power loss. Every state that power loss could leave,
// recovered after the restart, must hold the calls acknowledged before the kill, or
// those and the one in flight: same-boot recovery rebuilds nothing, so what it takes
// off the list it must have synced.
func TestDurableJournalKillThenPowerLoss(t *testing.T) {
	seeds, points := 2, 40 // a kill and its checks take milliseconds; the workload, seconds
	if !full() {
		seeds, points = 1, 10
	}
	if n, err := strconv.Atoi(os.Getenv("VFSCTL_DURABLE_SEEDS")); err == nil {
		seeds = n
	}
	base := time.Now().UnixNano()
	kills, checked := 0, 0
	for s := range seeds {
		seed := base + int64(s)
		run := runDurable(t, seed, 24, 3+s%3)
		rng := rand.New(rand.NewSource(seed))
		n := run.rec.Len()
		for range points {
			p := rng.Intn(n + 1)
			snap, acked := run.at(p)
			fork := run.rec.Fork(p)
			run.putJournal(run.snap(snap))
			b, err := Open(vfs.New(fork, vfs.Options{}), Options{JournalPath: filepath.Join(run.jdir, "journal.db"), NoSync: true,
				Durability: DurableJournal, CheckpointEvery: 1000, CheckpointInterval: -1})
			if err != nil {
				t.Fatalf("seed %d, kill at %d: %v", seed, p, err)
			}
			// One call, so that what recovery deferred (the calls taken off the list)
			// reaches the journal. b is never closed: its close would checkpoint,
			// syncing whatever recovery left unsynced.
			if err := read(b, "s2", "keep.txt"); err != nil {
				t.Fatalf("seed %d, kill at %d: a read after recovery: %v", seed, p, err)
			}
			after := run.takeJournal()
			states, ok := crashStates(fork.Rec, fork.Rec.Len())
			if !ok {
				t.Fatalf("seed %d, kill at %d: more states after recovery than CrashStates lists", seed, p)
			}
			if len(states) > maxStatesPerPoint {
				rng.Shuffle(len(states), func(i, j int) { states[i], states[j] = states[j], states[i] })
				states = states[:maxStatesPerPoint]
			}
			for _, st := range states {
				run.checkState(t, p, st, after, fmt.Sprintf("killed, recovered in the same boot from journal snapshot %d, then a power loss", snap), acked)
			}
			checked += len(states)
			kills++
		}
	}
	t.Logf("%d kills recovered in the same boot, then %d states of a power loss recovered and checked", kills, checked)
}

// TestCrashLoopJournal is the SIGKILL crash loop in the journal-durable mode: a
// process killed mid-call loses no page cache, so recovery finds the files it wrote
// (or not yet wrote) and must settle every call as the file-durable mode does, and
// sync what the dead process had not.
func TestCrashLoopJournal(t *testing.T) {
	t.Setenv("VFSCTL_DURABILITY", string(DurableJournal))
	rounds := 60
	if !full() {
		rounds = 10
	}
	crashLoop(t, rounds)
}

// TestFaultInjectionJournal fails the Nth write, sync, rename or mkdir of the
// four-file transaction in the journal-durable mode, checkpointing after every call.
// A failed write, rename or mkdir fails the call as in the file-durable mode: io_error,
// every file as before, the record failed. The call makes no sync: a failed sync is
// its checkpoint's, after the call; the call stands, its files stay listed as
// unsynced, and the next checkpoint syncs them and takes them off.
func TestFaultInjectionJournal(t *testing.T) {
	faultDurability = DurableJournal
	defer func() { faultDurability = "" }()
	counts, ops := cleanRunOps(t)
	runs := 0
	for _, op := range ops {
		for n := 1; n <= counts[op]; n++ {
			cause := error(syscall.ENOSPC)
			if n%2 == 0 {
				cause = syscall.EIO
			}
			what := fmt.Sprintf("%s #%d fails with %v", op, n, cause)
			r := newFaultRig(t)
			seen := 0
			r.ffs.SetHook(func(o testutil.Op, name string) error {
				if o == op {
					seen++
					if seen == n {
						return cause
					}
				}
				return nil
			})
			seq, err := r.apply()
			r.ffs.SetHook(nil)
			if op == testutil.OpSync {
				if err != nil {
					t.Errorf("%s: the call failed (%v), though only its checkpoint syncs", what, err)
				}
				if rec := r.record(t, seq); rec.State != journal.Committed {
					t.Errorf("%s: journal says %s", what, rec.State)
				}
				if l := r.lazy(t); !slices.Contains(l, seq) {
					t.Errorf("%s: call %d not listed as unsynced after its checkpoint failed (listed: %v)", what, seq, l)
				}
				if err := r.e.Checkpoint(); err != nil {
					t.Errorf("%s: the next checkpoint: %v", what, err)
				}
				if l := r.lazy(t); len(l) > 0 {
					t.Errorf("%s: still listed as unsynced after a checkpoint: %v", what, l)
				}
				runs++
				continue
			}
			if errs.KindOf(err) != errs.IOError || !errors.Is(err, cause) {
				t.Errorf("%s: got %v (kind %s), want io_error", what, err, errs.KindOf(err))
			}
			r.unchanged(t, what)
			if rec := r.record(t, seq); rec.State != journal.Failed || rec.Kind != string(errs.IOError) {
				t.Errorf("%s: journal says %s %s", what, rec.State, rec.Kind)
			}
			runs++
		}
	}
	if counts[testutil.OpSync] == 0 {
		t.Fatal("a clean run's checkpoint makes no sync")
	}
	t.Logf("%d faults injected (writes %d, syncs %d, renames %d, mkdirs %d)", runs,
		counts[testutil.OpWrite], counts[testutil.OpSync], counts[testutil.OpRename], counts[testutil.OpMkdir])
}

func (r *faultRig) lazy(t *testing.T) []uint64 {
	t.Helper()
	var l []uint64
	if err := r.e.View(func(tx *journal.Tx) error { l = tx.Lazy(); return nil }); err != nil {
		t.Fatal(err)
	}
	return l
}

// afterRestart opens an engine as a process after the machine restarted would: a
// power loss is a restart, and recovery repairs files only for calls listed in an
// earlier boot than its own (sameBoot).
func afterRestart(open func() (*Engine, error)) (*Engine, error) {
	was := bootID
	bootID = func() string { return "a later boot" }
	defer func() { bootID = was }()
	return open()
}

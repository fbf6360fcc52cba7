package txn

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/internal/winetest"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/vfs"
	"runtime"
)

// entriesRig is a workspace on disk, its journal beside it, and an exec recorded in
// it (session s, turn t1) whose command made, removed or changed folders and
// symlinks; and how the call to kill takes it back: "undo" (of the exec), "rewind"
// (of the turn), or "redo" (of an undo of the exec, made cleanly).
type entriesRig struct {
	dir, journal string
	exec         uint64
	how          string
	target       uint64 // the call undone (undo), redone (redo)
	last         uint64 // the last call before the one killed
	// fresh, when set, makes each copy anew rather than copying the workspace: a
	// copied FIFO is another FIFO, not the one the command made.
	fresh func(t *testing.T) entriesRig
}

// newEntriesRig runs script as an exec in a workspace holding a.txt, b.txt, the
// folders keep (0755, with a file), full (0750, with a file) and gone (0750, empty),
// and the symlink old to a.txt.
func newEntriesRig(t *testing.T, script string) entriesRig {
	t.Helper()
	dir := testutil.Workspace(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "keep/k.txt": "k\n", "full/x.txt": "x\n"})
	os.Mkdir(filepath.Join(dir, "gone"), 0o750)
	os.Chmod(filepath.Join(dir, "gone"), 0o750)
	os.Chmod(filepath.Join(dir, "full"), 0o750)
	os.Chmod(filepath.Join(dir, "keep"), 0o755)
	os.Symlink("a.txt", filepath.Join(dir, "old"))
	r := entriesRig{dir: dir, journal: filepath.Join(t.TempDir(), "journal.db")}
	e := r.open(t, nil)
	defer e.Close()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	r.exec = runExec(t, e, dir, "s", script).Seq
	r.how, r.target, r.last = "undo", r.exec, r.exec
	return r
}

// newEntriesRigFor is newEntriesRig, the call to kill taking the exec back as how.
func newEntriesRigFor(t *testing.T, script, how string) entriesRig {
	t.Helper()
	r := newEntriesRig(t, script)
	r.how = how
	switch how {
	case "redo":
		e := r.open(t, nil)
		defer e.Close()
		if err := do(e, "op", func(c *Call) error {
			_, err := e.Undo(c, UndoOptions{Seq: r.exec})
			r.target = c.Seq()
			return err
		}); err != nil {
			t.Fatal(err)
		}
		r.last = r.target
	case "unrewind": // the undo of a rewind of the command's turn
		e := r.open(t, nil)
		defer e.Close()
		if err := do(e, "op", func(c *Call) error {
			_, err := e.Rewind(c, RewindOptions{Session: "s", Turn: "t1"})
			r.target = c.Seq()
			return err
		}); err != nil {
			t.Fatal(err)
		}
		r.last = r.target
	}
	return r
}

// clone is a copy of the rig, workspace and journal, for one run of the undo.
func (r entriesRig) clone(t *testing.T) entriesRig {
	t.Helper()
	if r.fresh != nil {
		return r.fresh(t)
	}
	c := r
	c.dir, c.journal = filepath.Join(t.TempDir(), "w"), filepath.Join(t.TempDir(), "j")
	for _, p := range [][2]string{{r.dir, c.dir}, {filepath.Dir(r.journal), c.journal}} {
		if out, err := exec.Command("cp", "-a", p[0], p[1]).CombinedOutput(); err != nil {
			t.Fatalf("%s %v", out, err)
		}
	}
	c.journal = filepath.Join(c.journal, "journal.db")
	e := c.open(t, nil)
	defer e.Close()
	if _, err := e.Adopt(); err != nil { // a copy is another folder's journal
		t.Fatal(err)
	}
	return c
}

// open is the next process's engine on the workspace (recovery runs at its first use).
func (r entriesRig) open(t *testing.T, settled *[]Settled) *Engine {
	t.Helper()
	fs, err := vfs.Open(r.dir, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() }) // a folder held open cannot be removed on Windows
	o := Options{JournalPath: r.journal, Durability: faultDurability}
	if settled != nil {
		o.OnSettle = func(s Settled) { *settled = append(*settled, s) }
	}
	e, err := Open(fs, o)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// undoKillChild undoes call seq in the workspace dir, with the journal at jpath (how
// "undo"), redoes it ("redo") or rewinds session s's turn t1 ("rewind"), and kills
// itself with SIGKILL at its nth change to the disk (a write, sync, rename, mkdir,
// removal, symlink or change of mode). With n 0 it makes the whole call and prints how
// many changes that took.
func undoKillChild(dir, jpath, how, seq, n string) {
	kill, _ := strconv.Atoi(n)
	target, _ := strconv.ParseUint(seq, 10, 64)
	ffs := &testutil.FaultFs{Fs: keptTargets{afero.NewBasePathFs(afero.NewOsFs(), dir).(*afero.BasePathFs), dir}}
	e, err := Open(vfs.New(ffs, vfs.Options{}), Options{JournalPath: jpath, CheckpointInterval: -1, Durability: Durability(os.Getenv("VFSCTL_DURABILITY"))})
	if err != nil {
		fmt.Println("err", err)
		os.Exit(3)
	}
	steps := killAtChange(ffs, kill)
	c, err := e.Begin("op", how, nil)
	if err == nil {
		switch how {
		case "rewind":
			_, err = e.Rewind(c, RewindOptions{Session: "s", Turn: "t1"})
		default: // undo, redo, unrewind
			_, err = e.Undo(c, UndoOptions{Seq: target, Redo: how == "redo"})
		}
		err = errors.Join(err, c.Finish(err))
	}
	fmt.Println("steps", *steps, err)
}

// keptTargets is a folder of the disk as its own root, which makes a symlink with
// the target given (afero's BasePathFs would make it absolute, into that folder).
type keptTargets struct {
	*afero.BasePathFs
	dir string
}

func (k keptTargets) SymlinkIfPossible(target, p string) error {
	return os.Symlink(target, filepath.Join(k.dir, filepath.FromSlash(p)))
}

// undoKilled runs undoKillChild over the rig, to be killed at its nth change (0:
// never), and returns what it printed.
func (r entriesRig) undoKilled(t *testing.T, n int) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "VFSCTL_CHILD=undokill", "VFSCTL_DIR="+r.dir, "VFSCTL_JOURNAL="+r.journal,
		"VFSCTL_HOW="+r.how, "VFSCTL_SEQ="+strconv.FormatUint(r.target, 10), "VFSCTL_N="+strconv.Itoa(n), "VFSCTL_DURABILITY="+string(faultDurability))
	out, err := cmd.Output()
	killed := killedSelf(err)
	if n > 0 && !killed || n == 0 && err != nil {
		t.Fatalf("the undo killed at change %d: %v, %s", n, err, out)
	}
	return string(out)
}

// execEntryScripts are commands that make, remove or change one folder or symlink,
// alone and with a file's change (then the file decides whether recovery rolls the
// undo forward or back), and all of it at once.
var execEntryScripts = []struct{ name, script string }{
	{"made a folder", "mkdir made"},
	{"made a folder with a file", "mkdir made && echo n > made/n.txt"},
	{"removed a folder", "rmdir gone"},
	{"removed a folder with a file", "rm -r full"},
	{"made a symlink", "ln -s a.txt link"},
	{"made a symlink and changed a file", "ln -s a.txt link && echo A > a.txt"},
	{"retargeted a symlink", "ln -sfn b.txt old"},
	{"retargeted a symlink and changed a file", "ln -sfn b.txt old && echo A > a.txt"},
	{"changed a folder's bits", "chmod 0700 keep"},
	{"changed a folder's bits and a file", "chmod 0700 keep && echo B > b.txt"},
	{"made a file read-only", "chmod 444 a.txt"},
	{"changed a file and made it read-only", "echo A > a.txt && chmod 444 a.txt"},
	{"all of it", "mkdir -m 0711 made && echo n > made/n.txt && rm -r full && rmdir gone && ln -s a.txt link && ln -sfn b.txt old && chmod 0700 keep && echo A > a.txt"},
}

// swapScripts are commands where a folder and a file trade places: taking them back,
// what goes is removed before what comes is put back (swapsOf).
var swapScripts = []struct{ name, script string }{
	{"a folder became a file", "rm -r full && echo F > full"},
	{"a file became a folder", "rm a.txt && mkdir -m 0711 a.txt && echo n > a.txt/n.txt"},
	{"both", "rm -r full && echo F > full && rmdir gone && echo G > gone && rm b.txt && mkdir -p b.txt/in && echo n > b.txt/in/n.txt"},
}

// TestKillAtEachStepOfAnUndoOfFoldersAndSymlinks kills (SIGKILL) the undo of an exec
// at each of its changes to the disk, then opens the workspace again. The oracle is
// the two trees read from disk before and after a clean run of the same undo: after
// recovery the tree must be one of them, exactly (contents, bits, symlinks' targets,
// nothing left behind), and the journal must say which: no undo record, or one rolled
// back, for the tree before; one committed for the tree after. The next look then
// records nothing: the snapshot agrees with the tree.
// A rewind of the command's turn and a redo of its undo are killed the same way.
// The command that does all of it at once is killed at each of its 31 changes in the
// full run only (VFSCTL_FULL=1, .ci/run), as are both durability modes, and the
// rewind and the redo of every command.
func TestKillAtEachStepOfAnUndoOfFoldersAndSymlinks(t *testing.T) {
	modes := []Durability{DurableFile, DurableJournal}
	scripts := execEntryScripts
	if !full() {
		modes, scripts = modes[:1], scripts[:len(scripts)-1]
	}
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			faultDurability = mode
			defer func() { faultDurability = "" }()
			for _, how := range []string{"undo", "rewind", "redo"} {
				for i, tc := range scripts {
					if how != "undo" && !full() && i != 7 { // retargeted a symlink and changed a file
						continue
					}
					t.Run(how+" "+tc.name, func(t *testing.T) { killEachStepOfUndo(t, newEntriesRigFor(t, tc.script, how)) })
				}
			}
		})
	}
}

// TestKillAtEachStepOfAnUndoOfFIFOs kills the undo of a command that made FIFOs at
// each of its changes to the disk, with killEachStepOfUndo's oracle: the FIFO goes
// after the files, so a kill before leaves it for a rollback, and recovery rolling
// forward removes it. (Each run makes the workspace anew: a copy of a FIFO is
// another one, which the undo rightly refuses to remove.)
func TestKillAtEachStepOfAnUndoOfFIFOs(t *testing.T) {
	winetest.NeedPOSIXShell(t)
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no FIFOs")
	}
	scripts := []string{"mkfifo p && echo A > a.txt", "mkdir made && mkfifo made/p && echo A > a.txt && echo B > b.txt"}
	if !full() {
		scripts = scripts[:1]
	}
	for _, script := range scripts {
		t.Run(script, func(t *testing.T) {
			rig := newEntriesRig(t, script)
			rig.fresh = func(t *testing.T) entriesRig { return newEntriesRig(t, script) }
			killEachStepOfUndo(t, rig)
		})
	}
}

// TestKillAtEachStepOfASwapsRewind kills, at each of its changes to the disk, the
// rewind of a turn whose command swapped folders and files, and the undo of that
// rewind; the oracle is killEachStepOfUndo's. By default one swap each way runs (a
// few seconds); the full run (VFSCTL_FULL=1, .ci/run) adds the command's undo, both
// swaps at once and the journal-durable mode.
func TestKillAtEachStepOfASwapsRewind(t *testing.T) {
	modes := []Durability{DurableFile, DurableJournal}
	hows := []string{"rewind", "unrewind", "undo"}
	if !full() {
		modes, hows = modes[:1], hows[:2]
	}
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			faultDurability = mode
			defer func() { faultDurability = "" }()
			for _, how := range hows {
				for i, tc := range swapScripts {
					if !full() && i != map[string]int{"rewind": 1, "unrewind": 0}[how] {
						continue // one swap each way
					}
					t.Run(how+" "+tc.name, func(t *testing.T) { killEachStepOfUndo(t, newEntriesRigFor(t, tc.script, how)) })
				}
			}
		})
	}
}

func killEachStepOfUndo(t *testing.T, rig entriesRig) {
	clean := rig.clone(t)
	before := tree(t, clean.dir)
	var total int
	if out := clean.undoKilled(t, 0); !strings.HasSuffix(out, " <nil>\n") {
		t.Fatalf("a clean run: %s", out)
	} else if _, err := fmt.Sscanf(out, "steps %d", &total); err != nil || total == 0 {
		t.Fatalf("a clean run: %s", out)
	}
	after := tree(t, clean.dir)
	if same(before, after) {
		t.Fatalf("the clean undo changed nothing: %v", after)
	}
	counts := map[string]int{}
	for n := 1; n <= total; n++ {
		what := fmt.Sprintf("killed at change %d of %d", n, total)
		r := rig.clone(t)
		r.undoKilled(t, n)
		var settled []Settled
		e := r.open(t, &settled)
		var rec *journal.Record
		err := e.View(func(tx *journal.Tx) error {
			if p := tx.Pending(); len(p) > 0 {
				t.Errorf("%s: calls %v still pending", what, p)
			}
			if last := tx.Last(); last > r.last {
				rec, _ = tx.Get(last)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: recovery: %v", what, err)
		}
		got := tree(t, r.dir)
		state := "none"
		want := before
		switch {
		case rec == nil:
		case rec.Undo != r.exec && rec.Redo != r.target && !slices.Contains(rec.Reverts, r.exec) && !(r.how == "unrewind" && rec.Undo == r.target):
			t.Fatalf("%s: the last record is %+v, not the %s", what, rec, r.how)
		case rec.State == journal.RolledBack:
			state = string(rec.State)
		case rec.State == journal.Committed:
			state, want = string(rec.State), after
		default:
			t.Errorf("%s: the undo is %s after recovery (%v)", what, rec.State, rec.Notes)
		}
		counts[state]++
		if !same(got, want) {
			notes := []string(nil)
			if rec != nil {
				notes = rec.Notes
			}
			t.Errorf("%s: the undo is %s, the tree is not the one %s says:\n got  %v\n want %v\n before %v\n after  %v\n notes %q",
				what, state, state, got, want, before, after, notes)
		}
		if look, err := e.CheckpointOutside(LookOptions{}); err != nil || look.Seq != 0 {
			t.Errorf("%s (%s): the look after recovery recorded %+v (%v), want nothing: the journal disagrees with the tree", what, state, look, err)
		}
		e.Close()
	}
	t.Logf("%d kills: %v", total, counts)
}

// What recovery cannot settle is left alone and said: the undo of a command's folder
// bits, or of the symlink it made, is killed once its record is written, and before
// the next open someone replaces the folder with a file, or retargets the symlink.
// Recovery settles the undo (no file of it to say otherwise: rolled forward), leaves
// the path as found, and says so in the record and in the line it prints; the next
// look journals the path as found, as a change outside vfsctl.
func TestRecoveryLeavesAnEntryChangedSinceAndSaysSo(t *testing.T) {
	for _, tc := range []struct {
		name, script, path string
		tamper             func(dir string) error
		want               string
	}{
		{"folder replaced by a file", "chmod 0700 keep", "keep", func(dir string) error {
			if err := os.RemoveAll(filepath.Join(dir, "keep")); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, "keep"), []byte("mine\n"), 0o644)
		}, "recovery: keep is a file, neither a folder (mode 0700) nor a folder (mode 0755): someone changed it since; it was left alone"},
		{"symlink retargeted", "ln -s a.txt link", "link", func(dir string) error {
			if err := os.Remove(filepath.Join(dir, "link")); err != nil {
				return err
			}
			return os.Symlink("b.txt", filepath.Join(dir, "link"))
		}, "recovery: link is a symlink, neither a symlink to a.txt nor nothing (or a file): someone changed it since; it was left alone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newEntriesRig(t, tc.script).clone(t)
			r.undoKilled(t, 1) // the record is written; the folder or symlink not yet touched
			if err := tc.tamper(r.dir); err != nil {
				t.Fatal(err)
			}
			found := tree(t, r.dir)
			var settled []Settled
			e := r.open(t, &settled)
			defer e.Close()
			var rec *journal.Record
			e.View(func(tx *journal.Tx) error { rec, _ = tx.Get(tx.Last()); return nil })
			if rec == nil || rec.Undo != r.exec || rec.State != journal.Committed {
				t.Fatalf("the undo after recovery: %+v", rec)
			}
			if !slices.ContainsFunc(rec.Notes, func(n string) bool { return strings.HasPrefix(n, tc.want) }) {
				t.Errorf("the undo's notes: %q, want one saying %q", rec.Notes, tc.want)
			}
			if len(settled) != 1 || !strings.HasPrefix(settled[0].Note, tc.want) {
				t.Errorf("recovery said %+v, want %q", settled, tc.want)
			}
			if got := tree(t, r.dir); !same(got, found) {
				t.Errorf("recovery changed what it could not settle:\n got  %v\n want %v", got, found)
			}
			look, err := e.CheckpointOutside(LookOptions{})
			names := func() bool {
				return slices.ContainsFunc(look.Entries, func(en journal.Entry) bool { return en.Path == tc.path }) ||
					slices.ContainsFunc(look.Files, func(f journal.File) bool { return f.Path == tc.path })
			}
			if err != nil || look.Seq == 0 || !names() {
				t.Errorf("the next look: %+v (%v), want %s journaled as found", look, err, tc.path)
			}
		})
	}
}

// An undo refused after its first folder or symlink step ran (the next step failed,
// or a file's write did) takes that step back: a refused call changes nothing. Here
// the undo of a command that retargeted old, removed gone and changed a.txt has
// removed old (to make it again with its first target) when making gone fails, or
// writing a.txt does.
func TestRefusedUndoTakesItsFolderAndSymlinkStepsBack(t *testing.T) {
	for _, tc := range []struct {
		name string
		fail testutil.Op
		path string
	}{{"a folder step failed", testutil.OpMkdir, "gone"}, {"a file's write failed", testutil.OpRename, "a.txt"}} {
		t.Run(tc.name, func(t *testing.T) {
			r := newEntriesRig(t, "ln -sfn b.txt old && rmdir gone && echo A > a.txt").clone(t)
			before := tree(t, r.dir)
			ffs := &testutil.FaultFs{Fs: keptTargets{afero.NewBasePathFs(afero.NewOsFs(), r.dir).(*afero.BasePathFs), r.dir}}
			e, err := Open(vfs.New(ffs, vfs.Options{}), Options{JournalPath: r.journal})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			ffs.SetHook(func(o testutil.Op, name string) error {
				if o == tc.fail && name == tc.path {
					return syscall.EIO
				}
				return nil
			})
			var seq uint64
			err = do(e, "op", func(c *Call) error {
				_, err := e.Undo(c, UndoOptions{Seq: r.exec})
				seq = c.Seq()
				return err
			})
			if err == nil {
				t.Fatal("the undo went through")
			}
			if got := tree(t, r.dir); !same(got, before) {
				t.Errorf("the refused undo (%v) changed the tree:\n got  %v\n want %v", err, got, before)
			}
			var rec *journal.Record
			e.View(func(tx *journal.Tx) error { rec, _ = tx.Get(seq); return nil })
			if rec == nil || rec.State != journal.Failed {
				t.Errorf("the refused undo's record: %+v", rec)
			}
		})
	}
}

// A pending undo crafted by someone who can write the workspace must not make
// recovery make or remove folders and symlinks where a call could not: in .git,
// through a symlink into it, or outside the root. Having no file, the record rolls
// forward; every entry is left untouched and noted.
func TestRecoveryOfEntriesObeysTheRulesOfACall(t *testing.T) {
	winetest.NeedSymlinks(t) // the attack goes through a symlink to .git
	dir := testutil.Workspace(t, map[string]string{".git/config": "[core]\n", "x.txt": "x\n"})
	if err := os.Symlink(".git", filepath.Join(dir, "a")); err != nil {
		t.Fatal(err)
	}
	e := diskEngineOn(t, dir, Options{})
	if err := read(e, "s", "x.txt"); err != nil { // the workspace's own journal
		t.Fatal(err)
	}
	e.Close()
	j := journal.New(filepath.Join(dir, ".vfsctl", "journal.db"), journal.Options{})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	err := j.Update(func(tx *journal.Tx) error {
		return tx.Put(&journal.Record{Time: time.Now(), Session: "attacker", Tool: "undo", State: journal.Pending, Undo: 1, Entries: []journal.Entry{
			{Path: ".git/hooks", After: journal.KindDir, AfterMode: 0o755},
			{Path: "a/hooks", After: journal.KindDir, AfterMode: 0o755},
			{Path: "a/pre-commit", After: journal.KindSymlink, AfterTarget: "/bin/sh"},
			{Path: "../outside", After: journal.KindSymlink, AfterTarget: "/etc"},
		}})
	})
	j.Release()
	if err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	e2 := diskEngineOn(t, dir, Options{})
	defer e2.Close()
	var rec *journal.Record
	e2.View(func(tx *journal.Tx) error { rec, _ = tx.Get(tx.Last()); return nil })
	for _, p := range []string{".git/hooks", ".git/pre-commit", filepath.Join("..", "outside")} {
		if _, err := os.Lstat(filepath.Join(dir, p)); err == nil {
			t.Errorf("recovery made %s", p)
		}
	}
	if got := tree(t, dir); !same(got, before) {
		t.Errorf("recovery changed the tree:\n got  %v\n want %v", got, before)
	}
	untouched := 0
	for _, n := range rec.Notes {
		if strings.Contains(n, "is not a path whose folder or symlink a call could change") {
			untouched++
		}
	}
	if rec.State == journal.Pending || untouched != 4 {
		t.Errorf("the crafted undo after recovery: %s, %d notes name an untouched path, want 4: %q", rec.State, untouched, rec.Notes)
	}
}

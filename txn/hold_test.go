package txn

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/vfs"
)

// A call that only reads holds the journal only while its record is written: another
// process (here a second engine on the same workspace, with its own lock) edits while
// the read is in progress, where a call begun by Begin turns it away as busy. The read
// is journaled all the same, and licenses write_file.
func TestReadDoesNotHoldTheJournal(t *testing.T) {
	a, dir := diskEngine(t, map[string]string{"a.txt": "one\n", "b.txt": "two\n"})
	fs, err := vfs.Open(dir, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() }) // a folder held open cannot be removed on Windows
	b, err := Open(fs, Options{Wait: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}

	c, err := a.BeginRead(context.Background(), "s", "read_file", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Read(c, "a.txt"); err != nil {
		t.Fatal(err)
	}
	if err := edit(b, "other", "b.txt", "two", "2"); err != nil {
		t.Fatalf("another process's edit while a read is in progress: %v", err)
	}
	if err := c.Finish(nil); err != nil {
		t.Fatal(err)
	}
	if err := write(a, "s", "a.txt", "ONE\n"); err != nil {
		t.Fatalf("write_file after the read: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "b.txt")); string(got) != "2\n" {
		t.Fatalf("b.txt = %q", got)
	}

	// A call begun by Begin holds the journal until Finish.
	c, err = a.Begin("s", "edit_file", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := edit(b, "other", "b.txt", "2", "3"); errs.KindOf(err) != errs.Busy {
		t.Fatalf("an edit while a held call is in progress: want busy, got %v", err)
	}
	c.Finish(nil)
}

// blockedPlan is a planning step that stops, the first time it runs, until the test
// lets it go on: a slow plan, in a test.
type blockedPlan struct {
	once             sync.Once
	entered, release chan struct{}
}

func newBlockedPlan() *blockedPlan {
	return &blockedPlan{entered: make(chan struct{}), release: make(chan struct{})}
}

// wait stops the first caller until go on is called.
func (b *blockedPlan) wait() {
	first := false
	b.once.Do(func() { first = true })
	if first {
		close(b.entered)
		<-b.release
	}
}

// locate is an edit's Locate that waits the first time it runs.
func (b *blockedPlan) locate(old, new string) func([]byte) (*matcher.Result, error) {
	return func(content []byte) (*matcher.Result, error) {
		b.wait()
		return matcher.Apply(content, []matcher.Edit{{OldText: old, NewText: new}}, matcher.Options{Name: "f.txt"})
	}
}

// otherEngine is a second engine on the workspace at dir, as another process would
// open it, which waits briefly for the journal.
func otherEngine(t *testing.T, dir string) *Engine {
	t.Helper()
	fs, err := vfs.Open(dir, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() }) // a folder held open cannot be removed on Windows
	b, err := Open(fs, Options{Wait: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A write call plans before it holds the journal: while its plan runs (stopped here
// inside its locator), another process edits another file and looks at the journal,
// where a call that planned holding the journal turned them away as busy. The slow
// call then commits as planned.
func TestSlowPlanHoldsNoJournal(t *testing.T) {
	a, dir := diskEngine(t, map[string]string{"f.txt": "alpha\nbeta\n", "other.txt": "one\n"})
	b := otherEngine(t, dir)
	bp := newBlockedPlan()
	done := make(chan error, 1)
	go func() {
		c, err := a.BeginWrite(context.Background(), "s", "edit_file", nil)
		if err == nil {
			_, err = a.Apply(c, []Spec{{Path: "f.txt", Op: journal.OpEdit, Locate: bp.locate("beta", "BETA")}}, false)
			c.Finish(err)
		}
		done <- err
	}()
	<-bp.entered
	errEdit := edit(b, "other", "other.txt", "one", "two")
	errLook := do(b, "operator", func(c *Call) error { return b.j.View(func(*journal.Tx) error { return nil }) })
	close(bp.release)
	if err := <-done; err != nil {
		t.Fatalf("the slow edit: %v", err)
	}
	if errEdit != nil {
		t.Errorf("another process's edit while a plan ran: %v", errEdit)
	}
	if errLook != nil {
		t.Errorf("another process's look at the journal while a plan ran: %v", errLook)
	}
	for name, want := range map[string]string{"f.txt": "alpha\nBETA\n", "other.txt": "two\n"} {
		if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

// A file changed between a call's plan and its commit (by another engine's call, or
// by a write outside vfsctl) is never committed against the old plan: the call plans
// again on what is there, so the file ends as the two changes made one after the
// other would leave it, or the call is refused and the other change stays. Each
// want is written by hand from the case, not computed by the code under test.
func TestPlanAgainstAChangedFile(t *testing.T) {
	const start = "a\nb\nc\n"
	cases := []struct {
		name      string
		old, new  string                                     // the slow call's edit
		meanwhile func(t *testing.T, b *Engine, path string) // while it plans
		want      string                                     // f.txt after both
		kind      errs.Kind                                  // the slow call's refusal, or ""
	}{
		{name: "another engine edits another line", old: "a", new: "A",
			meanwhile: func(t *testing.T, b *Engine, _ string) { mustOK(t, edit(b, "other", "f.txt", "c", "C")) },
			want:      "A\nb\nC\n"},
		{name: "another engine edits the same line", old: "a", new: "A",
			meanwhile: func(t *testing.T, b *Engine, _ string) { mustOK(t, edit(b, "other", "f.txt", "a", "X")) },
			want:      "X\nb\nc\n", kind: errs.TextNotFound},
		{name: "another engine makes the text the call looks for", old: "z", new: "Z",
			meanwhile: func(t *testing.T, b *Engine, _ string) { mustOK(t, edit(b, "other", "f.txt", "c", "z")) },
			want:      "a\nb\nZ\n"},
		{name: "an outside write adds a line", old: "a", new: "A",
			meanwhile: func(t *testing.T, _ *Engine, p string) { mustOK(t, os.WriteFile(p, []byte("a\nb\nc\nd\n"), 0o644)) },
			want:      "A\nb\nc\nd\n"},
		{name: "an outside write of the same size", old: "a", new: "A",
			meanwhile: func(t *testing.T, _ *Engine, p string) { mustOK(t, os.WriteFile(p, []byte("a\nB\nc\n"), 0o644)) },
			want:      "A\nB\nc\n"},
		{name: "an outside rename onto it", old: "b", new: "B",
			meanwhile: func(t *testing.T, _ *Engine, p string) {
				mustOK(t, os.WriteFile(p+".new", []byte("x\nb\n"), 0o644))
				mustOK(t, os.Rename(p+".new", p))
			},
			want: "x\nB\n"},
		{name: "an outside removal", old: "a", new: "A",
			meanwhile: func(t *testing.T, _ *Engine, p string) { mustOK(t, os.Remove(p)) },
			want:      "", kind: errs.FileNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, dir := diskEngine(t, map[string]string{"f.txt": start})
			b := otherEngine(t, dir)
			p := filepath.Join(dir, "f.txt")
			bp := newBlockedPlan()
			type outcome struct {
				ch  []*Change
				err error
			}
			done := make(chan outcome, 1)
			go func() {
				c, err := a.BeginWrite(context.Background(), "s", "edit_file", nil)
				var ch []*Change
				if err == nil {
					ch, err = a.Apply(c, []Spec{{Path: "f.txt", Op: journal.OpEdit, Locate: bp.locate(tc.old, tc.new)}}, false)
					c.Finish(err)
				}
				done <- outcome{ch, err}
			}()
			<-bp.entered
			tc.meanwhile(t, b, p)
			close(bp.release)
			o := <-done
			if errs.KindOf(o.err) != tc.kind {
				t.Fatalf("the slow call ended with %v, want kind %q", o.err, tc.kind)
			}
			got, err := os.ReadFile(p)
			if tc.want == "" {
				if !os.IsNotExist(err) {
					t.Fatalf("f.txt = %q (%v), want it removed", got, err)
				}
				return
			}
			if string(got) != tc.want {
				t.Fatalf("f.txt = %q, want %q", got, tc.want)
			}
			if o.err == nil && string(o.ch[0].After) != tc.want {
				t.Errorf("the reply's change says %q, the disk %q", o.ch[0].After, got)
			}
		})
	}
}

// The same on a filesystem that gives no identity (inode and change time): the plan
// is checked by the file's bytes.
func TestPlanAgainstAChangedFileWithoutIdentity(t *testing.T) {
	fsys := afero.NewMemMapFs()
	mustOK(t, afero.WriteFile(fsys, "f.txt", []byte("a\nb\nc\n"), 0o644))
	a := memEngine(t, fsys)
	bp := newBlockedPlan()
	done := make(chan error, 1)
	go func() {
		c, err := a.BeginWrite(context.Background(), "s", "edit_file", nil)
		if err == nil {
			_, err = a.Apply(c, []Spec{{Path: "f.txt", Op: journal.OpEdit, Locate: bp.locate("a", "A")}}, false)
			c.Finish(err)
		}
		done <- err
	}()
	<-bp.entered
	mustOK(t, afero.WriteFile(fsys, "f.txt", []byte("a\nB\nc\n"), 0o644)) // the same size
	close(bp.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got, _ := afero.ReadFile(fsys, "f.txt"); string(got) != "A\nB\nc\n" {
		t.Fatalf("f.txt = %q, want %q", got, "A\nB\nc\n")
	}
}

// write_file's licence is decided holding the journal, against the file as it is
// then: a file another session edited while the write was planned is refused as not
// read, and the other session's edit stays.
func TestWriteLicenceDecidedUnderTheHold(t *testing.T) {
	a, dir := diskEngine(t, map[string]string{"f.txt": "a\nb\n"})
	b := otherEngine(t, dir)
	mustOK(t, read(a, "s", "f.txt"))
	bp := newBlockedPlan()
	testHookPlanned = bp.wait
	defer func() { testHookPlanned = nil }()
	done := make(chan error, 1)
	go func() {
		c, err := a.BeginWrite(context.Background(), "s", "write_file", nil)
		if err == nil {
			_, err = a.Apply(c, []Spec{{Path: "f.txt", Op: journal.OpWrite, Content: []byte("new\n")}}, false)
			c.Finish(err)
		}
		done <- err
	}()
	<-bp.entered
	errB := edit(b, "other", "f.txt", "b", "B")
	close(bp.release)
	err := <-done
	if errB != nil {
		t.Fatalf("the other session's edit: %v", errB)
	}
	if errs.KindOf(err) != errs.NotRead || !strings.Contains(err.Error(), "changed since this session last read it") {
		t.Fatalf("write_file after the file changed under its plan: %v, want not_read", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(got) != "a\nB\n" {
		t.Fatalf("f.txt = %q, want the other session's edit", got)
	}
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Calls that plan without the journal, many at once on one file of two engines (two
// processes): each plans on what it read, and those that find the file changed when
// they commit plan again, so every edit lands, each once, and no other line moves.
func TestUnheldEditsOfOneFile(t *testing.T) {
	const n = 16
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "line %02d = old\n", i)
	}
	a, dir := diskEngine(t, map[string]string{"f.txt": b.String()})
	fs, err := vfs.Open(dir, vfs.Options{})
	mustOK(t, err)
	t.Cleanup(func() { fs.Close() }) // a folder held open cannot be removed on Windows
	o, err := Open(fs, Options{})
	mustOK(t, err)
	var wg sync.WaitGroup
	errc := make(chan error, n)
	for i := range n {
		e := a
		if i%2 == 1 {
			e = o
		}
		wg.Go(func() {
			c, err := e.BeginWrite(context.Background(), "s", "edit_file", nil)
			if err == nil {
				_, err = e.Edit(c, "f.txt", []matcher.Edit{{OldText: fmt.Sprintf("line %02d = old", i), NewText: fmt.Sprintf("line %02d = new", i)}}, false)
				c.Finish(err)
			}
			errc <- err
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		if err != nil {
			t.Error(err)
		}
	}
	var want strings.Builder
	for i := range n {
		fmt.Fprintf(&want, "line %02d = new\n", i)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(got) != want.String() {
		t.Fatalf("f.txt =\n%s\nwant\n%s", got, want.String())
	}
}

// A call planned without the journal is refused as one planned holding it would be:
// write_file's licence, decided under the journal, comes before a later change's
// refusal, as it comes first in a plan made holding the journal. (This passes before
// calls planned without the journal too: it keeps the two ways of planning alike.)
func TestUnheldRefusalsInOrder(t *testing.T) {
	for _, begin := range []string{"Begin", "BeginWrite"} {
		t.Run(begin, func(t *testing.T) {
			e, _ := diskEngine(t, map[string]string{"f.txt": "f\n", "g.txt": "g\n"})
			defer e.Close()
			var c *Call
			var err error
			if begin == "Begin" {
				c, err = e.Begin("s", "apply_changes", nil)
			} else {
				c, err = e.BeginWrite(context.Background(), "s", "apply_changes", nil)
			}
			mustOK(t, err)
			_, err = e.Apply(c, []Spec{
				{Path: "f.txt", Op: journal.OpWrite, Content: []byte("new\n")},
				{Path: "g.txt", Op: journal.OpEdit, Edits: []matcher.Edit{{OldText: "absent", NewText: "x"}}},
			}, false)
			c.Finish(err)
			if errs.KindOf(err) != errs.NotRead || !strings.HasPrefix(err.Error(), "changes[0] (f.txt)") {
				t.Fatalf("got %v, want changes[0]'s not_read", err)
			}
		})
	}
}

package txn

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/vfs"
)

// folderLog records, in order, the changes to each folder's entries (renames,
// removals, folders made) and the syncs of folders, as a FaultFs sees them.
type folderLog struct {
	mu      sync.Mutex
	dir     string         // the workspace on disk
	syncs   map[string]int // folder -> syncs
	changed map[string]int // folder -> changes since its last sync
}

func (l *folderLog) hook(op testutil.Op, name string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	name = strings.TrimPrefix(filepath.ToSlash(name), "/")
	switch op {
	case testutil.OpSync:
		if fi, err := os.Stat(filepath.Join(l.dir, name)); err == nil && fi.IsDir() {
			l.syncs[path.Clean("./"+name)]++
			l.changed[path.Clean("./"+name)] = 0
		}
	case testutil.OpRename, testutil.OpRemove, testutil.OpMkdir:
		l.changed[path.Dir(name)]++
	}
	return nil
}

func (l *folderLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.syncs, l.changed = map[string]int{}, map[string]int{}
}

// An undo of a call that made many files (a command's npm install, a generator) synced
// the folder twice per file it removed, and its redo once per file it made: an undo
// of 3,000 files took a minute on a loaded machine, holding the workspace. Each folder
// is synced a few times per undo now, whatever the count of files, and still after
// its last change, before the undo returns: the removals are as durable as before.
func TestUndoOfManyFilesSyncsEachFolderOnce(t *testing.T) {
	dir := t.TempDir()
	log := &folderLog{dir: dir}
	ffs := &testutil.FaultFs{Fs: afero.NewBasePathFs(afero.NewOsFs(), dir)}
	e, err := Open(vfs.New(ffs, vfs.Options{}), Options{JournalPath: t.TempDir() + "/journal.db"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := os.MkdirAll(filepath.Join(dir, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	const n = 200
	var specs []Spec
	for i := range n {
		p := fmt.Sprintf("a/f%d.txt", i)
		if i%2 == 1 {
			p = fmt.Sprintf("b/f%d.txt", i) // b is made by the call
		}
		specs = append(specs, Spec{Path: p, Op: journal.OpCreate, Content: []byte(fmt.Sprintln(i))})
	}
	if err := do(e, "s", func(c *Call) error {
		_, err := e.Apply(c, specs, false)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	ffs.SetHook(log.hook)
	for _, redo := range []bool{false, true} {
		log.reset()
		if err := do(e, "s", func(c *Call) error {
			_, err := e.Undo(c, UndoOptions{Redo: redo})
			return err
		}); err != nil {
			t.Fatalf("redo %v: %v", redo, err)
		}
		// What the undo did, seen on disk: every file gone (and b with them), or, after
		// the redo, every file back.
		for _, s := range specs {
			_, err := os.Stat(filepath.Join(dir, s.Path))
			if gone := os.IsNotExist(err); gone == redo {
				t.Fatalf("redo %v: %s: %v", redo, s.Path, err)
			}
		}
		t.Logf("redo %v: folder syncs %v", redo, log.syncs)
		for d, k := range log.syncs {
			if k > 3 {
				t.Errorf("redo %v: folder %s synced %d times for %d files; want a few", redo, d, k, n)
			}
		}
		for d, k := range log.changed {
			if k > 0 {
				t.Errorf("redo %v: folder %s has %d changes not synced when the call returned", redo, d, k)
			}
		}
		if log.syncs["a"] == 0 || log.syncs["."] == 0 {
			t.Errorf("redo %v: folders a and . not synced: %v", redo, log.syncs)
		}
	}
}

// BenchmarkUndoOfManyFiles times the undo and then the redo of a call that made 1,000
// files in one folder, on disk, file-durable (the default): what rewinding a turn
// whose command made them costs, and how long the workspace is held.
//
//	go test -run XXX -bench UndoOfManyFiles -benchtime 5x ./txn/
func BenchmarkUndoOfManyFiles(b *testing.B) {
	const n = 1000
	dir := b.TempDir()
	fsys, err := vfs.Open(dir, vfs.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer fsys.Close()
	e, err := Open(fsys, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	var specs []Spec
	for i := range n {
		specs = append(specs, Spec{Path: fmt.Sprintf("d/f%d.txt", i), Op: journal.OpCreate, Content: []byte(fmt.Sprintln(i))})
	}
	if err := do(e, "s", func(c *Call) error { _, err := e.Apply(c, specs, false); return err }); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		for _, redo := range []bool{false, true} {
			if err := do(e, "s", func(c *Call) error { _, err := e.Undo(c, UndoOptions{Redo: redo}); return err }); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(2*n), "ns/file")
}

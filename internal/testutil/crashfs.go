package testutil

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/spf13/afero"
)

// A crash-recording filesystem: every write, truncate, sync, create, rename, remove,
// mkdir and folder sync is recorded in order (a Recorder), and for any point of that
// record CrashStates lists each state a power loss there could leave on disk.
//
// Where recording happens. vfs.Open walks the real filesystem by handle (openat on
// raw descriptors, rootfs.go), and the journal is a bbolt file that bbolt writes and
// fdatasyncs itself: neither goes through an afero.Fs that a test could wrap. An engine
// built over vfs.New(crashFs) does: every step of the durable write (stage, write,
// sync, rename, folder sync) then reaches CrashFs through pathFolder. For the
// production path the Recorder is the interface: its methods (Create, Write, Truncate,
// Sync, Rename, Remove, Mkdir) take paths and can be called by the descriptor-based
// layer beside each syscall, and Mark records a point such as "journal commit 7 is
// durable", so that a test pairs each crash state with the journal state it goes with
// (a bbolt commit is atomic and durable once its fdatasync returns).
//
// The model of a power loss, stricter than ext4 and closer to what POSIX promises:
//   - A file's data is durable once the file is synced. Its writes (and truncations)
//     since the last sync survive as a prefix: none, some whole, the first half of
//     the next, or all. A file created and never synced may be found empty.
//   - A folder's entries (create, rename, remove, mkdir in it) are durable once that
//     folder is synced; a file's sync does not make its name durable, nor does a
//     folder's sync make the folder's own name in its parent durable. The changes
//     since a folder's last sync survive as a prefix, folder by folder, chosen
//     independently. A rename inside one folder is one change (old name or new name,
//     never both or neither); a rename between folders is two, one in each.
//   - Data and names are independent: a rename can survive while the data of the file
//     it names is lost (the empty file after a crash that fsync-less writers meet).
//
// Not modelled: modes, owners, times, symlinks, hard links, and sizes that survive
// while data does not (a file extended with zeros).

// Operations the Recorder records beyond those FaultFs intercepts (Op in faultfs.go:
// write, sync, rename, mkdir, remove).
const (
	OpCreate   Op = "create"   // a new, empty file
	OpTruncate Op = "truncate" // a file's size set
	OpMark     Op = "mark"     // a label, no change (e.g. "journal commit 7")
)

// Step is one recorded operation. Path names the file or folder as it was named then
// (To is the new name of a rename); Sync applies to a file or a folder.
type Step struct {
	Op    Op
	Path  string
	To    string
	Off   int64  // write: offset; truncate: new size
	Data  []byte // write
	Label string // mark

	ino            int // the file or folder the step acts on
	dir, toDir     int // folders of Path and To
	name, toName   string
	isDir, syncDir bool
}

func (s Step) String() string {
	switch s.Op {
	case OpWrite:
		return fmt.Sprintf("write %s [%d,%d)", s.Path, s.Off, s.Off+int64(len(s.Data)))
	case OpTruncate:
		return fmt.Sprintf("truncate %s to %d", s.Path, s.Off)
	case OpRename:
		return fmt.Sprintf("rename %s -> %s", s.Path, s.To)
	case OpMark:
		return "mark " + s.Label
	case OpSync:
		if s.syncDir {
			return "sync folder " + s.Path
		}
	}
	return fmt.Sprintf("%s %s", s.Op, s.Path)
}

// State is what a crash can leave: every file reachable from the root, with its
// content, and every folder (empty ones included). Why names the choices that make it
// ("a.txt: 3 of 10 unsynced bytes"), for failure messages.
type State struct {
	Files map[string][]byte
	Dirs  []string
	Why   string
}

// Materialize writes the state into dir (which should be empty): folders 0755, files
// 0644. A test then opens an engine there and checks its recovery.
func (s State) Materialize(dir string) error {
	for _, d := range s.Dirs {
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(d)), 0o755); err != nil {
			return err
		}
	}
	for p, data := range s.Files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// MaxCrashStates bounds what CrashStates enumerates: the states multiply with every
// folder and file that holds unsynced changes, so a workload that needs more is too
// large for this kind of test.
const MaxCrashStates = 1 << 16

// Recorder records the operations of a filesystem in order, against a model of what
// is durable. It is safe for concurrent use; the order is the order of the calls.
// Paths are slash paths relative to the root ("" and "." are the root).
type Recorder struct {
	mu    sync.Mutex
	seed  []Step // the initial content, taken as durable
	steps []Step
	live  *model // the model after every step, to resolve names as they are recorded
}

// NewRecorder returns a Recorder over an empty root.
func NewRecorder() *Recorder { return &Recorder{live: newModel()} }

// Len is the number of steps recorded: the crash points are 0 through Len.
func (r *Recorder) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.steps)
}

// Steps returns the steps recorded so far.
func (r *Recorder) Steps() []Step {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.steps)
}

// Seed adds a file (or, with a trailing slash, a folder) that exists, durably, before
// anything is recorded; its parent folders are created. Call it before any step.
func (r *Recorder) Seed(p string, data []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.steps) > 0 {
		panic("testutil: Recorder.Seed after steps were recorded")
	}
	isDir := strings.HasSuffix(p, "/")
	comps := split(p)
	for i := range comps {
		sub := strings.Join(comps[:i+1], "/")
		if _, ok := r.live.lookup(sub); ok {
			continue
		}
		var st Step
		if i < len(comps)-1 || isDir {
			st = r.live.mkdirStep(sub)
		} else {
			st = r.live.createStep(sub)
		}
		r.seed = append(r.seed, r.live.apply(st))
	}
	if !isDir && len(data) > 0 {
		ino, _ := r.live.lookup(p)
		r.seed = append(r.seed, r.live.apply(Step{Op: OpWrite, Path: p, ino: ino, Data: slices.Clone(data)}))
	}
	r.live.syncAll()
}

// record applies st to the live model and appends it.
func (r *Recorder) record(st Step) {
	r.steps = append(r.steps, r.live.apply(st))
}

// Create records a new empty file at p.
func (r *Recorder) Create(p string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.record(r.live.createStep(p))
}

// Mkdir records a new folder at p.
func (r *Recorder) Mkdir(p string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.record(r.live.mkdirStep(p))
}

// Write records data written at offset off of the file now named p.
func (r *Recorder) Write(p string, off int64, data []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.record(Step{Op: OpWrite, Path: p, ino: r.live.mustLookup(p), Off: off, Data: slices.Clone(data)})
}

// Truncate records the file now named p set to size bytes.
func (r *Recorder) Truncate(p string, size int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.record(Step{Op: OpTruncate, Path: p, ino: r.live.mustLookup(p), Off: size})
}

// Sync records an fsync of the file or folder now named p.
func (r *Recorder) Sync(p string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.record(Step{Op: OpSync, Path: p, ino: r.live.mustLookup(p)})
}

// Rename records the rename of oldp to newp (replacing what newp named).
func (r *Recorder) Rename(oldp, newp string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	od, on := r.live.parent(oldp)
	nd, nn := r.live.parent(newp)
	r.record(Step{Op: OpRename, Path: oldp, To: newp, ino: r.live.mustLookup(oldp), dir: od, name: on, toDir: nd, toName: nn})
}

// Remove records the removal of the name p (a folder's content goes with it).
func (r *Recorder) Remove(p string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, n := r.live.parent(p)
	r.record(Step{Op: OpRemove, Path: p, ino: r.live.mustLookup(p), dir: d, name: n})
}

// Mark records label at this point, with no change: a test finds the crash point
// that follows, say, a journal commit.
func (r *Recorder) Mark(label string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.record(Step{Op: OpMark, Label: label})
}

// Point returns the crash point just after the first mark labelled label (-1 if none).
func (r *Recorder) Point(label string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, st := range r.steps {
		if st.Op == OpMark && st.Label == label {
			return i + 1
		}
	}
	return -1
}

// Fork returns a CrashFs over a new in-memory filesystem that holds what the recorded
// one held after the first point steps, every write included (a process killed there
// loses nothing: the page cache keeps it), and whose Recorder goes on from those
// steps, so that its crash states still know what was never synced. A test runs the
// next process on it, then a power loss.
func (r *Recorder) Fork(point int) *CrashFs {
	r.mu.Lock()
	if point < 0 || point > len(r.steps) {
		r.mu.Unlock()
		panic(fmt.Sprintf("testutil: fork at crash point %d outside 0..%d", point, len(r.steps)))
	}
	seed, steps := slices.Clone(r.seed), slices.Clone(r.steps[:point])
	r.mu.Unlock()
	m := newModel()
	for _, st := range seed {
		m.apply(st)
	}
	m.syncAll()
	for _, st := range steps {
		m.apply(st)
	}
	mem := afero.NewMemMapFs()
	var walk func(ino int, dir string)
	walk = func(ino int, dir string) {
		for name, child := range m.nodes[ino].cur {
			p := path.Join(dir, name)
			if n := m.nodes[child]; n.isDir {
				mem.MkdirAll(p, 0o755)
				walk(child, p)
			} else {
				afero.WriteFile(mem, p, slices.Clone(n.data), 0o644)
			}
		}
	}
	walk(rootIno, "")
	return &CrashFs{Fs: mem, Rec: &Recorder{seed: seed, steps: steps, live: m}}
}

// CrashStates returns each distinct state that a power loss after the first point
// steps could leave (point 0: before any step; Len(): after all of them), in a stable
// order. It panics when there would be more than MaxCrashStates.
func (r *Recorder) CrashStates(point int) []State {
	r.mu.Lock()
	if point < 0 || point > len(r.steps) {
		r.mu.Unlock()
		panic(fmt.Sprintf("testutil: crash point %d outside 0..%d", point, len(r.steps)))
	}
	m := newModel()
	for _, st := range r.seed {
		m.apply(st)
	}
	m.syncAll()
	for _, st := range r.steps[:point] {
		m.apply(st)
	}
	r.mu.Unlock()
	return m.crashStates()
}

// model is the filesystem as the steps made it, with what of it is durable.
type model struct {
	nodes map[int]*node
	next  int
}

const rootIno = 1

type node struct {
	isDir bool
	// A file: its content as last synced, what was written since, and its content now.
	synced  []byte
	pending []Step
	data    []byte
	// A folder: its entries as last synced, the changes since (each one atomic), and
	// its entries now.
	ents  map[string]int
	epend [][]entry
	cur   map[string]int
}

// entry is one name of a folder change; ino 0 removes the name.
type entry struct {
	name string
	ino  int
}

func newModel() *model {
	m := &model{nodes: map[int]*node{}, next: rootIno + 1}
	m.nodes[rootIno] = &node{isDir: true, ents: map[string]int{}, cur: map[string]int{}}
	return m
}

func split(p string) []string {
	p = path.Clean("/" + filepath.ToSlash(p))
	if p == "/" {
		return nil
	}
	return strings.Split(p[1:], "/")
}

// lookup resolves p through the entries as they are now.
func (m *model) lookup(p string) (int, bool) {
	ino := rootIno
	for _, c := range split(p) {
		n := m.nodes[ino]
		if n == nil || !n.isDir {
			return 0, false
		}
		next, ok := n.cur[c]
		if !ok {
			return 0, false
		}
		ino = next
	}
	return ino, true
}

func (m *model) mustLookup(p string) int {
	ino, ok := m.lookup(p)
	if !ok {
		panic(fmt.Sprintf("testutil: Recorder: %s does not exist in the recorded filesystem", p))
	}
	return ino
}

// parent returns the folder holding p's last component, and that component.
func (m *model) parent(p string) (int, string) {
	comps := split(p)
	if len(comps) == 0 {
		panic("testutil: Recorder: the root has no parent")
	}
	dir := m.mustLookup(strings.Join(comps[:len(comps)-1], "/"))
	if !m.nodes[dir].isDir {
		panic(fmt.Sprintf("testutil: Recorder: the parent of %s is not a folder", p))
	}
	return dir, comps[len(comps)-1]
}

func (m *model) createStep(p string) Step {
	d, n := m.parent(p)
	st := Step{Op: OpCreate, Path: p, ino: m.next, dir: d, name: n}
	m.next++
	return st
}

func (m *model) mkdirStep(p string) Step {
	d, n := m.parent(p)
	st := Step{Op: OpMkdir, Path: p, ino: m.next, dir: d, name: n, isDir: true}
	m.next++
	return st
}

// apply makes st's change (not durable) and returns st with what it resolved.
func (m *model) apply(st Step) Step {
	change := func(dir int, es ...entry) {
		n := m.nodes[dir]
		n.epend = append(n.epend, es)
		for _, e := range es {
			if e.ino == 0 {
				delete(n.cur, e.name)
			} else {
				n.cur[e.name] = e.ino
			}
		}
	}
	switch st.Op {
	case OpCreate, OpMkdir:
		n := &node{isDir: st.isDir}
		if st.isDir {
			n.ents, n.cur = map[string]int{}, map[string]int{}
		}
		m.nodes[st.ino] = n
		m.next = max(m.next, st.ino+1)
		change(st.dir, entry{st.name, st.ino})
	case OpWrite, OpTruncate:
		n := m.nodes[st.ino]
		n.pending = append(n.pending, st)
		n.data = applyData(n.data, st)
	case OpSync:
		n := m.nodes[st.ino]
		st.syncDir = n.isDir
		m.sync(n)
	case OpRename:
		if st.dir == st.toDir {
			change(st.dir, entry{st.name, 0}, entry{st.toName, st.ino})
		} else {
			change(st.dir, entry{st.name, 0})
			change(st.toDir, entry{st.toName, st.ino})
		}
	case OpRemove:
		change(st.dir, entry{st.name, 0})
	}
	return st
}

func (m *model) sync(n *node) {
	if n.isDir {
		n.ents, n.epend = maps(n.cur), nil
	} else {
		n.synced, n.pending = slices.Clone(n.data), nil
	}
}

func (m *model) syncAll() {
	for _, n := range m.nodes {
		m.sync(n)
	}
}

func maps(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// applyData returns data after a write or truncate step.
func applyData(data []byte, st Step) []byte {
	if st.Op == OpTruncate {
		if st.Off <= int64(len(data)) {
			return slices.Clone(data[:st.Off])
		}
		return append(slices.Clone(data), make([]byte, st.Off-int64(len(data)))...)
	}
	end := st.Off + int64(len(st.Data))
	out := slices.Clone(data)
	if end > int64(len(out)) {
		out = append(out, make([]byte, end-int64(len(out)))...)
	}
	copy(out[st.Off:], st.Data)
	return out
}

// version is one content a file can be found with after a crash.
type version struct {
	data []byte
	why  string
}

// versions lists the contents a crash can leave file n with: its synced content and
// each prefix of what was written since, a torn half of each write included.
func versions(n *node) []version {
	out := []version{{n.synced, "lost its unsynced writes"}}
	data := n.synced
	for i, st := range n.pending {
		if st.Op == OpWrite && len(st.Data) > 1 {
			half := st
			half.Data = st.Data[:len(st.Data)/2]
			out = append(out, version{applyData(data, half), fmt.Sprintf("torn in unsynced write %d of %d", i+1, len(n.pending))})
		}
		data = applyData(data, st)
		why := fmt.Sprintf("kept %d of %d unsynced writes", i+1, len(n.pending))
		if i == len(n.pending)-1 {
			why = "kept all its unsynced writes"
		}
		out = append(out, version{data, why})
	}
	// Two prefixes can leave the same bytes (a write of what was there): one is enough.
	var uniq []version
	for _, v := range out {
		if !slices.ContainsFunc(uniq, func(u version) bool { return string(u.data) == string(v.data) }) {
			uniq = append(uniq, v)
		}
	}
	return uniq
}

// crashStates enumerates every combination of a prefix of each folder's unsynced
// changes and a version of each file with unsynced data, and returns the distinct
// states they leave.
func (m *model) crashStates() []State {
	var dirs, files []int
	reachable := map[int]bool{}
	for _, n := range m.nodes {
		if !n.isDir {
			continue
		}
		for _, ino := range n.ents {
			reachable[ino] = true
		}
		for _, es := range n.epend {
			for _, e := range es {
				reachable[e.ino] = true
			}
		}
	}
	var fileVersions = map[int][]version{}
	for ino, n := range m.nodes {
		switch {
		case n.isDir && len(n.epend) > 0:
			dirs = append(dirs, ino)
		case !n.isDir && reachable[ino] && len(n.pending) > 0:
			files = append(files, ino)
			fileVersions[ino] = versions(n)
		}
	}
	sort.Ints(dirs)
	sort.Ints(files)
	// An odometer over the choices: folders first (prefix lengths), then files.
	limits := make([]int, 0, len(dirs)+len(files))
	total := 1
	for _, d := range dirs {
		limits = append(limits, len(m.nodes[d].epend)+1)
	}
	for _, f := range files {
		limits = append(limits, len(fileVersions[f]))
	}
	for _, l := range limits {
		total *= l
		if total > MaxCrashStates {
			panic(fmt.Sprintf("testutil: more than %d crash states (%d folders and %d files with unsynced changes)", MaxCrashStates, len(dirs), len(files)))
		}
	}
	seen := map[string]bool{}
	var out []State
	choice := make([]int, len(limits))
	for {
		kept := map[int]int{}
		for i, d := range dirs {
			kept[d] = choice[i]
		}
		ver := map[int]version{}
		for i, f := range files {
			ver[f] = fileVersions[f][choice[len(dirs)+i]]
		}
		s := m.state(kept, ver)
		if k := stateKey(s); !seen[k] {
			seen[k] = true
			out = append(out, s)
		}
		i := len(choice) - 1
		for ; i >= 0; i-- {
			if choice[i]++; choice[i] < limits[i] {
				break
			}
			choice[i] = 0
		}
		if i < 0 {
			return out
		}
	}
}

// state builds the state where folder d kept its first kept[d] unsynced changes and
// file f has version ver[f]; others are as synced.
func (m *model) state(kept map[int]int, ver map[int]version) State {
	s := State{Files: map[string][]byte{}}
	var why []string
	var walk func(ino int, prefix string, depth int)
	walk = func(ino int, prefix string, depth int) {
		n := m.nodes[ino]
		ents := n.ents
		if k, ok := kept[ino]; ok {
			ents = maps(n.ents)
			for _, es := range n.epend[:k] {
				for _, e := range es {
					if e.ino == 0 {
						delete(ents, e.name)
					} else {
						ents[e.name] = e.ino
					}
				}
			}
			if k < len(n.epend) {
				why = append(why, fmt.Sprintf("folder %q kept %d of %d unsynced changes", "/"+prefix, k, len(n.epend)))
			}
		}
		names := make([]string, 0, len(ents))
		for name := range ents {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			c := m.nodes[ents[name]]
			p := prefix + name
			switch {
			case c.isDir && depth < 64: // a folder found in two places could loop
				s.Dirs = append(s.Dirs, p)
				walk(ents[name], p+"/", depth+1)
			case !c.isDir:
				if v, ok := ver[ents[name]]; ok {
					s.Files[p] = v.data
					why = append(why, fmt.Sprintf("%s %s", p, v.why))
				} else {
					s.Files[p] = c.synced
				}
			}
		}
	}
	walk(rootIno, "", 0)
	s.Why = strings.Join(why, "; ")
	if s.Why == "" {
		s.Why = "nothing unsynced"
	}
	return s
}

func stateKey(s State) string {
	var b strings.Builder
	for _, d := range s.Dirs {
		fmt.Fprintf(&b, "d%d:%s\n", len(d), d)
	}
	names := make([]string, 0, len(s.Files))
	for p := range s.Files {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		fmt.Fprintf(&b, "f%d:%s%d:%s\n", len(p), p, len(s.Files[p]), s.Files[p])
	}
	return b.String()
}

// CrashFs wraps an afero.Fs and records what is done through it in its Recorder:
// creates, writes, truncations, syncs (of files and of folders opened and synced),
// renames, removals and mkdirs. What the base filesystem holds when it is wrapped is
// taken as durable. Modes, owners and times pass through unrecorded. Operations are
// recorded after they succeed, under one lock, so concurrent callers are recorded
// in the order they took effect.
type CrashFs struct {
	afero.Fs
	Rec *Recorder
}

// NewCrashFs wraps base, seeding the Recorder with everything base holds.
func NewCrashFs(base afero.Fs) (*CrashFs, error) {
	rec := NewRecorder()
	err := afero.Walk(base, ".", func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(path.Clean("/"+filepath.ToSlash(p)), "/")
		switch {
		case rel == "" || rel == ".":
		case fi.IsDir():
			rec.Seed(rel+"/", nil)
		case fi.Mode().IsRegular():
			data, err := afero.ReadFile(base, p)
			if err != nil {
				return err
			}
			rec.Seed(rel, data)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &CrashFs{Fs: base, Rec: rec}, nil
}

func (f *CrashFs) Name() string { return "crashfs(" + f.Fs.Name() + ")" }

func (f *CrashFs) Create(name string) (afero.File, error) {
	return f.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

func (f *CrashFs) Open(name string) (afero.File, error) {
	return f.OpenFile(name, os.O_RDONLY, 0)
}

func (f *CrashFs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	r := f.Rec
	r.mu.Lock()
	defer r.mu.Unlock()
	_, existed := r.live.lookup(name)
	h, err := f.Fs.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	if !existed && flag&os.O_CREATE != 0 {
		r.record(r.live.createStep(name))
	}
	ino, ok := r.live.lookup(name)
	if !ok {
		h.Close()
		return nil, fmt.Errorf("crashfs: %s exists in the base filesystem but was not recorded", name)
	}
	if n := r.live.nodes[ino]; existed && flag&os.O_TRUNC != 0 && !n.isDir && len(n.data) > 0 {
		r.record(Step{Op: OpTruncate, Path: name, ino: ino})
	}
	return &crashFile{File: h, fs: f, path: name, ino: ino, append: flag&os.O_APPEND != 0}, nil
}

func (f *CrashFs) Mkdir(name string, perm os.FileMode) error {
	r := f.Rec
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := f.Fs.Mkdir(name, perm); err != nil {
		return err
	}
	r.record(r.live.mkdirStep(name))
	return nil
}

func (f *CrashFs) MkdirAll(name string, perm os.FileMode) error {
	r := f.Rec
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := f.Fs.MkdirAll(name, perm); err != nil {
		return err
	}
	comps := split(name)
	for i := range comps {
		sub := strings.Join(comps[:i+1], "/")
		if _, ok := r.live.lookup(sub); !ok {
			r.record(r.live.mkdirStep(sub))
		}
	}
	return nil
}

func (f *CrashFs) Remove(name string) error {
	r := f.Rec
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := f.Fs.Remove(name); err != nil {
		return err
	}
	d, n := r.live.parent(name)
	r.record(Step{Op: OpRemove, Path: name, ino: r.live.mustLookup(name), dir: d, name: n})
	return nil
}

func (f *CrashFs) RemoveAll(name string) error {
	r := f.Rec
	r.mu.Lock()
	defer r.mu.Unlock()
	_, existed := r.live.lookup(name)
	if err := f.Fs.RemoveAll(name); err != nil {
		return err
	}
	if existed && len(split(name)) > 0 {
		d, n := r.live.parent(name)
		r.record(Step{Op: OpRemove, Path: name, ino: r.live.mustLookup(name), dir: d, name: n})
	}
	return nil
}

func (f *CrashFs) Rename(oldname, newname string) error {
	r := f.Rec
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := f.Fs.Rename(oldname, newname); err != nil {
		return err
	}
	od, on := r.live.parent(oldname)
	nd, nn := r.live.parent(newname)
	r.record(Step{Op: OpRename, Path: oldname, To: newname, ino: r.live.mustLookup(oldname), dir: od, name: on, toDir: nd, toName: nn})
	return nil
}

// LstatIfPossible passes through, so symlink handling sees the base filesystem.
func (f *CrashFs) LstatIfPossible(name string) (os.FileInfo, bool, error) {
	if l, ok := f.Fs.(afero.Lstater); ok {
		return l.LstatIfPossible(name)
	}
	fi, err := f.Fs.Stat(name)
	return fi, false, err
}

// crashFile records the writes and syncs made through one open file. It knows its
// file by identity, so writes after a rename still reach the right one.
type crashFile struct {
	afero.File
	fs     *CrashFs
	path   string // as opened, for the record
	ino    int
	off    int64
	append bool
}

func (h *crashFile) Write(p []byte) (int, error) {
	r := h.fs.Rec
	r.mu.Lock()
	defer r.mu.Unlock()
	if h.append {
		h.off = int64(len(r.live.nodes[h.ino].data))
	}
	n, err := h.File.Write(p)
	if n > 0 {
		r.record(Step{Op: OpWrite, Path: h.path, ino: h.ino, Off: h.off, Data: slices.Clone(p[:n])})
		h.off += int64(n)
	}
	return n, err
}

func (h *crashFile) WriteString(s string) (int, error) { return h.Write([]byte(s)) }

func (h *crashFile) WriteAt(p []byte, off int64) (int, error) {
	r := h.fs.Rec
	r.mu.Lock()
	defer r.mu.Unlock()
	n, err := h.File.WriteAt(p, off)
	if n > 0 {
		r.record(Step{Op: OpWrite, Path: h.path, ino: h.ino, Off: off, Data: slices.Clone(p[:n])})
	}
	return n, err
}

func (h *crashFile) Read(p []byte) (int, error) {
	n, err := h.File.Read(p)
	h.off += int64(n)
	return n, err
}

func (h *crashFile) Seek(offset int64, whence int) (int64, error) {
	n, err := h.File.Seek(offset, whence)
	if err == nil {
		h.off = n
	}
	return n, err
}

func (h *crashFile) Truncate(size int64) error {
	r := h.fs.Rec
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := h.File.Truncate(size); err != nil {
		return err
	}
	r.record(Step{Op: OpTruncate, Path: h.path, ino: h.ino, Off: size})
	return nil
}

func (h *crashFile) Sync() error {
	r := h.fs.Rec
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := h.File.Sync(); err != nil {
		return err
	}
	r.record(Step{Op: OpSync, Path: h.path, ino: h.ino})
	return nil
}

var _ io.WriterAt = (*crashFile)(nil)

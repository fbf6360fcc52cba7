package vfs

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// The snapshot walk: every entry of the workspace as the one walker sees it (.gitignore
// respected unless asked, reserved folders never), with its kind, permission bits,
// identity and, for a regular file, the hash of its content. A file whose identity is
// what the previous snapshot recorded is not opened: its hash is taken from there (a
// stat cache); nor is a symlink's target read again. Anything that is neither a file, a folder nor a symlink is named by
// its kind and never opened.

// The kinds of a snapshot entry.
const (
	KindFile    = "file"
	KindDir     = "dir"
	KindSymlink = "symlink"
	KindFIFO    = "fifo"
	KindSocket  = "socket"
	KindDevice  = "device"
	KindOther   = "other"
)

// Default snapshot limits.
const (
	// DefaultSnapshotMaxFile: a file over this size is recorded by its hash only (its
	// content is not kept, so a change of it cannot be taken back).
	DefaultSnapshotMaxFile = 16 << 20
	// DefaultSnapshotMaxEntries: a workspace with more entries is refused whole.
	DefaultSnapshotMaxEntries = 100_000
)

// Entry is one path of a snapshot.
type Entry struct {
	Path   string   `json:"path"`
	Kind   string   `json:"kind"`
	Mode   uint32   `json:"mode"` // permission bits, with setuid, setgid and sticky
	Size   int64    `json:"size,omitempty"`
	ID     Identity `json:"id"`
	Hash   string   `json:"hash,omitempty"`   // a regular file's content
	Target string   `json:"target,omitempty"` // a symlink's
	// Large: over the snapshot's size limit, hashed but not kept.
	Large bool `json:"large,omitempty"`
}

// ScanOptions bound and shape a snapshot walk.
type ScanOptions struct {
	IncludeIgnored bool
	MaxFile        int64 // 0 is DefaultSnapshotMaxFile
	MaxEntries     int   // 0 is DefaultSnapshotMaxEntries
	// SizeHint is about how many entries the walk will find (the previous snapshot's
	// count): its lists are made that size from the start.
	SizeHint int
}

// Scan is the result of a snapshot walk.
type Scan struct {
	Entries []Entry           // in walk order
	Data    map[string][]byte // hash -> content, of the files read (not those reused)
	Opened  int               // files opened to hash them
	// Unreadable are files (and symlinks) that could not be read, as the walk saw
	// them, without a hash or target: they keep their previous content when they had
	// one, else they are left out.
	Unreadable []Entry
	// Unlisted are the folders that could not be listed (their bits deny it): what
	// they held is unknown, so it keeps its previous entries. The folder itself is
	// in Entries, with its bits.
	Unlisted []string
	// Ignored are the entries .gitignore rules left out (Walker.Ignored).
	Ignored []string
	// Followed are the paths Follow was asked to take though ignored.
	Followed []string
	// Exclude is the .git/info/exclude the walk applied (Walker.Exclude).
	Exclude []byte
	// ExcludeUnused is why the walk did not apply the .git/info/exclude that stands
	// there (Walker.ExcludeUnused).
	ExcludeUnused string
}

// entryKind names what a mode says an entry is.
func entryKind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return KindFile
	case m.IsDir():
		return KindDir
	case m&fs.ModeSymlink != 0:
		return KindSymlink
	case m&fs.ModeNamedPipe != 0:
		return KindFIFO
	case m&fs.ModeSocket != 0:
		return KindSocket
	case m&fs.ModeDevice != 0:
		return KindDevice
	}
	return KindOther
}

// PermBits are the bits of m a snapshot keeps: the permissions, setuid, setgid, sticky
// (as chmod takes them).
func PermBits(m fs.FileMode) uint32 { return syscallMode(m) }

// SameBits reports whether two recorded permission bits are the same as this system
// stores them: Windows keeps only whether a file is read-only, so a create recorded
// 0644 reads back 0666 there.
func SameBits(a, b uint32) bool {
	return a&^0o777 == b&^0o777 && storedMode(fs.FileMode(a&0o777)) == storedMode(fs.FileMode(b&0o777))
}

// FileModeOf is the fs.FileMode of permission bits as PermBits gives them.
func FileModeOf(bits uint32) fs.FileMode {
	m := fs.FileMode(bits & 0o777)
	if bits&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if bits&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if bits&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}

// Snapshot walks the workspace and returns its entries. prev is the previous
// snapshot by path: a regular file whose identity and size it recorded unchanged is
// not opened. The walk first lists every entry, and refuses with the count, before
// opening any file, when there are more than the limit.
func (f *FS) Snapshot(o ScanOptions, prev map[string]Entry) (*Scan, error) {
	return f.SnapshotFrom(o, func(p string) (Entry, bool) {
		e, ok := prev[p]
		return e, ok
	})
}

// SnapshotFrom is Snapshot with the previous snapshot given as a lookup by path.
func (f *FS) SnapshotFrom(o ScanOptions, prev func(p string) (Entry, bool)) (*Scan, error) {
	maxFile, maxEntries := o.MaxFile, o.MaxEntries
	if maxFile <= 0 {
		maxFile = DefaultSnapshotMaxFile
	}
	if maxEntries <= 0 {
		maxEntries = DefaultSnapshotMaxEntries
	}
	// The entries are made as the walk hands them on, into a slice sized from the
	// hint: the walk's entries were copied from one list into another before.
	entries, infos := make([]Entry, 0, o.SizeHint), make([]fs.FileInfo, 0, o.SizeHint)
	count := 0
	var past []string // the paths past the limit, counted by tooMany
	w := f.Walker()
	w.IncludeIgnored = o.IncludeIgnored
	w.WalkAll(".", func(p string, fi fs.FileInfo) {
		// Past the limit the walk only counts, for the refusal to say how many.
		if count++; count <= maxEntries {
			entries = append(entries, Entry{Path: p, Kind: entryKind(fi.Mode()), Mode: PermBits(fi.Mode()), ID: identityOf(fi)})
			infos = append(infos, fi)
		} else {
			past = append(past, topFolder(p))
		}
	})
	if count > maxEntries {
		return nil, tooMany(count, maxEntries, entries, past)
	}
	s := &Scan{Data: map[string][]byte{}, Unlisted: w.Unlisted, Ignored: w.Ignored, Exclude: w.Exclude, ExcludeUnused: w.ExcludeUnused}
	kept := 0 // the entries kept so far, in place
	for i, e := range entries {
		if !utf8.ValidString(e.Path) {
			// Records and replies carry paths as UTF-8 text, where such a name would
			// read as another (U+FFFD for each bad byte), and two such names as one:
			// it is kept under its own bytes as an entry of kind other, named in notes,
			// never opened, restored or removed. What is inside such a folder is left out.
			if utf8.ValidString(path.Dir(e.Path)) {
				e.Kind = KindOther
				entries[kept] = e
				kept++
			}
			continue
		}
		if e, ok := f.content(e, infos[i], prev, maxFile, s); ok {
			entries[kept] = e
			kept++
		}
	}
	s.Entries = entries[:kept]
	return s, nil
}

// content completes entry e of a walk, as fi saw it: a symlink's target, a regular
// file's size and hash (from prev where its identity is unchanged, else read, and its
// content added to s.Data). false: it could not be read, and is in s.Unreadable.
func (f *FS) content(e Entry, fi fs.FileInfo, prev func(p string) (Entry, bool), maxFile int64, s *Scan) (Entry, bool) {
	p := e.Path
	switch e.Kind {
	case KindSymlink:
		// A symlink cannot be changed in place: a new target is a new inode.
		if old, ok := prev(p); ok && old.Kind == KindSymlink && e.ID.SameFile(old.ID) {
			e.Target = old.Target
			break
		}
		t, err := f.readlink(p)
		if err != nil {
			s.Unreadable = append(s.Unreadable, e)
			return e, false
		}
		e.Target = t
		if !utf8.ValidString(t) { // as a name that is not UTF-8
			e.Kind, e.Target = KindOther, ""
		}
	case KindFile:
		e.Size = fi.Size()
		if old, ok := prev(p); ok && old.Kind == KindFile && old.Hash != "" && e.ID.SameFile(old.ID) {
			e.Hash, e.Large = old.Hash, old.Large
			break
		}
		s.Opened++
		if e.Size > maxFile {
			h, err := f.hashFile(p)
			if err != nil {
				s.Unreadable = append(s.Unreadable, e)
				return e, false
			}
			e.Hash, e.Large = h, true
			break
		}
		data, why := f.ReadRegular(p, fi, maxFile)
		switch why {
		case NotSkipped:
			e.Hash = hashOf(data)
			s.Data[e.Hash] = data
		case SkipLarge: // grew since the walk saw it
			h, err := f.hashFile(p)
			if err != nil {
				s.Unreadable = append(s.Unreadable, e)
				return e, false
			}
			e.Hash, e.Large = h, true
		default:
			s.Unreadable = append(s.Unreadable, e)
			return e, false
		}
	}
	return e, true
}

// Follow adds to s, a walk's scan, the regular files at paths (canonical, each once)
// that the walk did not take, as it would have taken them: a file a .gitignore hides
// that the caller follows all the same. A path where no regular file stands now (gone,
// or another kind) is left out; it is Followed either way. prev and maxFile are the
// walk's.
func (f *FS) Follow(s *Scan, paths []string, prev func(p string) (Entry, bool), maxFile int64) {
	if maxFile <= 0 {
		maxFile = DefaultSnapshotMaxFile
	}
	for _, p := range paths {
		s.Followed = append(s.Followed, p)
		fi, err := f.lstat(p)
		if err != nil || !fi.Mode().IsRegular() || !utf8.ValidString(p) {
			continue
		}
		e := Entry{Path: p, Kind: KindFile, Mode: PermBits(fi.Mode()), ID: identityOf(fi)}
		if e, ok := f.content(e, fi, prev, maxFile, s); ok {
			s.Entries = append(s.Entries, e)
		}
	}
}

// tooMany refuses a workspace of count entries, over the limit max, naming the
// top-level folders that hold the most: the way out is to leave them out through
// .gitignore, which every look (exec, checkpoint, run_command) respects. No flag
// raises the limit: a look with another limit than the others would fail the next.
func tooMany(count, max int, entries []Entry, past []string) error {
	per := map[string]int{}
	for _, e := range entries {
		per[topFolder(e.Path)]++
	}
	for _, p := range past {
		per[p]++
	}
	tops := make([]string, 0, len(per))
	for p := range per {
		if p != "" {
			tops = append(tops, p)
		}
	}
	sort.Slice(tops, func(i, j int) bool {
		return per[tops[i]] > per[tops[j]] || per[tops[i]] == per[tops[j]] && tops[i] < tops[j]
	})
	var named []string
	for _, p := range tops[:min(3, len(tops))] {
		named = append(named, fmt.Sprintf("%s/ (%d)", p, per[p]))
	}
	where := ""
	if len(named) > 0 {
		where = " The folders that hold the most: " + strings.Join(named, ", ") + "."
	}
	return errs.New(errs.TooLarge, "", "The workspace holds %d entries, over the snapshot limit of %d; nothing was recorded.%s List what to leave out (build output, dependencies, data) in .gitignore: vfsctl's looks leave out what it ignores.", count, max, where)
}

// topFolder is the top-level folder p is in, "" for an entry of the root.
func topFolder(p string) string {
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

func hashOf(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// HashFile is the hash of the regular file at canonical path p (a snapshot's), read
// without holding it in memory: how a file over the snapshot's size limit is known.
func (f *FS) HashFile(p string) (string, error) { return f.hashFile(p) }

// hashFile hashes a regular file without holding it in memory.
func (f *FS) hashFile(p string) (string, error) {
	h, err := f.fs.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", err
	}
	defer h.Close()
	if fi, err := h.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", p)
	}
	sum := sha256.New()
	if _, err := io.Copy(sum, h); err != nil {
		return "", err
	}
	return hex.EncodeToString(sum.Sum(nil)), nil
}

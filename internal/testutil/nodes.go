package testutil

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
)

// Node is what a walk of a workspace on disk sees of one entry: more than its bytes.
// A file put back as a copy differs from the original in its inode, and often in its
// owner, mode, links, times or extended attributes.
type Node struct {
	Mode     fs.FileMode // type and bits, setuid, setgid and sticky included
	Ino      uint64
	Links    uint64
	Uid, Gid uint32
	Mtime    int64    // nanoseconds; files only (a folder's changes with its entries)
	Sum      string   // SHA-256 of a file's content
	Xattrs   []string // name=value, sorted
}

func (n Node) String() string {
	return fmt.Sprintf("mode %v ino %d links %d owner %d:%d mtime %d sum %.12s xattrs %v", n.Mode, n.Ino, n.Links, n.Uid, n.Gid, n.Mtime, n.Sum, n.Xattrs)
}

// Nodes walks dir on disk and returns every file and folder under it (relative slash
// paths) with its Node. The journal folder .vfsctl/ is left out.
func Nodes(t testing.TB, dir string) map[string]Node {
	t.Helper()
	out := map[string]Node{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel == ".vfsctl" {
			return filepath.SkipDir
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		n := nodeOf(p, fi)
		if fi.Mode().IsRegular() { // (a folder's links follow its subfolders: .vfsctl/ made)
			n.Mtime = fi.ModTime().UnixNano()
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			n.Sum = hex.EncodeToString(sum[:])
			n.Xattrs = xattrsOf(p)
		}
		out[rel] = n
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// SameNodes reports every difference between two walks of Nodes, one line each, in
// path order; nil when they are the same.
func SameNodes(before, after map[string]Node) []string {
	var diff []string
	for _, p := range sortedKeys(before) {
		a, ok := after[p]
		switch {
		case !ok:
			diff = append(diff, p+": gone")
		case !slices.Equal(a.Xattrs, before[p].Xattrs) || a.Mode != before[p].Mode || a.Ino != before[p].Ino ||
			a.Links != before[p].Links || a.Uid != before[p].Uid || a.Gid != before[p].Gid || a.Mtime != before[p].Mtime || a.Sum != before[p].Sum:
			diff = append(diff, fmt.Sprintf("%s: was %v, now %v", p, before[p], a))
		}
	}
	for _, p := range sortedKeys(after) {
		if _, ok := before[p]; !ok {
			diff = append(diff, p+": left behind")
		}
	}
	return diff
}

func sortedKeys(m map[string]Node) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

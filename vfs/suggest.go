package vfs

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/matcher"
)

// suggestLimit bounds the walk for a suggestion, so a missing file in a huge tree
// costs milliseconds, not seconds.
const suggestLimit = 20000

// Suggest returns the existing file nearest to the missing canonical path p: the one
// file whose path differs from p only in case or typography, else the same name in
// another folder, or a path within a few typos. "" if nothing is close, or when
// several files differ from p only in case or typography (Lookalikes names them).
func (f *FS) Suggest(p string) string {
	s, _ := f.suggest(p)
	return s
}

// SuggestAll is Suggest, and when no file is suggested because several differ from
// p only in case or typography, those files' paths.
func (f *FS) SuggestAll(p string) (string, []string) { return f.suggest(p) }

func (f *FS) suggest(p string) (string, []string) {
	base := path.Base(p)
	best, bestScore := "", 1<<30
	key := driftKey(p)
	var same []string // paths that fold to p's: a model's quotes, dashes or case drifted
	w := f.Walker()
	w.IncludeIgnored, w.Limit = true, suggestLimit
	w.Walk(".", func(q string, fi fs.FileInfo) bool {
		if fi.IsDir() || !utf8.ValidString(q) { // a name no call can send (badName)
			return true
		}
		if q != p && driftKey(q) == key {
			same = append(same, q)
		}
		score := -1
		if path.Base(q) == base {
			// Same name, other folder: rank by how far the folders are apart.
			score = distance(path.Dir(q), path.Dir(p))
		} else if d := distance(q, p); d <= max(2, len(p)/6) {
			score = 100 + d
		}
		if score >= 0 && score < bestScore {
			best, bestScore = q, score
		}
		return true
	})
	switch {
	case len(same) == 1:
		return same[0], nil
	case len(same) > 1:
		// Which one was meant is a guess: name them all, suggest none.
		return "", same
	}
	return best, nil
}

// driftKey is a path as Suggest compares it: typography folded as oldText's is, and
// case.
func driftKey(p string) string {
	if isASCII(p) {
		return strings.ToLower(p)
	}
	return strings.ToLower(matcher.FoldTypography(p))
}

// distance is the Levenshtein distance between a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// badName is the name, not UTF-8, of the entry in p's folder that reads as p's name
// once each bad byte is read as U+FFFD, as JSON decodes it; "" if none. No call can
// send such a name: a model that sends what it was shown gets another name.
func (f *FS) badName(p string) string {
	if !strings.ContainsRune(path.Base(p), utf8.RuneError) {
		return ""
	}
	entries, err := afero.ReadDir(f.fs, path.Dir(p))
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if n := e.Name(); !utf8.ValidString(n) && string([]rune(n)) == path.Base(p) {
			return n
		}
	}
	return ""
}

// LookalikesAdvice is what a refusal says of a missing path that several files match
// but for case or typography (SuggestAll): their names, and no guess among them.
func LookalikesAdvice(paths []string) string {
	const shown = 5
	list := strings.Join(paths[:min(len(paths), shown)], ", ")
	if len(paths) > shown {
		list += fmt.Sprintf(" and %d more", len(paths)-shown)
	}
	return fmt.Sprintf("Files whose paths differ from it only in case, quotes, dashes or spaces exist: %s. Send the one you mean as it is.", list)
}

// lookalikeLimit bounds the paths Lookalikes follows at each depth: a folder of
// thousands of names that fold alike is no workspace a model works in.
const lookalikeLimit = 20

// Lookalikes returns the files whose canonical path differs from p only in case or
// typography (as Suggest compares them), p itself left out. It reads only the folders
// along such paths, not the tree, so that every create can afford it.
func (f *FS) Lookalikes(p string) []string {
	parts := strings.Split(p, "/")
	at := []string{"."}
	for k, part := range parts {
		last := k == len(parts)-1
		key := driftKey(part)
		var next []string
		for _, dir := range at {
			names, err := f.readDirNames(dir)
			if err != nil {
				continue
			}
			for _, n := range names {
				if len(next) >= lookalikeLimit || driftKey(n) != key || f.Reserved(n) || IsStaging(n) || !utf8.ValidString(n) {
					continue
				}
				q := path.Join(dir, n)
				if fi, err := f.lstat(q); err == nil && (last && fi.Mode().IsRegular() || !last && fi.IsDir()) {
					next = append(next, q)
				}
			}
		}
		at = next
	}
	out := at[:0]
	for _, q := range at {
		if q != p {
			out = append(out, q)
		}
	}
	slices.Sort(out)
	return out
}

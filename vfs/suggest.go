package vfs

import (
	"io/fs"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/spf13/afero"
)

// suggestLimit bounds the walk for a suggestion, so a missing file in a huge tree
// costs milliseconds, not seconds.
const suggestLimit = 20000

// Suggest returns the existing file nearest to the missing canonical path p: the same
// name in another folder, or a path within a few typos. "" if nothing is close.
func (f *FS) Suggest(p string) string {
	base := path.Base(p)
	best, bestScore := "", 1<<30
	w := f.Walker()
	w.IncludeIgnored, w.Limit = true, suggestLimit
	w.Walk(".", func(q string, fi fs.FileInfo) bool {
		if fi.IsDir() || !utf8.ValidString(q) { // a name no call can send (badName)
			return true
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
	return best
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

package journal

import (
	"fmt"
	"strings"
)

// Anchored is a version of a file whose lines a session was shown with anchors
// ("12:a3|text", tool set hashline): edit_lines names lines of such a version, and
// vfsctl maps them through the changes made since.
type Anchored struct {
	Hash  string   `json:"hash"`
	Spans [][2]int `json:"spans"` // the lines shown (1-based, inclusive), merged
}

// maxAnchored bounds the versions of one file kept per session: a model edits from
// its latest reads, not from a read long gone.
const maxAnchored = 8

// anchorKey sits in the reads bucket beside the session's read state of path; a path
// holds no NUL, so the key cannot be another path's.
func anchorKey(session, path string) []byte { return []byte(session + "\x00" + path + "\x00anchors") }

// AddAnchored records that session was shown the given lines of content hash of path
// with anchors. Lines shown of a version it already holds add up; a new version goes
// first, and the oldest beyond maxAnchored is dropped.
func (t *Tx) AddAnchored(session, path, hash string, spans [][2]int) error {
	if len(spans) == 0 {
		return nil
	}
	list := t.AnchoredVersions(session, path)
	out := []Anchored{{Hash: hash, Spans: append([][2]int(nil), spans...)}}
	for _, a := range list {
		if a.Hash == hash {
			out[0].Spans = append(out[0].Spans, a.Spans...)
			continue
		}
		if len(out) < maxAnchored {
			out = append(out, a)
		}
	}
	out[0].Spans = mergeSpans(out[0].Spans)
	var b strings.Builder
	for i, a := range out {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(a.Hash)
		b.WriteByte(' ')
		for k, s := range a.Spans {
			if k > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%d-%d", s[0], s[1])
		}
	}
	return t.b(bReads).Put(anchorKey(session, path), []byte(b.String()))
}

// AnchoredVersions returns the versions of path session was shown with anchors, the
// newest first. A malformed entry (the journal may have been written by someone
// hostile) is skipped.
func (t *Tx) AnchoredVersions(session, path string) []Anchored {
	v := string(t.b(bReads).Get(anchorKey(session, path)))
	var out []Anchored
	for _, entry := range strings.Split(v, "\n") {
		hash, rest, ok := strings.Cut(entry, " ")
		if !ok || hash == "" {
			continue
		}
		a := Anchored{Hash: hash}
		for _, part := range strings.Split(rest, ",") {
			var s [2]int
			if _, err := fmt.Sscanf(part, "%d-%d", &s[0], &s[1]); err == nil && s[0] >= 1 && s[1] >= s[0] {
				a.Spans = append(a.Spans, s)
			}
		}
		if len(a.Spans) > 0 {
			out = append(out, a)
		}
	}
	return out
}

package journal

import (
	"encoding/hex"
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"
)

// Heads lists every path the journal knows with the hash of its last known content.
func (t *Tx) Heads() map[string]string {
	out := map[string]string{}
	t.b(bHeads).ForEach(func(k, v []byte) error {
		out[string(k)] = string(v)
		return nil
	})
	return out
}

// Problem is one thing Verify found wrong in the journal.
type Problem struct {
	What string `json:"what"` // "blob", "reference", "pending", "bbolt"
	Text string `json:"text"`
}

// Verify checks the journal's own consistency: every blob unpacks and hashes to its
// key, every blob a record or the snapshot claims is stored, nothing is pending, and
// bbolt's check passes. It returns the problems found and how many blobs and records it read.
func (t *Tx) Verify() (problems []Problem, blobs, records int) {
	t.b(bBlobs).ForEach(func(k, v []byte) error {
		blobs++
		v, err := t.blobValue(v)
		if err != nil {
			problems = append(problems, Problem{"blob", fmt.Sprintf("blob %x: %v", k, err)})
			return nil
		}
		data, err := unpack(v)
		switch {
		case err != nil:
			problems = append(problems, Problem{"blob", fmt.Sprintf("blob %x does not unpack: %v", k, err)})
		case Hash(data) != hex.EncodeToString(k):
			problems = append(problems, Problem{"blob", fmt.Sprintf("blob %x holds content with another hash", k)})
		}
		return nil
	})
	has := func(h string) bool {
		key, err := hex.DecodeString(h)
		return err == nil && t.b(bBlobs).Get(key) != nil
	}
	for seq := uint64(1); seq <= t.Last(); seq++ {
		r, err := t.Get(seq)
		if err != nil {
			problems = append(problems, Problem{"record", err.Error()})
			continue
		}
		if r == nil {
			continue
		}
		records++
		if r.ArgsBlob != "" && !has(r.ArgsBlob) {
			problems = append(problems, Problem{"reference", fmt.Sprintf("call %d: its arguments' blob %.12s is missing", seq, r.ArgsBlob)})
		}
		for _, f := range r.Files {
			if f.BeforeBlob && !has(f.Before) {
				problems = append(problems, Problem{"reference", fmt.Sprintf("call %d: the prior content of %s (blob %.12s) is missing", seq, f.Path, f.Before)})
			}
			if f.AfterBlob && !has(f.After) {
				problems = append(problems, Problem{"reference", fmt.Sprintf("call %d: the new content of %s (blob %.12s) is missing", seq, f.Path, f.After)})
			}
		}
		for _, en := range r.Entries {
			if why := badEntry(en); why != "" {
				problems = append(problems, Problem{"record", fmt.Sprintf("call %d: its entry for %q %s; an undo or recovery would not act on it as recorded", seq, en.Path, why)})
			}
		}
	}
	// The snapshot's files are the prior content of the next command's changes: one
	// missing could not be taken back.
	snap := t.Snapshot()
	for _, p := range slices.Sorted(maps.Keys(snap)) {
		if e := snap[p]; e.Kind == "file" && !e.Large && e.Hash != "" && !has(e.Hash) {
			problems = append(problems, Problem{"reference", fmt.Sprintf("snapshot: the content of %s (blob %.12s) is missing; a command's change of it could not be undone", p, e.Hash)})
		}
	}
	pending := t.Pending()
	sort.Slice(pending, func(i, j int) bool { return pending[i] < pending[j] })
	for _, seq := range pending {
		problems = append(problems, Problem{"pending", fmt.Sprintf("call %d is still pending", seq)})
	}
	for err := range t.tx.Check() {
		// bbolt's check reports a page it could not walk as the panic it recovered
		// from: a finding about the file, not a crash of fsck.
		msg := err.Error()
		if rest, ok := strings.CutPrefix(msg, "panic: "); ok {
			msg = "the check could not walk a page: " + rest
		}
		problems = append(problems, Problem{"bbolt", msg})
	}
	return problems, blobs, records
}

// badEntry says what is wrong with a record's folder or symlink entry ("" when
// nothing): a kind the journal does not know, a symlink without a target, a path that
// is not a relative one below the root, or a step that changes nothing.
func badEntry(en Entry) string {
	for _, k := range []string{en.Before, en.After} {
		if k != "" && k != KindDir && k != KindSymlink && !IsSpecial(k) {
			return fmt.Sprintf("names the unknown kind %q", k)
		}
	}
	if (IsSpecial(en.Before) || IsSpecial(en.After)) && en.Ino == 0 {
		return "names a FIFO or socket without its identity"
	}
	switch {
	case en.Before == KindSymlink && en.BeforeTarget == "" || en.After == KindSymlink && en.AfterTarget == "":
		return "names a symlink without its target"
	case en.Path == "" || path.IsAbs(en.Path) || path.Clean(en.Path) != en.Path || en.Path == ".." || strings.HasPrefix(en.Path, "../"):
		return "is not a path inside the workspace"
	case en == Entry{Path: en.Path}:
		return "changes nothing"
	}
	return ""
}

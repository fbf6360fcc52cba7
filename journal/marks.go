package journal

import (
	"bufio"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strconv"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// The marks file (.vfsctl/marks) lists calls whose files were all written: one
// sequence number a line, appended without fsync when a call is acknowledged. Its
// committed mark in bbolt waits for the next transaction (Defer); until then the
// marks file is what tells recovery that the call landed, even if its files changed
// outside vfsctl afterwards (without it recovery could only say that it cannot tell).
//
// Why no fsync is needed: a number is appended only after the call's files and their
// renames were synced, so a mark that survives a power loss speaks of files that did
// too. A mark lost with the page cache leaves recovery to judge by the files, as
// before. Only the process holding the journal writes the file.

// Both side files are written outside bbolt's transactions, and so could be written
// by anyone: a marks file that arrives with a repository, or lines added to it, would
// have recovery take unfinished calls for landed ones, and a temps file would have it
// remove files. So each line carries a tag, an HMAC of the line under a random key
// kept in the journal's meta (made with the journal): a line without a good one is not
// read. Whoever can read journal.db could forge one, but could write the workspace's
// files directly too.

const (
	sideKeyName = "side_key"
	sideKeyLen  = 32
	sideTagLen  = 16 // hex digits of the tag: 64 bits
)

// makeSideKey makes the journal's side-file key and keeps it in meta.
func (j *Journal) makeSideKey(meta *bolt.Bucket) error {
	key := make([]byte, sideKeyLen)
	if _, err := rand.Read(key); err != nil {
		return err
	}
	j.sideKey = key
	return meta.Put([]byte(sideKeyName), key)
}

// sideTag is the tag of line (without its line break) in side file name.
func (j *Journal) sideTag(name, line string) string {
	m := hmac.New(sha256.New, j.sideKey)
	m.Write([]byte(name))
	m.Write([]byte{0})
	m.Write([]byte(line))
	return hex.EncodeToString(m.Sum(nil))[:sideTagLen]
}

// signed is line with its tag, and a line break.
func (j *Journal) signed(name, line string) []byte {
	return []byte(line + " " + j.sideTag(name, line) + "\n")
}

// verified returns the line a signed line of side file name carries, and whether its
// tag is good; a journal without a key verifies nothing. At the open that gives an
// older journal its key, an unsigned line is taken as that journal's own: the older
// vfsctl wrote it, and the journal (whose identity was checked) is this workspace's.
// From the next open on, only signed lines are read.
func (j *Journal) verified(name, text string) (string, bool) {
	if j.legacy && !strings.ContainsRune(text, ' ') {
		return text, true
	}
	i := strings.LastIndexByte(text, ' ')
	if i < 0 || len(j.sideKey) != sideKeyLen {
		return "", false
	}
	line, tag := text[:i], text[i+1:]
	return line, hmac.Equal([]byte(tag), []byte(j.sideTag(name, line)))
}

// maxMarks is the size past which the file is rewritten with only the marks of records
// still pending.
const maxMarks = 64 << 10

// MarkLanded records that every file of call seq was written. The file stays open
// for the rest of the hold, as the temps file does.
func (j *Journal) MarkLanded(seq uint64) error {
	j.tmu.Lock()
	defer j.tmu.Unlock()
	if j.marks == nil {
		if j.dir == nil {
			return errNotAcquired
		}
		f, err := j.dir.open("marks", os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		j.marks = f
	}
	// One write a mark: a crash never leaves half of one glued to the next.
	n, err := j.marks.Write(j.signed("marks", strconv.FormatUint(seq, 10)))
	j.markBytes += n
	return err
}

// trimMarks rewrites the marks file, as the next open would, once a lingering hold
// has appended maxMarks to it: otherwise the first command after a session of
// thousands of calls reads and checks a mark for each. It runs between calls.
func (j *Journal) trimMarks() {
	j.tmu.Lock()
	big := j.markBytes >= maxMarks
	if big {
		j.markBytes = 0
		if j.marks != nil {
			j.marks.Close() // the rewrite replaces the file this one appends to
			j.marks = nil
		}
	}
	j.tmu.Unlock()
	if !big {
		return
	}
	var pending []uint64
	if j.View(func(t *Tx) error { pending = t.Pending(); return nil }) == nil {
		j.compactMarks(pending)
	}
}

// Landed returns the calls the marks file lists.
func (j *Journal) Landed() map[uint64]bool {
	out := map[uint64]bool{}
	if j.dir == nil {
		return out
	}
	f, err := j.dir.open("marks", os.O_RDONLY, 0)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, ok := j.verified("marks", sc.Text())
		if !ok {
			continue // not written by this journal's vfsctl
		}
		if n, err := strconv.ParseUint(line, 10, 64); err == nil {
			out[n] = true
		}
	}
	return out
}

// compactMarks rewrites a large marks file keeping only the marks of pending records.
func (j *Journal) compactMarks(pending []uint64) {
	if j.dir == nil {
		return
	}
	if st, ok := j.dir.stat("marks"); !ok || st.Size < maxMarks {
		return
	}
	landed := j.Landed()
	j.dir.remove("marks.tmp")
	f, err := j.dir.open("marks.tmp", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return
	}
	w := bufio.NewWriter(f)
	for _, seq := range pending {
		if landed[seq] {
			w.Write(j.signed("marks", strconv.FormatUint(seq, 10)))
		}
	}
	w.Flush()
	f.Close()
	j.dir.rename("marks.tmp", "marks")
}

// The temps file (.vfsctl/temps) lists temp files before they are created, appended
// without fsync: new content is staged beside its file while the pending record is
// being made durable, so a crash in between can leave a temp file that no pending
// record points to. The next open removes what it lists.

// NoteTemp records the name of a temp file about to be created. The file stays open
// for the rest of the hold: opening it per call cost more than the note.
func (j *Journal) NoteTemp(name string) {
	j.tmu.Lock()
	defer j.tmu.Unlock()
	if j.temps == nil {
		if j.dir == nil {
			return
		}
		f, err := j.dir.open("temps", os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return
		}
		j.temps, j.tempSize = f, 0
		if st, err := f.Stat(); err == nil {
			j.tempSize = st.Size()
		}
	}
	n, _ := j.temps.Write(j.signed("temps", name))
	j.tempSize += int64(n)
}

// closeTemps closes the temps and marks files at the end of a hold.
func (j *Journal) closeTemps() {
	j.tmu.Lock()
	defer j.tmu.Unlock()
	if j.temps != nil {
		j.temps.Close()
		j.temps = nil
	}
	if j.marks != nil {
		j.marks.Close()
		j.marks = nil
	}
}

// maxTemps is the size past which a lingering hold starts the temps file afresh.
const maxTemps = 64 << 10

// trimTemps starts the temps file afresh when it has grown large during a long hold.
// It runs between calls, when no temp file is staged: every one it lists was renamed
// into place or removed.
func (j *Journal) trimTemps() {
	j.tmu.Lock()
	defer j.tmu.Unlock()
	// The size is counted, not asked of the file: this runs at every Release, and
	// only this process appends to the file during its hold.
	if j.temps != nil && j.tempSize > maxTemps {
		j.temps.Close()
		j.temps = nil
		j.dir.remove("temps")
	}
}

// TakeTemps returns the noted temp files and empties the list. Only the process that
// holds the journal stages files, so at open every noted one is left over.
func (j *Journal) TakeTemps() []string {
	if j.dir == nil {
		return nil
	}
	f, err := j.dir.open("temps", os.O_RDONLY, 0)
	if err != nil {
		return nil
	}
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if name, ok := j.verified("temps", sc.Text()); ok && name != "" {
			out = append(out, name)
		}
	}
	f.Close()
	// Removed, not truncated: on ext4, truncating a file to zero flushes it, which
	// costs a fraction of a millisecond on every open; the next note creates it again.
	j.dir.remove("temps")
	return out
}

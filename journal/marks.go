package journal

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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

// maxMarks is the size past which the file is rewritten with only the marks of records
// still pending.
const maxMarks = 64 << 10

func (j *Journal) marksPath() string { return filepath.Join(filepath.Dir(j.path), "marks") }

// MarkLanded records that every file of call seq was written.
func (j *Journal) MarkLanded(seq uint64) error {
	f, err := os.OpenFile(j.marksPath(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "%d\n", seq)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Landed returns the calls the marks file lists.
func (j *Journal) Landed() map[uint64]bool {
	out := map[uint64]bool{}
	f, err := os.Open(j.marksPath())
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if n, err := strconv.ParseUint(sc.Text(), 10, 64); err == nil {
			out[n] = true
		}
	}
	return out
}

// compactMarks rewrites a large marks file keeping only the marks of pending records.
func (j *Journal) compactMarks(pending []uint64) {
	fi, err := os.Stat(j.marksPath())
	if err != nil || fi.Size() < maxMarks {
		return
	}
	landed := j.Landed()
	tmp := j.marksPath() + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return
	}
	w := bufio.NewWriter(f)
	for _, seq := range pending {
		if landed[seq] {
			fmt.Fprintf(w, "%d\n", seq)
		}
	}
	w.Flush()
	f.Close()
	os.Rename(tmp, j.marksPath())
}

// The temps file (.vfsctl/temps) lists temp files before they are created, appended
// without fsync: new content is staged beside its file while the pending record is
// being made durable, so a crash in between can leave a temp file that no pending
// record points to. The next open removes what it lists.

func (j *Journal) tempsPath() string { return filepath.Join(filepath.Dir(j.path), "temps") }

// NoteTemp records the name of a temp file about to be created.
func (j *Journal) NoteTemp(name string) {
	f, err := os.OpenFile(j.tempsPath(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	fmt.Fprintf(f, "%s\n", name)
	f.Close()
}

// TakeTemps returns the noted temp files and empties the list. Only the process that
// holds the journal stages files, so at open every noted one is left over.
func (j *Journal) TakeTemps() []string {
	f, err := os.Open(j.tempsPath())
	if err != nil {
		return nil
	}
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if sc.Text() != "" {
			out = append(out, sc.Text())
		}
	}
	f.Close()
	// Removed, not truncated: on ext4, truncating a file to zero flushes it, which
	// costs a fraction of a millisecond on every open; the next note creates it again.
	os.Remove(j.tempsPath())
	return out
}

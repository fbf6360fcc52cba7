package journal

import (
	"bufio"
	"fmt"
	"os"
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
	_, err := j.marks.Write(append(strconv.AppendUint(nil, seq, 10), '\n'))
	return err
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
		if n, err := strconv.ParseUint(sc.Text(), 10, 64); err == nil {
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
			fmt.Fprintf(w, "%d\n", seq)
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
		j.temps = f
	}
	fmt.Fprintf(j.temps, "%s\n", name)
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
	if j.temps == nil {
		return
	}
	if st, err := j.temps.Stat(); err == nil && st.Size() > maxTemps {
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
		if sc.Text() != "" {
			out = append(out, sc.Text())
		}
	}
	f.Close()
	// Removed, not truncated: on ext4, truncating a file to zero flushes it, which
	// costs a fraction of a millisecond on every open; the next note creates it again.
	j.dir.remove("temps")
	return out
}

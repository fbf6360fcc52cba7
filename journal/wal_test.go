package journal

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// dump is every bucket's sequence, keys and values: the journal's whole content.
func dump(t *testing.T, j *Journal) string {
	t.Helper()
	var b strings.Builder
	err := j.View(func(tx *Tx) error {
		return tx.tx.ForEach(func(name []byte, bk *bolt.Bucket) error {
			fmt.Fprintf(&b, "bucket %s seq %d\n", name, bk.Sequence())
			return bk.ForEach(func(k, v []byte) error {
				if string(name) == bMeta && (string(k) == "folder" || string(k) == "folder_path" || string(k) == string(logGenKey) || string(k) == sideKeyName) {
					return nil // where the journal is, its log and its side key: differ between two journals
				}
				fmt.Fprintf(&b, "  %s = %s\n", hex.EncodeToString(k), hex.EncodeToString(v))
				return nil
			})
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// randomWrite is write i of a workload: records (new and rewritten), blobs, heads,
// licences, the lazy list (puts and deletes), sequence numbers.
func randomWrite(rng *rand.Rand, i int) func(*Tx) error {
	kind := rng.IntN(5)
	n := rng.IntN(4000)
	return func(t *Tx) error {
		switch kind {
		case 0, 1:
			r := &Record{Time: time.Unix(int64(1e9+i), 0).UTC(), Session: fmt.Sprintf("s%d", i%3), Tool: "edit_file",
				State: Pending, Files: []File{{Path: fmt.Sprintf("f%d.go", i%7), Op: OpEdit, Diff: strings.Repeat("x", n)}}}
			if err := t.Put(r); err != nil {
				return err
			}
			return t.MarkLazy(r.Seq, "")
		case 2:
			if _, err := t.PutBlob(bytes.Repeat([]byte{byte(i)}, n+1)); err != nil {
				return err
			}
			return t.SetHead(fmt.Sprintf("f%d.go", i%7), fmt.Sprintf("%064x", i))
		case 3:
			return t.SetRead(fmt.Sprintf("s%d", i%3), fmt.Sprintf("f%d.go", i%7), fmt.Sprintf("%064x", i))
		default:
			return t.ClearLazy(t.Lazy())
		}
	}
}

// TestLogSurvivesPowerLoss commits a workload through the log, then builds what a
// power loss could leave: the journal file with any mix of the pages written since
// the log's synced state (meta pages torn or not), and the log cut after some frame,
// with garbage after it. Recovery must give exactly the journal that the same writes,
// each synced by bbolt alone, gave up to that frame: the oracle is a second journal
// that never keeps a log.
func TestLogSurvivesPowerLoss(t *testing.T) {
	needXattrs(t)
	rounds := 8 // two of them past a fold; .ci/run: 24
	switch {
	case full():
		rounds = 24
	case raceEnabled:
		rounds = 6
	}
	for round := range rounds {
		t.Run(fmt.Sprint(round), func(t *testing.T) { powerLossRound(t, uint64(round)) })
	}
}

func powerLossRound(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	n := 20 + rng.IntN(60)
	if seed%4 == 3 {
		n = foldEvery + 20 + rng.IntN(40) // past a fold: the log starts again
	}
	writes := make([]func(*Tx) error, n)
	for i := range writes {
		writes[i] = randomWrite(rng, i)
	}

	// The oracle: each write synced by bbolt.
	ref := New(filepath.Join(t.TempDir(), ".vfsctl", "journal.db"), Options{NoSync: true})
	if err := ref.Acquire(); err != nil {
		t.Fatal(err)
	}
	defer ref.Release()
	states := []string{dump(t, ref)}
	for _, w := range writes {
		if err := ref.Update(w); err != nil {
			t.Fatal(err)
		}
		states = append(states, dump(t, ref))
	}

	dir := t.TempDir()
	path := filepath.Join(dir, ".vfsctl", "journal.db")
	j := New(path, Options{Holder: "test"})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	var base []byte // the journal file at the log's last synced state
	var baseAt int  // writes done then
	done, folded, releasing := 0, false, false
	var frameEnds []int64 // where the log's frames end, write by write after baseAt
	testHookLogBase = func() {
		var err error
		if base, err = os.ReadFile(path); err != nil {
			t.Error(err)
		}
		switch {
		case releasing: // the hold ends: the log starts again, for the next one
			baseAt, frameEnds = done, nil
		case j.wal != nil: // a fold, after the frame of the write in progress
			baseAt, folded = done+1, true
		default:
			baseAt = done
		}
	}
	defer func() { testHookLogBase = nil }()
	// Some rounds end the hold part way: the next hold goes on with the log.
	newHold := -1
	if seed%3 == 1 {
		newHold = 5 + rng.IntN(n-10)
	}
	for i, w := range writes {
		if i == newHold {
			releasing = true
			j.Release()
			releasing = false
			if err := j.Acquire(); err != nil {
				t.Fatal(err)
			}
		}
		if err := j.Update(w); err != nil {
			t.Fatal(err)
		}
		done = i + 1
		if i == 0 {
			continue // a new journal's first write is synced by bbolt: the log starts with the second
		}
		if j.wal == nil {
			t.Fatalf("write %d: no log kept", i)
		}
		if folded {
			frameEnds, folded = nil, false
			continue
		}
		frameEnds = append(frameEnds, j.wal.end)
	}
	final, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	logFile, err := os.ReadFile(filepath.Join(dir, ".vfsctl", walName))
	if err != nil {
		t.Fatal(err)
	}
	hdrLen := j.wal.hdrLen
	testHookLogBase = nil // the crash came before this release
	j.Release()

	// The crash: frames up to some write were synced; what follows is garbage.
	keep := rng.IntN(len(frameEnds) + 1)
	cut := hdrLen
	if keep > 0 {
		cut = frameEnds[keep-1]
	}
	crashLog := append([]byte(nil), logFile[:cut]...)
	junk := make([]byte, rng.IntN(900))
	for i := range junk {
		junk[i] = byte(rng.UintN(256))
	}
	if keep < len(frameEnds) && frameEnds[keep] > cut && rng.IntN(2) == 0 {
		junk = logFile[cut : cut+int64(rng.IntN(int(frameEnds[keep]-cut)))] // the next frame, torn
	}
	crashLog = append(crashLog, junk...)
	// The journal file: every 512-byte sector from the base or from the end state.
	size := max(len(base), len(final))
	crashDB := make([]byte, size)
	for off := 0; off < size; off += 512 {
		src := base
		if rng.IntN(2) == 0 {
			src = final
		}
		if off < len(src) {
			copy(crashDB[off:off+512], src[off:])
		}
	}
	writeInPlace(t, path, crashDB) // the same inode: its log key stays
	writeInPlace(t, filepath.Join(dir, ".vfsctl", walName), crashLog)

	j2 := New(path, Options{Holder: "test"})
	if err := j2.Acquire(); err != nil {
		t.Fatalf("reopen after the crash: %v", err)
	}
	defer j2.Release()
	if err := j2.Check(); err != nil {
		t.Fatalf("bbolt's check after recovery: %v", err)
	}
	want := states[baseAt+keep]
	if got := dump(t, j2); got != want {
		gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Logf("line %d: got %.200s, want %.200s", i, gl[i], wl[i])
				break
			}
		}
		t.Fatalf("after recovery the journal is not the state of its %d synced writes (base %d, %d frames kept of %d)", baseAt+keep, baseAt, keep, len(frameEnds))
	}
}

func writeInPlace(t *testing.T, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(data, 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		t.Fatal(err)
	}
}

// TestLogOfAnotherIgnored puts in a journal's folder a live log that this journal's
// vfsctl did not write: one copied from another workspace's journal (a valid log, of
// another key), and the same log with its frames re-signed by a key of its own. The
// journal opens as it was: no meta page is written back, no frame replayed.
func TestLogOfAnotherIgnored(t *testing.T) {
	needXattrs(t)
	// A live log of another journal, with frames that add records.
	other := filepath.Join(t.TempDir(), ".vfsctl", "journal.db")
	jo := New(other, Options{Holder: "test"})
	if err := jo.Acquire(); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 30 {
		if err := jo.Update(randomWrite(rng, i)); err != nil {
			t.Fatal(err)
		}
	}
	if jo.wal == nil {
		t.Fatal("the other journal keeps no log")
	}
	stolen, err := os.ReadFile(filepath.Join(filepath.Dir(other), walName))
	if err != nil {
		t.Fatal(err)
	}
	jo.Release()

	dir := t.TempDir()
	path := filepath.Join(dir, ".vfsctl", "journal.db")
	j := New(path, Options{Holder: "test"})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := j.Update(randomWrite(rng, i)); err != nil {
			t.Fatal(err)
		}
	}
	j.Release()
	before, _ := os.ReadFile(path)
	j2 := New(path, Options{Holder: "test"})
	j2.Acquire()
	want := dump(t, j2)
	j2.Release()

	forged := append([]byte(nil), stolen...)
	key := bytes.Repeat([]byte{7}, 32)
	ps := int(binary.LittleEndian.Uint32(forged[20:]))
	body := forged[:24+2*ps]
	copy(forged[len(body):], mac(key, 'h', body))
	for name, log := range map[string][]byte{"copied": stolen, "signed with a guessed key": forged} {
		t.Run(name, func(t *testing.T) {
			writeInPlace(t, path, before)
			if err := os.WriteFile(filepath.Join(dir, ".vfsctl", walName), log, 0o600); err != nil {
				t.Fatal(err)
			}
			j := New(path, Options{Holder: "test"})
			if err := j.Acquire(); err != nil {
				t.Fatal(err)
			}
			defer j.Release()
			if got := dump(t, j); got != want {
				t.Fatal("a log this journal did not write changed it")
			}
		})
	}
}

// needXattrs skips a test of the log where the file system keeps no extended
// attributes: there the journal keeps no log, and bbolt syncs every commit.
func needXattrs(t *testing.T) {
	p := filepath.Join(t.TempDir(), "probe")
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := walKey(f, true); err != nil {
		t.Skipf("no extended attributes in the temporary folder (%v): no log is kept there", err)
	}
}

// holdWrites acquires j, makes n writes of the workload from index from, and, unless
// crash is set, releases it; with crash set it returns the journal file and the log as
// a crash at that moment would leave them (the page cache being what the disk holds).
func holdWrites(t *testing.T, j *Journal, rng *rand.Rand, from, n int, crash bool) (db, log []byte) {
	t.Helper()
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := j.Update(randomWrite(rng, from+i)); err != nil {
			t.Fatal(err)
		}
	}
	if crash {
		var err error
		if db, err = os.ReadFile(j.path); err != nil {
			t.Fatal(err)
		}
		if log, err = os.ReadFile(filepath.Join(filepath.Dir(j.path), walName)); err != nil {
			t.Fatal(err)
		}
	}
	j.Release()
	return db, log
}

// TestReplacedJournalLeftAlone puts an older copy of journal.db back in place (as
// cp does: the same inode, so the same log key) over a journal whose log is live.
// The log speaks of another state: with no frame it is voided, and the copy opens as
// it is, byte for byte; with frames (a crash, then the copy) the open is refused,
// naming the log, and neither file is written.
func TestReplacedJournalLeftAlone(t *testing.T) {
	needXattrs(t)
	path := filepath.Join(t.TempDir(), ".vfsctl", "journal.db")
	logPath := filepath.Join(filepath.Dir(path), walName)
	rng := rand.New(rand.NewPCG(3, 4))
	j := New(path, Options{Holder: "test"})
	holdWrites(t, j, rng, 0, 3, false)
	backup, _ := os.ReadFile(path)
	j.Acquire()
	want := dump(t, j)
	j.Release()

	t.Run("clean", func(t *testing.T) {
		holdWrites(t, j, rng, 3, 40, false)
		writeInPlace(t, path, backup)
		if err := j.Acquire(); err != nil {
			t.Fatalf("the copy put back does not open: %v", err)
		}
		got := dump(t, j)
		j.Release()
		if got != want {
			t.Fatal("the copy put back opens as another state")
		}
		if now, _ := os.ReadFile(path); !bytes.Equal(now[:8192], backup[:8192]) {
			t.Fatal("the copy's meta pages were written")
		}
	})
	t.Run("frames", func(t *testing.T) {
		_, log := holdWrites(t, j, rng, 43, 20, true)
		writeInPlace(t, path, backup)
		writeInPlace(t, logPath, log)
		err := j.Acquire()
		if err == nil {
			j.Release()
			t.Fatal("a log of another state was replayed over the copy")
		}
		if !strings.Contains(err.Error(), "replaced since") || !strings.Contains(err.Error(), "log wal holds") {
			t.Fatalf("refused with: %v", err)
		}
		if now, _ := os.ReadFile(path); !bytes.Equal(now, backup) {
			t.Fatal("the refused journal was written")
		}
	})
}

// TestLogDamagedInTheMiddle: a frame that does not verify with a valid one after it
// is damage, not a crash's torn end: the open is refused rather than dropping the
// acknowledged commits after it.
func TestLogDamagedInTheMiddle(t *testing.T) {
	needXattrs(t)
	path := filepath.Join(t.TempDir(), ".vfsctl", "journal.db")
	j := New(path, Options{Holder: "test"})
	rng := rand.New(rand.NewPCG(5, 6))
	db, log := holdWrites(t, j, rng, 0, 10, true)
	ps := int(binary.LittleEndian.Uint32(log[20:]))
	first := 24 + 2*ps + 32 // the first frame
	log[first+20+3] ^= 0xff
	writeInPlace(t, path, db)
	writeInPlace(t, filepath.Join(filepath.Dir(path), walName), log)
	err := j.Acquire()
	if err == nil {
		j.Release()
		t.Fatal("a log damaged in the middle was accepted")
	}
	if !strings.Contains(err.Error(), "frame 1 does not verify") {
		t.Fatalf("refused with: %v", err)
	}
}

// TestLogHardLinkRefused: .vfsctl/wal hard-linked to another file is refused, and
// that file is not written.
func TestLogHardLinkRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".vfsctl", "journal.db")
	j := New(path, Options{Holder: "test"})
	holdWrites(t, j, rand.New(rand.NewPCG(7, 8)), 0, 2, false)
	other := filepath.Join(dir, "other.txt")
	os.WriteFile(other, []byte("someone's file\n"), 0o644)
	logPath := filepath.Join(filepath.Dir(path), walName)
	os.Remove(logPath)
	if err := os.Link(other, logPath); err != nil {
		t.Fatal(err)
	}
	err := j.Acquire()
	if err == nil {
		j.Update(randomWrite(rand.New(rand.NewPCG(1, 1)), 0))
		j.Update(randomWrite(rand.New(rand.NewPCG(1, 1)), 1))
		j.Release()
	}
	if got, _ := os.ReadFile(other); string(got) != "someone's file\n" {
		t.Fatalf("the file linked as the log was written: %.40q", got)
	}
	if err == nil || !strings.Contains(err.Error(), "hard link") {
		t.Fatalf("opened with: %v", err)
	}
}

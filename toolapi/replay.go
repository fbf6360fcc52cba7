package toolapi

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/txn"
	"github.com/vfsctl/vfsctl/vfs"
)

// A Replayer runs recorded calls again through today's engine, on the files as they
// were before each call, rebuilt in memory from the journal: nothing on disk changes.
// It is how a change to the matcher is judged against the mistakes real models made.
type Replayer struct {
	src     *txn.Engine
	swap    *swapFs
	eng     *txn.Engine
	api     *API
	dir     string
	release []func()
	cache   map[string][]byte // versions already rebuilt, by hash
}

// ReplayResult compares a recorded call with the same call run today.
type ReplayResult struct {
	Seq          uint64 `json:"seq"`
	Tool         string `json:"tool"`
	Session      string `json:"session"`
	Replayable   bool   `json:"replayable"`
	Why          string `json:"why,omitempty"` // when not replayable
	RecordedOK   bool   `json:"recorded_ok"`
	RecordedKind string `json:"recorded_kind,omitempty"`
	RecordedText string `json:"recorded_text,omitempty"`
	NowOK        bool   `json:"now_ok"`
	NowKind      string `json:"now_kind,omitempty"`
	NowText      string `json:"now_text,omitempty"`
	Same         bool   `json:"same"`
	RecordedDiff string `json:"recorded_diff,omitempty"`
	NowDiff      string `json:"now_diff,omitempty"`
}

// NewReplayer prepares replays of src's journal; Close releases what it holds.
func NewReplayer(src *txn.Engine) (*Replayer, error) {
	dir, err := os.MkdirTemp("", "vfsctl-replay-")
	if err != nil {
		return nil, err
	}
	r := &Replayer{src: src, swap: &swapFs{Fs: afero.NewMemMapFs()}, dir: dir, cache: map[string][]byte{}}
	// The replay journal is scratch: NoSync is safe here, nothing in it outlives us.
	r.eng, err = txn.Open(vfs.New(r.swap, vfs.Options{}), txn.Options{JournalPath: path.Join(dir, "journal.db"), NoSync: true})
	if err != nil {
		r.Close()
		return nil, err
	}
	r.api = New(r.eng)
	for _, e := range []*txn.Engine{src, r.eng} {
		rel, err := e.Hold()
		if err != nil {
			r.Close()
			return nil, err
		}
		r.release = append(r.release, rel)
	}
	return r, nil
}

// Close releases the journals and removes the scratch journal.
func (r *Replayer) Close() {
	for _, rel := range r.release {
		rel()
	}
	r.release = nil
	os.RemoveAll(r.dir)
}

// Replay runs recorded call seq again.
func (r *Replayer) Replay(seq uint64) (*ReplayResult, error) {
	var rec *journal.Record
	var args []byte
	var unbuilt error // a file the journal cannot rebuild as it was
	before := map[string][]byte{}
	hashes := map[string]string{}
	err := r.src.View(func(t *journal.Tx) error {
		var err error
		if rec, err = t.Get(seq); err != nil || rec == nil {
			return err
		}
		args = []byte(rec.Args)
		if rec.ArgsBlob != "" {
			if args, err = t.Blob(rec.ArgsBlob); err != nil {
				return err
			}
		}
		for _, f := range rec.Files {
			if f.Before == "" {
				continue
			}
			data, err := t.ContentCached(f.Path, f.Before, r.cache, seq)
			if err != nil {
				unbuilt = err
				return nil
			}
			before[f.Path], hashes[f.Path] = data, f.Before
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, nil
	}
	res := &ReplayResult{Seq: seq, Tool: rec.Tool, Session: rec.Session, RecordedOK: rec.State == journal.Committed,
		RecordedKind: rec.Kind, RecordedText: rec.Message}
	for _, f := range rec.Files {
		res.RecordedDiff += f.Diff
	}
	switch rec.Tool {
	case "undo", "redo", UndoEdit, "unknown":
		res.Why = "it depends on the journal's history, not only on the files"
		return res, nil
	}
	if rec.State == journal.Pending || rec.State == journal.Unknown {
		res.Why = "its outcome was never settled"
		return res, nil
	}
	if unbuilt != nil {
		res.Why = unbuilt.Error()
		return res, nil
	}
	standIn, why := standInFor(rec)
	if why == "" {
		why = unkeptEarlier(rec, args)
	}
	if why != "" {
		res.Why = why
		return res, nil
	}
	res.Replayable = true
	// The files as they were before the call, and the session's reads of them.
	r.swap.Fs = afero.NewMemMapFs()
	if standIn.path != "" && before[standIn.path] == nil {
		r.swap.MkdirAll(path.Dir(standIn.path), 0o755)
		if standIn.dir {
			r.swap.MkdirAll(standIn.path, 0o755)
		} else {
			afero.WriteFile(r.swap, standIn.path, nil, 0o644)
		}
	}
	for p, data := range before {
		r.swap.MkdirAll(path.Dir(p), 0o755)
		afero.WriteFile(r.swap, p, data, 0o644)
		session := "replay"
		if rec.Kind == string(errs.NotRead) {
			session = "" // the call was refused for want of a read: it gets none
		}
		r.eng.Seed(session, p, hashes[p])
	}
	now := r.api.Call("replay", rec.Tool, json.RawMessage(args))
	res.NowOK, res.NowText = now.OK, now.Text
	if now.Kind != nil {
		res.NowKind = *now.Kind
	}
	res.Same = res.NowOK == res.RecordedOK && res.NowKind == res.RecordedKind
	if res.Same && res.NowOK {
		// The same content: what the replay wrote, hashed from memory.
		for _, f := range rec.Files {
			switch {
			case f.Op == journal.OpDelete:
				_, err := r.swap.Stat(f.Path)
				res.Same = res.Same && err != nil
			case f.Op.Changes():
				data, err := afero.ReadFile(r.swap, f.Path)
				res.Same = res.Same && err == nil && journal.Hash(data) == f.After
			case f.Op == journal.OpDryRun:
				res.Same = res.Same && r.nowAfter(now, f.Path) == f.After
			}
		}
	}
	if !res.Same && now.Txn != nil {
		r.eng.View(func(t *journal.Tx) error {
			if rec, _ := t.Get(uint64(*now.Txn)); rec != nil {
				for _, f := range rec.Files {
					res.NowDiff += f.Diff
				}
			}
			return nil
		})
	}
	return res, nil
}

// standIn is what stood at a path a refusal names, where the record keeps no content
// of it: an empty file or a folder.
type standIn struct {
	path string
	dir  bool
}

// standInFor says what must stand at the refused path for the call to meet what it
// met, or why that cannot be rebuilt. A refusal about what a path was keeps no content
// of it, only its structure: the kind, the path refused (the record's first file: the
// engine notes the refused path before the other paths a call names), and what stood
// there as the message put it. Content never matters to these kinds, so an empty file
// or a folder stands in; what the in-memory files cannot hold (a FIFO, a device, a
// hard link, a symlink loop) or what the record does not say is not rebuilt.
func standInFor(rec *journal.Record) (standIn, string) {
	if rec.State != journal.Failed || len(rec.Files) == 0 || rec.Files[0].Before != "" {
		return standIn{}, ""
	}
	f, msg := rec.Files[0], rec.Message
	cannot := func(what string) (standIn, string) {
		return standIn{}, fmt.Sprintf("%s was %s, which the in-memory rebuild of the files cannot hold", f.Path, what)
	}
	unsaid := func() (standIn, string) {
		return standIn{}, fmt.Sprintf("the record does not say what stood at %s when the call was refused %s", f.Path, rec.Kind)
	}
	switch errs.Kind(rec.Kind) {
	case errs.FileExists:
		return standIn{path: f.Path, dir: strings.Contains(msg, " already exists (a directory)")}, ""
	case errs.NotAFile:
		switch {
		case strings.Contains(msg, " is a directory. "):
			return standIn{path: f.Path, dir: true}, ""
		case strings.Contains(msg, " is a file, not a folder"):
			return standIn{path: f.Path}, ""
		case strings.Contains(msg, "workspace root"):
			return standIn{}, "" // the root stands in any rebuild
		case strings.Contains(msg, " is not a regular file ("):
			what := msg[strings.Index(msg, " is not a regular file (")+len(" is not a regular file ("):]
			if i := strings.IndexByte(what, ')'); i >= 0 {
				return cannot(what[:i])
			}
			return cannot("not a regular file")
		case strings.Contains(msg, " hard links"):
			return cannot("a file with several hard links")
		case strings.Contains(msg, "symlink loop"):
			return cannot("a symlink loop")
		}
		// "P: Q is a file, not a directory.": Q, a folder on the way to P, was a file.
		for q := path.Dir(f.Path); q != "." && q != "/"; q = path.Dir(q) {
			if strings.Contains(msg, " "+q+" is a file, not a directory.") {
				return standIn{path: q}, ""
			}
		}
		return unsaid()
	case errs.PermissionDenied:
		return standIn{}, fmt.Sprintf("permissions are not kept in the record, and the in-memory rebuild of the files has none (%s)", f.Path)
	case errs.TooLarge, errs.BinaryFile:
		if f.Op != journal.OpCreate {
			return unsaid()
		}
	}
	return standIn{}, ""
}

// unkeptEarlier says why a refused apply_changes cannot be rebuilt when a change
// before the refused one edited or wrote a file: that change was planned, so its file
// was read, but the record keeps the content of the refused change's file only.
func unkeptEarlier(rec *journal.Record, args []byte) string {
	if rec.Tool != ApplyChanges || rec.State != journal.Failed {
		return ""
	}
	refused := 0
	if rec.Refusal != nil {
		refused = rec.Refusal.Change
	} else {
		fmt.Sscanf(rec.Message, "changes[%d] (", &refused)
	}
	specs, err := decodeApply(args)
	if err != nil {
		return ""
	}
	for k := 0; k < refused && k < len(specs); k++ {
		if specs[k].Op == journal.OpEdit || specs[k].Op == journal.OpWrite {
			return fmt.Sprintf("changes[%d] read %s, whose content the record does not keep (it keeps the refused change's file only)", k, specs[k].Path)
		}
	}
	return ""
}

// nowAfter is the after-hash the replay's record holds for path (a dry run writes
// nothing to compare).
func (r *Replayer) nowAfter(now Result, path string) string {
	var h string
	if now.Txn != nil {
		r.eng.View(func(t *journal.Tx) error {
			if rec, _ := t.Get(uint64(*now.Txn)); rec != nil {
				for _, f := range rec.Files {
					if f.Path == path {
						h = f.After
					}
				}
			}
			return nil
		})
	}
	return h
}

// swapFs is an afero.Fs whose backing filesystem is replaced for every replay.
type swapFs struct{ afero.Fs }

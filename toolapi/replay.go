package toolapi

import (
	"encoding/json"
	"os"
	"path"

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
				return err
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
	res.Replayable = true
	// The files as they were before the call, and the session's reads of them.
	r.swap.Fs = afero.NewMemMapFs()
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

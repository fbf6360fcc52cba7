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
	api     *dispatcher
	dir     string
	release []func()
	cache   map[string][]byte // versions already rebuilt, by hash
	// runs numbers the replays, each in a session of its own: what one replayed call
	// did (a refusal the syntax guard would give way to when repeated) must not
	// change the outcome of the next.
	runs int
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
	// Absolute paths in the records name the workspace's root: the rebuild answers to them.
	r.eng, err = txn.Open(vfs.New(r.swap, vfs.Options{RootAliases: src.FS().Aliases()}), txn.Options{JournalPath: path.Join(dir, "journal.db"), NoSync: true})
	if err != nil {
		r.Close()
		return nil, err
	}
	r.api = newDispatcher(r.eng)
	r.api.tools = toolTable // each replay offers the tools its record was made under (toolsOf)
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

// Replayer returns a Replayer of this engine's journal; Close releases it.
func (e *Engine) Replayer() (*Replayer, error) { return NewReplayer(e.api.eng) }

// Replay runs recorded call seq again; the result is nil when there is no such call.
func (r *Replayer) Replay(seq uint64) (*ReplayResult, error) {
	in, err := r.load(seq)
	if err != nil || in == nil {
		return nil, err
	}
	res := in.result()
	stand, why := in.notReplayable()
	if why != "" {
		res.Why = why
		return res, nil
	}
	tools, why := toolsOf(in.rec)
	if why != "" {
		res.Why = why
		return res, nil
	}
	res.Replayable = true
	r.runs++
	session := fmt.Sprintf("replay-%d", r.runs)
	r.stage(in, stand, session)
	r.api.tools = tools
	now := r.api.Call(session, in.rec.Tool, json.RawMessage(in.args))
	r.compare(res, in.rec, now)
	if why := unreadMissing(in, now); why != "" {
		res.Replayable, res.Same, res.Why = false, false, why
	}
	return res, nil
}

// toolsOf is the tools the call was offered, by the tool set its record names; a
// record that names none (written before sets were kept) gets every tool, unless it
// was refused as unknown_tool, which depended on the set it does not name.
func toolsOf(rec *journal.Record) ([]*toolDef, string) {
	if rec.Tools == "" {
		if rec.Kind == string(errs.UnknownTool) {
			return nil, "it was refused as unknown_tool, and the record does not say which tool set the runtime offered"
		}
		return toolTable, ""
	}
	tools, err := selectTools(rec.Tools)
	if err != nil {
		return nil, fmt.Sprintf("it was made under the tool set %q, which this vfsctl does not know", rec.Tools)
	}
	return tools, ""
}

// unreadMissing says why a replay that met a missing file is no comparison: the
// recorded call was refused for another reason before it read that file, so the
// record keeps no content of it and does not say whether it existed. The rebuild
// leaves such a file out; it must not pass for a file that was missing.
func unreadMissing(in *replayInput, now Result) string {
	rec := in.rec
	if now.OK || now.Kind == nil || *now.Kind != string(errs.FileNotFound) || rec.State != journal.Failed || rec.Kind == string(errs.FileNotFound) {
		return ""
	}
	for _, f := range rec.Files {
		if f.Before == "" && in.before[f.Path] == nil && strings.Contains(now.Text, f.Path) {
			return fmt.Sprintf("it was refused %s before it read %s, so the record does not say whether that file existed", rec.Kind, f.Path)
		}
	}
	return ""
}

// replayInput is what a replay starts from, as the journal keeps it.
type replayInput struct {
	rec     *journal.Record
	args    []byte            // the arguments as received
	before  map[string][]byte // each file's content before the call, by path
	hashes  map[string]string // and its hash
	unbuilt error             // a file the journal cannot rebuild as it was
	// anchored are, for an edit_lines call, the versions of its file its session had
	// been shown with anchors (Record.Anchored), with their content.
	anchored []txn.AnchoredVersion
}

// load reads record seq, its arguments and the files as they were before it from the
// source journal; it is nil when there is no such record, and nothing is written.
func (r *Replayer) load(seq uint64) (*replayInput, error) {
	in := &replayInput{before: map[string][]byte{}, hashes: map[string]string{}}
	err := r.src.View(func(t *journal.Tx) error {
		var err error
		if in.rec, err = t.Get(seq); err != nil || in.rec == nil {
			return err
		}
		t.Diffs(in.rec)
		in.args = []byte(in.rec.Args)
		if in.rec.ArgsBlob != "" {
			if in.args, err = t.Blob(in.rec.ArgsBlob); err != nil {
				return err
			}
		}
		for _, f := range in.rec.Files {
			if f.Before == "" {
				continue
			}
			data, err := t.ContentCached(f.Path, f.Before, r.cache, seq)
			if err != nil {
				in.unbuilt = err
				return nil
			}
			in.before[f.Path], in.hashes[f.Path] = data, f.Before
		}
		if in.rec.Tool == EditLines && len(in.rec.Files) > 0 {
			p := in.rec.Files[0].Path
			for _, a := range in.rec.Anchored {
				data, err := t.ContentCached(p, a.Hash, r.cache, 0)
				if err != nil || data == nil || journal.Hash(data) != a.Hash {
					in.unbuilt = fmt.Errorf("the version of %s its anchors were read from (%.12s) is no longer in the journal", p, a.Hash)
					return nil
				}
				in.anchored = append(in.anchored, txn.AnchoredVersion{Anchored: a, Data: data})
			}
		}
		return nil
	})
	if err != nil || in.rec == nil {
		return nil, err
	}
	return in, nil
}

// result is the record's side of the comparison; today's side is filled by compare.
func (in *replayInput) result() *ReplayResult {
	rec := in.rec
	res := &ReplayResult{Seq: rec.Seq, Tool: rec.Tool, Session: rec.Session, RecordedOK: rec.State == journal.Committed,
		RecordedKind: rec.Kind, RecordedText: rec.Message}
	for _, f := range rec.Files {
		res.RecordedDiff += f.Diff
	}
	return res
}

// notReplayable says why the call cannot be run again as it was ("" when it can), and
// what must stand at a refused path for it to meet what it met: a call is replayed
// only when the journal rebuilds everything its outcome depended on.
func (in *replayInput) notReplayable() (standIn, string) {
	switch in.rec.Tool {
	case "undo", "redo", "rewind", UndoEdit, "unknown":
		return standIn{}, "it depends on the journal's history, not only on the files"
	}
	if journal.IsCommand(in.rec.Tool) || in.rec.Tool == txn.ToolOutside {
		// A command's outcome depends on the machine (its programs, the network, the
		// clock), and running it again may change things outside the workspace: a
		// replay runs calls on the journal's copy of their files in memory, so it
		// never runs one. vfsctl show N says what it changed.
		return standIn{}, "it ran a command (or recorded changes made outside vfsctl), which a replay never runs again; vfsctl show shows what it changed"
	}
	if in.rec.State == journal.Pending || in.rec.State == journal.Unknown {
		return standIn{}, "its outcome was never settled"
	}
	if d, ok := removedFolder(in.rec); ok {
		return standIn{path: d, dir: true}, "" // the record keeps the folder it removed
	}
	if why := folderCall(in.rec); why != "" {
		return standIn{}, why
	}
	if in.unbuilt != nil {
		return standIn{}, in.unbuilt.Error()
	}
	if in.rec.ArgsSize > len(in.args) {
		// A refused call's arguments over the file size limit are kept cut.
		return standIn{}, fmt.Sprintf("its %d bytes of arguments were refused and the journal keeps only their start", in.rec.ArgsSize)
	}
	stand, why := standInFor(in.rec)
	if why == "" {
		why = unkeptEarlier(in.rec, in.args)
	}
	return stand, why
}

// folderCall says why a call that looked at a folder (file_info of one, delete_file
// of an empty one) cannot be replayed: the journal keeps files, not folders.
func folderCall(rec *journal.Record) string {
	if (rec.Tool == FileInfo || rec.Tool == DeleteFile) && rec.State == journal.Committed && len(rec.Files) == 1 && rec.Files[0].Op == journal.OpRead && rec.Files[0].Before == "" {
		return fmt.Sprintf("it looked at %s, a folder or special file, which the journal does not keep", rec.Files[0].Path)
	}
	return ""
}

// removedFolder is the folder a committed delete_file removed, as its record keeps it
// (Entries): an empty folder stands in for it.
func removedFolder(rec *journal.Record) (string, bool) {
	if rec.Tool != DeleteFile || rec.State != journal.Committed || len(rec.Entries) != 1 {
		return "", false
	}
	en := rec.Entries[0]
	return en.Path, en.Before == journal.KindDir && en.After == ""
}

// stage puts the files as they were before the call in a fresh in-memory filesystem,
// with the session's reads of them: the replayed call sees what the recorded one saw.
func (r *Replayer) stage(in *replayInput, stand standIn, session string) {
	r.swap.Fs = afero.NewMemMapFs()
	if stand.path != "" && in.before[stand.path] == nil {
		r.swap.MkdirAll(path.Dir(stand.path), 0o755)
		if stand.dir {
			r.swap.MkdirAll(stand.path, 0o755)
		} else {
			afero.WriteFile(r.swap, stand.path, nil, 0o644)
		}
	}
	for p, data := range in.before {
		r.swap.MkdirAll(path.Dir(p), 0o755)
		afero.WriteFile(r.swap, p, data, 0o644)
		seen := session
		if in.rec.Kind == string(errs.NotRead) {
			seen = "" // the call was refused for want of a read: it gets none
		}
		r.eng.Seed(seen, p, data)
		switch {
		case in.rec.Tool != EditLines:
		case len(in.anchored) > 0:
			// The versions the call's anchors were read against, as the record keeps
			// them: placed through the same changes, they come to the same outcome.
			r.eng.SeedAnchored(session, p, in.anchored)
		case seen != "":
			// A record made before the versions were kept: the replay takes the
			// anchors to name the file as it stood before the call.
			r.eng.SeedAnchors(seen, p, data)
		}
	}
}

// compare fills today's side of res from now and says whether it is the same outcome:
// the same kind and, for a success, the same content in every file the record names.
func (r *Replayer) compare(res *ReplayResult, rec *journal.Record, now Result) {
	res.NowOK, res.NowText = now.OK, now.Text
	if now.Kind != nil {
		res.NowKind = *now.Kind
	}
	res.Same = res.NowOK == res.RecordedOK && res.NowKind == res.RecordedKind
	if res.Same && res.NowOK {
		res.Same = r.sameContent(rec, now)
	}
	if !res.Same && now.Txn != nil {
		r.eng.View(func(t *journal.Tx) error {
			if rec, _ := t.Get(uint64(*now.Txn)); rec != nil {
				t.Diffs(rec)
				for _, f := range rec.Files {
					res.NowDiff += f.Diff
				}
			}
			return nil
		})
	}
}

// sameContent reports whether the replay left every file as the record says the call
// did, hashing what it wrote in memory.
func (r *Replayer) sameContent(rec *journal.Record, now Result) bool {
	same := true
	for _, f := range rec.Files {
		switch {
		case f.Op == journal.OpDelete:
			_, err := r.swap.Stat(f.Path)
			same = same && err != nil
		case f.Op.Changes():
			data, err := afero.ReadFile(r.swap, f.Path)
			same = same && err == nil && journal.Hash(data) == f.After
		case f.Op == journal.OpDryRun:
			same = same && r.nowAfter(now, f.Path) == f.After
		}
	}
	for _, en := range rec.Entries { // the folders made or removed
		fi, err := r.swap.Stat(en.Path)
		switch en.After {
		case journal.KindDir:
			same = same && err == nil && fi.IsDir()
		case "":
			same = same && err != nil
		}
	}
	return same
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
// there (Refusal.Found; older records said it only in their message). Content never matters to these kinds, so an empty file
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
	if d := rec.Refusal; d != nil && d.Found != "" {
		return standInFound(f.Path, d.Found, d.At, cannot)
	}
	return standInSaid(rec, f, msg, cannot, unsaid)
}

// standInFound rebuilds what stood at path p from the structure the record keeps.
func standInFound(p, found, at string, cannot func(string) (standIn, string)) (standIn, string) {
	if at != "" {
		p = at
	}
	switch found {
	case errs.FoundFile:
		return standIn{path: p}, ""
	case errs.FoundDir:
		return standIn{path: p, dir: true}, ""
	case errs.FoundRoot:
		return standIn{}, "" // the root stands in any rebuild
	case errs.FoundHardLinks:
		return cannot("a file with several hard links")
	case errs.FoundSymlinkLoop:
		return cannot("a symlink loop")
	}
	return cannot(found) // a special file: "a FIFO", "a socket", ...
}

// standInSaid reads what stood at the refused path from the message of a record
// written before records kept it as structure (Refusal.Found): such journals still
// replay as they did.
func standInSaid(rec *journal.Record, f journal.File, msg string, cannot func(string) (standIn, string), unsaid func() (standIn, string)) (standIn, string) {
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
	if (rec.Tool == ApplyPatch || rec.Tool == ApplyDiff) && rec.State == journal.Failed {
		return unkeptInPatch(rec, args)
	}
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
	kept := map[string]bool{} // a guard's refusal keeps every file the call planned
	for _, f := range rec.Files {
		if f.Before != "" {
			kept[path.Clean(f.Path)] = true
		}
	}
	for k := 0; k < refused && k < len(specs); k++ {
		if (specs[k].Op == journal.OpEdit || specs[k].Op == journal.OpWrite) && !kept[path.Clean(specs[k].Path)] {
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

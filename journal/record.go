package journal

import (
	"slices"
	"time"
)

// State is where a record stands.
type State string

const (
	// Pending: written before any file was touched; files may be half-committed.
	Pending State = "pending"
	// Committed: the call succeeded (reads and dry runs included).
	Committed State = "committed"
	// Failed: the call was refused or failed; nothing it meant to write was written.
	Failed State = "failed"
	// RolledBack: recovery found the call half-done after a crash and undid it.
	RolledBack State = "rolled_back"
	// Unknown: recovery found every file of the call changed outside vfsctl since, so
	// whether the call's change landed cannot be told; nothing was undone. An exec
	// whose vfsctl stopped before it recorded the command's changes is Unknown too: its
	// files are what recovery found changed since the command began.
	Unknown State = "unknown"
)

// The origins of a call.
const (
	// OriginModel: a model's tool call (vfsctl call, vfsctl serve, the Go API's Call).
	OriginModel = "model"
	// OriginOperator: an operator's command (vfsctl undo, vfsctl redo, the Go API's
	// Undo); failure analytics count these apart from the models' calls.
	OriginOperator = "operator"
)

// OriginOf is who made the call. A record written before origins were kept is an
// operator's when its tool is one only operators run (undo, redo), else a model's.
func (r *Record) OriginOf() string { return originOf(r.Origin, r.Tool) }

func originOf(origin, tool string) string {
	switch {
	case origin != "":
		return origin
	case tool == "undo" || tool == "redo":
		return OriginOperator
	}
	return OriginModel
}

// MaxInlineArgs is the largest argument object kept inside a record; larger ones are
// stored as a blob and referenced by ArgsBlob.
const MaxInlineArgs = 16 << 10

// MaxDiff bounds the diff text kept per file.
const MaxDiff = 64 << 10

// Record is one tool call.
type Record struct {
	Seq      uint64        `json:"seq"`
	Time     time.Time     `json:"time"`
	Duration time.Duration `json:"duration_ns"`
	Session  string        `json:"session"`
	Tool     string        `json:"tool"`
	// Origin is who made the call: OriginModel, OriginOperator, or a name an embedder
	// chose. Records written before origins were kept have none; OriginOf reads them.
	Origin string `json:"origin,omitempty"`
	// Turn is the runtime's label of the conversation turn the call was made in
	// ("" when it gave none). Turns are ordered by the calls that carry them, never
	// by name: vfsctl rewind reverts a session's turn and every later one.
	Turn string `json:"turn,omitempty"`
	// Tools is the tool set the call was made under (Options.Tools: native, codex,
	// a list, ...), so that a replay offers the same tools; "" in records written
	// before it was kept.
	Tools    string `json:"tools,omitempty"`
	Args     string `json:"args,omitempty"` // byte for byte as received
	ArgsBlob string `json:"args_blob,omitempty"`
	ArgsSize int    `json:"args_size"`
	State    State  `json:"state"`
	Kind     string `json:"kind,omitempty"`
	Message  string `json:"message,omitempty"`
	Files    []File `json:"files,omitempty"`
	// Undo is the call this one reverted (vfsctl undo, undo_edit); Redo is the undo
	// call whose change this one re-applied (vfsctl redo).
	Undo uint64 `json:"undo,omitempty"`
	Redo uint64 `json:"redo,omitempty"`
	// Reverts lists the calls a rewind reverted, newest first (vfsctl rewind).
	Reverts []uint64 `json:"reverts,omitempty"`
	// Exit is how a command ended (tool exec): "exit N", "signal S", or why it did
	// not run or was killed.
	Exit string `json:"exit,omitempty"`
	// Runner is, while an exec's record is pending, the process that runs its
	// command: recovery leaves the record to it while it lives, and records what
	// changed as the exec's (state Unknown) once it is gone. Cleared when settled.
	Runner *Runner `json:"runner,omitempty"`
	// Walk is how an exec's command's changes are looked for, when not by the
	// defaults: recovery walks the workspace with it for an exec whose vfsctl
	// stopped. nil in records written before it was kept: those are walked with the
	// defaults.
	Walk *Walk `json:"walk,omitempty"`
	// Notes say what the call's reply noted (a guard's repair, warning or skip),
	// what recovery did with this record, or what it found.
	Notes []string `json:"notes,omitempty"`
	// Entries are the folders and symlinks a command made, removed or changed (tool
	// exec, outside), or an undo's or a rewind's reversal of such changes.
	Entries []Entry `json:"entries,omitempty"`
	// Refusal is the structure of a matcher's refusal, for failure analytics.
	Refusal *Refusal `json:"refusal,omitempty"`
	// Anchored, on an edit_lines record, is what its anchors were read against: the
	// versions of its file the session had been shown with anchors when the call
	// ran, newest first. A replay places the anchors against the same versions.
	Anchored []Anchored `json:"anchored,omitempty"`
}

// IsCommand reports whether tool's records are a command's run: vfsctl exec's, the
// Go API's Exec and Observe ("exec"), and the run_command tool's. Their files are
// what the command changed, told from the workspace's snapshot; Exit says how it
// ended; Runner, while pending, who runs it.
func IsCommand(tool string) bool { return tool == "exec" || tool == "run_command" }

// Runner is a process running an exec's command, and the machine's boot it runs in
// (a process number names a process only within one boot).
type Runner struct {
	PID  int    `json:"pid"`
	Boot string `json:"boot,omitempty"`
	// Start is when the process started, as the system tells it ("" where it
	// cannot): a number the system gave a process that has ended may name another.
	Start string `json:"start,omitempty"`
	// Group is the process group the command runs in, numbered by its first
	// process (0 until the command started, and on Windows, where the command's
	// job ends with vfsctl), and GroupStart when that process started. The command
	// may outlive the vfsctl that ran it.
	Group      int    `json:"group,omitempty"`
	GroupStart string `json:"group_start,omitempty"`
}

// Walk bounds a walk of the workspace for an exec (txn.LookOptions): a zero limit
// is the default one.
type Walk struct {
	IncludeIgnored bool  `json:"include_ignored,omitempty"`
	MaxFile        int64 `json:"max_file,omitempty"`
	MaxEntries     int   `json:"max_entries,omitempty"`
}

// Refusal is where and how an edit was refused.
type Refusal struct {
	Change    int      `json:"change"`          // index in apply_changes (0 for edit_file)
	Edit      int      `json:"edit"`            // edits[] index at fault, or -1
	Lines     []int    `json:"lines,omitempty"` // the occurrences, or the closest region
	Tiers     []string `json:"tiers,omitempty"` // the match tiers tried
	Closeness float64  `json:"closeness,omitempty"`
	// A guard's finding (syntax_error, placeholder_text): the language, where in the
	// new content, and what the parser flagged.
	Language string `json:"language,omitempty"`
	Column   int    `json:"column,omitempty"`
	Node     string `json:"node,omitempty"`
	// What stood at the path a file_exists or not_a_file refusal names (errs.Found*,
	// or a special file's kind) and where, if not at the refused path: replay
	// rebuilds it from these.
	Found string `json:"found,omitempty"`
	At    string `json:"at,omitempty"`
}

// DryRun reports whether the record is a dry run: nothing was meant to be written.
func (r *Record) DryRun() bool {
	for _, f := range r.Files {
		if f.Op == OpDryRun {
			return true
		}
	}
	return false
}

// Paths lists the files the record names.
func (r *Record) Paths() []string {
	p := make([]string, 0, len(r.Files))
	for _, f := range r.Files {
		p = append(p, f.Path)
	}
	return p
}

// FolderKeys are the folders and symlinks the record made, removed or changed
// (Entries), each as its path with a slash: the key the path index keeps them under,
// apart from files (a file's path never ends in a slash), so that a query for a
// folder or a symlink finds the calls that made it and a walk of a file's calls meets
// only calls that name the file.
func (r *Record) FolderKeys() []string {
	var out []string
	for _, en := range r.Entries {
		if (en.Before == KindDir || en.After == KindDir || en.Before == KindSymlink || en.After == KindSymlink) && !slices.Contains(out, en.Path+"/") {
			out = append(out, en.Path+"/")
		}
	}
	return out
}

// Op is what a call did to one file.
type Op string

const (
	OpRead   Op = "read"
	OpEdit   Op = "edit"
	OpCreate Op = "create"
	OpWrite  Op = "write"
	OpDryRun Op = "dry_run"
	// OpDelete removes the file: After is "" and the prior content is kept as a blob.
	OpDelete Op = "delete"
)

// Changes reports whether the op changes the file on disk.
func (o Op) Changes() bool {
	return o == OpEdit || o == OpCreate || o == OpWrite || o == OpDelete
}

// File is one file of a call. Hashes are hex SHA-256; Before is "" for a file that did
// not exist, After is "" when nothing was written.
type File struct {
	Path       string   `json:"path"`
	Op         Op       `json:"op"`
	Before     string   `json:"before,omitempty"`
	After      string   `json:"after,omitempty"`
	BeforeMode uint32   `json:"before_mode,omitempty"`
	AfterMode  uint32   `json:"after_mode,omitempty"`
	BeforeBlob bool     `json:"before_blob,omitempty"` // the prior content is stored as a blob
	AfterBlob  bool     `json:"after_blob,omitempty"`  // the new content is stored as a blob
	Splices    []Splice `json:"splices,omitempty"`
	Edits      []Edit   `json:"edits,omitempty"` // how each edit matched (edit_file)
	// Made are the folders a created file's write made for it, shallowest first: its
	// undo removes those that are empty then.
	Made []string `json:"made,omitempty"`
	// Aside is where a deleted file is set aside (a name in its own folder) from its
	// removal to the call's commit point: a rollback, or recovery after a crash,
	// renames it back, so that the file returns as the same inode with its owner,
	// mode, links, times and extended attributes; at the commit point it is removed.
	Aside string `json:"aside,omitempty"`
	// From, on a created file, names the deletion of the same record whose file it
	// is, renamed (a move): the file deleted at From, set aside under that deletion's
	// Aside, is renamed to Path, the same inode. A rollback renames it back.
	From string `json:"from,omitempty"`
	// Links, on a deleted file, are the hard links it had (itself included) when it had
	// more than one: its other names keep the file, and its undo puts back a copy, a
	// file of its own, which the undo's reply says.
	Links uint64 `json:"links,omitempty"`
	Diff  string `json:"diff,omitempty"`
	// DiffError says why Diff is "": the journal could not render it (Tx.Diffs), as
	// where it is damaged. It is never stored.
	DiffError string `json:"diff_error,omitempty"`
	// diffOmitted: the record keeps the diff as its splices only (OmitDiff); Diff is
	// "" until Tx.Diffs renders it.
	diffOmitted bool
}

// Splice replaces Old at [Start, Start+len(Old)) of the prior content with New. With
// both sides kept, a change can be redone from the prior content and undone from the
// new content.
type Splice struct {
	Start int    `json:"start"`
	Old   []byte `json:"old"`
	New   []byte `json:"new"`
}

// Edit says how one edit of an edit_file call was matched.
type Edit struct {
	Index        int      `json:"index"`
	Tier         string   `json:"tier"`
	Gutter       bool     `json:"gutter,omitempty"`
	Folded       []string `json:"folded,omitempty"`
	Lines        [][2]int `json:"lines,omitempty"`
	ContextLines int      `json:"context_lines"`
	ContextBytes int      `json:"context_bytes"`
}

// ApplySplices returns prior with the splices applied (redo).
func ApplySplices(prior []byte, sp []Splice) ([]byte, bool) {
	out := make([]byte, 0, len(prior))
	prev := 0
	for _, s := range sp {
		end := s.Start + len(s.Old)
		if s.Start < prev || end > len(prior) || string(prior[s.Start:end]) != string(s.Old) {
			return nil, false
		}
		out = append(out, prior[prev:s.Start]...)
		out = append(out, s.New...)
		prev = end
	}
	return append(out, prior[prev:]...), true
}

// RevertSplices returns the prior content from the content the splices made (undo).
func RevertSplices(after []byte, sp []Splice) ([]byte, bool) {
	out := make([]byte, 0, len(after))
	prev, delta := 0, 0
	for _, s := range sp {
		start := s.Start + delta
		end := start + len(s.New)
		if start < prev || end > len(after) || string(after[start:end]) != string(s.New) {
			return nil, false
		}
		out = append(out, after[prev:start]...)
		out = append(out, s.Old...)
		prev = end
		delta += len(s.New) - len(s.Old)
	}
	return append(out, after[prev:]...), true
}

// Entry is a folder or a symlink at Path as a record changed it: what stood there
// before and after (KindDir "dir", KindSymlink "symlink", or "" for nothing of the
// two: absent, or a file, whose change is the record's File), a symlink's targets, a
// folder's permission bits. A FIFO or socket a command made (KindFIFO, KindSocket) is
// an entry too, with its identity, so that an undo removes that one and no other.
type Entry struct {
	Path         string `json:"path"`
	Before       string `json:"before,omitempty"`
	After        string `json:"after,omitempty"`
	BeforeTarget string `json:"before_target,omitempty"`
	AfterTarget  string `json:"after_target,omitempty"`
	BeforeMode   uint32 `json:"before_mode,omitempty"`
	AfterMode    uint32 `json:"after_mode,omitempty"`
	// Dev, Ino and Ctime are the identity of the FIFO or socket on the side that is
	// one (only one side ever is: a command makes one, its undo removes it): device,
	// inode and change time, which a FIFO written to since, or another made at the
	// path, does not have.
	Dev   uint64 `json:"dev,omitempty"`
	Ino   uint64 `json:"ino,omitempty"`
	Ctime int64  `json:"ctime,omitempty"`
}

// The kinds of entry a record keeps.
const (
	KindDir     = "dir"
	KindSymlink = "symlink"
	KindFIFO    = "fifo"
	KindSocket  = "socket"
)

// IsSpecial reports whether kind is a FIFO or a socket: never opened, never made by
// vfsctl, removed by an undo only while it is the one recorded.
func IsSpecial(kind string) bool { return kind == KindFIFO || kind == KindSocket }

// Reversed is the entry's change taken back.
func (e Entry) Reversed() Entry {
	return Entry{Path: e.Path, Before: e.After, After: e.Before, BeforeTarget: e.AfterTarget, AfterTarget: e.BeforeTarget, BeforeMode: e.AfterMode, AfterMode: e.BeforeMode,
		Dev: e.Dev, Ino: e.Ino, Ctime: e.Ctime}
}

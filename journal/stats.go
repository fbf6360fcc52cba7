package journal

import (
	"sort"
	"strconv"
	"strings"
)

// Stats is what the journal says about the mistakes models make: built one call at a
// time (Tx.Stats), so a journal of any size is read in one pass with bounded memory.
//
// The figures count the calls of models, every origin but OriginOperator: an
// operator's undo, and an operator's command that was refused, are no model's
// mistake. ByOrigin and OperatorByTool count them apart. Outcomes use the journal's
// state names, as vfsctl log and export show them: failed is a refused call; a call
// recovery rolled back or could not settle is counted by its state, not as failed.
// Every list is present, [] when empty.
type Stats struct {
	Calls          int           `json:"calls"`
	Failed         int           `json:"failed"`
	ByTool         []ToolCount   `json:"by_tool"`
	ByKind         []KindCount   `json:"failures_by_kind"`
	Rescues        []Rescue      `json:"rescues"`
	Guards         []GuardCount  `json:"guard_refusals"`
	Recovery       Recovery      `json:"recovery_after_refusal"`
	Padding        Padding       `json:"context_padding"`
	Sessions       []GroupCount  `json:"by_session"`
	Days           []GroupCount  `json:"by_day"`
	ByOrigin       []OriginCount `json:"by_origin"`
	OperatorByTool []ToolCount   `json:"operator_by_tool"`
	// Commands counts the commands run through vfsctl (IsCommand: vfsctl exec, the Go
	// API's Exec and Observe, run_command), of every origin.
	Commands Commands `json:"commands"`

	tools     map[string]*ToolCount
	operators map[string]*ToolCount
	origins   map[string]*OriginCount
	kinds     map[string]*KindCount
	rescues   map[[2]string]int // fold, tool -> edits rescued
	pending   map[[2]string][]string
	attempts  map[int]int
	lines     map[int]int // context lines -> edits (capped)
	bytes     map[int]int // context bytes, in buckets of 16 (capped)
	sessions  map[string]*GroupCount
	days      map[string]*GroupCount
	guarded   []uint64               // the calls a guard refused, to count by language (Tx.Stats)
	commands  []uint64               // the commands' records, read back for how they ended (Tx.Stats)
	changes   func(tool string) bool // Query.ChangesFiles; nil: changesNative
}

// Commands counts commands by how they ended and by how many files they changed.
type Commands struct {
	Runs         int         `json:"runs"`
	FilesChanged int         `json:"files_changed"` // over every run
	ByExit       []ExitCount `json:"by_exit"`
	// ByFiles counts the runs by the files each changed: "0", "1", "2-10", "11+".
	ByFiles map[string]int `json:"by_files_changed"`
}

// ExitCount counts the runs that ended one way: "exit N", "signal S", "timeout",
// "killed" (the caller's context ended), "error" (Observe's function failed), "not
// started", "unknown" (vfsctl stopped before it recorded the end), "running".
type ExitCount struct {
	Exit         string `json:"exit"`
	Runs         int    `json:"runs"`
	FilesChanged int    `json:"files_changed"`
}

// exitClass is the row of ExitCount a command's record counts under.
func exitClass(r *Record) string {
	x := r.Exit
	switch {
	case r.State == Pending:
		return "running"
	case x == "":
		return "unknown"
	case strings.HasPrefix(x, "exit "), strings.HasPrefix(x, "signal "):
		if i := strings.IndexByte(x, ' '); i > 0 {
			if j := strings.IndexByte(x[i+1:], ' '); j > 0 {
				return x[:i+1+j] // "exit 0 (write failed)" counts as exit 0
			}
		}
		return x
	case strings.HasPrefix(x, "killed after the timeout"):
		return "timeout"
	case strings.HasPrefix(x, "killed"):
		return "killed"
	case strings.HasPrefix(x, "not started"):
		return "not started"
	case strings.HasPrefix(x, "error"):
		return "error"
	}
	return "other"
}

// maxCommands bounds the command records read back for how they ended.
const maxCommands = 100000

// countCommands reads back the commands' records: how each ended and the files it
// changed are not among a call's facts.
func (s *Stats) countCommands(t *Tx) {
	rows := map[string]*ExitCount{}
	s.Commands.ByFiles = map[string]int{"0": 0, "1": 0, "2-10": 0, "11+": 0}
	for _, seq := range s.commands {
		r, err := t.Get(seq)
		if err != nil || r == nil {
			continue
		}
		n := 0
		for _, f := range r.Files {
			if f.Op.Changes() {
				n++
			}
		}
		class := exitClass(r)
		row := rows[class]
		if row == nil {
			row = &ExitCount{Exit: class}
			rows[class] = row
		}
		row.Runs++
		row.FilesChanged += n
		s.Commands.Runs++
		s.Commands.FilesChanged += n
		switch {
		case n <= 1:
			s.Commands.ByFiles[strconv.Itoa(n)]++
		case n <= 10:
			s.Commands.ByFiles["2-10"]++
		default:
			s.Commands.ByFiles["11+"]++
		}
	}
	s.Commands.ByExit = []ExitCount{}
	for _, row := range rows {
		s.Commands.ByExit = append(s.Commands.ByExit, *row)
	}
	sort.Slice(s.Commands.ByExit, func(i, j int) bool {
		a, b := s.Commands.ByExit[i], s.Commands.ByExit[j]
		return a.Runs > b.Runs || a.Runs == b.Runs && a.Exit < b.Exit
	})
}

// OriginCount counts the calls of one origin (model, operator, or an embedder's).
type OriginCount struct {
	Origin string `json:"origin"`
	Calls  int    `json:"calls"`
	Failed int    `json:"failed"`
}

// GuardCount counts the calls a guard refused, by kind (syntax_error, placeholder_text)
// and the file's language.
type GuardCount struct {
	Kind     string `json:"kind"`
	Language string `json:"language"`
	Count    int    `json:"count"`
}

// maxGuarded bounds the guard refusals read back for their language.
const maxGuarded = 100000

// ToolCount counts a tool's calls by state; DryRun counts the committed calls that
// were dry runs (vfsctl log shows their state as "dry run").
type ToolCount struct {
	Tool       string `json:"tool"`
	Calls      int    `json:"calls"`
	Committed  int    `json:"committed"`
	Failed     int    `json:"failed"`
	RolledBack int    `json:"rolled_back"`
	Unknown    int    `json:"unknown"`
	Pending    int    `json:"pending"`
	DryRun     int    `json:"dry_run"`
	// Kinds counts the tool's failures by error kind (a model's calls only).
	Kinds map[string]int `json:"failures_by_kind,omitempty"`
}

// count adds one call of state st.
func (t *ToolCount) count(st State, dryRun bool) {
	t.Calls++
	switch st {
	case Committed:
		t.Committed++
		if dryRun {
			t.DryRun++
		}
	case Failed:
		t.Failed++
	case RolledBack:
		t.RolledBack++
	case Unknown:
		t.Unknown++
	case Pending:
		t.Pending++
	}
}

// KindCount counts the failures of one kind, with one real example.
type KindCount struct {
	Kind    string  `json:"kind"`
	Count   int     `json:"count"`
	Share   float64 `json:"share"` // of all failures
	Example Example `json:"example"`
}

// Example is one call of a kind: which, and what it was told.
type Example struct {
	Seq     uint64 `json:"seq"`
	Tool    string `json:"tool"`
	Args    string `json:"args"`
	Message string `json:"message"`
}

// Rescue counts the edits that matched only through one fold, per tool.
type Rescue struct {
	Fold  string `json:"fold"`
	Tool  string `json:"tool"`
	Edits int    `json:"edits"`
}

// Recovery is what followed refused changes: how many were followed by a successful
// call on the same path in the same session, after how many refusals in a row, and
// which kinds were never recovered.
type Recovery struct {
	Refused     int            `json:"refused"`
	Recovered   int            `json:"recovered"`
	Attempts    map[string]int `json:"attempts"` // refusals before the success: "1", "2", "3+"
	NeverByKind map[string]int `json:"never_recovered_by_kind"`
}

// Padding is how many unchanged lines and bytes models send around their changes.
type Padding struct {
	Edits      int `json:"edits"`
	LinesP50   int `json:"lines_p50"`
	LinesP90   int `json:"lines_p90"`
	BytesP50   int `json:"bytes_p50"`
	BytesP90   int `json:"bytes_p90"`
	LinesTotal int `json:"lines_total"`
}

// GroupCount counts the calls of a session or a day.
type GroupCount struct {
	Key     string `json:"key"`
	Calls   int    `json:"calls"`
	Failed  int    `json:"failed"`
	Rescued int    `json:"rescued_edits"`
}

// NewStats returns an empty Stats.
func NewStats() *Stats {
	return &Stats{tools: map[string]*ToolCount{}, operators: map[string]*ToolCount{}, origins: map[string]*OriginCount{}, kinds: map[string]*KindCount{}, rescues: map[[2]string]int{},
		pending: map[[2]string][]string{}, attempts: map[int]int{}, lines: map[int]int{}, bytes: map[int]int{},
		sessions: map[string]*GroupCount{}, days: map[string]*GroupCount{}}
}

const (
	capLines  = 10000
	byteStep  = 16
	capBytes  = 1 << 20
	maxArgsEx = 400
)

// changesNative reports whether a native tool changes files (its refusals can be
// recovered from), for a Query without ChangesFiles.
func changesNative(tool string) bool {
	switch tool {
	case "edit_file", "write_file", "create_file", "apply_changes":
		return true
	}
	return false
}

// add counts one call; calls come oldest first.
func (s *Stats) add(r *fact) {
	failed := r.state == Failed
	if IsCommand(r.tool) && !failed && len(s.commands) < maxCommands {
		s.commands = append(s.commands, r.seq)
	}
	t := s.countOriginAndTool(r)
	if r.origin == OriginOperator {
		return
	}
	s.Calls++
	sess := s.group(s.sessions, r.session)
	day := s.group(s.days, r.time.UTC().Format("2006-01-02"))
	sess.Calls++
	day.Calls++
	if failed {
		s.Failed++
		sess.Failed++
		day.Failed++
		s.countFailure(r, t)
	}
	// Rescues and padding, from how each edit matched.
	if r.state == Committed {
		s.countRescues(r, sess, day)
	}
	// Recovery after refusal, by session and path.
	changes := s.changes
	if changes == nil {
		changes = changesNative
	}
	if changes(r.tool) && !r.undo {
		s.countRecovery(r, failed)
	}
}

// countOriginAndTool counts r under its origin and under its tool (an operator's
// tools apart), and returns that tool's count.
func (s *Stats) countOriginAndTool(r *fact) *ToolCount {
	o := s.origins[r.origin]
	if o == nil {
		o = &OriginCount{Origin: r.origin}
		s.origins[r.origin] = o
	}
	o.Calls++
	if r.state == Failed {
		o.Failed++
	}
	tools := s.tools
	if r.origin == OriginOperator {
		tools = s.operators
	}
	t := tools[r.tool]
	if t == nil {
		t = &ToolCount{Tool: r.tool}
		tools[r.tool] = t
	}
	t.count(r.state, r.dryRun)
	return t
}

// countFailure counts failed call r by its kind (io_error if none), in its tool's
// count t and overall, and keeps r's seq if a guard refused it (up to maxGuarded).
func (s *Stats) countFailure(r *fact, t *ToolCount) {
	kind := r.kind
	if kind == "" {
		kind = "io_error"
	}
	if t.Kinds == nil {
		t.Kinds = map[string]int{}
	}
	t.Kinds[kind]++
	k := s.kinds[kind]
	if k == nil {
		k = &KindCount{Kind: kind, Example: Example{Seq: r.seq, Tool: r.tool}}
		s.kinds[kind] = k
	}
	k.Count++
	if (kind == "syntax_error" || kind == "placeholder_text") && len(s.guarded) < maxGuarded {
		s.guarded = append(s.guarded, r.seq)
	}
}

// countRescues counts committed call r's edits' padding and the folds that
// rescued them, by fold and tool and, per rescued edit, in sess and day.
func (s *Stats) countRescues(r *fact, sess, day *GroupCount) {
	for _, e := range r.edits {
		s.padding(e)
		folds := append([]string(nil), e.folded...)
		if e.tier == "indentation" {
			folds = append(folds, "indentation")
		}
		if e.gutter {
			folds = append(folds, "line-number gutter")
		}
		for _, fold := range folds {
			s.rescues[[2]string{fold, r.tool}]++
		}
		if len(folds) > 0 {
			sess.Rescued++
			day.Rescued++
		}
	}
}

// countRecovery records, per session and path of file-changing call r, a refusal
// as pending, or a real commit as recovering the refusals pending before it.
func (s *Stats) countRecovery(r *fact, failed bool) {
	for _, p := range r.paths {
		key := [2]string{r.session, p}
		switch {
		case failed:
			s.pending[key] = append(s.pending[key], r.kind)
			s.Recovery.Refused++
		case r.state == Committed && !r.dryRun:
			if n := len(s.pending[key]); n > 0 {
				s.Recovery.Recovered += n
				s.attempts[min(n, 3)]++
				delete(s.pending, key)
			}
		}
	}
}

func (s *Stats) group(m map[string]*GroupCount, key string) *GroupCount {
	g := m[key]
	if g == nil {
		g = &GroupCount{Key: key}
		m[key] = g
	}
	return g
}

func (s *Stats) padding(e factEdit) {
	s.Padding.Edits++
	s.Padding.LinesTotal += e.contextLines
	s.lines[min(e.contextLines, capLines)]++
	s.bytes[min(e.contextByt, capBytes)/byteStep]++
}

func clipArgs(a string) string {
	if len(a) > maxArgsEx {
		return a[:maxArgsEx] + "..."
	}
	return a
}

// percentile of a histogram value -> count, for q in (0, 1].
func percentile(h map[int]int, total int, q float64) int {
	if total == 0 {
		return 0
	}
	keys := make([]int, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	need := int(q*float64(total) + 0.9999)
	seen := 0
	for _, k := range keys {
		if seen += h[k]; seen >= need {
			return k
		}
	}
	return keys[len(keys)-1]
}

// Finish turns the counts into the sorted tables.
func (s *Stats) Finish() *Stats {
	s.ByTool, s.OperatorByTool = toolTable(s.tools), toolTable(s.operators)
	if s.Commands.ByExit == nil {
		s.Commands.ByExit, s.Commands.ByFiles = []ExitCount{}, map[string]int{"0": 0, "1": 0, "2-10": 0, "11+": 0}
	}
	s.ByOrigin = []OriginCount{}
	for _, o := range s.origins {
		s.ByOrigin = append(s.ByOrigin, *o)
	}
	sort.Slice(s.ByOrigin, func(i, j int) bool { return s.ByOrigin[i].Origin < s.ByOrigin[j].Origin })
	s.ByKind, s.Rescues, s.Sessions, s.Days = []KindCount{}, []Rescue{}, []GroupCount{}, []GroupCount{}
	if s.Guards == nil {
		s.Guards = []GuardCount{}
	}
	for _, k := range s.kinds {
		k.Share = float64(k.Count) / float64(max(s.Failed, 1))
		s.ByKind = append(s.ByKind, *k)
	}
	sort.Slice(s.ByKind, func(i, j int) bool {
		return s.ByKind[i].Count > s.ByKind[j].Count || s.ByKind[i].Count == s.ByKind[j].Count && s.ByKind[i].Kind < s.ByKind[j].Kind
	})
	for k, n := range s.rescues {
		s.Rescues = append(s.Rescues, Rescue{Fold: k[0], Tool: k[1], Edits: n})
	}
	sort.Slice(s.Rescues, func(i, j int) bool {
		return s.Rescues[i].Edits > s.Rescues[j].Edits || s.Rescues[i].Edits == s.Rescues[j].Edits && s.Rescues[i].Fold+s.Rescues[i].Tool < s.Rescues[j].Fold+s.Rescues[j].Tool
	})
	s.Recovery.Attempts = map[string]int{"1": s.attempts[1], "2": s.attempts[2], "3+": s.attempts[3]}
	s.Recovery.NeverByKind = map[string]int{}
	for _, kinds := range s.pending {
		for _, k := range kinds {
			s.Recovery.NeverByKind[k]++
		}
	}
	s.Padding.LinesP50 = percentile(s.lines, s.Padding.Edits, 0.5)
	s.Padding.LinesP90 = percentile(s.lines, s.Padding.Edits, 0.9)
	s.Padding.BytesP50 = percentile(s.bytes, s.Padding.Edits, 0.5) * byteStep
	s.Padding.BytesP90 = percentile(s.bytes, s.Padding.Edits, 0.9) * byteStep
	for _, m := range []struct {
		src map[string]*GroupCount
		dst *[]GroupCount
	}{{s.sessions, &s.Sessions}, {s.days, &s.Days}} {
		for _, g := range m.src {
			*m.dst = append(*m.dst, *g)
		}
		sort.Slice(*m.dst, func(i, j int) bool { return (*m.dst)[i].Key < (*m.dst)[j].Key })
	}
	return s
}

// toolTable lists the counts most calls first.
func toolTable(m map[string]*ToolCount) []ToolCount {
	out := []ToolCount{}
	for _, t := range m {
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Calls > out[j].Calls || out[i].Calls == out[j].Calls && out[i].Tool < out[j].Tool
	})
	return out
}

// guardsByLanguage counts the guard refusals by kind and language, read back from
// their records: they are few, and the language is not among a call's facts.
func (s *Stats) guardsByLanguage(t *Tx) {
	counts := map[[2]string]int{}
	for _, seq := range s.guarded {
		r, err := t.Get(seq)
		if err != nil || r == nil {
			continue
		}
		lang := "unknown"
		if r.Refusal != nil && r.Refusal.Language != "" {
			lang = r.Refusal.Language
		}
		counts[[2]string{r.Kind, lang}]++
	}
	s.Guards = []GuardCount{}
	for k, n := range counts {
		s.Guards = append(s.Guards, GuardCount{Kind: k[0], Language: k[1], Count: n})
	}
	sort.Slice(s.Guards, func(i, j int) bool {
		a, b := s.Guards[i], s.Guards[j]
		return a.Count > b.Count || a.Count == b.Count && (a.Kind < b.Kind || a.Kind == b.Kind && a.Language < b.Language)
	})
}

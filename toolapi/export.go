package toolapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vfsctl/vfsctl/journal"
)

// ExportSchema names the shape of exported lines; it changes only with a new number.
const ExportSchema = "vfsctl.export/2"

// Export writes the records q selects to w as JSON lines, oldest first, one object per
// call in schema ExportSchema (see docs/operators.md), so that the journals of a fleet of
// workspaces load into a warehouse that already exists. Without a journal it writes
// nothing.
func (e *Engine) Export(q Query, w io.Writer) error {
	if !e.HasJournal() {
		return nil
	}
	out := bufio.NewWriter(w)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	err := e.api.eng.View(func(t *journal.Tx) error {
		var werr error
		err := t.Each(q, func(r *journal.Record) bool {
			args := []byte(r.Args)
			if r.ArgsBlob != "" {
				if args, werr = t.Blob(r.ArgsBlob); werr != nil {
					return false
				}
			}
			werr = enc.Encode(toExport(r, args))
			return werr == nil
		})
		if err == nil {
			err = werr
		}
		return err
	})
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	return err
}

// exportLine is one call in schema vfsctl.export/2. Every field is always present;
// lists are [] when empty, and only kind, args, args_raw, turn and refusal may be null.
type exportLine struct {
	Schema     string          `json:"schema"`
	Seq        uint64          `json:"seq"`
	Time       string          `json:"time"` // RFC 3339, UTC, microseconds
	DurationMS Decimal         `json:"duration_ms"`
	Session    string          `json:"session"`
	Tool       string          `json:"tool"`
	Origin     string          `json:"origin"`
	State      string          `json:"state"`
	Kind       *string         `json:"kind"`
	Message    string          `json:"message"`
	DryRun     bool            `json:"dry_run"`
	Args       json.RawMessage `json:"args"`     // the arguments object; null when they were not one
	ArgsRaw    *string         `json:"args_raw"` // then the arguments as received, as text
	ArgsSize   int             `json:"args_size"`
	Undo       uint64          `json:"undo"`
	Redo       uint64          `json:"redo"`
	Turn       *string         `json:"turn"`    // the runtime's turn label; null when the call had none
	Reverts    []uint64        `json:"reverts"` // the calls a rewind reverted
	Exit       *string         `json:"exit"`    // how a command ended (tool exec); null for other calls
	Files      []exportFile    `json:"files"`
	Entries    []exportEntry   `json:"entries"` // folders and symlinks the call made, removed or changed
	Refusal    *exportRefusal  `json:"refusal"`
	Notes      []string        `json:"notes"`
	Paths      []string        `json:"paths"` // the files and folders the call named, relative to the root, each once
}

// exportTime is the time layout of export: DuckDB and most warehouses read RFC 3339
// with at most six fractional digits as a timestamp.
const exportTime = "2006-01-02T15:04:05.000000Z07:00"

// Decimal is a number written with a fraction always (0.0, not 0): a warehouse that
// infers a column's type from the first lines would read 0 as an integer. Every JSON
// output writes durations (duration_ms) as one.
type Decimal float64

func (d Decimal) MarshalJSON() ([]byte, error) {
	b := strconv.AppendFloat(nil, float64(d), 'f', -1, 64)
	if bytes.IndexByte(b, '.') < 0 {
		b = append(b, ".0"...)
	}
	return b, nil
}

type exportFile struct {
	Path    string       `json:"path"`
	Op      string       `json:"op"`
	Before  string       `json:"before"`
	After   string       `json:"after"`
	Splices int          `json:"splices"`
	Edits   []exportEdit `json:"edits"`
}

// exportEntry is a folder or symlink step, every field present: a warehouse that is
// told the type of the column still needs each key in each row.
type exportEntry struct {
	Path         string `json:"path"`
	Before       string `json:"before"` // "dir", "symlink", "fifo", "socket", "file" or "" (nothing there)
	After        string `json:"after"`
	BeforeTarget string `json:"before_target"`
	AfterTarget  string `json:"after_target"`
	BeforeMode   uint32 `json:"before_mode"`
	AfterMode    uint32 `json:"after_mode"`
	// A FIFO's or socket's identity (device, inode, change time), on its side.
	Dev   uint64 `json:"dev,omitempty"`
	Ino   uint64 `json:"ino,omitempty"`
	Ctime int64  `json:"ctime,omitempty"`
}

type exportEdit struct {
	Index        int      `json:"index"`
	Tier         string   `json:"tier"`
	Gutter       bool     `json:"gutter"`
	Folded       []string `json:"folded"`
	Lines        [][2]int `json:"lines"`
	ContextLines int      `json:"context_lines"`
	ContextBytes int      `json:"context_bytes"`
}

type exportRefusal struct {
	Change    int      `json:"change"`
	Edit      int      `json:"edit"`
	Lines     []int    `json:"lines"`
	Tiers     []string `json:"tiers"`
	Closeness Decimal  `json:"closeness"`
	Language  string   `json:"language"`
	Column    int      `json:"column"`
	Node      string   `json:"node"`
}

// toExport is r in schema vfsctl.export/2, with its arguments as received.
func toExport(r *journal.Record, args []byte) exportLine {
	l := exportLine{Schema: ExportSchema, Seq: r.Seq, Time: TimeJSON(r.Time),
		DurationMS: Millis(r.Duration), Paths: recordPaths(r), Session: r.Session, Tool: r.Tool, Origin: r.OriginOf(),
		State: string(r.State), Message: r.Message, DryRun: r.DryRun(), ArgsSize: r.ArgsSize, Undo: r.Undo, Redo: r.Redo,
		Notes: nonNil(r.Notes), Files: []exportFile{}, Entries: []exportEntry{}, Reverts: nonNil(r.Reverts)}
	for _, e := range r.Entries {
		l.Entries = append(l.Entries, exportEntry(e))
	}
	if r.Exit != "" {
		x := r.Exit
		l.Exit = &x
	}
	if r.Turn != "" {
		t := r.Turn
		l.Turn = &t
	}
	if r.Kind != "" {
		k := r.Kind
		l.Kind = &k
	}
	l.Args, l.ArgsRaw = argsJSON(args)
	for _, f := range r.Files {
		ef := exportFile{Path: f.Path, Op: string(f.Op), Before: f.Before, After: f.After, Splices: len(f.Splices), Edits: []exportEdit{}}
		for _, e := range f.Edits {
			ef.Edits = append(ef.Edits, exportEdit{Index: e.Index, Tier: e.Tier, Gutter: e.Gutter, Folded: nonNil(e.Folded),
				Lines: nonNil(e.Lines), ContextLines: e.ContextLines, ContextBytes: e.ContextBytes})
		}
		l.Files = append(l.Files, ef)
	}
	if d := r.Refusal; d != nil {
		l.Refusal = &exportRefusal{Change: d.Change, Edit: d.Edit, Lines: nonNil(d.Lines), Tiers: nonNil(d.Tiers),
			Closeness: Decimal(d.Closeness), Language: d.Language, Column: d.Column, Node: d.Node}
	}
	return l
}

// argsJSON is the arguments as every JSON output gives them: the object sent, or, when
// they were not one, null and the arguments as received, as text (a line that was not
// JSON, an array): a warehouse looks inside args only if it is always an object.
func argsJSON(args []byte) (json.RawMessage, *string) {
	if isObject(args) {
		if !utf8.Valid(args) {
			// Kept as received, but a JSON line must be UTF-8: decoding and encoding
			// again writes U+FFFD for each invalid byte, as the call itself read them.
			var v any
			json.Unmarshal(args, &v)
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			enc.Encode(v)
			args = bytes.TrimSuffix(b.Bytes(), []byte("\n"))
		}
		return PlainJSON(args), nil
	}
	if len(args) > 0 {
		a := string(args)
		return nil, &a
	}
	return nil, nil
}

// recordPaths lists the files r names, then its folders and symlinks, each once, in
// the record's order. The record keeps them relative to the root, however the call
// sent them (the text editor tool sends absolute paths).
func recordPaths(r *journal.Record) []string {
	paths := []string{}
	all := r.Paths()
	for _, e := range r.Entries {
		all = append(all, e.Path)
	}
	for _, p := range all {
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	return paths
}

// TimeJSON is a time as every JSON output gives it (show, log, export): RFC 3339, UTC,
// with microseconds.
func TimeJSON(t time.Time) string { return t.UTC().Format(exportTime) }

// Millis is a duration as every JSON output gives it: milliseconds, with a fraction.
func Millis(d time.Duration) Decimal { return Decimal(float64(d.Microseconds()) / 1000) }

// RecordJSON is r as show --json gives it: the record's fields, with time, duration
// and args in the shape of every JSON output (time as TimeJSON, duration_ms as Millis,
// args the object sent). Arguments kept as a blob are named by args_blob, args null.
func RecordJSON(r *Record) any {
	out := recordJSON{Record: r, Time: TimeJSON(r.Time), DurationMS: Millis(r.Duration), Paths: recordPaths(r)}
	out.Args, out.ArgsRaw = argsJSON([]byte(r.Args))
	return out
}

// recordJSON shadows the record's fields whose shape differs: an outer field wins
// over the embedded one of the same JSON name.
type recordJSON struct {
	*journal.Record
	Time       string          `json:"time"`
	DurationMS Decimal         `json:"duration_ms"`
	DurationNS *struct{}       `json:"duration_ns,omitempty"` // never set: drops the record's
	Args       json.RawMessage `json:"args"`
	ArgsRaw    *string         `json:"args_raw"`
	Paths      []string        `json:"paths"`
}

// PlainJSON is the JSON text b with the escapes \u0026, \u003c and \u003e put back as
// &, < and >: the same value, as a person reads it. Go's encoder writes them by
// default, and records of commands kept them so (sh -c 'make \u0026\u0026 ./a \u003e out').
func PlainJSON(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u00`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			inString = !inString
		case inString && c == '\\' && i+1 < len(b):
			if i+5 < len(b) && b[i+1] == 'u' {
				switch strings.ToLower(string(b[i+2 : i+6])) {
				case "0026", "003c", "003e":
					n, _ := strconv.ParseUint(string(b[i+2:i+6]), 16, 8)
					out = append(out, byte(n))
					i += 5
					continue
				}
			}
			out = append(out, c, b[i+1]) // an escape pair: \\u0026 is a backslash, then u0026
			i++
			continue
		}
		out = append(out, c)
	}
	return out
}

// isObject reports whether b is one valid JSON object.
func isObject(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

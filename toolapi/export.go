package toolapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strconv"

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
	DurationMS decimal         `json:"duration_ms"`
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
	Files      []exportFile    `json:"files"`
	Refusal    *exportRefusal  `json:"refusal"`
	Notes      []string        `json:"notes"`
}

// exportTime is the time layout of export: DuckDB and most warehouses read RFC 3339
// with at most six fractional digits as a timestamp.
const exportTime = "2006-01-02T15:04:05.000000Z07:00"

// decimal is a number written with a fraction always (0.0, not 0): a warehouse that
// infers a column's type from the first lines would read 0 as an integer.
type decimal float64

func (d decimal) MarshalJSON() ([]byte, error) {
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
	Closeness decimal  `json:"closeness"`
	Language  string   `json:"language"`
	Column    int      `json:"column"`
	Node      string   `json:"node"`
}

// toExport is r in schema vfsctl.export/2, with its arguments as received.
func toExport(r *journal.Record, args []byte) exportLine {
	l := exportLine{Schema: ExportSchema, Seq: r.Seq, Time: r.Time.UTC().Format(exportTime),
		DurationMS: decimal(float64(r.Duration.Microseconds()) / 1000), Session: r.Session, Tool: r.Tool, Origin: r.OriginOf(),
		State: string(r.State), Message: r.Message, DryRun: r.DryRun(), ArgsSize: r.ArgsSize, Undo: r.Undo, Redo: r.Redo,
		Notes: nonNil(r.Notes), Files: []exportFile{}, Reverts: nonNil(r.Reverts)}
	if r.Turn != "" {
		t := r.Turn
		l.Turn = &t
	}
	if r.Kind != "" {
		k := r.Kind
		l.Kind = &k
	}
	// A warehouse looks inside args only if it is always an object: anything else a
	// call sent (a line that was not JSON, an array) goes to args_raw as text.
	if isObject(args) {
		l.Args = args
	} else if len(args) > 0 {
		a := string(args)
		l.ArgsRaw = &a
	}
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
			Closeness: decimal(d.Closeness), Language: d.Language, Column: d.Column, Node: d.Node}
	}
	return l
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

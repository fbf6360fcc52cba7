package toolapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/txn"
)

// Limits on arguments, so that a malformed call is refused before it costs anything.
const (
	maxDepth   = 32  // nesting of JSON arrays and objects
	maxEdits   = 200 // edits in one call
	maxArgSize = 64 << 20
)

type args struct {
	tool string
	m    map[string]json.RawMessage
}

// parseArgs checks that raw is one JSON object of bounded size and depth.
func parseArgs(tool string, raw json.RawMessage) (*args, error) {
	if len(raw) > maxArgSize {
		return nil, errs.New(errs.TooLarge, "", "%s arguments are %d bytes; at most %d are accepted.", tool, len(raw), maxArgSize)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	if d := depth(raw); d > maxDepth {
		return nil, errs.New(errs.InvalidInput, "", "%s arguments are nested %d levels deep; send a flat object such as %s.", tool, d, shape(tool))
	}
	if raw[0] != '{' {
		return nil, errs.New(errs.InvalidInput, "", "%s arguments must be a JSON object such as %s.", tool, shape(tool))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, errs.New(errs.InvalidInput, "", "%s arguments are not valid JSON (%v). Send an object such as %s.", tool, err, shape(tool))
	}
	if k, where := DuplicateKey(raw); k != "" {
		return nil, errs.New(errs.InvalidInput, "", "%s arguments name the key %s twice%s; JSON would silently keep only the last. Send each key once.", tool, quoteKey(k), where)
	}
	return &args{tool: tool, m: m}, nil
}

// DuplicateKey returns the first key that appears twice in one object of the JSON
// value raw, at any depth, with " inside a nested object" when it is not at the top.
// Go's decoder keeps the last of duplicates silently; the model meant one of them.
func DuplicateKey(raw []byte) (string, string) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	type frame struct {
		obj     bool
		keys    map[string]bool
		wantKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", ""
		}
		var top *frame
		if n := len(stack); n > 0 {
			top = stack[n-1]
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if top != nil && top.obj {
					top.wantKey = true // this value ends a key-value pair
				}
				stack = append(stack, &frame{obj: t == '{', keys: map[string]bool{}, wantKey: true})
			default:
				stack = stack[:len(stack)-1]
			}
			continue
		case string:
			if top != nil && top.obj && top.wantKey {
				if top.keys[t] {
					where := ""
					if len(stack) > 1 {
						where = " inside a nested object"
					}
					return t, where
				}
				top.keys[t] = true
				top.wantKey = false
				continue
			}
		}
		if top != nil && top.obj {
			top.wantKey = true
		}
	}
}

// depth is the deepest nesting of arrays and objects in raw, strings skipped.
func depth(raw []byte) int {
	d, maxD := 0, 0
	in, esc := false, false
	for _, c := range raw {
		switch {
		case in && esc:
			esc = false
		case in && c == '\\':
			esc = true
		case in && c == '"':
			in = false
		case in:
		case c == '"':
			in = true
		case c == '{' || c == '[':
			d++
			maxD = max(maxD, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return maxD
}

// take removes a field, under its canonical name or an alias, and returns its value.
func (a *args) take(where string, m map[string]json.RawMessage, names ...string) (json.RawMessage, string, error) {
	var got json.RawMessage
	used := ""
	for _, n := range names {
		if v, ok := m[n]; ok {
			if used != "" {
				return nil, "", errs.New(errs.InvalidInput, "", "%s has both %s and %s; send only %s.", where, used, n, names[0])
			}
			got, used = v, n
			delete(m, n)
		}
	}
	return got, used, nil
}

func (a *args) rest(where string, m map[string]json.RawMessage, allowed string) error {
	if len(m) == 0 {
		return nil
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	field := "field"
	if len(keys) > 1 {
		field = "fields"
	}
	return errs.New(errs.InvalidInput, "", "%s has unknown %s %s. Send only %s.", where, field, quoteList(keys), allowed)
}

// Bounds on the keys a message quotes back: the model needs to recognize its mistake,
// not to read it again whole.
const (
	maxQuotedKeys    = 5
	maxQuotedKeyRune = 40
)

// quoteList quotes the first few keys, each bounded, and counts the rest.
func quoteList(k []string) string {
	q := make([]string, 0, maxQuotedKeys+1)
	for i, s := range k {
		if i == maxQuotedKeys {
			q = append(q, fmt.Sprintf("and %d more", len(k)-i))
			break
		}
		q = append(q, quoteKey(s))
	}
	return strings.Join(q, ", ")
}

// quoteKey quotes a key on one line, cut to maxQuotedKeyRune characters.
func quoteKey(k string) string {
	if r := []rune(k); len(r) > maxQuotedKeyRune {
		return fmt.Sprintf("%q... (%d bytes)", string(r[:maxQuotedKeyRune]), len(k))
	}
	return fmt.Sprintf("%q", k)
}

func jsonType(raw json.RawMessage) string {
	switch {
	case len(raw) == 0:
		return "nothing"
	case raw[0] == '"':
		return "a string"
	case raw[0] == '{':
		return "an object"
	case raw[0] == '[':
		return "an array"
	case raw[0] == 't' || raw[0] == 'f':
		return "a boolean"
	case raw[0] == 'n':
		return "null"
	}
	return "a number"
}

func (a *args) str(where, field string, raw json.RawMessage, required bool) (string, bool, error) {
	if raw == nil {
		if required {
			return "", false, errs.New(errs.InvalidInput, "", "%s is missing %s (a string). Send e.g. %s.", where, field, shape(a.tool))
		}
		return "", false, nil
	}
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false, errs.New(errs.InvalidInput, "", "%s.%s must be a string, not %s.", where, field, jsonType(raw))
	}
	return s, true, nil
}

// absent reports whether an optional field was left out: missing, or null (how
// strict function-calling modes send an optional field the model did not set).
func absent(raw json.RawMessage) bool {
	return raw == nil || string(bytes.TrimSpace(raw)) == "null"
}

func (a *args) boolean(where, field string, raw json.RawMessage) (bool, error) {
	if absent(raw) {
		return false, nil
	}
	var b bool
	if json.Unmarshal(raw, &b) != nil {
		return false, errs.New(errs.InvalidInput, "", "%s.%s must be true or false, not %s.", where, field, jsonType(raw))
	}
	return b, nil
}

func (a *args) positive(field string, raw json.RawMessage) (int, error) {
	if absent(raw) {
		return 0, nil
	}
	// A whole number sent as a string ("2") or with a zero fraction (2.0) is a common
	// slip with one meaning; anything else is refused.
	text := string(bytes.TrimSpace(raw))
	if len(text) >= 2 && text[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			text = strings.TrimSpace(s)
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || f != math.Trunc(f) || f < 1 || f > 1<<31 {
		return 0, errs.New(errs.InvalidInput, "", "%s.%s must be a whole number of 1 or more, not %s.", a.tool, field, string(truncate(raw, 40)))
	}
	return int(f), nil
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return append(b[:n:n], "..."...)
	}
	return b
}

// path takes the path field (file_path and filePath are accepted for it).
func (a *args) path() (string, error) {
	raw, _, err := a.take(a.tool, a.m, "path", "file_path", "filePath")
	if err != nil {
		return "", err
	}
	p, _, err := a.str(a.tool, "path", raw, true)
	return p, err
}

func shape(tool string) string {
	switch tool {
	case ReadFile:
		return `{"path": "src/app.ts"}`
	case EditFile:
		return `{"path": "src/app.ts", "edits": [{"oldText": "exact old lines", "newText": "new lines"}]}`
	case CreateFile, WriteFile:
		return `{"path": "src/app.ts", "content": "..."}`
	case ApplyChanges:
		return `{"changes": [{"path": "a.ts", "edits": [{"oldText": "...", "newText": "..."}]}, {"path": "b.ts", "create": "..."}]}`
	}
	return "{}"
}

var (
	oldNames = []string{"oldText", "old_string", "old_str", "search", "oldString", "old_text"}
	newNames = []string{"newText", "new_string", "new_str", "replace", "newString", "new_text"}
	allNames = []string{"replaceAll", "replace_all"}
)

type editArgs struct {
	path   string
	edits  []matcher.Edit
	dryRun bool
}

func decodeEdit(raw json.RawMessage) (*editArgs, error) {
	a, err := parseArgs(EditFile, raw)
	if err != nil {
		return nil, err
	}
	out := &editArgs{}
	if out.path, err = a.path(); err != nil {
		return nil, err
	}
	dr, _, err := a.take(EditFile, a.m, "dryRun", "dry_run")
	if err != nil {
		return nil, err
	}
	if out.dryRun, err = a.boolean(EditFile, "dryRun", dr); err != nil {
		return nil, err
	}
	editsRaw, _, err := a.take(EditFile, a.m, "edits")
	if err != nil {
		return nil, err
	}
	// A lone top-level oldText/newText is one edit.
	var lone map[string]json.RawMessage
	for _, n := range append(append(append([]string{}, oldNames...), newNames...), allNames...) {
		if v, ok := a.m[n]; ok {
			if lone == nil {
				lone = map[string]json.RawMessage{}
			}
			lone[n] = v
			delete(a.m, n)
		}
	}
	if err := a.rest(EditFile, a.m, "path, edits and dryRun"); err != nil {
		return nil, err
	}
	switch {
	case editsRaw != nil && lone != nil:
		return nil, errs.New(errs.InvalidInput, "", "edit_file has both edits and a top-level oldText/newText; put every change in edits.")
	case lone != nil:
		e, err := a.edit("edit_file", lone)
		if err != nil {
			return nil, err
		}
		out.edits = []matcher.Edit{e}
		return out, nil
	case editsRaw == nil:
		return nil, errs.New(errs.InvalidInput, "", "edit_file is missing edits. Send e.g. %s.", shape(EditFile))
	}
	list, err := a.editList(editsRaw)
	if err != nil {
		return nil, err
	}
	out.edits = list
	return out, nil
}

// editList accepts edits as an array, as one object, or as either sent inside a JSON
// string (a common slip of models that serialize nested arguments twice).
func (a *args) editList(raw json.RawMessage) ([]matcher.Edit, error) {
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, errs.New(errs.InvalidInput, "", "edits is a malformed string. Send edits as an array: [{\"oldText\": ..., \"newText\": ...}].")
		}
		inner := bytes.TrimSpace([]byte(s))
		if len(inner) == 0 || (inner[0] != '[' && inner[0] != '{') || !json.Valid(inner) || depth(inner) > maxDepth {
			return nil, errs.New(errs.InvalidInput, "", "edits was sent as a string that is not a JSON array of edits. Send edits as an array: [{\"oldText\": ..., \"newText\": ...}].")
		}
		raw = inner
	}
	var items []json.RawMessage
	switch raw[0] {
	case '{':
		items = []json.RawMessage{raw}
	case '[':
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, errs.New(errs.InvalidInput, "", "edits is not a valid array (%v).", err)
		}
	default:
		return nil, errs.New(errs.InvalidInput, "", "edits must be an array of {oldText, newText} objects, not %s.", jsonType(raw))
	}
	if len(items) == 0 {
		return nil, errs.New(errs.InvalidInput, "", "edits is empty. Send at least one {oldText, newText}.")
	}
	if len(items) > maxEdits {
		return nil, errs.New(errs.InvalidInput, "", "edits has %d entries; at most %d are accepted in one call.", len(items), maxEdits)
	}
	out := make([]matcher.Edit, len(items))
	for i, it := range items {
		where := fmt.Sprintf("edits[%d]", i)
		if len(it) == 0 || it[0] != '{' {
			return nil, errs.New(errs.InvalidInput, "", "%s must be an object {\"oldText\": ..., \"newText\": ...}, not %s.", where, jsonType(it))
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(it, &m); err != nil {
			return nil, errs.New(errs.InvalidInput, "", "%s is not a valid object (%v).", where, err)
		}
		e, err := a.edit(where, m)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

func (a *args) edit(where string, m map[string]json.RawMessage) (matcher.Edit, error) {
	var e matcher.Edit
	o, _, err := a.take(where, m, oldNames...)
	if err != nil {
		return e, err
	}
	n, _, err := a.take(where, m, newNames...)
	if err != nil {
		return e, err
	}
	r, _, err := a.take(where, m, allNames...)
	if err != nil {
		return e, err
	}
	if err := a.rest(where, m, "oldText, newText and replaceAll"); err != nil {
		return e, err
	}
	if o == nil {
		return e, errs.New(errs.InvalidInput, "", "%s is missing oldText (the exact text to replace).", where)
	}
	if n == nil {
		return e, errs.New(errs.InvalidInput, "", "%s is missing newText (send \"\" to delete oldText).", where)
	}
	if e.OldText, _, err = a.str(where, "oldText", o, true); err != nil {
		return e, err
	}
	if e.NewText, _, err = a.str(where, "newText", n, true); err != nil {
		return e, err
	}
	if e.ReplaceAll, err = a.boolean(where, "replaceAll", r); err != nil {
		return e, err
	}
	return e, nil
}

type readArgs struct {
	path          string
	offset, limit int
}

func decodeRead(raw json.RawMessage) (*readArgs, error) {
	a, err := parseArgs(ReadFile, raw)
	if err != nil {
		return nil, err
	}
	out := &readArgs{}
	if out.path, err = a.path(); err != nil {
		return nil, err
	}
	off, _, err := a.take(ReadFile, a.m, "offset")
	if err != nil {
		return nil, err
	}
	lim, _, err := a.take(ReadFile, a.m, "limit")
	if err != nil {
		return nil, err
	}
	if err := a.rest(ReadFile, a.m, "path, offset and limit"); err != nil {
		return nil, err
	}
	if out.offset, err = a.positive("offset", off); err != nil {
		return nil, err
	}
	if out.limit, err = a.positive("limit", lim); err != nil {
		return nil, err
	}
	return out, nil
}

type contentArgs struct {
	path    string
	content string
}

func decodeContent(tool string, raw json.RawMessage) (*contentArgs, error) {
	a, err := parseArgs(tool, raw)
	if err != nil {
		return nil, err
	}
	out := &contentArgs{}
	if out.path, err = a.path(); err != nil {
		return nil, err
	}
	c, _, err := a.take(tool, a.m, "content", "text", "contents")
	if err != nil {
		return nil, err
	}
	if err := a.rest(tool, a.m, "path and content"); err != nil {
		return nil, err
	}
	out.content, _, err = a.str(tool, "content", c, true)
	return out, err
}

// maxChanges bounds the files of one apply_changes call.
const maxChanges = 100

func decodeApply(raw json.RawMessage) ([]txn.Spec, error) {
	a, err := parseArgs(ApplyChanges, raw)
	if err != nil {
		return nil, err
	}
	cr, _, err := a.take(ApplyChanges, a.m, "changes")
	if err != nil {
		return nil, err
	}
	if err := a.rest(ApplyChanges, a.m, "changes"); err != nil {
		return nil, err
	}
	if cr == nil {
		return nil, errs.New(errs.InvalidInput, "", "apply_changes is missing changes. Send e.g. %s.", shape(ApplyChanges))
	}
	var items []json.RawMessage
	if cr[0] != '[' || json.Unmarshal(cr, &items) != nil {
		return nil, errs.New(errs.InvalidInput, "", "changes must be an array, not %s. Send e.g. %s.", jsonType(cr), shape(ApplyChanges))
	}
	if len(items) == 0 || len(items) > maxChanges {
		return nil, errs.New(errs.InvalidInput, "", "changes has %d entries; send between 1 and %d.", len(items), maxChanges)
	}
	specs := make([]txn.Spec, len(items))
	for i, it := range items {
		where := fmt.Sprintf("changes[%d]", i)
		var m map[string]json.RawMessage
		if len(it) == 0 || it[0] != '{' || json.Unmarshal(it, &m) != nil {
			return nil, errs.New(errs.InvalidInput, "", "%s must be an object {path, edits} or {path, create} or {path, write}, not %s.", where, jsonType(it))
		}
		p, _, err := a.take(where, m, "path", "file_path", "filePath")
		if err != nil {
			return nil, err
		}
		if specs[i].Path, _, err = a.str(where, "path", p, true); err != nil {
			return nil, err
		}
		ed, _, _ := a.take(where, m, "edits")
		cre, _, _ := a.take(where, m, "create")
		wr, _, _ := a.take(where, m, "write")
		if err := a.rest(where, m, "path with one of edits, create or write"); err != nil {
			return nil, err
		}
		for _, v := range []*json.RawMessage{&ed, &cre, &wr} {
			if absent(*v) {
				*v = nil
			}
		}
		n := 0
		for _, v := range []json.RawMessage{ed, cre, wr} {
			if v != nil {
				n++
			}
		}
		if n != 1 {
			return nil, errs.New(errs.InvalidInput, "", "%s must have exactly one of edits, create or write (it has %d).", where, n)
		}
		switch {
		case ed != nil:
			specs[i].Op = journal.OpEdit
			list, err := a.editList(ed)
			if err != nil {
				return nil, prefixed(where+".", err)
			}
			specs[i].Edits = list
		default:
			// create and write both carry the whole content.
			op, field, v := journal.OpCreate, "create", cre
			if wr != nil {
				op, field, v = journal.OpWrite, "write", wr
			}
			specs[i].Op = op
			s, _, err := a.str(where, field, v, true)
			if err != nil {
				return nil, err
			}
			specs[i].Content = []byte(s)
		}
	}
	return specs, nil
}

// prefixed puts where in front of a decoding message ("changes[1].edits[0] is ...").
func prefixed(where string, err error) error {
	var e *errs.Error
	if errors.As(err, &e) {
		e2 := *e
		msg := e.Error()
		if strings.HasPrefix(msg, "edits") {
			e2.Message = where + msg
		} else {
			e2.Message = where + "edits: " + msg
		}
		return &e2
	}
	return err
}

package toolapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/txn"
)

// Limits on arguments, so that a malformed call is refused before it costs anything.
const (
	maxDepth   = 32  // nesting of JSON arrays and objects
	maxEdits   = 200 // edits in one call
	maxChanges = 100 // files in one apply_changes call
	maxArgSize = 64 << 20
)

// parseArgs reads raw as one JSON object of bounded size and depth. The map comes
// back whenever raw could be read as an object, even when it is refused (a key sent
// twice, too deep): the paths it names are indexed all the same.
func parseArgs(tool string, raw json.RawMessage) (map[string]json.RawMessage, error) {
	if len(raw) > maxArgSize {
		return nil, errs.New(errs.TooLarge, "", "%s arguments are %d bytes; at most %d are accepted.", tool, len(raw), maxArgSize)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	var m map[string]json.RawMessage
	var jerr error
	if !json.Valid(raw) {
		jerr = json.Unmarshal(raw, &m) // for its message
	} else if raw[0] == '{' {
		m = Fields(raw)
	}
	if d := depth(raw); d > maxDepth {
		return m, errs.New(errs.InvalidInput, "", "%s arguments are nested %d levels deep; send a flat object such as %s.", tool, d, shape(tool))
	}
	if raw[0] != '{' {
		return nil, errs.New(errs.InvalidInput, "", "%s arguments must be a JSON object such as %s.", tool, shape(tool))
	}
	if jerr != nil {
		return nil, errs.New(errs.InvalidInput, "", "%s arguments are not valid JSON (%v). Send an object such as %s.", tool, jerr, shape(tool))
	}
	if k, where := duplicateKeyValid(raw); k != "" {
		return m, errs.New(errs.InvalidInput, "", "%s arguments name the key %s twice%s; JSON would silently keep only the last. Send each key once.", tool, quoteKey(k), where)
	}
	return m, nil
}

// DuplicateKey returns the first key that appears twice in one object of the JSON
// value raw, at any depth, with " inside a nested object" when it is not at the top.
// Go's decoder keeps the last of duplicates silently; the model meant one of them.
func DuplicateKey(raw []byte) (string, string) {
	if json.Valid(raw) {
		return duplicateKeyValid(raw)
	}
	return duplicateKeyTokens(raw)
}

// DuplicateKeyValid is DuplicateKey of raw already known to be valid JSON (it
// decoded): it skips the validation pass.
func DuplicateKeyValid(raw []byte) (string, string) { return duplicateKeyValid(raw) }

// duplicateKeyValid is DuplicateKey of raw known to be valid JSON, in one pass over its
// bytes: a token decoder allocates for every value.
func duplicateKeyValid(raw []byte) (string, string) {
	type frame struct {
		obj  bool
		keys []string
		set  map[string]bool // keys, once there are many
	}
	var stack []frame
	wantKey := false // the next string in the top object is a key
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; c {
		case '{', '[':
			stack = append(stack, frame{obj: c == '{'})
			wantKey = c == '{'
		case '}', ']':
			stack = stack[:len(stack)-1]
		case ',':
			wantKey = len(stack) > 0 && stack[len(stack)-1].obj
		case '"':
			start, plain := i, true
			for i++; raw[i] != '"'; i++ {
				if raw[i] == '\\' {
					i++
					plain = false
				} else if raw[i] >= utf8.RuneSelf {
					plain = false // invalid UTF-8 decodes to U+FFFD, which may make keys equal
				}
			}
			if !wantKey {
				continue
			}
			wantKey = false
			var k string
			if plain {
				k = string(raw[start+1 : i])
			} else if err := json.Unmarshal(raw[start:i+1], &k); err != nil {
				return duplicateKeyTokens(raw)
			}
			top := &stack[len(stack)-1]
			if slices.Contains(top.keys, k) || top.set[k] {
				where := ""
				if len(stack) > 1 {
					where = " inside a nested object"
				}
				return k, where
			}
			switch {
			case top.set != nil:
				top.set[k] = true
			case len(top.keys) < 16:
				top.keys = append(top.keys, k)
			default:
				top.set = map[string]bool{k: true}
				for _, o := range top.keys {
					top.set[o] = true
				}
				top.keys = nil
			}
		}
	}
	return "", ""
}

// duplicateKeyTokens is DuplicateKey by the token decoder, which stops where raw stops
// being valid.
func duplicateKeyTokens(raw []byte) (string, string) {
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

// input is a call's arguments decoded by its tool's definition: what the handler
// takes.
type input struct {
	values
	paths   []string      // the paths the call names, for the journal's index and traces
	command *commandTrace // set by a handler that ran a command, for its trace
}

// values are the decoded fields of one object, by canonical name; a field left out
// holds its default.
type values struct {
	m     map[string]any
	given map[string]bool // the field was sent (and not null)
}

func (v values) str(name string) string    { s, _ := v.m[name].(string); return s }
func (v values) num(name string) int       { n, _ := v.m[name].(int); return n }
func (v values) flag(name string) bool     { b, _ := v.m[name].(bool); return b }
func (v values) sent(name string) bool     { return v.given[name] }
func (v values) strs(name string) []string { l, _ := v.m[name].([]string); return l }

func (v values) edits(name string) []matcher.Edit { return listOf[matcher.Edit](v, name) }
func (v values) specs(name string) []txn.Spec     { return listOf[txn.Spec](v, name) }

// listOf is an array field's items, as their objectDef built them.
func listOf[T any](v values, name string) []T {
	l, _ := v.m[name].([]any)
	out := make([]T, len(l))
	for i, x := range l {
		out[i] = x.(T)
	}
	return out
}

// decodeCall turns a call's raw arguments into the typed arguments of tool, one of
// defs, in one pass. The input it returns holds the paths the arguments name even
// when they are refused; an unknown tool is unknown_tool.
func decodeCall(defs []*toolDef, tool string, raw json.RawMessage) (*toolDef, *input, error) {
	d, in, err := decodeBy(defs, lookupTool(defs, tool), tool, raw)
	if err != nil {
		// defs may hold another tool of the name (replay's whole table holds the
		// gemini set's read_file beside the native one): the one that takes the call.
		for _, o := range defs {
			if o != d && o.name == tool {
				if od, oin, oerr := decodeBy(defs, o, tool, raw); oerr == nil {
					return od, oin, nil
				}
			}
		}
	}
	return d, in, err
}

// decodeBy decodes a call by tool d of defs (nil: unknown).
func decodeBy(defs []*toolDef, d *toolDef, tool string, raw json.RawMessage) (*toolDef, *input, error) {
	if t := bytes.TrimSpace(raw); d != nil && d.bare != "" && len(t) > 0 && t[0] == '"' {
		raw, _ = json.Marshal(map[string]json.RawMessage{d.bare: t})
	}
	m, err := parseArgs(tool, raw)
	in := &input{paths: pathsOf(d, m)}
	switch {
	case d == nil:
		return nil, in, errs.New(errs.UnknownTool, "", "There is no tool named %q. The tools are %s.", tool, strings.Join(toolNames(defs), ", "))
	case err != nil:
		return d, in, err
	}
	dec := &decoder{tool: d}
	in.values, err = dec.object(&d.args, m, d.name, "")
	return d, in, err
}

// decodeApply decodes apply_changes arguments into transaction specs.
func decodeApply(raw json.RawMessage) ([]txn.Spec, error) {
	_, in, err := decodeCall(toolTable, ApplyChanges, raw)
	if err != nil {
		return nil, err
	}
	return in.specs("changes"), nil
}

// shape is a minimal valid call of tool, for messages.
func shape(tool string) string {
	if d := lookupTool(toolTable, tool); d != nil {
		return d.shape
	}
	return "{}"
}

// decoder decodes the arguments of one call. Messages name a field by where it is:
// the tool ("edit_file.path"), or the item ("changes[1].edits[0].oldText").
type decoder struct{ tool *toolDef }

// object decodes the fields of o from m: each under its name or an alias, no field
// left unknown, each of its type.
func (d *decoder) object(o *objectDef, m map[string]json.RawMessage, where, prefix string) (values, error) {
	v := values{m: map[string]any{}, given: map[string]bool{}}
	raws, err := takeFields(o, m, where)
	if err != nil {
		return v, err
	}
	lone := takeLone(o, m)
	if err := unknownFields(where, m, o); err != nil {
		return v, err
	}
	for i := range o.fields {
		f := &o.fields[i]
		val, err := d.field(o, f, raws[i], lone, where, prefix)
		if err != nil {
			return v, err
		}
		v.m[f.name] = val
		v.given[f.name] = raws[i] != nil && !absent(raws[i]) || f.name == o.lone && lone != nil
	}
	return v, checkOneOf(o, v, where)
}

// takeFields removes each field of o from m, under its name or an alias.
func takeFields(o *objectDef, m map[string]json.RawMessage, where string) ([]json.RawMessage, error) {
	raws := make([]json.RawMessage, len(o.fields))
	for i := range o.fields {
		raw, err := take(where, m, o.fields[i].names()...)
		if err != nil {
			return nil, err
		}
		raws[i] = raw
	}
	return raws, nil
}

// takeLone removes the fields of o's lone array's items sent at the top level.
func takeLone(o *objectDef, m map[string]json.RawMessage) map[string]json.RawMessage {
	f := o.field(o.lone)
	if f == nil {
		return nil
	}
	var lone map[string]json.RawMessage
	for _, it := range f.items.fields {
		for _, n := range it.names() {
			if v, ok := m[n]; ok {
				if lone == nil {
					lone = map[string]json.RawMessage{}
				}
				lone[n] = v
				delete(m, n)
			}
		}
	}
	return lone
}

func (o *objectDef) field(name string) *argDef {
	for i := range o.fields {
		if o.fields[i].name == name {
			return &o.fields[i]
		}
	}
	return nil
}

// allowed says which fields o takes, for a message about one it does not.
func (o *objectDef) allowed() string {
	var plain []string
	for _, f := range o.fields {
		if !slices.Contains(o.oneOf, f.name) {
			plain = append(plain, f.name)
		}
	}
	if len(o.oneOf) == 0 {
		return andList(plain)
	}
	return andList(plain) + " with one of " + orList(o.oneOf)
}

func checkOneOf(o *objectDef, v values, where string) error {
	if len(o.oneOf) == 0 {
		return nil
	}
	n := 0
	for _, name := range o.oneOf {
		if b, ok := v.m[name].(bool); ok && !b {
			v.given[name] = false // a flag counts when set ({"delete": false} is no change)
		}
		if v.given[name] {
			n++
		}
	}
	if n != 1 {
		return errs.New(errs.InvalidInput, "", "%s must have exactly one of %s (it has %d).", where, orList(o.oneOf), n)
	}
	return nil
}

// field decodes one field; a field of o's lone array may have come as its only item.
func (d *decoder) field(o *objectDef, f *argDef, raw json.RawMessage, lone map[string]json.RawMessage, where, prefix string) (any, error) {
	if f.name != o.lone || lone == nil {
		return d.value(f, raw, where, prefix)
	}
	if raw != nil {
		return nil, errs.New(errs.InvalidInput, "", "%s has both %s and a top-level %s; put every change in %s.",
			where, f.name, strings.Join(requiredOf(f.items), "/"), f.name)
	}
	item, err := d.object(f.items, lone, where, prefix)
	if err != nil {
		return nil, err
	}
	return []any{f.items.build(item)}, nil
}

// value decodes one field's value: missing, left out (null for an optional field:
// strict function-calling modes send it so), or of its type.
func (d *decoder) value(f *argDef, raw json.RawMessage, where, prefix string) (any, error) {
	if raw == nil && f.required {
		return nil, d.missing(f, where)
	}
	if raw == nil || !f.required && absent(raw) {
		return f.zero(), nil
	}
	switch {
	case f.typ == tString && f.enum != nil:
		return d.choice(f, raw, where)
	case f.typ == tString:
		return str(where, f.name, raw)
	case f.elem == tInteger:
		return d.wholes(f, raw, where)
	case f.elem == tString:
		return d.strs(f, raw, where)
	case f.typ == tBoolean:
		return boolean(where, f.name, raw)
	case f.typ == tInteger:
		return d.whole(f, raw)
	}
	if f.typ == tObject {
		return d.objectField(f, raw, where)
	}
	return d.array(f, raw, prefix)
}

// objectField decodes an object-valued field by its fields' definitions.
func (d *decoder) objectField(f *argDef, raw json.RawMessage, where string) (any, error) {
	name := where + "." + f.name
	if raw[0] != '{' {
		return nil, errs.New(errs.InvalidInput, "", "%s must be an object %s, not %s.", name, f.items.shape(), jsonType(raw))
	}
	m := Fields(raw) // valid: the arguments were
	v, err := d.object(f.items, m, name, name+".")
	if err != nil {
		return nil, err
	}
	return f.items.build(v), nil
}

// zero is a field's value when it is left out.
func (f *argDef) zero() any {
	if f.def != nil {
		return f.def
	}
	switch f.typ {
	case tString:
		return ""
	case tInteger:
		return 0
	case tBoolean:
		return false
	}
	return []any(nil)
}

func (d *decoder) missing(f *argDef, where string) error {
	switch {
	case f.missing != "":
		return errs.New(errs.InvalidInput, "", "%s is missing %s (%s).", where, f.name, f.missing)
	case f.typ == tArray:
		return errs.New(errs.InvalidInput, "", "%s is missing %s. Send e.g. %s.", where, f.name, d.tool.shape)
	}
	return errs.New(errs.InvalidInput, "", "%s is missing %s (a %s). Send e.g. %s.", where, f.name, f.typ, d.tool.shape)
}

// take removes a field, under its canonical name or an alias, and returns its value.
func take(where string, m map[string]json.RawMessage, names ...string) (json.RawMessage, error) {
	var got json.RawMessage
	used := ""
	for _, n := range names {
		if v, ok := m[n]; ok {
			if used != "" {
				return nil, errs.New(errs.InvalidInput, "", "%s has both %s and %s; send only %s.", where, used, n, names[0])
			}
			got, used = v, n
			delete(m, n)
		}
	}
	return got, nil
}

// unknownFields refuses the fields left in m once the known ones of o were taken.
func unknownFields(where string, m map[string]json.RawMessage, o *objectDef) error {
	if len(m) == 0 {
		return nil
	}
	keys := slices.Sorted(maps.Keys(m))
	field := "field"
	if len(keys) > 1 {
		field = "fields"
	}
	return errs.New(errs.InvalidInput, "", "%s has unknown %s %s. Send only %s.", where, field, quoteList(keys), o.allowed())
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

// absent reports whether an optional field was left out: missing, or null (how
// strict function-calling modes send an optional field the model did not set).
func absent(raw json.RawMessage) bool {
	return raw == nil || string(bytes.TrimSpace(raw)) == "null"
}

func str(where, field string, raw json.RawMessage) (string, error) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", errs.New(errs.InvalidInput, "", "%s.%s must be a string, not %s.", where, field, jsonType(raw))
	}
	return s, nil
}

func boolean(where, field string, raw json.RawMessage) (bool, error) {
	var b bool
	if json.Unmarshal(raw, &b) != nil {
		return false, errs.New(errs.InvalidInput, "", "%s.%s must be true or false, not %s.", where, field, jsonType(raw))
	}
	return b, nil
}

// whole reads a whole number of at least f.min. One sent as a string ("2") or with a
// zero fraction (2.0) is a common slip with one meaning; anything else is refused.
func (d *decoder) whole(f *argDef, raw json.RawMessage) (int, error) {
	text := string(bytes.TrimSpace(raw))
	if len(text) >= 2 && text[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			text = strings.TrimSpace(s)
		}
	}
	n, err := strconv.ParseFloat(text, 64)
	if f.signed && err == nil && n == math.Trunc(n) && math.Abs(n) <= 1<<31 {
		return int(n), nil
	}
	if f.signed {
		return 0, errs.New(errs.InvalidInput, "", "%s.%s must be a whole number from -%d to %d (negative counts from the end), not %s.", d.tool.name, f.name, int64(1)<<31, int64(1)<<31, string(truncate(raw, 40)))
	}
	if err != nil || n != math.Trunc(n) || n < float64(f.min) || n > 1<<31 {
		return 0, errs.New(errs.InvalidInput, "", "%s.%s must be a whole number of %d or more, not %s.", d.tool.name, f.name, f.min, string(truncate(raw, 40)))
	}
	return int(n), nil
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return append(b[:n:n], "..."...)
	}
	return b
}

// choice reads a string that must be one of f.enum.
func (d *decoder) choice(f *argDef, raw json.RawMessage, where string) (string, error) {
	s, err := str(where, f.name, raw)
	if err != nil || slices.Contains(f.enum, s) {
		return s, err
	}
	if why, ok := f.dropped[s]; ok {
		return "", errs.New(errs.InvalidInput, "", "%s.%s %s: %s", where, f.name, quoteKey(s), why)
	}
	return "", errs.New(errs.InvalidInput, "", "%s.%s %s is not one of %s. Send e.g. %s.", where, f.name, quoteKey(s), orList(f.enum), d.tool.shape)
}

// wholes reads an array of whole numbers (view_range), each as whole reads one.
func (d *decoder) wholes(f *argDef, raw json.RawMessage, where string) ([]int, error) {
	var items []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil || len(items) > max(f.maxItems, 1) {
		return nil, errs.New(errs.InvalidInput, "", "%s.%s must be an array of at most %d whole numbers, not %s.", where, f.name, max(f.maxItems, 1), string(truncate(raw, 40)))
	}
	out := make([]int, len(items))
	for i, it := range items {
		n, err := strconv.ParseFloat(strings.Trim(string(bytes.TrimSpace(it)), `"`), 64)
		if err != nil || n != math.Trunc(n) || math.Abs(n) > 1<<31 {
			return nil, errs.New(errs.InvalidInput, "", "%s.%s[%d] must be a whole number, not %s.", where, f.name, i, string(truncate(it, 40)))
		}
		out[i] = int(n)
	}
	return out, nil
}

// strs reads an array of min to maxItems strings (read_files' paths).
func (d *decoder) strs(f *argDef, raw json.RawMessage, where string) ([]string, error) {
	var items []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return nil, errs.New(errs.InvalidInput, "", "%s.%s must be an array of strings, not %s. Send e.g. %s.", where, f.name, jsonType(raw), d.tool.shape)
	}
	if len(items) == 0 && f.empty != "" {
		return nil, errs.New(errs.InvalidInput, "", "%s.%s is empty. %s", where, f.name, f.empty)
	}
	if len(items) < max(f.min, 1) || len(items) > f.maxItems {
		return nil, errs.New(errs.InvalidInput, "", "%s.%s has %d entries; send between %d and %d.", where, f.name, len(items), max(f.min, 1), f.maxItems)
	}
	out := make([]string, len(items))
	for i, it := range items {
		s, err := str(where, fmt.Sprintf("%s[%d]", f.name, i), it)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// array decodes an array of objects, each item by f.items.
func (d *decoder) array(f *argDef, raw json.RawMessage, prefix string) (any, error) {
	name := prefix + f.name
	var items []json.RawMessage
	var err error
	if f.loose {
		items, err = looseItems(f, raw, name)
	} else {
		items, err = d.strictItems(f, raw, name)
	}
	if err != nil {
		return nil, err
	}
	out := make([]any, len(items))
	for i, it := range items {
		where := fmt.Sprintf("%s[%d]", name, i)
		if len(it) == 0 || it[0] != '{' {
			return nil, errs.New(errs.InvalidInput, "", "%s must be an object %s, not %s.", where, f.items.shape(), jsonType(it))
		}
		m := Fields(it) // valid: the arguments were, or looseItems checked it
		v, err := d.object(f.items, m, where, where+".")
		if err != nil {
			return nil, err
		}
		out[i] = f.items.build(v)
	}
	return out, nil
}

// looseItems reads an array that may also come as one object, or as either inside a
// JSON string (a common slip of models that serialize nested arguments twice).
func looseItems(f *argDef, raw json.RawMessage, name string) ([]json.RawMessage, error) {
	example := "[" + f.items.shape() + "]"
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, errs.New(errs.InvalidInput, "", "%s is a malformed string. Send %s as an array: %s.", name, f.name, example)
		}
		inner := bytes.TrimSpace([]byte(s))
		if len(inner) == 0 || (inner[0] != '[' && inner[0] != '{') || !json.Valid(inner) || depth(inner) > maxDepth {
			return nil, errs.New(errs.InvalidInput, "", "%s was sent as a string that is not a JSON array of %s. Send %s as an array: %s.", name, f.name, f.name, example)
		}
		raw = inner
	}
	var list []json.RawMessage
	switch raw[0] {
	case '{':
		list = []json.RawMessage{raw}
	case '[':
		list = items(raw) // valid: the arguments were, or inner was checked
	default:
		return nil, errs.New(errs.InvalidInput, "", "%s must be an array of %s objects, not %s.", name, f.items.brief(), jsonType(raw))
	}
	if len(list) == 0 {
		return nil, errs.New(errs.InvalidInput, "", "%s is empty. Send at least one %s.", name, f.items.brief())
	}
	if len(list) > f.maxItems {
		return nil, errs.New(errs.InvalidInput, "", "%s has %d entries; at most %d are accepted in one call.", name, len(list), f.maxItems)
	}
	return list, nil
}

// strictItems reads an array sent as an array, of min to maxItems items.
func (d *decoder) strictItems(f *argDef, raw json.RawMessage, name string) ([]json.RawMessage, error) {
	if raw[0] != '[' {
		return nil, errs.New(errs.InvalidInput, "", "%s must be an array, not %s. Send e.g. %s.", name, jsonType(raw), d.tool.shape)
	}
	items := items(raw) // valid: the arguments were
	if len(items) < max(f.min, 1) || len(items) > f.maxItems {
		return nil, errs.New(errs.InvalidInput, "", "%s has %d entries; send between %d and %d.", name, len(items), max(f.min, 1), f.maxItems)
	}
	return items, nil
}

func requiredOf(o *objectDef) []string {
	var out []string
	for _, f := range o.fields {
		if f.required {
			out = append(out, f.name)
		}
	}
	return out
}

// brief shows an item by its required fields: {oldText, newText}.
func (o *objectDef) brief() string { return "{" + strings.Join(requiredOf(o), ", ") + "}" }

// shape shows an item as a message asks for it: {"oldText": ..., "newText": ...},
// or each form of one with oneOf: {path, edits} or {path, create} or {path, write}.
func (o *objectDef) shape() string {
	if len(o.oneOf) == 0 {
		return `{"` + strings.Join(requiredOf(o), `": ..., "`) + `": ...}`
	}
	forms := make([]string, len(o.oneOf))
	for i, alt := range o.oneOf {
		forms[i] = "{" + strings.Join(append(requiredOf(o), alt), ", ") + "}"
	}
	return strings.Join(forms, " or ")
}

// pathsOf finds the paths arguments m name by tool d's path fields, however
// malformed the rest is; for an unknown tool (d nil), by any tool's.
func pathsOf(d *toolDef, m map[string]json.RawMessage) []string {
	if m == nil {
		return nil
	}
	if d != nil {
		return objectPaths(&d.args, m)
	}
	var out []string
	for _, d := range toolTable {
		for _, p := range objectPaths(&d.args, m) {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

func objectPaths(o *objectDef, m map[string]json.RawMessage) []string {
	var out []string
	for _, f := range o.fields {
		switch {
		case f.path && f.elem == tString:
			for _, n := range f.names() {
				var l []string
				json.Unmarshal(m[n], &l)
				for _, p := range l {
					if p != "" {
						out = append(out, p)
					}
				}
			}
		case f.path:
			for _, n := range f.names() {
				var p string
				if json.Unmarshal(m[n], &p) == nil && p != "" {
					out = append(out, p)
				}
			}
		case f.typ == tObject && f.items.hasPaths():
			var item map[string]json.RawMessage
			json.Unmarshal(m[f.name], &item)
			out = append(out, objectPaths(f.items, item)...)
		case f.items != nil && f.items.hasPaths():
			var items []map[string]json.RawMessage
			json.Unmarshal(m[f.name], &items)
			for _, it := range items {
				out = append(out, objectPaths(f.items, it)...)
			}
		}
	}
	return out
}

func (o *objectDef) hasPaths() bool {
	return slices.ContainsFunc(o.fields, func(f argDef) bool { return f.path || f.items != nil && f.items.hasPaths() })
}

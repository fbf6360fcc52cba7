package matcher

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// Chained tells an oldText that is missing from data only because the edits before it
// in the same call have not been applied: a model used to tools that apply a call's
// edits in order sends a later edit against the text an earlier one writes. It
// applies the earlier splices to data and looks for old there, exactly (line endings
// read as LF); found over what some of them write, it returns those splices' edit
// indexes, ascending, and the first and last original line they touch. Nothing is
// applied: the caller only explains its refusal. The cost is one pass over data.
func Chained(data []byte, earlier []Splice, old string) (edits []int, lines []int) {
	if len(earlier) == 0 || old == "" {
		return nil, nil
	}
	sp := append([]Splice(nil), earlier...)
	sort.SliceStable(sp, func(a, b int) bool { return sp[a].Start < sp[b].Start })
	// The text as the earlier edits leave it, in LF, with where each splice's text lies.
	var b []byte
	at := make([][2]int, len(sp))
	prev := 0
	for k, s := range sp {
		if s.Start < prev || s.End > len(data) {
			return nil, nil // overlapping splices: that call is refused for it anyway
		}
		b = appendLF(b, data[prev:s.Start])
		a := len(b)
		b = appendLF(b, s.Text)
		at[k] = [2]int{a, len(b)}
		prev = s.End
	}
	b = appendLF(b, data[prev:])
	want := []byte(toLF(old))
	from := bytes.Index(b, want)
	if from < 0 {
		return nil, nil
	}
	to := from + len(want)
	seen := map[int]bool{}
	first, last := 0, 0
	for k, s := range sp {
		a, z := at[k][0], at[k][1]
		// What the splice writes lies in the occurrence, or the text it removed was
		// inside it (two parts of the occurrence joined).
		if !(a < to && from < z) && !(a == z && from < a && a < to) {
			continue
		}
		if !seen[s.Edit] {
			seen[s.Edit] = true
			edits = append(edits, s.Edit)
		}
		if first == 0 || s.FirstLine < first {
			first = s.FirstLine
		}
		last = max(last, s.LastLine)
	}
	if len(edits) == 0 {
		return nil, nil
	}
	sort.Ints(edits)
	return edits, []int{first, last}
}

// appendLF appends b with its line endings (CRLF, lone CR) read as LF, as the exact
// tier reads the file.
func appendLF(dst, b []byte) []byte {
	if bytes.IndexByte(b, '\r') < 0 {
		return append(dst, b...)
	}
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] != '\r':
			dst = append(dst, b[i])
		case i+1 < len(b) && b[i+1] == '\n':
			// the LF that follows is appended next
		default:
			dst = append(dst, '\n')
		}
	}
	return dst
}

// ChainedAdvice explains a missing oldText that Chained found: name is the edit
// ("edits[1]", "block 2"), field its text to find ("oldText", "SEARCH"), unit what a
// call holds several of ("edit", "block"), by the earlier ones that write that text.
func ChainedAdvice(name, field, unit string, by []string) string {
	who := strings.Join(by, " and ")
	verb := "writes"
	if len(by) > 1 {
		verb = "write"
	}
	return fmt.Sprintf("it is the text %s %s, and every %s of one call is matched against the file as it was before the call, not as the %ss before it leave it. Merge %s into %s (one %s whose %s is the file's current text), or send this call without %s, then %s alone in a second call.",
		who, verb, unit, unit, who, name, unit, field, name, name)
}

// chained rewrites the not-found refusal of edit i when its oldText is the text
// earlier edits of the call write (Chained).
func (m *matcher) chained(err error, i int, data []byte, earlier []Splice, old string) error {
	r, ok := err.(*Refusal)
	if !ok || r.Kind != KindTextNotFound || m.probe {
		return err
	}
	edits, lines := Chained(data, earlier, old)
	if edits == nil {
		return err
	}
	by := make([]string, len(edits))
	for k, e := range edits {
		by[k] = fmt.Sprintf("edits[%d]", e)
	}
	msg := fmt.Sprintf("edits[%d]: oldText was not found in %s: %s", i, m.name, ChainedAdvice(fmt.Sprintf("edits[%d]", i), "oldText", "edit", by))
	where := *r.Where
	where.Lines = lines
	return &Refusal{Kind: KindTextNotFound, Message: msg, Where: &where}
}

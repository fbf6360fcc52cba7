package txn

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/guard"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
)

// guard looks at every planned change before anything is journaled or written: a
// syntax error the change introduces, or a placeholder comment where it deletes real
// lines, refuses the whole call (mode refuse), or is said in the reply (mode warn).
// A dry run is guarded the same way, so that it shows what the guard would say. A
// refusal names the change at fault and comes with its structure for the record. A
// file too large to parse at a bounded cost is not parsed, and the reply says so.
//
// held says the call holds the journal. Without it the guard does not look there
// for the same call sent again (insisted): it refuses, and insisting says that a call
// sent again would be let through, for the caller to decide under the journal.
func (e *Engine) guard(c *Call, changes []*Change, held bool) (i int, d *journal.Refusal, insisting bool, err error) {
	if e.guardMode == guard.Off {
		return 0, nil, false, nil
	}
	for i, ch := range changes {
		if ch.Deleted {
			continue
		}
		rs, _ := regions(ch)
		if p := guard.Placeholders(ch.Path, rs); p != nil {
			what := fmt.Sprintf("The change puts a placeholder at line %d of %s (%q) where it deletes %s of real code.", p.Line, ch.Name, p.Text, plural(p.Deleted, "line"))
			if e.guardMode == guard.Warn {
				ch.Warnings = append(ch.Warnings, "warning: "+what)
			} else {
				d := &journal.Refusal{Change: i, Edit: -1, Lines: []int{p.Line}, Language: guard.Language(ch.Path, ch.After)}
				keep := "to leave lines as they are, leave them out of oldText"
				if ch.Op == journal.OpWrite {
					keep = "write_file replaces the whole file, so every line it keeps must be in it; to change only some lines, use edit_file"
				}
				return i, d, false, errs.New(errs.PlaceholderText, ch.Name, "%s Nothing was written. Send the code itself instead of the placeholder; %s.", what, keep)
			}
		}
		old := ch.Before
		if ch.Created {
			old = ch.source // nil but for a move: a file broken before stays movable
		}
		fresh := ch.Created && ch.source == nil
		if why := guard.Unchecked(ch.Path, old, ch.After); why != "" {
			ch.Notes = append(ch.Notes, fmt.Sprintf("The syntax guard did not run on %s: %s; its syntax was not checked.", ch.Name, why))
		}
		s := guard.Syntax(ch.Path, old, ch.After)
		if s == nil {
			if fresh {
				newFileDoubt(ch)
			}
			continue
		}
		offs := addedTypography(ch)
		if ok, back := repairTypography(ch, old, offs, s.Language); ok {
			// The only errors were typography the language cannot hold in code. Where
			// writing it plain turned the whole change back, nothing is left to write.
			if !ch.Created && bytes.Equal(ch.After, ch.Before) {
				d, err := unchangedByRepair(ch, back, s.Language)
				d.Change = i
				return i, d, false, err
			}
			continue
		}
		where := fmt.Sprintf("line %d, column %d of %s: %s", s.Line, s.Column, ch.Name, s.Message)
		excerpt := guard.Excerpt(guard.AsParsed(s.Language, ch.After), s.Line, s.Column)
		if e.guardMode == guard.Warn {
			ch.Warnings = append(ch.Warnings, fmt.Sprintf("warning: the change leaves %s with a syntax error (%s), at %s\n%s", ch.Name, s.Language, where, excerpt))
			continue
		}
		sent := writtenAsSent(ch)
		typos := guard.TypographicAt(ch.After, offs, s)
		typo := len(typos) > 0
		if !held {
			insisting = sent && !typo && !s.Firm
		} else if !sent || typo || s.Firm {
			// Sending it again would write the re-indented text, the typographic
			// character no parser of the language takes, or what no version of the
			// language takes, again: no giving way.
		} else if seq, ok := e.insisted(c, i, ch); ok {
			ch.Warnings = append(ch.Warnings, fmt.Sprintf("warning: written as sent again after call %d was refused: this parser still finds a %s syntax error in %s, at %s\n%s", seq, s.Language, ch.Name, where, excerpt))
			continue
		}
		d := &journal.Refusal{Change: i, Edit: -1, Lines: []int{s.Line}, Language: s.Language, Column: s.Column, Node: s.Node}
		again := insist
		switch {
		case typo:
			again = typographyAdviceFor(typos, s)
		case s.Firm:
			again = "Sent again unchanged, this call is refused again."
		case !sent:
			again = notAsSent
		case s.Later:
			again = laterPython
		}
		if fresh {
			return i, d, insisting, errs.New(errs.SyntaxError, ch.Name, "The new file %s would not parse as %s: %s. Nothing was written. Fix that line and send the file again. %s\n%s", ch.Name, s.Language, where, again, excerpt)
		}
		return i, d, insisting, errs.New(errs.SyntaxError, ch.Name, "The change would break the %s syntax of %s, which parsed before: %s. Nothing was written. Fix that line; if the change needs edits in several places to parse, send them all in one call. %s\n%s", s.Language, ch.Name, where, again, excerpt)
	}
	return 0, nil, false, nil
}

// newFileDoubt warns of a syntax error in the new file of ch that only a grammar that
// may lag behind its language finds: the file is written, and the model told.
func newFileDoubt(ch *Change) {
	d := guard.Doubtful(ch.Path, ch.After)
	if d == nil {
		return
	}
	ch.Warnings = append(ch.Warnings, fmt.Sprintf("warning: the new file %s has a syntax error (%s), at line %d, column %d: %s. It is not refused, as this parser may not know the language's newest syntax: fix that line unless the code is valid.\n%s",
		ch.Name, d.Language, d.Line, d.Column, d.Message, guard.Excerpt(guard.AsParsed(d.Language, ch.After), d.Line, d.Column)))
}

// insist tells a model how to get past a syntax refusal that is the parser's mistake:
// its grammars can lag behind a language's newest syntax.
const insist = "If you are sure the code is valid (syntax newer than this parser knows), send this same call again, unchanged, as your next call: it is then written, with a warning."

// laterPython is the way on from a form that only a later version of the language
// takes: which version the project runs, the code cannot tell.
const laterPython = "If the project runs a version of the language that takes this (Python 3.14 or later for except A, B:), send this same call again, unchanged, as your next call: it is then written, with a warning."

// notAsSent replaces insist where the planned lines are not the model's own: an edit
// matched only when indentation was ignored (its new lines re-indented to the file's),
// or characters of newText were written as the file spells them. Sending the call
// again would write the same lines again, not the model's.
const notAsSent = "The lines above are not exactly as you sent them: your oldText matched only with its indentation or characters read as the file's, and newText was written in the file's terms. To write your own lines, send oldText and newText with the lines exactly as the file has them (copy them from read_file)."

// typographyAdvice replaces insist where the error is at a typographic character the
// change added, one that stands for a code character (a curly quote for a string's
// quote): no grammar of the language lags there, so sending the call again would only
// write code that does not build. The guard writes such characters plain itself only
// when they alone break the file, and within a budget of parses.
const typographyAdvice = "%q is a typographic character, which %s code cannot hold: send %q in its place (in a string or a comment, %q can stay). Sent again unchanged, this call is refused again."

// typographyAdviceFor is typographyAdvice for the characters reps the error asks to
// write plain: with several on its line, each is named, so that one call sent again
// with them all plain gets past them (naming the first alone, a model fixed it and
// was refused for the next).
func typographyAdviceFor(reps []guard.Repair, s *guard.SyntaxError) string {
	plainOf := func(r guard.Repair) rune { p, _ := utf8.DecodeRuneInString(r.Plain); return p }
	if len(reps) == 1 {
		return fmt.Sprintf(typographyAdvice, reps[0].Char, s.Language, plainOf(reps[0]), reps[0].Char)
	}
	var chars, sends []string
	seen := map[rune]bool{}
	for _, r := range reps {
		if !seen[r.Char] {
			seen[r.Char] = true
			chars = append(chars, fmt.Sprintf("%q", r.Char))
			sends = append(sends, fmt.Sprintf("%q for %q", plainOf(r), r.Char))
		}
	}
	if len(chars) == 1 {
		return fmt.Sprintf("%s on line %d is a typographic character, which %s code cannot hold: send %q in its place each time it stands in code (in a string or a comment, %s can stay). Sent again unchanged, this call is refused again.", chars[0], s.Line, s.Language, plainOf(reps[0]), chars[0])
	}
	return fmt.Sprintf("%s on line %d are typographic characters, which %s code cannot hold: where they stand in code, send %s (in a string or a comment, they can stay). Sent again unchanged, this call is refused again.", andList(chars), s.Line, s.Language, andList(sends))
}

// andList joins items as a sentence lists them: "a, b and c".
func andList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// writtenAsSent tells a change whose edits all write newText as the model sent it:
// none matched at the indentation tier, none had characters translated.
func writtenAsSent(ch *Change) bool {
	if ch.Plan == nil {
		return true
	}
	for _, r := range ch.Plan.Edits {
		if r.Tier == matcher.TierIndentation || len(r.Translated) > 0 {
			return false
		}
	}
	return true
}

// insisted reports whether call c repeats, unchanged, its session's call just before
// it, which the syntax guard refused with ch's file as it is now: the model insists,
// and the guard gives way (its grammars can lag behind a language). It gives way for
// change i only up to the change that call was refused for: a later file of the call
// that does not parse was named in no refusal yet, and is refused now (and then given
// way to in turn, if the call is sent again: the earlier ones stand as they were let
// through). The refusal must have ended before c began, so that the model can have
// read it: two copies of one call sent at once do not count. It returns the refused
// call's number.
func (e *Engine) insisted(c *Call, i int, ch *Change) (uint64, bool) {
	prev := e.sentAgain(c, errs.SyntaxError)
	if prev == nil || prev.Refusal == nil || i > prev.Refusal.Change {
		return 0, false
	}
	before := ch.priorHash()
	for _, f := range prev.Files {
		if f.Path == ch.Path && f.Before == before {
			return prev.Seq, true
		}
	}
	return 0, false
}

// SentAgain reports whether call c, which must hold the journal, repeats unchanged
// its session's call just before it, refused with kind: a refusal that gives way when
// the model insists. It returns the refused call's number.
func (e *Engine) SentAgain(c *Call, kind errs.Kind) (uint64, bool) {
	if prev := e.sentAgain(c, kind); prev != nil {
		return prev.Seq, true
	}
	return 0, false
}

// sentAgain is the record of the session's call just before c when c repeats it
// unchanged and it was refused with kind, else nil. That refusal must have ended
// before c began, so that the model can have read it: two copies of one call sent at
// once do not count.
func (e *Engine) sentAgain(c *Call, kind errs.Kind) *journal.Record {
	if c == nil || c.rec.Session == "" {
		return nil
	}
	var prev *journal.Record
	var args []byte
	e.j.View(func(t *journal.Tx) error {
		recs, err := t.Find(journal.Query{Session: c.rec.Session, Limit: 1})
		if err != nil || len(recs) == 0 {
			return nil
		}
		prev, args = recs[0], []byte(recs[0].Args)
		if prev.ArgsBlob != "" {
			args, _ = t.Blob(prev.ArgsBlob)
		}
		return nil
	})
	if prev == nil || prev.Kind != string(kind) || prev.Tool != c.rec.Tool || len(args) == 0 || !bytes.Equal(args, c.args) ||
		!prev.Time.Add(prev.Duration).Before(c.start) {
		return nil
	}
	return prev
}

// repairTypography writes as plain ASCII the typographic characters a change added
// where the language needs code characters, when they alone break a file that parsed
// (fmt.Println(“done”)); inside strings and comments they stay as sent. It changes the
// splices and the new content together, so that the journal records what is written,
// and notes in the reply what it did. It reports whether the content now parses, and
// the edits the repairs turned back whole: all they asked for was typography the code
// cannot hold where the file had the plain characters already. Of a change that still
// changes something, such an edit's splices are dropped and the reply says why; a
// change turned back whole is the caller's to refuse.
func repairTypography(ch *Change, old []byte, offs []int, lang string) (bool, []turned) {
	reps := guard.Typography(ch.Path, old, ch.After, offs)
	if reps == nil {
		return false, nil
	}
	var back []turned
	if ch.Plan != nil {
		// Each repair lies in one splice's text: rewrite the texts, then the output.
		delta := 0
		var edits []int                    // the edits repaired, in the order of their splices
		inEdit := map[int][]guard.Repair{} // their repairs, at offsets of the content as planned
		for k := range ch.Plan.Splices {
			sp := &ch.Plan.Splices[k]
			at := sp.Start + delta
			var mine []guard.Repair
			for _, r := range reps {
				if r.Offset >= at && r.Offset < at+len(sp.Text) {
					if inEdit[sp.Edit] == nil {
						edits = append(edits, sp.Edit)
					}
					inEdit[sp.Edit] = append(inEdit[sp.Edit], r)
					r.Offset -= at
					mine = append(mine, r)
				}
			}
			delta += len(sp.Text) - (sp.End - sp.Start)
			if len(mine) > 0 {
				sp.Text = guard.ApplyRepairs(sp.Text, mine)
			}
		}
		if !ch.Created {
			changed := map[int]bool{}
			for _, sp := range ch.Plan.Splices {
				if !bytes.Equal(sp.Text, ch.Before[sp.Start:sp.End]) {
					changed[sp.Edit] = true
				}
			}
			for _, k := range edits {
				if !changed[k] {
					back = append(back, turnedBack(k, inEdit[k], ch.After))
				}
			}
			if len(back) > 0 && len(changed) > 0 {
				// The others change something: the call is made without these.
				kept := ch.Plan.Splices[:0:0]
				for _, sp := range ch.Plan.Splices {
					if changed[sp.Edit] {
						kept = append(kept, sp)
					}
				}
				ch.Plan.Splices = kept
			}
		}
	}
	quiet := map[int]bool{} // repairs said in a turned-back edit's own note
	for _, t := range back {
		for _, r := range t.reps {
			quiet[r.Offset] = true
		}
		ch.Notes = append(ch.Notes, fmt.Sprintf("An edit asked only for %s, and the %s code needs the plain characters there as they are: it was turned back and changed nothing; the rest was written.",
			t.text(), lang))
	}
	for _, r := range reps { // offsets are of the content before the repairs
		if quiet[r.Offset] {
			continue
		}
		line := lineAt(ch.After, r.Offset)
		plain, _ := utf8.DecodeRuneInString(r.Plain) // quoted as the character it stands for: '"', not "\""
		switch {
		case r.Like:
			ch.Notes = append(ch.Notes, fmt.Sprintf("%q at line %d, inside a string or a comment, was written as %q like the one the code needed; to keep %q there, send that edit again without the other.", r.Char, line, plain, r.Char))
		case !r.Kept:
			ch.Notes = append(ch.Notes, fmt.Sprintf("%q at line %d, where the code needs %q, was written as %q.", r.Char, line, plain, plain))
		case !bytes.ContainsRune(old, r.Char):
			ch.Notes = append(ch.Notes, fmt.Sprintf("%q at line %d is inside a string or a comment and was written as sent; %s did not use it before.", r.Char, line, ch.Name))
		}
	}
	if !ch.Created && ch.Plan == nil {
		back = []turned{turnedBack(-1, reps, ch.After)} // the whole content: the caller checks it
	}
	ch.After = guard.ApplyRepairs(ch.After, reps)
	if ch.Plan != nil {
		ch.Plan.Output = ch.After
	}
	ch.diff = nil
	return true, back
}

// turned is an edit (-1: a whole content) that repairTypography turned back: its
// repairs, and the lines they stand on.
type turned struct {
	edit  int
	reps  []guard.Repair
	lines []int
}

// turnedBack is t for the repairs reps of edit k, at offsets of new, the content as
// planned.
func turnedBack(k int, reps []guard.Repair, new []byte) turned {
	t := turned{edit: k, reps: reps}
	for _, r := range reps {
		if l := lineAt(new, r.Offset); !r.Kept && !slices.Contains(t.lines, l) {
			t.lines = append(t.lines, l)
		}
	}
	return t
}

// text says what t asked for: "typographic quotes ('‘' and '’') in place of '\” at
// line 36".
func (t turned) text() string {
	var chars, plains []string
	quotes := true
	for _, r := range t.reps {
		if r.Kept {
			continue
		}
		plain, _ := utf8.DecodeRuneInString(r.Plain)
		if c := fmt.Sprintf("%q", r.Char); !slices.Contains(chars, c) {
			chars = append(chars, c)
		}
		if p := fmt.Sprintf("%q", plain); !slices.Contains(plains, p) {
			plains = append(plains, p)
		}
		quotes = quotes && strings.ContainsAny(r.Plain, "'\"`")
	}
	what := "typographic characters"
	if quotes {
		what = "typographic quotes"
	}
	nums := make([]string, len(t.lines))
	for k, l := range t.lines {
		nums[k] = fmt.Sprint(l)
	}
	at := "line " + andList(nums)
	if len(nums) > 1 {
		at = "lines " + andList(nums)
	}
	return fmt.Sprintf("%s (%s) in place of %s at %s", what, andList(chars), andList(plains), at)
}

// unchangedByRepair is the refusal of a change that repairTypography turned back whole:
// the file would stay exactly as it is. It names lines, not edits: a dialect's call
// has hunks or blocks where the engine has edits.
func unchangedByRepair(ch *Change, back []turned, lang string) (*journal.Refusal, error) {
	all := turned{edit: -1}
	for _, t := range back {
		all.reps = append(all.reps, t.reps...)
		for _, l := range t.lines {
			if !slices.Contains(all.lines, l) {
				all.lines = append(all.lines, l)
			}
		}
	}
	slices.Sort(all.lines)
	d := &journal.Refusal{Edit: -1, Lines: all.lines}
	if len(back) == 1 {
		d.Edit = back[0].edit
	}
	return d, errs.New(errs.NoChange, ch.Name, "The change would leave %s unchanged: all it asks for is %s, and the %s code needs the plain characters there as they are, so nothing changed. Nothing was written. Send only changes that change something (in a string or a comment, a typographic character is written as sent).",
		ch.Name, all.text(), lang)
}

// addedTypography returns the offsets in ch's new content of the typographic
// characters the change added (guard.Typographic), in order.
func addedTypography(ch *Change) []int {
	var offs []int
	parts, starts := regions(ch)
	for k, r := range parts {
		pre, suf := guard.CommonEnds(r.Old, r.New)
		for i := pre; i < len(r.New)-suf; {
			c, size := utf8.DecodeRune(r.New[i:])
			if guard.Typographic(c) {
				offs = append(offs, starts[k]+i)
			}
			i += size
		}
	}
	return offs
}

// regions are the parts of the file a change replaces (each splice of an edit, or the
// whole file), and the byte offset in the new content where each begins.
func regions(ch *Change) ([]guard.Change, []int) {
	if ch.Plan == nil {
		return []guard.Change{{Old: ch.Before, New: ch.After, Line: 1}}, []int{0}
	}
	var out []guard.Change
	var starts []int
	delta, line, counted := 0, 1, 0 // delta: bytes the splices before this one added
	for _, sp := range ch.Plan.Splices {
		at := sp.Start + delta
		line += bytes.Count(ch.After[counted:at], []byte("\n"))
		counted = at
		out = append(out, guard.Change{Old: ch.Before[sp.Start:sp.End], New: sp.Text, Line: line})
		starts = append(starts, at)
		delta += len(sp.Text) - (sp.End - sp.Start)
	}
	return out, starts
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

package txn

import (
	"bytes"
	"fmt"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/guard"
	"github.com/vfsctl/vfsctl/journal"
)

// guard looks at every planned change before anything is journaled or written: a
// syntax error the change introduces, or a placeholder comment where it deletes real
// lines, refuses the whole call (mode refuse), or is said in the reply (mode warn).
// A dry run is guarded the same way, so that it shows what the guard would say.
func (e *Engine) guard(c *Call, changes []*Change) (int, error) {
	if e.guardMode == guard.Off {
		return 0, nil
	}
	for i, ch := range changes {
		if ch.Deleted {
			continue
		}
		if p := guard.Placeholders(regions(ch)); p != nil {
			what := fmt.Sprintf("The change puts a placeholder at line %d of %s (%q) where it deletes %s of real code.", p.Line, ch.Name, p.Text, plural(p.Deleted, "line"))
			if e.guardMode == guard.Warn {
				ch.Warnings = append(ch.Warnings, "warning: "+what)
			} else {
				c.Refused(&journal.Refusal{Change: i, Edit: -1, Lines: []int{p.Line}})
				return i, errs.New(errs.PlaceholderText, ch.Name, "%s Nothing was written. Send the code itself instead of the placeholder; to leave lines as they are, leave them out of oldText.", what)
			}
		}
		var old []byte
		if !ch.Created {
			old = ch.Before
		}
		if s := guard.Syntax(ch.Path, old, ch.After); s != nil {
			where := fmt.Sprintf("line %d, column %d of %s: %s", s.Line, s.Column, ch.Name, s.Message)
			excerpt := guard.Excerpt(ch.After, s.Line, s.Column)
			if e.guardMode == guard.Warn {
				ch.Warnings = append(ch.Warnings, fmt.Sprintf("warning: the change leaves %s with a syntax error (%s), at %s\n%s", ch.Name, s.Language, where, excerpt))
				continue
			}
			c.Refused(&journal.Refusal{Change: i, Edit: -1, Lines: []int{s.Line}, Language: s.Language, Column: s.Column, Node: s.Node})
			return i, errs.New(errs.SyntaxError, ch.Name, "The change would break the %s syntax of %s, which parsed before: %s. Nothing was written. Fix that line; if the change needs edits in several places to parse, send them all in one call.\n%s", s.Language, ch.Name, where, excerpt)
		}
	}
	return 0, nil
}

// regions are the parts of the file a change replaces: each splice of an edit, or the
// whole file.
func regions(ch *Change) []guard.Change {
	if ch.Plan == nil {
		return []guard.Change{{Old: ch.Before, New: ch.After, Line: 1}}
	}
	var out []guard.Change
	delta := 0 // bytes the splices before this one added
	for _, sp := range ch.Plan.Splices {
		at := sp.Start + delta
		out = append(out, guard.Change{Old: ch.Before[sp.Start:sp.End], New: sp.Text, Line: bytes.Count(ch.After[:at], []byte("\n")) + 1})
		delta += len(sp.Text) - (sp.End - sp.Start)
	}
	return out
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

package matcher

import "fmt"

// Kind names a class of refusal. The values are stable: they are stored in journals and
// counted by operators, so they never change once released.
type Kind string

// The kinds the matcher can refuse with.
const (
	KindInvalidInput     Kind = "invalid_input"
	KindBinaryFile       Kind = "binary_file"
	KindTooLarge         Kind = "too_large"
	KindTextNotFound     Kind = "text_not_found"
	KindMultipleMatches  Kind = "multiple_matches"
	KindOverlappingEdits Kind = "overlapping_edits"
	KindNoChange         Kind = "no_change"
)

// Refusal is the matcher's only error. Message is written for a model that can only
// retry: what was wrong, where, and what to send instead.
type Refusal struct {
	Kind    Kind
	Edit    int   // index of the edit at fault, or -1
	Lines   []int // 1-based line numbers the message refers to, if any
	Message string
	// Tiers are the match tiers tried ("exact", "typography", "indentation",
	// "gutter"), and Closeness, for text_not_found, the share of oldText's lines
	// found (loosely) in the closest region: structure for failure analytics.
	Tiers     []string
	Closeness float64
}

func (r *Refusal) Error() string { return r.Message }

// ErrorKind lets callers outside this package read the kind without importing it.
func (r *Refusal) ErrorKind() string { return string(r.Kind) }

func refuse(kind Kind, edit int, lines []int, format string, args ...any) *Refusal {
	return &Refusal{Kind: kind, Edit: edit, Lines: lines, Message: fmt.Sprintf(format, args...)}
}

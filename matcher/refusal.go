package matcher

import (
	"fmt"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// Kind names a class of refusal: the project's one set of stable kinds.
type Kind = errs.Kind

// The kinds the matcher can refuse with.
const (
	KindInvalidInput     = errs.InvalidInput
	KindBinaryFile       = errs.BinaryFile
	KindTextNotFound     = errs.TextNotFound
	KindMultipleMatches  = errs.MultipleMatches
	KindOverlappingEdits = errs.OverlappingEdits
	KindNoChange         = errs.NoChange
	KindTooLarge         = errs.TooLarge
)

// Bounds on one call's matching, so that its time and memory follow the file's size
// and not the number of places a short oldText occurs at.
const (
	// MaxOccurrences is the most places one replaceAll edit changes; more is too_large.
	MaxOccurrences = 10000
	// MaxSplices is the most places all the edits of one file change together.
	MaxSplices = MaxOccurrences
	// MaxNamed is the most occurrences a multiple_matches refusal counts and names;
	// past it, it says "at least".
	MaxNamed = 100
	// MaxFoldBytes is the largest file the fuzzy tiers fold (and a miss is explained
	// by its closest region in): folding costs about a microsecond and tens of bytes
	// of memory per byte, so a larger file is matched at the exact tier only.
	MaxFoldBytes = 4 << 20
)

// Refusal is the matcher's name for the project's one error type. A refusal of the
// matcher always carries Where (the edit at fault, lines, tiers tried, closeness), and
// Message is written for a model that can only retry: what was wrong, where, and what
// to send instead.
type Refusal = errs.Error

func refuse(kind Kind, edit int, lines []int, format string, args ...any) *Refusal {
	return &Refusal{Kind: kind, Message: fmt.Sprintf(format, args...), Where: &errs.Where{Edit: edit, Lines: lines}}
}

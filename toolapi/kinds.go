package toolapi

import "github.com/vfsctl/vfsctl/internal/errs"

// Kind is the stable error kind of a refusal or failure (file_not_found, conflict,
// busy, ...): what a caller branches on, and what Result.Kind and Record.Kind hold.
type Kind = errs.Kind

// The kinds a caller of the Engine branches on or makes; Kinds lists them all.
const (
	InvalidInput = errs.InvalidInput
	TooLarge     = errs.TooLarge
	Busy         = errs.Busy
	Conflict     = errs.Conflict
)

// Kinds returns every error kind, in the order the design lists them.
func Kinds() []Kind { return append([]Kind(nil), errs.All...) }

// KindOf classifies any error: one the engine returned keeps its kind, operating
// system errors are mapped, anything else is io_error; nil has no kind ("").
func KindOf(err error) Kind { return errs.KindOf(err) }

// NewError returns an error of kind whose message, formatted, is what the reader sees:
// for refusing what never reached a tool (RecordUnparsed journals it).
func NewError(kind Kind, format string, args ...any) error {
	return errs.New(kind, "", format, args...)
}

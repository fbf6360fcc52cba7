// Package errs holds the one typed error that travels from every layer of vfsctl back
// to the caller, and its stable kinds. *Error is the only type in the project that
// implements error (a test checks it): callers branch with errors.As and read fields,
// never the message.
//
// It is a leaf: it imports nothing of the project, so every package may use it. The
// matcher returns *Error directly rather than a refusal of its own: importing a leaf
// that does no I/O keeps the matcher pure, and one type means no bridge that copies
// messages or fields from one error to another. What the journal keeps of a refusal
// (the edit index, lines, tiers tried, closeness; the call that blocks an undo) are
// fields of Error, not words of its message.
package errs

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
)

// Kind is a stable error class. Journals store it and operators count it: values are
// never renamed.
type Kind string

const (
	InvalidInput     Kind = "invalid_input"
	UnknownTool      Kind = "unknown_tool"
	PathOutsideRoot  Kind = "path_outside_root"
	PathReserved     Kind = "path_reserved"
	FileNotFound     Kind = "file_not_found"
	NotAFile         Kind = "not_a_file"
	BinaryFile       Kind = "binary_file"
	TooLarge         Kind = "too_large"
	FileExists       Kind = "file_exists"
	NotRead          Kind = "not_read"
	TextNotFound     Kind = "text_not_found"
	MultipleMatches  Kind = "multiple_matches"
	OverlappingEdits Kind = "overlapping_edits"
	NoChange         Kind = "no_change"
	Conflict         Kind = "conflict"
	PermissionDenied Kind = "permission_denied"
	Busy             Kind = "busy"
	IOError          Kind = "io_error"
	SyntaxError      Kind = "syntax_error"     // the change would break a file that parsed
	PlaceholderText  Kind = "placeholder_text" // real lines replaced by a "... existing code ..." comment
)

// All lists every kind, in the order of the design.
var All = []Kind{InvalidInput, UnknownTool, PathOutsideRoot, PathReserved, FileNotFound,
	NotAFile, BinaryFile, TooLarge, FileExists, NotRead, TextNotFound, MultipleMatches,
	OverlappingEdits, NoChange, Conflict, PermissionDenied, Busy, IOError, SyntaxError, PlaceholderText}

// Error is a refusal or failure with a stable Kind. Message is written for a model that
// can only retry: what was wrong, where, and what to send instead.
type Error struct {
	Kind    Kind
	Path    string // the path as the caller named it, if any
	Message string
	Err     error // the cause, if any

	// Where is the structure of a matcher's refusal of an edit, for failure
	// analytics; nil for every other error.
	Where *Where
	// Blocker is, for an undo refused as a conflict, the later call that changed what
	// it would revert (undo it first); Fact says what happened without advice, since
	// the advice depends on who asks (an operator can undo Blocker, a model cannot).
	Blocker uint64
	Fact    string
	// Found says, for a refusal about what stood at a path (file_exists, not_a_file),
	// what it was: one of the Found* values, or a special file's kind ("a FIFO"); At is
	// the path it stood at when that is not Path (a file on the way to a folder).
	// Replay rebuilds what the call met from these, not from the message.
	Found, At string
	// Detail is the structure of a refusal that its caller words in its own way (an
	// undo picked by a path that names one file of a command: txn.PartOfCall); nil
	// for every other error.
	Detail any
}

// What stood at a path, for Error.Found.
const (
	FoundFile        = "file"
	FoundDir         = "directory"
	FoundRoot        = "root"
	FoundHardLinks   = "hard links"
	FoundSymlinkLoop = "symlink loop"
)

// Stood returns e with Found (and At) set: what stood at the path it refuses.
func (e *Error) Stood(found, at string) *Error {
	e.Found, e.At = found, at
	return e
}

// Where is where and how the matcher refused an edit.
type Where struct {
	Edit  int   // index of the edit at fault, or -1
	Lines []int // 1-based line numbers the message refers to, if any
	// Tiers are the match tiers tried ("exact", "typography", "indentation",
	// "gutter"), and Closeness, for text_not_found, the share of oldText's lines
	// found (loosely) in the closest region.
	Tiers     []string
	Closeness float64
}

func (e *Error) Error() string {
	if e.Message != "" {
		return e.Message
	}
	if e.Err != nil {
		return e.Err.Error()
	}
	return string(e.Kind)
}

func (e *Error) Unwrap() error { return e.Err }

// New makes an *Error with a formatted message.
func New(kind Kind, path, format string, args ...any) *Error {
	return &Error{Kind: kind, Path: path, Message: fmt.Sprintf(format, args...)}
}

// Wrap makes an *Error that keeps cause for errors.Is and errors.As.
func Wrap(kind Kind, path string, cause error, format string, args ...any) *Error {
	return &Error{Kind: kind, Path: path, Message: fmt.Sprintf(format, args...), Err: cause}
}

// Prefixed is a copy of err with prefix put in front of its message, for a caller that
// names where in a larger call the error arose ("changes[1] (a.go): "). An err that is
// not an *Error is wrapped with the kind KindOf gives it.
func Prefixed(prefix string, err error) error {
	var e *Error
	if !errors.As(err, &e) {
		return &Error{Kind: KindOf(err), Message: prefix + err.Error(), Err: err}
	}
	e2 := *e
	e2.Message = prefix + e.Error()
	return &e2
}

// Suffixed is a copy of err with suffix put after its message, for a caller that has
// more to say of what happened next.
func Suffixed(err error, suffix string) error {
	var e *Error
	if !errors.As(err, &e) {
		return &Error{Kind: KindOf(err), Message: err.Error() + suffix, Err: err}
	}
	e2 := *e
	e2.Message = e.Error() + suffix
	return &e2
}

// KindOf classifies any error: an *Error keeps its kind; permission and other OS errors
// are mapped; anything else is io_error.
func KindOf(err error) Kind {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	switch {
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS):
		return PermissionDenied
	case errors.Is(err, fs.ErrNotExist):
		return FileNotFound
	case errors.Is(err, fs.ErrExist):
		return FileExists
	}
	return IOError
}

// Blocked returns the *Error in err's chain that names a call blocking an undo
// (Blocker set), or nil: callers that wrap it with their own advice keep it findable.
func Blocked(err error) *Error {
	var e *Error
	for errors.As(err, &e) {
		if e.Blocker != 0 {
			return e
		}
		err = e.Err
	}
	return nil
}

// Panic is a panic carried from the goroutine where it happened to the one that
// reports it, with the stack where it happened: the stack of the panic that raises it
// again would name only the line that did. It prints as the value it carries.
type Panic struct {
	Value any
	Stack []byte
}

func (p *Panic) String() string { return fmt.Sprint(p.Value) }

// Package errs holds the one typed error that travels from every layer of vfsctl back
// to the caller, and its stable kinds. It imports nothing of the project, so any
// package may use it (the matcher, which must stay free of project imports, has its own
// refusal type that reports the same kinds through ErrorKind).
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

// Error is a refusal or failure with a stable Kind. Msg is written for a model that can
// only retry: what was wrong, where, and what to send instead.
type Error struct {
	Kind Kind
	Path string // the path as the caller named it, if any
	Msg  string
	Err  error // the cause, if any
}

func (e *Error) Error() string {
	if e.Msg != "" {
		return e.Msg
	}
	if e.Err != nil {
		return e.Err.Error()
	}
	return string(e.Kind)
}

func (e *Error) Unwrap() error { return e.Err }

// ErrorKind reports the kind, like the matcher's refusals do.
func (e *Error) ErrorKind() string { return string(e.Kind) }

// New makes an *Error with a formatted message.
func New(kind Kind, path, format string, args ...any) *Error {
	return &Error{Kind: kind, Path: path, Msg: fmt.Sprintf(format, args...)}
}

// Wrap makes an *Error that keeps cause for errors.Is and errors.As.
func Wrap(kind Kind, path string, cause error, format string, args ...any) *Error {
	return &Error{Kind: kind, Path: path, Msg: fmt.Sprintf(format, args...), Err: cause}
}

// KindOf classifies any error: an error that reports its kind keeps it; permission and
// other OS errors are mapped; anything else is io_error.
func KindOf(err error) Kind {
	if err == nil {
		return ""
	}
	var k interface{ ErrorKind() string }
	if errors.As(err, &k) {
		return Kind(k.ErrorKind())
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

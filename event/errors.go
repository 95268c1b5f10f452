package event

import (
	"errors"
	"fmt"

	"github.com/agwire/agwire/internal/jsonx"
)

// Errors reported by Parse. They arrive wrapped in a *PathError that says
// where in the JSON text the problem is; test for them with errors.Is.
var (
	// ErrSyntax: the text is not JSON.
	ErrSyntax = jsonx.ErrSyntax
	// ErrTooDeep: the JSON nests deeper than the parser's limit.
	ErrTooDeep = jsonx.ErrTooDeep
	// ErrDuplicateKey: an event object names the same field twice.
	ErrDuplicateKey = jsonx.ErrDuplicateKey
	// ErrUnknownType: the "type" field names no AG-UI event type.
	ErrUnknownType = errors.New("unknown event type")
	// ErrNullMetadata: "metadata": null. Metadata is absent or an object,
	// never null (a null under a key inside it is fine).
	ErrNullMetadata = errors.New(`metadata must be an object or absent, not null`)
	// ErrMissingField: a required field is absent.
	ErrMissingField = errors.New("missing required field")
	// ErrUnknownField: a field the event type does not declare (see
	// Parser.DropUnknownFields).
	ErrUnknownField = errors.New("unknown field")
	// ErrUnsupportedEvent: a value whose type is not one of this package's
	// event types (such as a struct defined elsewhere that embeds Base);
	// every path refuses it. Package codec reports THINKING_* events, which
	// have no protobuf form, with the same error.
	ErrUnsupportedEvent = errors.New("unsupported event type")
	// ErrInvalidField: a field has the wrong JSON kind or a value outside
	// its allowed set.
	ErrInvalidField = errors.New("invalid field")
)

// PathError locates a failure: Path is the field path inside the event
// (such as "messages[2].toolCalls[0].metadata", empty at the top level),
// Offset the byte offset in the JSON text (-1 when not known), and Err the
// reason, one of the sentinel errors above, possibly wrapped.
type PathError struct {
	Path   string
	Offset int
	Err    error
}

func (e *PathError) Error() string {
	switch {
	case e.Path == "" && e.Offset < 0:
		return e.Err.Error()
	case e.Path == "":
		return fmt.Sprintf("at byte %d: %v", e.Offset, e.Err)
	case e.Offset < 0:
		return fmt.Sprintf("%s: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("%s (byte %d): %v", e.Path, e.Offset, e.Err)
}

func (e *PathError) Unwrap() error { return e.Err }

// exported gives an error leaving the package its exported form: the
// scanner's located errors become *PathError, at the top of the chain or
// directly under one wrapping error.
func exported(err error) error {
	switch e := err.(type) {
	case nil:
		return nil
	case *jsonx.Error:
		return &PathError{Path: e.Path, Offset: e.Offset, Err: e.Err}
	case interface{ Unwrap() error }:
		if je, ok := e.Unwrap().(*jsonx.Error); ok {
			return &wrapped{msg: err.Error(), err: &PathError{Path: je.Path, Offset: je.Offset, Err: je.Err}}
		}
	}
	return err
}

// wrapped keeps the text of an error whose wrapped error was exported.
type wrapped struct {
	msg string
	err error
}

func (w *wrapped) Error() string { return w.msg }
func (w *wrapped) Unwrap() error { return w.err }

// Package link connects package codec to two entry points of package event
// that skip work the codec has already done or does not need. They are not
// API: each is safe only under the condition its comment states. Package
// event sets them in its init; nothing changes them afterwards.
package link

import "github.com/agwire/agwire/internal/schema"

var (
	// ParseTransient parses a JSON event like event.Parser{MaxDepth,
	// DropUnknownFields}.Parse but without copying the input: the event
	// aliases data and must not be used after data changes. The result is
	// an event.Event.
	ParseTransient func(maxDepth int, dropUnknownFields bool, data []byte) (any, error)

	// AppendTrustedJSON writes an event's JSON like event.AppendJSON but
	// without re-validating dynamic values or the UTF-8 of strings: only for
	// events that agwire's own decoder produced (it validated both).
	AppendTrustedJSON func(dst []byte, ev any) ([]byte, error)

	// PlanOf returns the field table and address of an event (an
	// event.Event), or an error wrapping event.ErrUnsupportedEvent for nil
	// events and types defined outside package event.
	PlanOf func(ev any) (*schema.Plan, schema.Pointer, error)
)

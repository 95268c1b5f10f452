package event

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agwire/agwire/internal/jsonx"
	"github.com/agwire/agwire/internal/schema"
)

// The protocol versions a Parser reads (Parser.Protocol).
const (
	Protocol10 = "1.0"
	Protocol11 = "1.1"
)

// Later calls fn with the JSON Pointer of each field ev holds that a
// protocol version after 1.0 added (today AG-UI 1.1's encryptedValueType of
// REASONING_ENCRYPTED_VALUE, of a message and of a tool call), and its
// version. A 1.0 peer does not know them: a 1.0 parser treats them as
// undeclared properties, and a 1.0 codec does not carry them.
func Later(ev Event, fn func(pointer, since string)) {
	plan, ptr, err := planOf(ev)
	if err != nil {
		return
	}
	schema.Later(plan, ptr, "", func(path string, f *schema.Field, _ schema.Pointer, _ *schema.Plan, _ schema.Pointer) {
		fn(path, f.Since)
	})
}

// ClearLater removes from ev the fields Later reports, as a reader of an
// earlier version skips fields it does not know; it returns their JSON
// Pointers.
func ClearLater(ev Event) []string {
	plan, ptr, err := planOf(ev)
	if err != nil {
		return nil
	}
	return clearLater(plan, ptr)
}

func clearLater(plan *schema.Plan, ptr schema.Pointer) []string {
	var out []string
	schema.Later(plan, ptr, "", func(path string, _ *schema.Field, at schema.Pointer, _ *schema.Plan, _ schema.Pointer) {
		*at.OptString() = nil
		out = append(out, path)
	})
	return out
}

// knowsLater reports whether the parser's version reads the fields a later
// version added, and refuses a version it does not know.
func (p Parser) knowsLater() (bool, error) {
	switch p.Protocol {
	case "", Protocol10:
		return false, nil
	case Protocol11:
		return true, nil
	}
	return false, &PathError{Offset: -1, Err: fmt.Errorf("%w: Parser.Protocol %s is not a version this parser reads (%s, %s)", ErrInvalidField, jsonx.Quote(p.Protocol), Protocol10, Protocol11)}
}

// later treats what a later version added, in a value just parsed (plan,
// ptr), as a property no schema of the parser's version describes: a
// consuming parse removes it with a warning, DropUnknownFields removes it,
// and a strict parse fails with ErrUnknownField naming the first.
func (p Parser) later(t Type, plan *schema.Plan, ptr schema.Pointer, consume bool) error {
	if knows, err := p.knowsLater(); err != nil {
		return err
	} else if knows {
		return checkLater(plan, ptr)
	}
	if consume || p.DropUnknownFields {
		for _, path := range clearLater(plan, ptr) {
			if consume && p.Warn != nil {
				p.Warn(Warning{Type: t, Path: path, Reason: "removed an unrecognised property"})
			}
		}
		return nil
	}
	var first string
	schema.Later(plan, ptr, "", func(path string, _ *schema.Field, _ schema.Pointer, _ *schema.Plan, _ schema.Pointer) {
		if first == "" {
			first = path
		}
	})
	if first == "" {
		return nil
	}
	key := first[strings.LastIndexByte(first, '/')+1:]
	return &PathError{Path: PointerPath(first), Offset: -1, Err: fmt.Errorf("%w %s", ErrUnknownField, jsonx.Quote(key))}
}

// PointerPath spells a JSON Pointer (/messages/0/encryptedValueType) as
// error paths are spelled (messages[0].encryptedValueType).
func PointerPath(pointer string) string {
	var b strings.Builder
	for _, seg := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		if _, err := strconv.Atoi(seg); err == nil {
			b.WriteString("[" + seg + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	return b.String()
}

// CheckLater applies the rules of the fields a later version added to ev,
// for a reader or writer of that version: an encryptedValueType is never
// set without the encryptedValue it describes. It returns a *PathError
// wrapping ErrInvalidField naming the first that breaks one. (A 1.0 reader
// never sees these fields: it skips them, and so their rules.)
func CheckLater(ev Event) error {
	plan, ptr, err := planOf(ev)
	if err != nil {
		return nil
	}
	return checkLater(plan, ptr)
}

func checkLater(plan *schema.Plan, ptr schema.Pointer) error {
	var bad string
	schema.Later(plan, ptr, "", func(path string, f *schema.Field, _ schema.Pointer, holder *schema.Plan, in schema.Pointer) {
		if bad != "" || f.Name != "encryptedValueType" {
			return
		}
		for i := range holder.Fields {
			g := &holder.Fields[i]
			if g.Name == "encryptedValue" && g.Kind == schema.OptString && *in.Field(g).OptString() == nil {
				bad = path
			}
		}
	})
	if bad == "" {
		return nil
	}
	return &PathError{Path: PointerPath(bad), Offset: -1, Err: fmt.Errorf("%w: is set without encryptedValue", ErrInvalidField)}
}

// MayHoldLater reports whether ev is of a type that can hold a field a
// version after 1.0 added: a test cheap enough for every event, so that the
// others (most events) pay nothing for versions. TestLaterTypes holds it to
// the field tables.
func MayHoldLater(ev Event) bool {
	switch ev.(type) {
	case *ReasoningEncryptedValue, *MessagesSnapshot, *RunStarted:
		return true
	}
	return false
}

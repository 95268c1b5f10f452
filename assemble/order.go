package assemble

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/internal/jsonx"
)

// The conversation is written as @ag-ui/client's JSON.stringify writes its
// messages: a JavaScript object's members come out in the order they were
// first set, so the same message has another key order depending on how
// the client came to hold it. A message the client built from events has
// the order of the object literal that created it, with members it set
// later (metadata, encryptedValue, content on a message that had none)
// after them; a message that arrived whole (MESSAGES_SNAPSHOT, RUN_STARTED's
// input, a thread's history) went through the client's schema parse, which
// writes the members in the schema's order, whatever their order in the
// event. Each msg and call records its order in keys; writing puts the
// members in that order (TestMessageKeyOrder in assemble, and
// TestAssembleMatchesClient in interop, which compares texts).

// schemaOrder is the order the client's schema parse gives a message's
// members, by role (read off the client by parsing a snapshot whose
// messages carry every member, in reverse order). encryptedValueType, which
// AG-UI 1.1 adds and @ag-ui/client 1.0.0 does not know, is placed after
// encryptedValue, the value it describes.
var schemaOrder = map[string][]string{
	event.RoleUser:      {"subagentRunId", "id", "role", "name", "encryptedValue", "encryptedValueType", "metadata", "content"},
	event.RoleAssistant: {"subagentRunId", "id", "role", "name", "encryptedValue", "encryptedValueType", "metadata", "content", "toolCalls"},
	event.RoleDeveloper: {"subagentRunId", "id", "role", "name", "encryptedValue", "encryptedValueType", "metadata", "content"},
	event.RoleSystem:    {"subagentRunId", "id", "role", "name", "encryptedValue", "encryptedValueType", "metadata", "content"},
	event.RoleTool:      {"subagentRunId", "id", "role", "content", "toolCallId", "error", "encryptedValue", "encryptedValueType", "metadata"},
	event.RoleReasoning: {"subagentRunId", "id", "role", "content", "encryptedValue", "encryptedValueType", "metadata"},
	event.RoleActivity:  {"subagentRunId", "id", "role", "activityType", "content", "metadata"},
}

// schemaKeys is the order of a message that arrived whole: the schema's,
// of the members it has.
func schemaKeys(m *event.Message) []string {
	order := schemaOrder[m.Role]
	keys := make([]string, 0, len(order))
	for _, k := range order {
		if hasMember(m, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// hasMember reports whether m's JSON form has the member k.
func hasMember(m *event.Message, k string) bool {
	switch k {
	case "id", "role":
		return true
	case "subagentRunId":
		return m.SubagentRunID != nil
	case "name":
		return m.Name != nil
	case "encryptedValue":
		return m.EncryptedValue != nil
	case "encryptedValueType":
		return m.EncryptedValueType != nil
	case "metadata":
		return m.Metadata != nil
	case "content":
		return m.Content != nil || m.Parts != nil || m.ActivityContent != nil
	case "toolCalls":
		return m.ToolCalls != nil
	case "toolCallId":
		return m.ToolCallID != nil
	case "error":
		return m.Error != nil
	case "activityType":
		return m.ActivityType != nil
	}
	return false
}

// callSchemaKeys is the order of a tool call that arrived whole: the
// schema's (id, type, function, encryptedValue, metadata), of the members it
// has.
func callSchemaKeys(tc *event.ToolCall) []string {
	keys := []string{"id", "type", "function"}
	if tc.EncryptedValue != nil {
		keys = append(keys, "encryptedValue")
	}
	if tc.EncryptedValueType != nil {
		keys = append(keys, "encryptedValueType")
	}
	if tc.Metadata != nil {
		keys = append(keys, "metadata")
	}
	return keys
}

// setKey records that k was set: a member set for the first time goes
// after the others, one set again keeps its place.
func setKey(keys []string, k string) []string {
	if slices.Contains(keys, k) {
		return keys
	}
	return append(keys, k)
}

// dropKey records that k was deleted: set again, it goes last.
func dropKey(keys []string, k string) []string {
	if i := slices.Index(keys, k); i >= 0 {
		return slices.Delete(keys, i, i+1)
	}
	return keys
}

// member is one member of a JSON object: its key and its value's text.
type member struct {
	key   string
	value []byte
}

// objMembers splits a JSON object's text into its members.
func objMembers(obj []byte) ([]member, error) {
	var sc jsonx.Scanner
	sc.Reset(obj)
	var out []member
	err := sc.Object(func(key string) error {
		v, err := sc.Raw()
		out = append(out, member{key, v})
		return err
	})
	return out, err
}

// reorder writes the object obj with its members in the order keys gives;
// members keys does not name follow in their own order. value, when not
// nil, rewrites a member's value.
func reorder(dst, obj []byte, keys []string, value func(key string, v []byte) ([]byte, error)) ([]byte, error) {
	ms, err := objMembers(obj)
	if err != nil {
		return nil, err
	}
	dst = append(dst, '{')
	first := true
	put := func(m member) error {
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = jsonx.AppendString(dst, m.key)
		dst = append(dst, ':')
		if value != nil {
			v, err := value(m.key, m.value)
			if err != nil {
				return err
			}
			dst = append(dst, v...)
			return nil
		}
		dst = append(dst, m.value...)
		return nil
	}
	done := make([]bool, len(ms))
	for _, k := range keys {
		for i, m := range ms {
			if !done[i] && m.key == k {
				done[i] = true
				if err := put(m); err != nil {
					return nil, err
				}
				break
			}
		}
	}
	for i, m := range ms {
		if !done[i] {
			if err := put(m); err != nil {
				return nil, err
			}
		}
	}
	return append(dst, '}'), nil
}

// appendOrdered writes one message's JSON text (obj, in the writer's order)
// in the order the client has it.
func (m *msg) appendOrdered(dst, obj []byte) ([]byte, error) {
	if m.keys == nil {
		return append(dst, obj...), nil
	}
	return reorder(dst, obj, m.keys, func(key string, v []byte) ([]byte, error) {
		if key != "toolCalls" || len(m.calls) == 0 {
			return v, nil
		}
		var sc jsonx.Scanner
		sc.Reset(v)
		out := []byte{'['}
		err := sc.Array(func(i int) error {
			el, err := sc.Raw()
			if err != nil {
				return err
			}
			if i > 0 {
				out = append(out, ',')
			}
			if i >= len(m.calls) || m.calls[i].keys == nil {
				out = append(out, el...)
				return nil
			}
			out, err = reorder(out, el, m.calls[i].keys, nil)
			return err
		})
		return append(out, ']'), err
	})
}

// appendJS appends the JSON text v as JSON.stringify writes the value
// JavaScript reads from it: an object's members whose keys are array
// indices ("0" … "4294967294", no leading zero) first, in ascending order,
// then the others in their order (JavaScript's own order of an object's
// keys); numbers in JavaScript's spelling (1.0 is 1, 1e2 is 100, -0 is 0);
// strings escaped as JSON.stringify escapes them.
func appendJS(dst []byte, sc *jsonx.Scanner) ([]byte, error) {
	switch sc.Peek() {
	case jsonx.Object:
		type entry struct {
			key   string
			index uint64
			isIdx bool
			text  []byte
		}
		var es []entry
		err := sc.Object(func(key string) error {
			text, err := appendJS(nil, sc)
			if err != nil {
				return err
			}
			i, ok := jsIndex(key)
			es = append(es, entry{key, i, ok, text})
			return nil
		})
		if err != nil {
			return nil, err
		}
		slices.SortStableFunc(es, func(a, b entry) int {
			switch {
			case a.isIdx && b.isIdx:
				return cmp.Compare(a.index, b.index)
			case a.isIdx:
				return -1
			case b.isIdx:
				return 1
			}
			return 0
		})
		dst = append(dst, '{')
		for i, e := range es {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonx.AppendString(dst, e.key)
			dst = append(dst, ':')
			dst = append(dst, e.text...)
		}
		return append(dst, '}'), nil
	case jsonx.Array:
		dst = append(dst, '[')
		err := sc.Array(func(i int) error {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			dst, err = appendJS(dst, sc)
			return err
		})
		return append(dst, ']'), err
	case jsonx.String:
		s, err := sc.String()
		return jsonx.AppendString(dst, s), err
	case jsonx.Number:
		text, err := sc.Number()
		if err != nil {
			return nil, err
		}
		f, err := strconv.ParseFloat(string(text), 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, fmt.Errorf("assemble: number %s: not a double", text)
		}
		if f == 0 {
			return append(dst, '0'), nil // JavaScript writes -0 as 0
		}
		return jsonx.AppendFloat(dst, f), nil
	}
	v, err := sc.Raw() // true, false, null
	return append(dst, v...), err
}

// jsIndex reports whether key is an array index to JavaScript (which puts
// such keys first in an object), and which.
func jsIndex(key string) (uint64, bool) {
	if key == "" || len(key) > 10 || key[0] == '0' && len(key) > 1 {
		return 0, false
	}
	n, err := strconv.ParseUint(key, 10, 64)
	if err != nil || n > 4294967294 {
		return 0, false
	}
	return n, true
}

package codec_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/gen/aguipb11"
)

// TestV11AgainstProtobufGo holds the 1.1 profile to protobuf-go on the 1.1
// generated types (gen/aguipb11), the oracle of the 1.1 wire: every golden
// event that can carry a 1.1 field (REASONING_ENCRYPTED_VALUE, the messages
// of MESSAGES_SNAPSHOT and of RUN_STARTED's input, their tool calls) is
// given encryptedValueType at random places (and encryptedValue where the
// type needs one), and
//
//   - Codec{Profile: V11} writes the bytes protobuf-go writes for the same
//     message (the 1.0 oracle's message read into the 1.1 types, the types
//     set there), and decodes them back to the event;
//   - the 1.0 codec decodes those bytes to the event without the types (a
//     field it does not know, skipped), refuses to encode the event
//     (ErrNotInProfile), and, from its JSON, refuses the field as undeclared
//     (event.ErrUnknownField) or drops it (DropUnknownFields).
func TestV11AgainstProtobufGo(t *testing.T) {
	v11 := codec.Codec{Profile: codec.V11}
	rng := rand.New(rand.NewPCG(11, 1))
	checked, typed := 0, 0
	for _, g := range loadGolden(t) {
		// Keys sorted, as protobuf-go's deterministic marshal writes a
		// Struct's entries (a difference of order only, see
		// differential_test.go).
		input, err := orcCanonical(g.Input)
		if err != nil || bytes.Contains(input, []byte(`"type":"binary"`)) {
			// The retired binary part's marker metadata is written in
			// another order than protobuf-go's, a documented difference
			// of the 1.0 wire (differential_test.go).
			continue
		}
		base, err := event.Parse(input)
		if err != nil {
			continue // the corpus's refusals are other tests' business
		}
		switch base.(type) {
		case *event.ReasoningEncryptedValue, *event.MessagesSnapshot, *event.RunStarted:
		default:
			continue
		}
		for round := 0; round < 4; round++ {
			ev, err := event.Parse(input)
			if err != nil {
				t.Fatal(err)
			}
			n := addTypes(ev, rng)
			typed += n
			checked++
			at := fmt.Sprintf("%s (round %d)", input, round)
			plain, err := event.Marshal(ev)
			if err != nil {
				t.Fatalf("%s: %v", at, err)
			}
			bare, _ := event.Parse(input) // the event as 1.0 has it
			addTypesLike(bare, ev, false)
			bareJSON, err := event.Marshal(bare)
			if err != nil {
				t.Fatal(err)
			}
			want := oracle11(t, bareJSON, ev)
			got, err := v11.Append(nil, ev)
			if err != nil {
				t.Errorf("%s: V11 encode: %v", at, err)
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: V11 writes\n%x\nprotobuf-go on aguipb11\n%x", at, got, want)
				continue
			}
			// What the wire normalises (an empty list and an absent one are
			// the same bytes), the 1.0 round trip of the event shows.
			oldWire, err := codec.Codec{}.Append(nil, bare)
			if err != nil {
				t.Fatalf("%s: 1.0 encode of the event without types: %v", at, err)
			}
			ref, err := codec.Codec{}.Unmarshal(oldWire)
			if err != nil {
				t.Fatal(err)
			}
			refJSON, _ := event.Marshal(ref)
			back, err := v11.Unmarshal(want)
			if err != nil {
				t.Errorf("%s: V11 decode: %v", at, err)
				continue
			}
			if got, want := laterOf(back), laterOf(ev); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: V11 decodes the types %q, want %q", at, got, want)
			}
			event.ClearLater(back)
			if b, _ := event.Marshal(back); !bytes.Equal(b, refJSON) {
				t.Errorf("%s: V11 decodes, without its types, to\n%s\nwant\n%s", at, b, refJSON)
			}
			// The 1.0 reader: the types are fields it does not know.
			old, err := codec.Codec{}.Unmarshal(want)
			if err != nil {
				t.Errorf("%s: 1.0 decode: %v", at, err)
				continue
			}
			if b, _ := event.Marshal(old); !bytes.Equal(b, refJSON) {
				t.Errorf("%s: 1.0 decodes to\n%s\nwant\n%s", at, b, refJSON)
			}
			if n == 0 {
				continue
			}
			if _, err := (codec.Codec{}).Append(nil, ev); !errors.Is(err, codec.ErrNotInProfile) {
				t.Errorf("%s: 1.0 encode: %v, want ErrNotInProfile", at, err)
			}
			if _, err := (codec.Codec{}).AppendFromJSON(nil, plain); !errors.Is(err, event.ErrUnknownField) {
				t.Errorf("%s: 1.0 from JSON: %v, want event.ErrUnknownField", at, err)
			}
			dropped, err := codec.Codec{DropUnknownFields: true}.AppendFromJSON(nil, plain)
			if err != nil || !bytes.Equal(dropped, oldWire) {
				t.Errorf("%s: 1.0 from JSON, DropUnknownFields: %v\n%x\nwant\n%x", at, err, dropped, oldWire)
			}
			if b, err := v11.AppendFromJSON(nil, plain); err != nil || !bytes.Equal(b, want) {
				t.Errorf("%s: V11 from JSON: %v", at, err)
			}
		}
	}
	if checked < 20 || typed < 20 {
		t.Fatalf("only %d events, %d types checked: the corpus lost its cases", checked, typed)
	}
	t.Logf("%d events, %d encryptedValueType fields: byte-identical to protobuf-go on aguipb11", checked, typed)
}

// laterOf lists the 1.1 fields ev sets, as pointer=value.
func laterOf(ev event.Event) []string {
	var out []string
	event.Later(ev, func(pointer, _ string) { out = append(out, pointer) })
	return out
}

var typeNames = []string{"anthropic/thinking-signature", "openai/reasoning-encrypted", "", "x"}

// addTypes sets encryptedValueType (with an encryptedValue where there is
// none) on a random subset of what can carry one, and returns how many.
func addTypes(ev event.Event, rng *rand.Rand) int {
	n := 0
	pick := func() *string {
		if rng.IntN(3) == 0 {
			return nil
		}
		n++
		s := typeNames[rng.IntN(len(typeNames))]
		return &s
	}
	msgs := func(ms []event.Message) {
		for i := range ms {
			m := &ms[i]
			if ty := pick(); ty != nil {
				if m.EncryptedValue == nil {
					m.EncryptedValue = event.Ptr("enc")
				}
				m.EncryptedValueType = ty
			}
			for j := range m.ToolCalls {
				tc := &m.ToolCalls[j]
				if ty := pick(); ty != nil {
					if tc.EncryptedValue == nil {
						tc.EncryptedValue = event.Ptr("enc")
					}
					tc.EncryptedValueType = ty
				}
			}
		}
	}
	switch e := ev.(type) {
	case *event.ReasoningEncryptedValue:
		e.EncryptedValueType = pick()
	case *event.MessagesSnapshot:
		msgs(e.Messages)
	case *event.RunStarted:
		if e.Input != nil {
			msgs(e.Input.Messages)
		}
	}
	return n
}

// addTypesLike gives bare the encryptedValues typed holds (the values that
// addTypes added for its types), and, with types, the types too.
func addTypesLike(bare, typed event.Event, types bool) {
	msgs := func(dst, src []event.Message) {
		for i := range dst {
			dst[i].EncryptedValue = src[i].EncryptedValue
			if types {
				dst[i].EncryptedValueType = src[i].EncryptedValueType
			}
			for j := range dst[i].ToolCalls {
				dst[i].ToolCalls[j].EncryptedValue = src[i].ToolCalls[j].EncryptedValue
				if types {
					dst[i].ToolCalls[j].EncryptedValueType = src[i].ToolCalls[j].EncryptedValueType
				}
			}
		}
	}
	switch e := bare.(type) {
	case *event.ReasoningEncryptedValue:
		if types {
			e.EncryptedValueType = typed.(*event.ReasoningEncryptedValue).EncryptedValueType
		}
	case *event.MessagesSnapshot:
		msgs(e.Messages, typed.(*event.MessagesSnapshot).Messages)
	case *event.RunStarted:
		if e.Input != nil {
			msgs(e.Input.Messages, typed.(*event.RunStarted).Input.Messages)
		}
	}
}

// oracle11 is protobuf-go's encoding of typed on the 1.1 types: the 1.0
// oracle's message for bareJSON (typed without its types), read into
// aguipb11 (the 1.1 wire is the 1.0 wire plus three fields), with the types
// set on the generated message.
func oracle11(t *testing.T, bareJSON []byte, typed event.Event) []byte {
	t.Helper()
	m10, err := orcOracle(bareJSON, false)
	if err != nil {
		t.Fatalf("oracle: %s: %v", bareJSON, err)
	}
	b, err := dtMarshal.Marshal(m10)
	if err != nil {
		t.Fatal(err)
	}
	m := new(aguipb11.Event)
	if err := proto.Unmarshal(b, m); err != nil {
		t.Fatal(err)
	}
	msgs := func(dst []*aguipb11.Message, src []event.Message) {
		if len(dst) != len(src) {
			t.Fatalf("oracle: %d messages, the event has %d", len(dst), len(src))
		}
		for i := range dst {
			dst[i].EncryptedValueType = src[i].EncryptedValueType
			for j := range dst[i].ToolCalls {
				dst[i].ToolCalls[j].EncryptedValueType = src[i].ToolCalls[j].EncryptedValueType
			}
		}
	}
	switch e := typed.(type) {
	case *event.ReasoningEncryptedValue:
		m.GetReasoningEncryptedValue().EncryptedValueType = e.EncryptedValueType
	case *event.MessagesSnapshot:
		msgs(m.GetMessagesSnapshot().GetMessages(), e.Messages)
	case *event.RunStarted:
		if e.Input != nil {
			msgs(m.GetRunStarted().GetInput().GetMessages(), e.Input.Messages)
		}
	}
	out, err := dtMarshal.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestProfileVersions: what a producer of each profile declares.
func TestProfileVersions(t *testing.T) {
	for p, want := range map[codec.Profile]string{codec.V1: "1.0", codec.V11: "1.1", codec.PreV1: ""} {
		if got := p.ProtocolVersion(); got != want {
			t.Errorf("%s: ProtocolVersion %q, want %q", p, got, want)
		}
	}
}

// TestV11TypeWithoutValue: a type is never sent without its value. The 1.1
// codec refuses to write one (ErrInvalid) and to read one (ErrMalformed),
// naming it; a 1.0 reader does not know the field, and reads the frame
// protobuf-go writes for it as if the field were not there.
func TestV11TypeWithoutValue(t *testing.T) {
	ty := "sig"
	m := &aguipb11.Event{Event: &aguipb11.Event_MessagesSnapshot{MessagesSnapshot: &aguipb11.MessagesSnapshotEvent{
		BaseEvent: &aguipb11.BaseEvent{Type: aguipb11.EventType_MESSAGES_SNAPSHOT},
		Messages: []*aguipb11.Message{{Id: "a", Role: "assistant", Content: proto.String("x"),
			ToolCalls: []*aguipb11.ToolCall{{Id: "c", Type: "function", Function: &aguipb11.ToolCall_Function{Name: "f"}, EncryptedValueType: &ty}}}},
	}}}
	wire, err := dtMarshal.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var skipped []string
	ev, err := codec.Codec{Skipped: func(typ event.Type, pointer string) {
		skipped = append(skipped, string(typ)+" "+pointer)
	}}.Unmarshal(wire)
	if err != nil {
		t.Fatalf("1.0 decode: %v", err)
	}
	if want := []string{"MESSAGES_SNAPSHOT /messages/0/toolCalls/0/encryptedValueType"}; !reflect.DeepEqual(skipped, want) {
		t.Errorf("1.0 decode skipped %q, want %q", skipped, want)
	}
	if b, _ := event.Marshal(ev); bytes.Contains(b, []byte("encryptedValueType")) {
		t.Errorf("1.0 decode kept the 1.1 field: %s", b)
	}
	var ce *codec.Error
	_, err = codec.Codec{Profile: codec.V11}.Unmarshal(wire)
	if !errors.Is(err, codec.ErrMalformed) || !errors.As(err, &ce) || ce.Path != "messages[0].toolCalls[0].encryptedValueType" {
		t.Errorf("V11 decode: %v", err)
	}
	ev.(*event.MessagesSnapshot).Messages[0].ToolCalls[0].EncryptedValueType = &ty
	_, err = codec.Codec{Profile: codec.V11}.Append(nil, ev)
	if !errors.Is(err, codec.ErrInvalid) || !errors.As(err, &ce) || ce.Path != "messages[0].toolCalls[0].encryptedValueType" {
		t.Errorf("V11 encode: %v", err)
	}
}

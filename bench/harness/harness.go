// Package harness prepares one input in every form the compared
// implementations start from: AG-UI JSON text, agwire events, agwire's wire
// bytes, the generated protobuf-go and vtproto messages, the protojson text,
// a generic encoding/json value and the SSE blocks.
package harness

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/agwire/agwire/bench/corpus"
	"github.com/agwire/agwire/bench/vtpb"
	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/gen/aguipb"
)

// Input is one benchmark input: one event (a synthetic case) or many (the
// recorded-style run), in every starting form.
type Input struct {
	Name   string
	JSON   [][]byte        // AG-UI JSON, one per event
	Events []event.Event   // parsed by agwire
	Wire   [][]byte        // agwire's encoding, unframed
	Framed []byte          // the whole binary stream: 4-byte length + Wire, per event
	PB     []*aguipb.Event // protobuf-go messages (from the wire)
	VT     []*vtpb.Event   // vtproto messages (from the wire)
	PJSON  [][]byte        // protojson text of PB
	Any    []any           // encoding/json's generic value of JSON
	SSE    [][]byte        // "data: " + JSON + "\n\n", per event
	Bytes  struct{ JSON, Wire, Framed, SSE int }
}

// Prepare builds an Input from AG-UI JSON events. Every conversion is
// checked: the protobuf-go and vtproto messages must encode back to agwire's
// bytes, so all implementations work on the same events.
func Prepare(name string, events [][]byte) (*Input, error) {
	in := &Input{Name: name, JSON: events}
	var framed bytes.Buffer
	fw := framing.NewWriter(&framed, framing.WriterOptions{Codec: codec.Codec{}})
	for i, js := range events {
		ev, err := event.Parse(js)
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", name, i, err)
		}
		wire, err := codec.Append(nil, ev)
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", name, i, err)
		}
		if err := fw.WriteFrame(wire); err != nil {
			return nil, err
		}
		pb := new(aguipb.Event)
		if err := proto.Unmarshal(wire, pb); err != nil {
			return nil, fmt.Errorf("%s[%d]: protobuf-go: %w", name, i, err)
		}
		if again, _ := (proto.MarshalOptions{Deterministic: true}).Marshal(pb); !bytes.Equal(again, wire) {
			// Map-free schema: protobuf-go writes the same bytes except for
			// Struct entry order, which it sorts. Accept that difference
			// only if both decode to the same message.
			back := new(aguipb.Event)
			if err := proto.Unmarshal(again, back); err != nil || !proto.Equal(back, pb) {
				return nil, fmt.Errorf("%s[%d]: protobuf-go does not round-trip", name, i)
			}
		}
		vt := new(vtpb.Event)
		if err := vt.UnmarshalVT(wire); err != nil {
			return nil, fmt.Errorf("%s[%d]: vtproto: %w", name, i, err)
		}
		pj, err := protojson.Marshal(pb)
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: protojson: %w", name, i, err)
		}
		var v any
		if err := json.Unmarshal(js, &v); err != nil {
			return nil, fmt.Errorf("%s[%d]: encoding/json: %w", name, i, err)
		}
		sse := make([]byte, 0, len(js)+8)
		sse = append(append(append(sse, "data: "...), js...), "\n\n"...)

		in.Events = append(in.Events, ev)
		in.Wire = append(in.Wire, wire)
		in.PB = append(in.PB, pb)
		in.VT = append(in.VT, vt)
		in.PJSON = append(in.PJSON, pj)
		in.Any = append(in.Any, v)
		in.SSE = append(in.SSE, sse)
		in.Bytes.JSON += len(js)
		in.Bytes.Wire += len(wire)
		in.Bytes.SSE += len(sse)
	}
	in.Framed = framed.Bytes()
	in.Bytes.Framed = len(in.Framed)
	return in, nil
}

// Cases prepares the synthetic cases and, if withRun, the recorded-style run
// (named "Run") after them.
func Cases(withRun bool) ([]*Input, error) {
	var out []*Input
	for _, c := range corpus.Cases() {
		in, err := Prepare(c.Name, [][]byte{c.JSON})
		if err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	if withRun {
		in, err := Prepare("Run", corpus.Run())
		if err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	return out, nil
}

// AppendFrame appends a 4-byte big-endian length prefix and payload.
func AppendFrame(dst, payload []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(payload)))
	return append(dst, payload...)
}

package codec

import "github.com/agwire/agwire/event"

// DecodeWork decodes b with c and returns the number of protobuf fields the
// decoder read: the measure of decoding work the growth tests compare,
// free of a shared machine's timing noise.
func DecodeWork(c Codec, b []byte) (int, error) {
	d := decoders.Get().(*decoder)
	defer d.release()
	d.reads = 0
	d.nonFiniteAsNull = c.NonFiniteAsNull
	d.unsafeInts = c.UnsafeIntegers
	d.maxDepth = c.maxDepth()
	d.depth = 0
	d.budget = c.budget(len(b))
	d.data = append([]byte(nil), b...)
	_, err := d.envelope()
	return d.reads, err
}

// AppendReference encodes with the reference encoder, which walks the
// field tables at run time: what the generated coders are held to.
func AppendReference(c Codec, dst []byte, ev Event) ([]byte, error) {
	return c.appendReference(dst, ev)
}

// Event is event.Event, for the signature above.
type Event = event.Event

// UnmarshalReference decodes with the reference decoder alone.
func UnmarshalReference(c Codec, b []byte) (Event, error) {
	d := decoders.Get().(*decoder)
	defer d.release()
	d.nonFiniteAsNull = c.NonFiniteAsNull
	d.unsafeInts = c.UnsafeIntegers
	d.maxDepth = c.maxDepth()
	d.depth = 0
	d.budget = c.budget(len(b))
	if err := d.charge(len(b)); err != nil {
		return nil, toError("decode", "", err)
	}
	d.data = append([]byte(nil), b...)
	ev, err := d.envelope()
	if err != nil {
		t := event.Type("")
		if ev != nil {
			t = ev.Type()
		}
		return nil, toError("decode", t, err)
	}
	return ev, nil
}

// DecodeGenerated decodes with the generated decoders alone: ok is false
// where they leave the frame to the reference decoder.
func DecodeGenerated(c Codec, b []byte) (ev Event, ok bool) {
	d := decoders.Get().(*decoder)
	defer d.release()
	d.nonFiniteAsNull = c.NonFiniteAsNull
	d.unsafeInts = c.UnsafeIntegers
	d.maxDepth = c.maxDepth()
	d.depth = 0
	d.budget = c.budget(len(b))
	if d.charge(len(b)) != nil {
		return nil, false
	}
	d.data = append([]byte(nil), b...)
	return decodeGenerated(d)
}

// AppendJSONGenerated writes a decoded event's JSON with the generated
// writers.
func AppendJSONGenerated(b []byte, ev Event) ([]byte, bool) { return appendJSONGenerated(b, ev) }

// ParseGenerated reads a JSON event with the generated parsers alone.
func ParseGenerated(maxDepth int, data []byte) (Event, bool) { return parseFast(maxDepth, data) }

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

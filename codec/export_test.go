package codec

import "github.com/agwire/agwire/event"

// DecodeWork decodes b with c and returns the number of protobuf fields the
// reference decoder read: the measure of decoding work the growth tests
// compare, free of a shared machine's timing noise.
func DecodeWork(c Codec, b []byte) (int, error) {
	d, err := c.decoder(b)
	if err != nil {
		return 0, err
	}
	defer d.release()
	_, err = d.reference()
	return d.reads, err
}

// Event is event.Event, for the signatures below.
type Event = event.Event

// UnmarshalReference decodes with the reference decoder alone.
func UnmarshalReference(c Codec, b []byte) (Event, error) {
	d, err := c.decoder(b)
	if err != nil {
		return nil, err
	}
	defer d.release()
	return d.reference()
}

// DecodeGenerated decodes with the generated decoders alone: ok is false
// where they leave the frame to the reference decoder.
func DecodeGenerated(c Codec, b []byte) (ev Event, ok bool) {
	d, err := c.decoder(b)
	if err != nil {
		return nil, false
	}
	defer d.release()
	return decodeGenerated(d)
}
